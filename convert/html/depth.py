"""Bounded nesting: documents nested deeper than :data:`MAX_DEPTH` elements keep their text.

libxml2 stops parsing at 2,048 open elements (with ``huge_tree``) and drops the rest of the
document, and every later walk over the tree grows with its depth. So a document whose parsed tree
is deeper than :data:`MAX_DEPTH` is flattened twice over:

1. :func:`flatten_source` rewrites the HTML before it is parsed again: a light tokenizer follows
   the open elements much as libxml2 does (void and self-closed tags, raw-text elements, the
   implied ends of ``p``, ``li``, table parts..., end tags that cannot close a block) and drops the
   tags that would open an element beyond the limit, with their end tags. Their text stays where
   it is, so it joins the element at the limit; a dropped block leaves a ``<br>`` so that its text
   does not run into its neighbour's.
2. :func:`flatten_tree` then guarantees the bound on the parsed tree, whatever the tokenizer
   misjudged: where elements are deeper, only their text is kept, one line per block.

Hidden and invisible elements keep their tag at the limit (one level more), so that what the page
hides stays hidden after flattening. Pure functions; linear in the size of the document.
"""

from __future__ import annotations

import functools
import re
import sys
from array import array
from collections.abc import Callable, Collection

from lxml import etree


def _tags(names: str) -> frozenset[str]:
    return frozenset(names.split())


MAX_DEPTH = 512
"""Deepest element nesting kept, counting ``html`` as 1 (Chromium's HTML parser stops nesting at
512 too); deeper elements are unwrapped into the element at the limit."""
SOURCE_HEADROOM = 16
"""Levels :func:`flatten_source` leaves below :data:`MAX_DEPTH` for what the parser adds on its own
(``html``, ``body``, ``tbody``...) or nests where the tokenizer thought an element closed."""
VOID_TAGS = _tags("area base basefont br col frame hr img input isindex link meta param")
"""Elements libxml2 never lets hold content: they open no level. (It nests HTML5's newer void
elements, ``embed``, ``source``, ``track``, ``wbr``, like any other.)"""
RAW_TEXT_TAGS = _tags("script style textarea title xmp iframe noembed noframes plaintext")
"""Elements whose content libxml2 reads as text up to their end tag (``plaintext``: to the end)."""
UNCOUNTED_TAGS = frozenset({"html", "head", "body"})
"""Elements the parser opens once, whatever the markup says."""
BLOCK_TAGS = _tags(
    "address article aside blockquote caption center dd details dialog dir div dl dt fieldset "
    "figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr li main menu nav ol p pre "
    "section summary table tbody td tfoot th thead tr ul"
)
"""Elements whose text stands apart from its neighbours': a flattened one leaves a line break."""
IMPLIED_ENDS: dict[str, frozenset[str]] = {
    tag: _tags(closed)
    for tag, closed in {
        "a": "a",
        "address": "p ul",
        "blockquote": "p",
        "caption": "p",
        "center": "b font i p",
        "col": "caption p",
        "colgroup": "caption colgroup p",
        "dd": "address dir dt menu p pre",
        "dir": "p",
        "div": "p",
        "dl": "address dir dt menu p pre",
        "dt": "address dd dir menu p pre",
        "fieldset": "a h1 h2 h3 h4 h5 h6 legend p pre",
        "form": "address dir dl form h1 h2 h3 h4 h5 h6 menu ol p pre ul",
        "frameset": "p",
        "h1": "p",
        "h2": "p",
        "h3": "p",
        "h4": "p",
        "h5": "p",
        "h6": "p",
        "hr": "p",
        "li": "address dl h1 h2 h3 h4 h5 h6 li p pre",
        "menu": "p ul",
        "ol": "p",
        "optgroup": "option",
        "option": "option",
        "p": "b big h1 h2 h3 h4 h5 h6 i p s small strike tt u",
        "pre": "p ul",
        "table": "a h1 h2 h3 h4 h5 h6 p pre",
        "tbody": "caption colgroup p tbody td tfoot th thead tr",
        "td": "a b font i p span td th u",
        "tfoot": "caption colgroup p tbody td th thead tr",
        "th": "a b font i p span td th u",
        "thead": "caption colgroup",
        "title": "p",
        "tr": "caption colgroup p td th tr",
        "ul": "address dir menu p pre",
        "xmp": "p",
    }.items()
}
"""Start tag -> the open elements it ends while one of them is the innermost: libxml2's own
rules (an HTML 4 table, not HTML5's: ``<p>`` ends a ``<b>``, ``<section>`` does not end a
``<p>``), as observed in libxml2 2.14; tests/convert/test_deep_documents.py checks them against the
installed libxml2."""
END_PRIORITY: dict[str, int] = {
    "div": 150,
    "td": 160,
    "th": 160,
    "tr": 170,
    "thead": 180,
    "tbody": 180,
    "tfoot": 180,
    "table": 190,
    "head": 200,
    "body": 200,
    "html": 220,
}
"""libxml2's rule for mismatched end tags: an end tag closes the open elements above its match
only when none of them has a higher priority (``</span>`` cannot close a ``div``); 100 for the
rest. Checked against the installed libxml2 by the tests as well."""
_DEFAULT_PRIORITY = 100
# Priority -> the priorities above it.
_HIGHER = {
    own: tuple(sorted({p for p in END_PRIORITY.values() if p > own}))
    for own in {_DEFAULT_PRIORITY, *END_PRIORITY.values()}
}

