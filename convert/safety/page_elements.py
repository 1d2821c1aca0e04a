"""The document's elements in one pass, bucketed by the attributes the HTML scan reads.

One walk in Python that looks at each element's attribute names costs less than the three
XPath searches it replaces (libxml2 evaluates a predicate on every node slowly), and holding
every element keeps lxml's Python proxies alive, so that each later pass over the tree reuses
them instead of creating (and classifying) one per element again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from lxml import etree

_STYLING: Final = frozenset({"style", "hidden", "aria-hidden"})
_LABELLING: Final = frozenset({"alt", "title", "aria-label", "aria-description"})
_KEYING: Final = frozenset({"class", "id"})
_WATCHED: Final = _STYLING | _LABELLING | _KEYING


@dataclass(frozen=True)
class PageElements:
    body: list[Any] = field(default_factory=list)
    """The body and its descendants, in document order."""
    styled: list[Any] = field(default_factory=list)
    """In the body: elements with a ``style``, ``hidden`` or ``aria-hidden`` attribute."""
    labelled: list[Any] = field(default_factory=list)
    """Anywhere: elements with an ``alt``, ``title``, ``aria-label`` or ``aria-description``."""
    keyed: list[Any] = field(default_factory=list)
    """Anywhere: elements with a ``class`` or an ``id``."""
    every: list[Any] = field(default_factory=list)
    """Every element, in document order."""


def _last_descendant(element: Any) -> Any:
    last = element
    while True:
        child = next(last.iterchildren(etree.Element, reversed=True), None)
        if child is None:
            return last
        last = child


def page_elements(root: Any) -> PageElements:
    """The elements of the document ``root``, bucketed (see :class:`PageElements`)."""
    found = PageElements()
    body = root.find("body")
    if body is None:
        body = root
    last = _last_descendant(body)
    inside = False
    for element in root.iter(etree.Element):
        found.every.append(element)
        if element is body:
            inside = True
        if inside:
            found.body.append(element)
        names = element.keys()
        if names and not _WATCHED.isdisjoint(names):
            if inside and not _STYLING.isdisjoint(names):
                found.styled.append(element)
            if not _LABELLING.isdisjoint(names):
                found.labelled.append(element)
            if not _KEYING.isdisjoint(names):
                found.keyed.append(element)
        if element is last:
            inside = False
    return found
