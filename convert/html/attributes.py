"""Elements found by their attributes in C, for passes that would otherwise test every element
of a page in Python: a page's distinct ``class`` values are read in one XPath step (no predicate,
which libxml2 evaluates slowly on every node), judged once each in Python, and the elements that
hold the few values that matter, or an attribute named, are then found by one XPath (none when
no value matters). Document order throughout."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from lxml import etree

AttributeTest = tuple[str, tuple[str, ...] | None]
"""An attribute's name, and the values that match (None: any value)."""


def class_values(root: etree._Element) -> set[str]:
    """The distinct ``class`` values of ``root`` and its descendants."""
    return values_of(root, "class")


def values_of(root: etree._Element, name: str) -> set[str]:
    """The distinct values of the attribute ``name`` on ``root`` and its descendants."""
    return set(_values_path(name)(root))


@lru_cache(maxsize=16)
def _values_path(name: str) -> etree.XPath:
    return etree.XPath(f"descendant-or-self::*/@{name}", smart_strings=False)


def elements_with(root: etree._Element, tests: Iterable[AttributeTest]) -> list[etree._Element]:
    """``root`` and its descendants that pass one of ``tests``, in document order."""
    wanted = tuple((name, values) for name, values in tests if values is None or values)
    if not wanted:
        return []
    try:
        found: list[etree._Element] = _path(wanted)(root)
    except etree.XPathError:  # a value XPath cannot say: each element asked in Python
        found = [element for element in root.iter(etree.Element) if _passes(element, wanted)]
    return found


def _passes(element: etree._Element, tests: tuple[AttributeTest, ...]) -> bool:
    for name, values in tests:
        value = element.get(name)
        if value is not None and (values is None or value in values):
            return True
    return False


@lru_cache(maxsize=512)
def _path(tests: tuple[AttributeTest, ...]) -> etree.XPath:
    # One predicate on each element: a union of attribute steps and their parents would cost
    # libxml2 a quadratic merge on a page with very many of them.
    said = " or ".join(
        f"@{name}" if values is None else " or ".join(f"@{name} = {literal(v)}" for v in values)
        for name, values in tests
    )
    return etree.XPath(f"descendant-or-self::*[{said}]")


def literal(value: str) -> str:
    """``value`` as an XPath 1.0 string literal (``concat`` when it holds both quotes)."""
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    return "concat(" + ", '\"', ".join(f'"{part}"' for part in value.split('"')) + ")"