_TOKEN = re.compile(
    r"<!--(?:-?>|.*?(?:--!?>|\Z))"  # comments, including the abrupt <!--> and <!--->
    r"|<[!?][^>]*>?"  # doctype, bogus comments, processing instructions
    r"|<(/?)([A-Za-z][^\t\n\f\r />]*)"  # a tag and its name
    r"((?:=\s*\"[^\"]*(?:\"|\Z)|=\s*'[^']*(?:'|\Z)|[^>])*)(?:>|\Z)",  # attributes
    re.DOTALL,
)
_BREAK = "<br>"
_RAW_TEXT_ENDS = {
    tag: re.compile(f"</{tag}[\t\n\f\r />]", re.IGNORECASE) for tag in RAW_TEXT_TAGS - {"plaintext"}
}
# Attributes that may hide an element (hidden, aria-hidden, display:none...): erring towards
# keeping a tag costs one level at most.
_HIDING = re.compile(r"hidden|none", re.IGNORECASE)
# A "/" closing the attributes that belongs to an unquoted value (<a href=/x/>) does not close
# the element.
_UNQUOTED_SLASH = re.compile(r"=\s*[^\s\"'=]*/$")


class _OpenElements:
    """The open elements as the tokenizer sees them: their tags and whether each is kept, with
    indexes by tag and by end priority so that every end tag is matched in constant time. Compact
    (machine-integer arrays, interned tags): a page may hold a million open elements."""

    def __init__(self) -> None:
        self.tags: list[str] = []
        self.flags = bytearray()  # 1: kept, 0: dropped
        self.kept = 0
        self._by_tag: dict[str, array[int]] = {}
        self._by_priority: dict[int, array[int]] = {}

    def push(self, tag: str, kept: bool) -> None:
        index = len(self.tags)
        tag = sys.intern(tag)
        self.tags.append(tag)
        self.flags.append(kept)
        self.kept += kept
        self._by_tag.setdefault(tag, array("q")).append(index)
        priority = END_PRIORITY.get(tag, _DEFAULT_PRIORITY)
        if priority > _DEFAULT_PRIORITY:
            self._by_priority.setdefault(priority, array("q")).append(index)

    def pop(self) -> bool:
        """Close the innermost element: whether it was kept."""
        tag = self.tags.pop()
        kept = bool(self.flags.pop())
        self.kept -= kept
        self._by_tag[tag].pop()
        priority = END_PRIORITY.get(tag, _DEFAULT_PRIORITY)
        if priority > _DEFAULT_PRIORITY:
            self._by_priority[priority].pop()
        return kept

    def top(self) -> str | None:
        return self.tags[-1] if self.tags else None

    def close(self, tag: str) -> bool | None:
        """Close ``tag`` and what is open inside it, as libxml2 would: whether the closed element
        was kept, or None when the end tag is ignored."""
        if self.tags and self.tags[-1] == tag:
            return self.pop()
        indexes = self._by_tag.get(tag)
        if not indexes:
            return None
        match = indexes[-1]
        for priority in _HIGHER[END_PRIORITY.get(tag, _DEFAULT_PRIORITY)]:
            above = self._by_priority.get(priority)
            if above and above[-1] > match:
                return None
        while len(self.tags) > match + 1:
            self.pop()
        return self.pop()


