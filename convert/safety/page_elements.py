"""The document's nodes in one pass, bucketed by the attributes and tags the HTML scan reads.

One walk in Python that looks at each element's tag and attribute names costs less than the
XPath searches and the tag-filtered walks it replaces (libxml2 evaluates a predicate on every
node slowly, and each filtered walk still visits every node: about 0.2 ms on an average page),
and holding every element keeps lxml's Python proxies alive, so that each later pass over the
tree reuses them instead of creating (and classifying) one per element again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from lxml import etree

_STYLING: Final = frozenset({"style", "hidden", "aria-hidden"})
_LABELLING: Final = frozenset({"alt", "title", "aria-label", "aria-description"})
_KEYING: Final = frozenset({"class", "id"})
_HIDING: Final = frozenset({"hidden", "aria-hidden", "style", "class"})
_WATCHED: Final = _STYLING | _LABELLING | _KEYING | _HIDING
TAG_GROUPS: Final = {
    "links": ("a", "area"),
    "images": ("img",),
    "styles": ("style",),
    "metadata": ("meta", "title"),
    "unrendered": ("noscript", "template"),
}
"""The tags the scan reads, grouped the way it reads them (each group in document order)."""
_GROUP_OF: Final = {tag: group for group, tags in TAG_GROUPS.items() for tag in tags}


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
    hideable: list[Any] = field(default_factory=list)
    """Anywhere: elements with a ``hidden``, ``aria-hidden``, ``style`` or ``class`` attribute,
    the only ones :func:`convert.hiding.is_hidden` can find hidden (the conversion's cleaning
    reads them instead of every element when the scan has run)."""
    every: list[Any] = field(default_factory=list)
    """Every element, in document order."""
    tagged: dict[str, list[Any]] = field(default_factory=lambda: {g: [] for g in TAG_GROUPS})
    """Anywhere: the elements of each group of :data:`TAG_GROUPS`."""
    comments: list[Any] = field(default_factory=list)
    """The comments inside the document's root element."""


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
    tagged = found.tagged
    for element in root.iter():
        tag = element.tag
        if not isinstance(tag, str):
            if tag is etree.Comment:
                found.comments.append(element)
            continue
        found.every.append(element)
        group = _GROUP_OF.get(tag)
        if group is not None:
            tagged[group].append(element)
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
            if not _HIDING.isdisjoint(names):
                found.hideable.append(element)
        if element is last:
            inside = False
    return found
