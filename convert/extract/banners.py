"""The consent-manager containers Pagecast's list names (:data:`convert.extract.consent.BANNERS`),
found in a page: furniture, whatever else the page says."""

from __future__ import annotations

import re

from cssselect import SelectorError, parse
from cssselect import parser as css
from lxml import etree
from lxml.cssselect import CSSSelector

from convert.extract.consent import BANNERS
from convert.html.attributes import class_values, elements_with, values_of

_XML_SPACE = re.compile(r"[ \t\r\n]+")


class Banners:
    """The consent-manager containers :data:`convert.extract.consent.BANNERS` names, found in one
    walk over the tree: its selectors are ids (``#x``), classes (``.x``) and id prefixes
    (``div[id^="x"]``), matched here as lxml's ``CSSSelector`` matches them but without one XPath
    pass over the whole tree per selector. Any other kind of selector in the list makes it use
    ``CSSSelector``."""

    def __init__(self, selectors: tuple[str, ...]) -> None:
        self.ids: set[str] = set()
        self.classes: set[str] = set()
        self.prefixes: list[tuple[str, str]] = []
        """(tag, id prefix); tag "*" for any element."""
        self.fallback: CSSSelector | None = None
        try:
            for selector in selectors:
                for parsed in parse(selector):
                    self._learn(parsed.parsed_tree, parsed.pseudo_element)
        except (SelectorError, ValueError):
            self.fallback = CSSSelector(", ".join(selectors))

    def _learn(self, tree: object, pseudo: object) -> None:
        inner = getattr(tree, "selector", None)
        if pseudo is not None or not isinstance(inner, css.Element) or inner.namespace is not None:
            raise ValueError(f"not a simple selector: {tree!r}")
        if isinstance(tree, css.Hash) and inner.element is None:
            self.ids.add(tree.id)
        elif (
            isinstance(tree, css.Class)
            and inner.element is None
            and not _XML_SPACE.search(tree.class_name)
        ):
            self.classes.add(tree.class_name)
        elif (
            isinstance(tree, css.Attrib)
            and (tree.namespace, tree.attrib, tree.operator, tree.flag) == (None, "id", "^=", None)
            and tree.value is not None
            and tree.value.value
        ):
            self.prefixes.append((inner.element or "*", tree.value.value))
        else:
            raise ValueError(f"not a simple selector: {tree!r}")

    def __call__(self, root: etree._Element) -> list[etree._Element]:
        """The matching elements in ``root`` (itself included), in document order."""
        if self.fallback is not None:
            return list(self.fallback(root))
        # Most pages have none: their distinct class and id values tell it, without a look at
        # every element in Python.
        classes = tuple(
            sorted(
                value
                for value in class_values(root)
                if not self.classes.isdisjoint(_XML_SPACE.split(value))
            )
        )
        idents = values_of(root, "id")
        prefixes = tuple(prefix for _, prefix in self.prefixes)
        if not any(ident.startswith(prefixes) for ident in idents):
            return elements_with(
                root, (("id", tuple(sorted(idents & self.ids))), ("class", classes))
            )
        found: list[etree._Element] = []
        named: dict[str, bool] = {}  # by class value: a page repeats a few hundred
        for element in root.iter(etree.Element):
            ident, names = element.get("id"), element.get("class")
            if names:
                hit = named.get(names)
                if hit is None:
                    hit = named[names] = not self.classes.isdisjoint(_XML_SPACE.split(names))
            else:
                hit = False
            if (
                (ident is not None and ident in self.ids)
                or hit
                or (
                    ident
                    and any(
                        ident.startswith(prefix) and tag in ("*", element.tag)
                        for tag, prefix in self.prefixes
                    )
                )
            ):
                found.append(element)
        return found


listed_banners = Banners(tuple(selector for group in BANNERS.values() for selector in group))