def flatten_source(
    html: str,
    max_depth: int = MAX_DEPTH - SOURCE_HEADROOM,
    *,
    hiding_tags: Collection[str] = (),
) -> str:
    """``html`` without the tags that would nest elements more than ``max_depth`` deep (``html``,
    ``head`` and ``body`` not counted); their text is kept in place. One element past the limit
    is kept when it may hide its content: a tag of ``hiding_tags`` or one with hiding
    attributes."""
    out: list[str] = []
    copied = 0  # the source is copied up to here
    open_elements = _OpenElements()
    broke = False  # the last thing written is a break standing in for a dropped block
    search_from = 0
    while (match := _TOKEN.search(html, search_from)) is not None:
        search_from = match.end()
        closing, name, attributes = match.group(1, 2, 3)
        if name is None:
            continue  # a comment, a doctype
        tag = name.lower()
        if tag in UNCOUNTED_TAGS:
            continue
        if closing:
            if tag in VOID_TAGS or open_elements.close(tag) is not False:
                continue  # kept, or ignored by the parser as well: left in place
        else:
            ends = IMPLIED_ENDS.get(tag)
            while ends and open_elements.top() in ends:
                open_elements.pop()
            if tag in VOID_TAGS or (attributes and _self_closed(attributes)):
                continue
            if tag in RAW_TEXT_TAGS:
                # Holds no elements: left in place, its text skipped.
                search_from = _raw_text_end(html, tag, search_from)
                continue
            depth = open_elements.kept
            kept = depth < max_depth or (
                depth == max_depth
                and (tag in hiding_tags or bool(attributes and _HIDING.search(attributes)))
            )
            open_elements.push(tag, kept)
            if kept:
                continue
        # A tag past the limit: dropped, a block leaving a break.
        between = html[copied : match.start()]
        out.append(between)
        if between.strip():
            broke = False
        if tag in BLOCK_TAGS and not broke:
            out.append(_BREAK)
            broke = True
        copied = match.end()
    out.append(html[copied:])
    return "".join(out)


def _self_closed(attributes: str) -> bool:
    """Whether a start tag ends with "/>" (libxml2 closes such an element at once)."""
    attributes = attributes.rstrip()
    return attributes.endswith("/") and not _UNQUOTED_SLASH.search(attributes)


def _raw_text_end(html: str, tag: str, start: int) -> int:
    """Where the raw text of ``tag`` opened before ``start`` ends (its end tag, else the end)."""
    pattern = _RAW_TEXT_ENDS.get(tag)
    end = pattern.search(html, start) if pattern is not None else None
    return end.start() if end is not None else len(html)


def too_deep(root: etree._Element, max_depth: int = MAX_DEPTH) -> bool:
    """Whether any element of ``root``'s tree is more than ``max_depth`` deep (``root`` is 1)."""
    return bool(_at_depth(root, max_depth + 1))


def _at_depth(root: etree._Element, depth: int) -> list[etree._Element]:
    """The elements ``depth`` deep, found by XPath in C (no Python walk over the whole tree)."""
    found = _depth_path(depth)(root)
    assert isinstance(found, list)
    return [element for element in found if isinstance(element, etree._Element)]


@functools.cache
def _depth_path(depth: int) -> etree.XPath:
    return etree.XPath("self::*" + "/*" * (depth - 1))


def flatten_tree(
    root: etree._Element,
    max_depth: int = MAX_DEPTH,
    *,
    unseen: Callable[[etree._Element], bool] = lambda element: False,
) -> int:
    """Bound ``root``'s tree to ``max_depth`` levels: where elements are deeper, the ancestor one
    level above the limit keeps only their text (a line per block, ``<br>`` at the limit); what
    ``unseen`` says a reader never sees is left out. Returns how many elements were flattened."""
    flattened: dict[etree._Element, None] = {}
    for deep in _at_depth(root, max_depth + 1):
        parent = deep.getparent()
        ancestor = parent.getparent() if parent is not None else None
        if ancestor is not None:
            flattened.setdefault(ancestor)
    for element in flattened:
        _flatten(element, unseen)
    return len(flattened)


def _flatten(element: etree._Element, unseen: Callable[[etree._Element], bool]) -> None:
    """Replace the descendants of ``element`` by their text, blocks apart (``<br>``)."""
    runs: list[list[str]] = [[element.text or ""]]

    def separate() -> None:
        if "".join(runs[-1]).strip():
            runs.append([])

    # An explicit stack: the subtree may be thousands of levels deep.
    stack: list[tuple[etree._Element, bool]] = [(child, False) for child in reversed(element)]
    while stack:
        node, ended = stack.pop()
        is_element = isinstance(node.tag, str)
        block = is_element and (node.tag in BLOCK_TAGS or node.tag == "br")
        if not ended and is_element and not unseen(node):
            if block:
                separate()
            runs[-1].append(node.text or "")
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(node))
            continue
        # The end of an element (or the whole of a comment or of what is unseen).
        if block:
            separate()
        runs[-1].append(node.tail or "")
    for child in list(element):
        element.remove(child)
    element.text = "".join(runs[0])
    for run in runs[1:]:
        line = etree.SubElement(element, "br")
        line.tail = "".join(run)
