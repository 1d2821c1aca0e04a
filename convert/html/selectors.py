"""A small CSS selector matcher for the selectors pages' own style rules mostly use: compounds
of a tag, classes, an id and attributes (present, or equal to a value), joined by any of the
four combinators (descendant, child ``>``, next sibling ``+``, later sibling ``~``). Pure.

Matching runs right to left from the elements that can match the last compound, found in an
index of the document's classes, ids and tags built in one pass; translating every selector
to XPath and walking the whole tree for each (what a general engine does) costs ten times as
much on a page with a few hundred rules. When the last compound names only a tag
(``.menu ul li a``), the elements looked at are those below the elements that match the
compounds up to the last one with a class or an id, not every element of that tag. Selectors
outside this subset (other attribute operators, pseudo-classes, escapes) are left to the
caller.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Final

from lxml import etree

from convert.text.memo import small_key_cache

_COMPOUND_RE: Final = re.compile(
    r"(?P<tag>[a-zA-Z][a-zA-Z0-9-]*|\*)?"
    r"(?P<rest>(?:[.#]-?[_a-zA-Z][\w-]*"
    r"|\[\s*[a-zA-Z_][\w-]*\s*(?:=\s*(?:\"[^\"\\]*\"|'[^'\\]*'|[\w-]+)\s*)?\])*)"
)
_PART_RE: Final = re.compile(
    r"\.(-?[_a-zA-Z][\w-]*)|#(-?[_a-zA-Z][\w-]*)"
    r"|\[\s*([a-zA-Z_][\w-]*)\s*(?:=\s*(?:\"([^\"\\]*)\"|'([^'\\]*)'|([\w-]+))\s*)?\]"
)
_COMBINATOR_RE: Final = re.compile(r"\s*([>+~])\s*|\s+")
DESCENDANT: Final = " "
CHILD: Final = ">"
NEXT_SIBLING: Final = "+"
LATER_SIBLING: Final = "~"
_SIBLINGS: Final = frozenset({NEXT_SIBLING, LATER_SIBLING})
_ATTRIBUTE_NAME_RE: Final = re.compile(r"[a-zA-Z_][a-zA-Z0-9_-]*")
MAX_COMPOUNDS: Final = 32
"""Longer selectors are left to the caller: matching recurses once per compound (real rules
have a handful; a hostile page's chain of hundreds would exhaust the stack)."""


@dataclass(frozen=True)
class Compound:
    """``div.a.b#x[name=value]``: every part must hold for an element."""

    tag: str = ""
    classes: frozenset[str] = frozenset()
    ident: str = ""
    attributes: tuple[tuple[str, str | None], ...] = ()

    @property
    def keyed(self) -> bool:
        """Whether the compound names a class or an id (the index finds its elements)."""
        return bool(self.ident or self.classes)

    def matches(self, element: Any) -> bool:
        if self.tag and element.tag != self.tag:
            return False
        if self.ident and element.get("id") != self.ident:
            return False
        if self.classes and not self.classes <= set((element.get("class") or "").split()):
            return False
        for name, value in self.attributes:
            own = element.get(name)
            if own is None or (value is not None and own != value):
                return False
        return True


Memo = dict[tuple[Any, int], bool]


@dataclass(frozen=True)
class Selector:
    """Compounds left to right; ``combinators[i]`` joins compound ``i`` to compound ``i + 1``
    (:data:`DESCENDANT`, :data:`CHILD`, :data:`NEXT_SIBLING` or :data:`LATER_SIBLING`)."""

    compounds: tuple[Compound, ...]
    combinators: tuple[str, ...]

    @property
    def subject(self) -> Compound:
        return self.compounds[-1]

    @property
    def anchor(self) -> int | None:
        """The last compound with a class or an id whose matches hold every match of the
        selector in their subtree (no sibling combinator right after it), when the subject
        has neither: searching below its matches looks at fewer elements than all of the
        subject's tag."""
        if self.subject.keyed:
            return None
        for index in range(len(self.compounds) - 2, -1, -1):
            if self.compounds[index].keyed and self.combinators[index] not in _SIBLINGS:
                return index
        return None

    def matches(self, element: Any, memo: Memo | None = None) -> bool:
        """Whether ``element`` matches; ``memo`` (shared by the calls of one search) keeps the
        work linear in the number of elements, whatever the selector and the nesting."""
        if not self.subject.matches(element):
            return False
        return self.holds_before(element, len(self.compounds) - 1, {} if memo is None else memo)

    def holds_before(self, element: Any, index: int, memo: Memo) -> bool:
        """Whether compounds ``0..index - 1`` hold around ``element``, which matches compound
        ``index``: on its parent, an ancestor, its previous sibling or an earlier one, as
        combinator ``index - 1`` says."""
        if index == 0:
            return True
        combinator = self.combinators[index - 1]
        if combinator == CHILD:
            return self._on(element.getparent(), index - 1, memo)
        if combinator == NEXT_SIBLING:
            return self._on(
                next(element.itersiblings(etree.Element, preceding=True), None), index - 1, memo
            )
        if combinator == DESCENDANT:
            return self._on_any(element.iterancestors(), index - 1, memo)
        return self._on_any(element.itersiblings(etree.Element, preceding=True), index - 1, memo)

    def _on(self, node: Any, index: int, memo: Memo) -> bool:
        return (
            node is not None
            and self.compounds[index].matches(node)
            and self.holds_before(node, index, memo)
        )

    def _on_any(self, nodes: Iterator[Any], index: int, memo: Memo) -> bool:
        """Whether one of ``nodes`` (nearest first: ancestors, or earlier siblings) matches
        compound ``index`` with compounds ``0..index - 1`` holding around it. What a node
        gives is remembered for it and for the nodes walked before it: the answer for a
        node covers every node beyond it too."""
        walked: list[Any] = []
        found = False
        for node in nodes:
            known = memo.get((node, index))
            if known is not None:
                found = known
                break
            walked.append(node)
            if self.compounds[index].matches(node) and self.holds_before(node, index, memo):
                found = True
                break
        for seen in walked:
            memo[seen, index] = found
        return found


def _compound(match: re.Match[str]) -> Compound | None:
    classes: set[str] = set()
    ident = ""
    attributes: list[tuple[str, str | None]] = []
    for part in _PART_RE.finditer(match.group("rest")):
        class_name, own_id, name, double, single, bare = part.groups()
        if class_name:
            classes.add(class_name)
        elif own_id:
            if ident and ident != own_id:
                return None  # "#a#b" matches nothing
            ident = own_id
        else:
            value = next((v for v in (double, single, bare) if v is not None), None)
            attributes.append((name.lower(), value))
    tag = (match.group("tag") or "").lower()
    return Compound("" if tag == "*" else tag, frozenset(classes), ident, tuple(attributes))


def parse_selector(text: str) -> Selector | None:
    """``text`` as a :class:`Selector`, or ``None`` when it is outside the subset."""
    text = text.strip()
    if "\\" in text:
        return None
    compounds: list[Compound] = []
    combinators: list[str] = []
    cursor = 0
    while True:
        match = _COMPOUND_RE.match(text, cursor)
        if match is None or match.end() == cursor:
            return None  # nothing, or a combinator with nothing before it
        compound = _compound(match)
        if compound is None:
            return None
        compounds.append(compound)
        if len(compounds) > MAX_COMPOUNDS:
            return None
        if match.end() == len(text):
            return Selector(tuple(compounds), tuple(combinators))
        combinator = _COMBINATOR_RE.match(text, match.end())
        if combinator is None:
            return None  # a part outside the subset ("[a^=b]", ":hover")
        combinators.append(combinator.group(1) or DESCENDANT)
        cursor = combinator.end()


@small_key_cache(256)
def _having_xpath(name: str) -> etree.XPath | None:
    """An XPath to the attributes named ``name`` (libxml2 finds a rare attribute faster than a
    look at every element from Python), or ``None`` for a name XPath cannot spell."""
    if _ATTRIBUTE_NAME_RE.fullmatch(name) is None:
        return None
    return etree.XPath(f"//@{name}")


class ElementIndex:
    """The elements of a document with a class or an id, by class name and by id (of the
    ``classes`` and ``ids`` asked for, or all), in document order; tags are found on demand,
    and the elements with an attribute once per attribute name. A page's rules ask for a few
    of its hundreds of class names: one set intersection per element finds them."""

    def __init__(
        self,
        root: Any,
        keyed: Sequence[Any],
        classes: frozenset[str] | None = None,
        ids: frozenset[str] | None = None,
    ) -> None:
        self.root = root
        self.by_class: dict[str, list[Any]] = {}
        self.by_id: dict[str, list[Any]] = {}
        self.by_attribute: dict[str, list[Any]] = {}
        wanted: dict[str, AbstractSet[str]] = {}  # a class attribute's value: its names asked for
        for element in keyed:
            if classes is None or classes:
                value = element.get("class")
                if value:
                    names = wanted.get(value)
                    if names is None:
                        split = value.split()
                        names = wanted[value] = (
                            set(split) if classes is None else classes.intersection(split)
                        )
                    for name in names:
                        self.by_class.setdefault(name, []).append(element)
            if ids is None or ids:
                own = element.get("id")
                if own and (ids is None or own in ids):
                    self.by_id.setdefault(own, []).append(element)

    def candidates(self, compound: Compound) -> Iterator[Any]:
        """Elements that may match ``compound`` (a superset, from its most selective part), in
        document order."""
        if compound.ident:
            yield from self.by_id.get(compound.ident, ())
        elif compound.classes:
            yield from min((self.by_class.get(name, ()) for name in compound.classes), key=len)
        elif compound.tag:
            yield from self.root.iter(compound.tag)
        elif compound.attributes:
            yield from self._having(compound.attributes[0][0])
        else:
            yield from self.root.iter(etree.Element)

    def _having(self, name: str) -> list[Any]:
        """The elements with an attribute ``name``, in document order (found once: a page's
        rules often ask for one attribute with several values)."""
        found = self.by_attribute.get(name)
        if found is None:
            having = _having_xpath(name)
            found = self.by_attribute[name] = (
                [e for e in self.root.iter(etree.Element) if e.get(name) is not None]
                if having is None
                else [value.getparent() for value in having(self.root)]
            )
        return found

    def select(self, selector: Selector) -> Iterator[Any]:
        """Elements ``selector`` matches, in document order (the index must hold every class
        and id the selector names: the search may start from any of its compounds)."""
        memo: Memo = {}
        anchor = selector.anchor
        if anchor is None:
            for element in self.candidates(selector.subject):
                if selector.matches(element, memo):
                    yield element
            return
        tag = selector.subject.tag or etree.Element
        for top in self._anchors(selector, anchor, memo):
            for element in top.iterdescendants(tag):
                if selector.matches(element, memo):
                    yield element

    def _anchors(self, selector: Selector, anchor: int, memo: Memo) -> Iterator[Any]:
        """The outermost elements that match compounds ``0..anchor`` (their subtrees hold
        every match), in document order. Whether a match lies in the last one's subtree is
        found by walking up to a node already placed: every node is placed once inside (the
        subtrees are disjoint) and once outside (the strict ancestors of the elements
        yielded, which no later subtree holds), so the search stays linear however deep
        the matches nest."""
        compound = selector.compounds[anchor]
        inside: set[Any] = set()  # the last element yielded and the nodes found below it
        outside: set[Any] = set()
        for element in self.candidates(compound):
            if not compound.matches(element) or not selector.holds_before(element, anchor, memo):
                continue
            walked: list[Any] = []
            node = element.getparent()
            while node is not None and node not in inside and node not in outside:
                walked.append(node)
                node = node.getparent()
            if node is not None and node in inside:
                inside.update(walked)
                continue  # searched already, with the last one's subtree
            outside.update(walked)
            inside = {element}
            yield element
