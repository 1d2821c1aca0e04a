"""A page's JSON-LD, read once: its blocks parsed (``@graph`` members, arrays and references by
``@id`` resolved), the main entity (what the page is about) found by type, beside the page's own
entity, the site and the organization behind it, and the values the source tables of
:mod:`convert.metadata.rules` name (``jsonld:author``, ``jsonld:datepublished``, ...). Pure."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import lxml.html

from convert.metadata import rules
from convert.metadata.values import author_name

_ORGANIZATIONS = frozenset(rules.ORGANIZATION_TYPES)
_JSONLD_DATES = {
    "datepublished": "datePublished",
    "datecreated": "dateCreated",
    "uploaddate": "uploadDate",
    "datemodified": "dateModified",
}


class JsonLd:
    """The JSON-LD entities of a page: the main entity (what the page is about), the page's own
    entity, the site and the organization behind it."""

    def __init__(self, blocks: list[str]) -> None:
        self.entities: list[dict[str, Any]] = []
        self.by_id: dict[str, dict[str, Any]] = {}
        for block in blocks:
            if len(block) > rules.JSONLD_BLOCK_LIMIT:
                continue
            try:
                data = json.loads(block)
            except (ValueError, RecursionError):  # broken, or nested deeper than the parser goes
                continue
            self._add(data, 0)
        self.main = self._first(rules.MAIN_ENTITY_TYPES)
        self.page = self._first(rules.PAGE_TYPES)
        self.site = self._first(rules.SITE_TYPES)
        self.organization = self._first(rules.ORGANIZATION_TYPES)

    def _add(self, data: Any, depth: int) -> None:
        if depth > 3:
            return
        if isinstance(data, list):
            for item in data[:200]:
                self._add(item, depth + 1)
        elif isinstance(data, dict):
            self.entities.append(data)
            ident = data.get("@id")
            if isinstance(ident, str) and len(data) > 1:
                self.by_id.setdefault(ident, data)
            graph = data.get("@graph")
            if graph is not None:
                self._add(graph, depth + 1)
            main = data.get("mainEntity")
            if isinstance(main, dict) and main.get("@type"):
                self._add(main, depth + 1)

    def _first(self, types: tuple[str, ...]) -> dict[str, Any] | None:
        ranked = {name: rank for rank, name in enumerate(types)}
        best: tuple[int, dict[str, Any]] | None = None
        for entity in self.entities:
            for name in entity_types(entity):
                rank = ranked.get(name)
                if rank is not None and (best is None or rank < best[0]):
                    best = (rank, entity)
        return best[1] if best else None

    def source(self, name: str) -> Iterator[str]:
        """The values of the JSON-LD source ``name`` (``jsonld:name`` in the source tables)."""
        entities = self
        if name in ("headline", "name", "description"):
            yield from entities.texts(name)
        elif name == "url":
            yield from entities.texts("url", page_too=False)
            for value in entities.values("mainEntityOfPage", page_too=False):
                ident = value.get("@id") if isinstance(value, dict) else value
                if isinstance(ident, str):
                    yield ident
        elif name in ("author", "organization-author"):
            for value in entities.values("author"):
                names = [
                    author_name(name)
                    for name in entities.names(value, organizations=name != "author")
                ]
                if any(names):
                    yield ", ".join(name for name in names if name)
        elif name == "publisher":
            for value in entities.values("publisher"):
                yield from entities.names(value)
            for entity in (entities.site, entities.organization):
                if entity is not None:
                    yield from entities.names(entity.get("publisher"))
            if entities.organization is not None:
                yield from entities.names(entities.organization)
        elif name == "website":
            if entities.site is not None:
                yield from entities.names(entities.site)
        elif name == "inlanguage":
            yield from entities.texts("inLanguage")
            if entities.site is not None and isinstance(entities.site.get("inLanguage"), str):
                yield entities.site["inLanguage"]
        elif name in _JSONLD_DATES:
            yield from entities.texts(_JSONLD_DATES[name])

    def resolve(self, value: Any) -> Any:
        """``value``, or the entity it refers to (``{"@id": ...}``) when the page has it."""
        if isinstance(value, dict) and len(value) == 1 and isinstance(value.get("@id"), str):
            return self.by_id.get(value["@id"], value)
        return value

    def values(self, key: str, *, page_too: bool = True) -> Iterator[Any]:
        """``key`` of the main entity, then (``page_too``) of the page's entity."""
        for entity in (self.main, self.page if page_too else None):
            if entity is not None and key in entity:
                yield self.resolve(entity[key])

    def texts(self, key: str, *, page_too: bool = True) -> Iterator[str]:
        """The string values of ``key`` (a list's strings in order)."""
        for value in self.values(key, page_too=page_too):
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str):
                    yield item

    def names(self, value: Any, *, organizations: bool | None = None) -> list[str]:
        """The names in an author or publisher value: a string, an entity, a list of them;
        ``organizations`` True or False keeps only the entities that are (or are not)
        organizations."""
        found: list[str] = []
        for listed in value if isinstance(value, list) else [value]:
            item = self.resolve(listed)
            if isinstance(item, str) and not organizations:
                found.append(item)
            elif isinstance(item, dict):
                if organizations is not None:
                    typed = bool(set(entity_types(item)) & _ORGANIZATIONS)
                    if typed != organizations:
                        continue
                name = item.get("name")
                if isinstance(name, list):
                    name = next((part for part in name if isinstance(part, str)), None)
                if isinstance(name, dict):
                    name = name.get("@value")
                if isinstance(name, str):
                    found.append(name)
        return found[:10]

    def images(self) -> Iterator[tuple[str, str, str]]:
        """(url, width, height) of the main entity's (then the page's) images."""
        for key in ("image", "thumbnailUrl", "primaryImageOfPage", "thumbnail"):
            for value in self.values(key):
                for listed in value if isinstance(value, list) else [value]:
                    item = self.resolve(listed)
                    if isinstance(item, str):
                        yield item, "", ""
                    elif isinstance(item, dict):
                        url = item.get("url") or item.get("contentUrl")
                        if isinstance(url, list):
                            url = next((part for part in url if isinstance(part, str)), None)
                        if isinstance(url, str):
                            yield url, str(item.get("width", "")), str(item.get("height", ""))


def json_ld_objects(root: lxml.html.HtmlElement) -> Iterator[dict[str, Any]]:
    """Every JSON-LD object on the page, ``@graph`` members included; broken blocks skipped."""
    blocks = [
        element.text
        for element in root.iter("script")
        if (element.get("type") or "").strip().lower() == "application/ld+json" and element.text
    ]
    return iter(JsonLd(blocks).entities)


def entity_types(entity: dict[str, Any]) -> list[str]:
    """An entity's ``@type`` names without their vocabulary ("schema:Article" -> "Article")."""
    kinds = entity.get("@type")
    names = kinds if isinstance(kinds, list) else [kinds]
    return [name.rsplit("/", 1)[-1].rsplit(":", 1)[-1] for name in names if isinstance(name, str)]
