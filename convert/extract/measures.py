"""Text lengths, link text and the tags an element holds, measured once per element, bottom up,
and kept until the tree changes: main-content extraction asks about many elements and their
ancestors, and reading each one's text anew would make deep or large pages quadratic."""

from __future__ import annotations

import copy
from typing import NamedTuple
from urllib.parse import urlsplit

from lxml import etree

from convert.text.urls import registrable_domain

_HELD = {"article": 1, "main": 2, "h1": 4, "img": 8}
"""The tags :meth:`Measures.holds` answers for, as bits."""


class _Measure(NamedTuple):
    """One element's text (``text_content()``, whitespace not yet collapsed) as far as its
    collapsed length needs it, what links hold of it and what the element contains."""

    chars: int
    """Characters that are not whitespace."""
    words: int
    """Runs of such characters; the collapsed text has one space between two of them."""
    starts: bool | None
    """Whether the text starts with a non-space (None: the text is empty)."""
    ends: bool
    """Whether it ends with one."""
    commas: int
    linked: int = 0
    """The collapsed length of the text of every link in ``iter("a")`` (itself included)."""
    links: int = 0
    """The ``<a>`` elements in ``iter("a")``."""
    below: int = 0
    """The bits of :data:`_HELD` for the tags of its descendants (not its own)."""


class Measures:
    """Lengths of elements' whitespace-collapsed text (``len(text_of(element))``), the length
    of their link text and the tags they hold, each computed once for a tree, bottom up, when
    first asked for.

    An element is measured only after all its children are, so a known element has known
    children. Call :meth:`forget` before changing an element's subtree; changes to a tree with
    no forgetting need a new instance."""

    def __init__(self) -> None:
        self._known: dict[etree._Element, _Measure] = {}

    def length(self, element: etree._Element) -> int:
        """``len(text_of(element))``, without building the text."""
        measure = self._measure(element)
        return measure.chars + measure.words - 1 if measure.words else 0

    def prose(self, element: etree._Element) -> int:
        """The length of the element's text outside links."""
        measure = self._measure(element)
        return (measure.chars + measure.words - 1 if measure.words else 0) - measure.linked

    def commas(self, element: etree._Element) -> int:
        """The commas (Latin and CJK) in the element's text."""
        return self._measure(element).commas

    def linked(self, element: etree._Element) -> int:
        """The summed text lengths of the links in ``element.iter("a")``."""
        return self._measure(element).linked

    def links(self, element: etree._Element) -> int:
        """The number of links in ``element.iter("a")``."""
        return self._measure(element).links

    def holds(self, element: etree._Element, tag: str) -> bool:
        """Whether a descendant of ``element`` is a ``tag`` (one of :data:`_HELD`)."""
        return bool(self._measure(element).below & _HELD[tag])

    def copy(self, element: etree._Element) -> etree._Element:
        """A deep copy of ``element`` without its tail, with what is known of ``element`` and
        its descendants known of their copies."""
        clone = copy_element(element)
        known = self._known
        for original, twin in zip(element.iter(), clone.iter(), strict=True):
            found = known.get(original)
            if found is not None:
                known[twin] = found
        return clone

    def forget(self, element: etree._Element) -> None:
        """Drop what is known of ``element`` and of its ancestors, before it changes."""
        self._known.pop(element, None)
        for ancestor in element.iterancestors():
            if self._known.pop(ancestor, None) is None:
                break  # not known, so neither are the ancestors above it

    def _measure(self, element: etree._Element) -> _Measure:
        known = self._known
        found = known.get(element)
        if found is not None:
            return found
        if not known:
            # Nothing known yet: the whole subtree, every element after its descendants (the
            # reverse of document order), listed by lxml without a step per element in Python.
            for node in reversed(list(element.iter(etree.Element))):
                known[node] = self._tally(node)
            return known[element]
        # The unknown part of the subtree, parents before children, with an explicit stack
        # (trees can be thousands of levels deep); then measured children first.
        order: list[etree._Element] = []
        pending = [element]
        while pending:
            node = pending.pop()
            order.append(node)
            for child in node.iterchildren(etree.Element):
                if child not in known:
                    pending.append(child)
        for node in reversed(order):
            known[node] = self._tally(node)
        return known[element]

    def _tally(self, element: etree._Element) -> _Measure:
        """Measure ``element`` from its own text, its children's measures and their tails:
        the runs of text in document order, a word split across two runs counted once (this runs
        for every element of the tree, so written out in one loop)."""
        known = self._known
        linked = links = below = chars = words = commas = 0
        starts: bool | None = None
        ends = False
        text = element.text
        if text:
            parts = text.split()
            starts = ends = False
            if parts:
                chars, words = len("".join(parts)), len(parts)
                commas = text.count(",") + text.count("\uff0c") + text.count("\u3001")
                starts, ends = not text[0].isspace(), not text[-1].isspace()
        for child in element:
            if isinstance(child.tag, str):
                inner = known[child]
                linked += inner.linked
                links += inner.links
                below |= inner.below | _HELD.get(child.tag, 0)
                if inner.starts is not None:
                    if starts is None:
                        starts = inner.starts
                    elif ends and inner.starts:
                        words -= 1  # one word across the seam
                    chars += inner.chars
                    words += inner.words
                    ends = inner.ends
                    commas += inner.commas
            text = child.tail
            if text:
                parts = text.split()
                if not parts:  # white space only: no word, but a seam between two
                    if starts is None:
                        starts = False
                    ends = False
                    continue
                begins = not text[0].isspace()
                if starts is None:
                    starts = begins
                elif ends and begins:
                    words -= 1
                chars += len("".join(parts))
                words += len(parts)
                ends = not text[-1].isspace()
                commas += text.count(",") + text.count("\uff0c") + text.count("\u3001")
        if element.tag == "a":
            linked += chars + words - 1 if words else 0
            links += 1
        return _Measure(chars, words, starts, ends, commas, linked, links, below)


def link_density(element: etree._Element, measures: Measures) -> float:
    """The share of the element's text that is link text."""
    text = measures.length(element)
    if text == 0:
        return 0.0
    return min(measures.linked(element) / text, 1.0)


def holds_data_table(element: etree._Element, rows: int) -> bool:
    """Whether ``element`` holds a data table: header cells, at least ``rows`` rows (the header
    among them), no table inside it. Recommendations and link boxes are never set so."""
    return any(
        table.find(".//th") is not None
        and table.find(".//table") is None
        and len(table.findall(".//tr")) >= rows
        for table in element.iter("table")
    )


def copy_element(element: etree._Element) -> etree._Element:
    """A deep copy of ``element`` without its tail."""
    clone = copy.deepcopy(element)
    clone.tail = None
    return clone


def leads_elsewhere(href: str, site: str) -> bool:
    """Whether an absolute link leads off the site ``site`` (a registrable domain); a relative
    one never does."""
    if not href.startswith(("http://", "https://", "//")):
        return False
    try:
        host = urlsplit(href).hostname or ""
    except ValueError:  # a malformed address ("http://[") leads nowhere
        return False
    return registrable_domain(host) != site
