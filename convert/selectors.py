"""A small CSS selector matcher for the selectors pages' own style rules mostly use: compounds
of a tag, classes, an id and attributes (present, or equal to a value), joined by descendant
and child combinators. Pure.

Matching runs right to left from the elements that can match the last compound, found in an
index of the document's classes, ids and tags built in one pass; translating every selector
to XPath and walking the whole tree for each (what a general engine does) costs ten times as
much on a page with a few hundred rules. Selectors outside this subset (sibling combinators,
other attribute operators, escapes) are left to the caller.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Final

from lxml import etree

_COMPOUND_RE: Final = re.compile(
    r"(?P<tag>[a-zA-Z][a-zA-Z0-9-]*|\*)?"
    r"(?P<rest>(?:[.#]-?[_a-zA-Z][\w-]*"
    r"|\[\s*[a-zA-Z_][\w-]*\s*(?:=\s*(?:\"[^\"\\]*\"|'[^'\\]*'|[\w-]+)\s*)?\])*)"
)
_PART_RE: Final = re.compile(
    r"\.(-?[_a-zA-Z][\w-]*)|#(-?[_a-zA-Z][\w-]*)"
    r"|\[\s*([a-zA-Z_][\w-]*)\s*(?:=\s*(?:\"([^\"\\]*)\"|'([^'\\]*)'|([\w-]+))\s*)?\]"
)
_COMBINATOR_RE: Final = re.compile(r"\s*>\s*|\s+")


@dataclass(frozen=True)
class Compound:
    """``div.a.b#x[name=value]``: every part must hold for an element."""

    tag: str = ""
    classes: frozenset[str] = frozenset()
    ident: str = ""
    attributes: tuple[tuple[str, str | None], ...] = ()

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


@dataclass(frozen=True)
class Selector:
    """Compounds left to right; ``child[i]`` says whether compound ``i`` is the parent of
    compound ``i + 1`` (``>``) rather than any ancestor."""

    compounds: tuple[Compound, ...]
    child: tuple[bool, ...]

    @property
    def subject(self) -> Compound:
        return self.compounds[-1]

    def matches(self, element: Any, memo: dict[tuple[Any, int], bool] | None = None) -> bool:
        """Whether ``element`` matches; ``memo`` (shared by the calls of one search) keeps the
        work linear in the number of elements, whatever the selector and the nesting."""
        if not self.subject.matches(element):
            return False
        return self._above(element, len(self.compounds) - 2, {} if memo is None else memo)

    def _above(self, element: Any, index: int, memo: dict[tuple[Any, int], bool]) -> bool:
        """Whether compounds ``0..index`` hold above ``element``: compound ``index`` on its
        parent (child combinator) or on an ancestor (descendant combinator)."""
        if index < 0:
            return True
        if self.child[index]:
            parent = element.getparent()
            return (
                parent is not None
                and self.compounds[index].matches(parent)
                and self._above(parent, index - 1, memo)
            )
        return self._on_or_above(element.getparent(), index, memo)

    def _on_or_above(self, node: Any, index: int, memo: dict[tuple[Any, int], bool]) -> bool:
        """Whether ``node`` or one of its ancestors holds compounds ``0..index``, with
        compound ``index`` on it; every node walked is remembered."""
        walked: list[Any] = []
        found = False
        while node is not None:
            known = memo.get((node, index))
            if known is not None:
                found = known
                break
            walked.append(node)
            if self.compounds[index].matches(node) and self._above(node, index - 1, memo):
                found = True
                break
            node = node.getparent()
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
    child: list[bool] = []
    cursor = 0
    while True:
        match = _COMPOUND_RE.match(text, cursor)
        if match is None or match.end() == cursor:
            return None  # nothing, or a combinator with nothing before it
        compound = _compound(match)
        if compound is None:
            return None
        compounds.append(compound)
        if match.end() == len(text):
            return Selector(tuple(compounds), tuple(child))
        combinator = _COMBINATOR_RE.match(text, match.end())
        if combinator is None:
            return None  # a part outside the subset ("+", "~", "[a^=b]")
        child.append(">" in combinator.group())
        cursor = combinator.end()


class ElementIndex:
    """The elements of a document with a class or an id, by class name and by id (of the
    ``classes`` and ``ids`` asked for, or all), in document order; tags and attributes are
    found on demand. A page's rules ask for a few of its hundreds of names: one set
    intersection per element finds them."""

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
        """Elements that may match ``compound`` (a superset, from its most selective part)."""
        if compound.ident:
            yield from self.by_id.get(compound.ident, ())
        elif compound.classes:
            yield from min((self.by_class.get(name, ()) for name in compound.classes), key=len)
        elif compound.tag:
            yield from self.root.iter(compound.tag)
        elif compound.attributes:
            name = compound.attributes[0][0]
            yield from (e for e in self.root.iter(etree.Element) if e.get(name) is not None)
        else:
            yield from self.root.iter(etree.Element)

    def select(self, selector: Selector) -> Iterator[Any]:
        """Elements ``selector`` matches."""
        memo: dict[tuple[Any, int], bool] = {}
        for element in self.candidates(selector.subject):
            if selector.matches(element, memo):
                yield element
