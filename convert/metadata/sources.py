"""What a page states about itself, read once: its meta tags, ``<link>`` relations, ``<title>``,
JSON-LD entities (read by :mod:`convert.metadata.jsonld`), microdata and RDFa properties, and
the visible elements the fallbacks look at (headlines, ``<time>``, images, paragraphs).
:class:`PageSources` gathers them in one pass over the tree (microdata and RDFa, which need
every element's attributes, only when a field asks for them) and answers a source name of
:mod:`convert.metadata.rules` with its raw values. Pure."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from itertools import islice
from typing import Any

import lxml.html
from lxml import etree

from convert.metadata import rules
from convert.metadata import rules_bylines as byline_rules
from convert.metadata import rules_images as image_rules
from convert.metadata.jsonld import JsonLd

_PASS_TAGS = ("html", "body", "meta", "link", "title", "script", "h1", "article", "main")
_META_KEYS = ("property", "name", "http-equiv", "itemprop")
"""The attributes that name a meta tag, the first present wins."""
_DC = ("dc:", "dcterms:")
_ITEMPROP = etree.XPath("//@itemprop")
_PROPERTY = etree.XPath("//body//@property")
_AUTHOR_MARKED = etree.XPath("descendant::*/@class[contains(., 'uthor')]")
"""Classes that may name an author's element, below the body (one walk over the attributes: a
test of every element's class from Python costs four times as much)."""
_POSTER_MARKED = etree.XPath(
    "descendant::*/@class[contains(., 'uthor') or contains(., 'sername') or "
    "contains(., 'ser-name') or contains(., 'poster')]"
)
"""The same on a thread's page, with the names forum software gives its posters' elements."""
_AUTHOR_LINKS = etree.XPath(
    "descendant::a/@href[contains(., '/author/') or contains(., '/authors/') or "
    "contains(., '/contributor/')]"
)
"""Links to an author's page, below the body."""
_PROPS_KEPT = 8
"""Elements kept per microdata or RDFa property name (the first ones on the page)."""
_SCHEMA_PREFIXES = ("schema:", "dc:", "dcterms:", "og:", "article:", "sioc:", "foaf:")


