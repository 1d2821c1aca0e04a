"""A parsed document's nodes, bucketed by the attributes and tags that the safety scan
(:mod:`convert.safety`) reads, and by what the conversion's cleaning may find hidden.

One walk in Python looks at each element's attribute names, which costs less than the XPath
searches it replaces (libxml2 evaluates a predicate on every node slowly); what needs no look
at the attributes (the tag groups, the comments) lxml finds on its own, faster than a test per
element in Python, and where the body starts and ends is looked up in the list of elements.
Holding every element keeps lxml's Python proxies alive, so that each later pass over the tree
reuses them instead of creating (and classifying) one per element again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from lxml import etree

_STYLING: Final = frozenset({"style", "hidden", "aria-hidden"})
_LABELLING: Final = frozenset({"alt", "title", "aria-label", "aria-description"})
_KEYING: Final = frozenset({"class", "id"})
_HIDING: Final = frozenset({"hidden", "aria-hidden", "style", "class"})
_STYLED: Final = 1
_LABELLED: Final = 2
_KEYED: Final = 4
_HIDEABLE: Final = 8
_BUCKETS: Final = {
    name: sum(bit for bit, names in ((_STYLED, _STYLING), (_LABELLED, _LABELLING),
              (_KEYED, _KEYING), (_HIDEABLE, _HIDING)) if name in names)
    for name in _STYLING | _LABELLING | _KEYING | _HIDING
}  # fmt: skip
"""The buckets an attribute's name puts its element in, as bits."""
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
    the only ones :func:`convert.html.hiding.is_hidden` can find hidden (when the scan has run, the
    conversion tests them instead of every element)."""
    class_only: list[bool] = field(default_factory=list)
    """For each element of ``hideable``: whether it has a ``class`` but no ``hidden``,
    ``aria-hidden`` or ``style`` attribute (only its class can hide it)."""
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
    """The elements of the document ``root``, bucketed (see :class:`PageElements`): one walk
    in Python over the elements for their attribute names; the body's bounds looked up in the
    list of elements; the tag groups and the comments found by lxml."""
    found = PageElements()
    every = found.every
    styled: list[Any] = []
    labelled, keyed, hideable = found.labelled, found.keyed, found.hideable
    class_only = found.class_only
    buckets_of = _BUCKETS.get
    for element in root.iter(etree.Element):
        every.append(element)
        buckets = 0
        for name in element.keys():  # noqa: SIM118 (iterating an element gives its children)
            buckets |= buckets_of(name, 0)
        if buckets:
            if buckets & _STYLED:
                styled.append(element)
            if buckets & _LABELLED:
                labelled.append(element)
            if buckets & _KEYED:
                keyed.append(element)
            if buckets & _HIDEABLE:
                hideable.append(element)
                class_only.append(not buckets & _STYLED)
    body = root.find("body")
    start, end = 0, len(every)
    if body is not None:
        start = every.index(body)
        end = every.index(_last_descendant(body), start) + 1
    found.body.extend(every[start:end])
    if start > 0 or end < len(every):  # the head's elements (and any after the body)
        outside = set(every[:start])
        outside.update(every[end:])
        styled = [element for element in styled if element not in outside]
    found.styled.extend(styled)
    for element in root.iter(*_GROUP_OF):
        found.tagged[_GROUP_OF[element.tag]].append(element)
    found.comments.extend(root.iter(etree.Comment))
    return found