class PageSources:
    """One page's statements about itself, by source name."""

    def __init__(self, root: lxml.html.HtmlElement) -> None:
        self.root = root
        self.meta: dict[str, list[str]] = {}
        self.links: dict[str, list[etree._Element]] = {}
        self.title = ""
        self.lang = ""
        self.h1: list[etree._Element] = []
        self.body: etree._Element | None = None
        self.containers: list[etree._Element] = []
        """The ``<article>`` and ``<main>`` elements, in page order (the first few)."""
        self.has_microdata = False
        """Whether an element read in the pass carries microdata: only then are all the page's
        elements searched for it (most pages have none, and the search costs a full walk)."""
        self.has_rdfa = False
        blocks: list[str] = []
        self._read(root, blocks)
        self.entities = JsonLd(blocks)
        self._microdata: dict[str, list[etree._Element]] | None = None
        self._rdfa: dict[str, list[etree._Element]] | None = None

    def _read(self, root: lxml.html.HtmlElement, blocks: list[str]) -> None:
        """The one pass over the tree: every element of :data:`_PASS_TAGS`, bucketed (the
        commonest tags first: this loop runs for every script and meta tag of the page)."""
        meta = self.meta
        for element in root.iter(*_PASS_TAGS):
            tag = element.tag
            attributes = element.attrib
            if tag == "script":
                kind = attributes.get("type")
                if kind and kind.strip().lower() == "application/ld+json" and element.text:
                    blocks.append(element.text)
            elif tag == "meta":
                content = attributes.get("content")
                if content is not None:
                    key = next((attributes[name] for name in _META_KEYS if name in attributes), "")
                    if "itemprop" in attributes and not self.has_microdata:
                        parent = element.getparent()  # an item's property in the body
                        self.has_microdata = parent is not None and parent.tag != "head"
                    for word in key.lower().split():
                        name = word.replace(":", ".", 1) if word.startswith(_DC) else word
                        meta.setdefault(name, []).append(content)
            elif tag == "link":
                for rel in (attributes.get("rel") or "").lower().split():
                    self.links.setdefault(rel, []).append(element)
            else:
                self._mark(element, attributes)

    def _mark(self, element: etree._Element, attributes: Any) -> None:
        """The pass's rarer elements: headlines, containers, the title and the root."""
        tag = element.tag
        if "itemprop" in attributes or "itemscope" in attributes:
            self.has_microdata = True
        if "property" in attributes or "typeof" in attributes or "vocab" in attributes:
            self.has_rdfa = True
        if tag == "h1":
            self.h1.append(element)
        elif tag in ("article", "main"):
            if len(self.containers) < 2:
                self.containers.append(element)
        elif tag == "title":
            parent = element.getparent()
            if not self.title and parent is not None and parent.tag in ("head", "html", "body"):
                self.title = element.text_content()
        elif tag == "body":
            if self.body is None:
                self.body = element
        elif tag == "html" and not self.lang:
            self.lang = attributes.get("lang") or attributes.get("xml:lang") or ""

    # -- read only when asked ------------------------------------------------------------------

    def _first(self, tag: str, count: int) -> list[etree._Element]:
        """The first ``count`` elements ``tag`` (the walk stops there, else at the end)."""
        return list(islice(self.root.iter(tag), count))

    @cached_property
    def h2(self) -> list[etree._Element]:
        return self._first("h2", rules.HEADLINES_READ)

    @cached_property
    def paragraphs(self) -> list[etree._Element]:
        return self._first("p", rules.PARAGRAPHS_READ)

    @cached_property
    def images(self) -> list[etree._Element]:
        return self._first("img", image_rules.IMAGES_READ)

    @cached_property
    def main_regions(self) -> list[etree._Element]:
        """The ``<article>`` and ``<main>`` elements, else the element around the first
        ``<h1>`` marked as the page's main region (``role="main"``, ``id="content"``: see
        :data:`~convert.metadata.rules_images.MAIN_REGION_MARKS`); looking up from the headline
        costs its depth, where a search of the page would cost every element."""
        if self.containers:
            return self.containers
        for headline in self.h1[:1]:
            for ancestor in headline.iterancestors():
                if any(
                    ancestor.get(name) == value for name, value in image_rules.MAIN_REGION_MARKS
                ):
                    return [ancestor]
        return []

    @cached_property
    def times(self) -> list[etree._Element]:
        return self._first("time", rules.TIMES_READ)

    def card(self, name: str) -> Iterator[str]:
        """The values a Twitter card gives in its label and data pairs (``twitter:label1``
        "Written by", ``twitter:data1`` "Jane Doe"): the data of each label that names
        ``name`` (:data:`~convert.metadata.rules.CARD_LABELS`)."""
        label = rules.CARD_LABELS[name]
        for index in range(1, rules.CARD_PAIRS + 1):
            named = self.meta.get(f"twitter:label{index}")
            if named and label.fullmatch(named[0].strip()):
                yield from self.meta.get(f"twitter:data{index}", ())

    def author_marked(self, thread: bool) -> list[etree._Element]:
        """The first body elements whose class holds "author" (any case; on a ``thread``'s
        page also "username" or "poster"), in page order."""
        return self._found(_POSTER_MARKED if thread else _AUTHOR_MARKED)

    def author_links(self) -> list[etree._Element]:
        """The first links to an author's page in the page's ``<main>`` or ``<article>`` (in
        the body when it has neither), in page order."""
        return self._found(_AUTHOR_LINKS, inside=True)

    def _found(self, search: etree.XPath, *, inside: bool = False) -> list[etree._Element]:
        within = self.containers[0] if inside and self.containers else self.body
        if within is None:
            return []
        found = search(within)
        return [value.getparent() for value in found[: byline_rules.AUTHOR_ELEMENTS_READ]]

    @property
    def microdata(self) -> dict[str, list[etree._Element]]:
        """Elements by ``itemprop`` name (lower case), the first few of each, in page order."""
        if self._microdata is None:
            self._microdata = _by_name(_ITEMPROP(self.root), ()) if self.has_microdata else {}
        return self._microdata

    @property
    def rdfa(self) -> dict[str, list[etree._Element]]:
        """Body elements by RDFa ``property`` name, vocabulary prefix dropped (lower case)."""
        if self._rdfa is None:
            found = _PROPERTY(self.root) if self.has_rdfa else []
            self._rdfa = _by_name(found, _SCHEMA_PREFIXES)
        return self._rdfa

    def properties(self, kind: str, name: str) -> Iterator[str]:
        """The values of a microdata (``kind`` "microdata") or RDFa property, in page order; an
        item (``itemscope``) gives its ``name``."""
        if kind == "microdata":
            # A top-level item's property first: a thread's author before its replies'.
            elements = sorted(self.microdata.get(name, []), key=_nested)
        else:
            elements = [
                e for alias in _RDFA_NAMES.get(name, (name,)) for e in self.rdfa.get(alias, ())
            ]
        for element in elements:
            if element.get("itemscope") is None:
                yield property_value(element)
                continue
            inner = next(
                (e for e in element.iterdescendants() if e.get("itemprop") == "name"), None
            )
            yield property_value(inner) if inner is not None else ""


def _nested(element: etree._Element) -> bool:
    """Whether a microdata property belongs to an item that is itself another's property."""
    for ancestor in element.iterancestors():
        if ancestor.get("itemscope") is not None:
            return ancestor.get("itemprop") is not None
    return False


_RDFA_NAMES = {
    "headline": ("headline", "title"),
    "description": ("description", "abstract"),
    "author": ("author", "creator"),
    "datepublished": ("datepublished", "issued", "created", "date"),
    "image": ("image", "thumbnailurl"),
}
"""The RDFa property names (any vocabulary) that stand for each field's source."""


def _by_name(values: Any, prefixes: tuple[str, ...]) -> dict[str, list[etree._Element]]:
    found: dict[str, list[etree._Element]] = {}
    for value in values:
        element = value.getparent()
        if element is None or element.tag == "meta":
            continue
        for word in str(value).lower().split():
            name = next((word[len(p) :] for p in prefixes if word.startswith(p)), word)
            kept = found.setdefault(name.rsplit("/", 1)[-1], [])
            if len(kept) < _PROPS_KEPT:
                kept.append(element)
    return found


def property_value(element: etree._Element) -> str:
    """The value of a microdata or RDFa property on ``element``: its ``content``, ``datetime``
    or link target when it has one, else its text."""
    for attribute in ("content", "datetime") if element.tag != "abbr" else ("title",):
        value = element.get(attribute)
        if value is not None:
            return str(value)
    if element.tag in ("img", "source", "video", "audio", "iframe", "embed"):
        return str(element.get("src") or "")
    if element.tag in ("a", "link", "area"):
        return str(element.get("href") or "")
    return str(element.text_content())
