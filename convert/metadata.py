"""Page metadata (title, description, canonical URL, site name, image, language) read from Open
Graph, Twitter cards, JSON-LD, standard meta tags and the document, best source first.

Every field is capped here, where the page is read, so that a hostile page (a 5 MB ``<title>``)
cannot make the frames, answers and caches built from its metadata large: texts are cut to
``TEXT_LIMITS`` characters (an ellipsis last), and a URL longer than ``URL_LIMIT`` is dropped
rather than cut (a cut URL points somewhere else).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin, urlsplit

import lxml.html

FIELDS = ("title", "description", "canonical_url", "site_name", "image", "language", "final_url")
TEXT_LIMITS = {"title": 300, "description": 1000, "site_name": 300, "language": 35}
"""Longest text kept of each text field, in characters."""
URL_LIMIT = 2048
"""Longest URL kept from a page; a longer one is dropped."""
ELLIPSIS = "\u2026"
_SCAN_FACTOR = 8
"""Whitespace is collapsed over at most this many times a field's limit (a value is cut anyway)."""


def page_metadata(root: lxml.html.HtmlElement, url: str) -> dict[str, str]:
    """Every metadata field as a string ("" when the page says nothing)."""
    meta = _meta_tags(root)
    ld = list(json_ld_objects(root))

    def first(*candidates: str | None, limit: int | None = None) -> str:
        """The first non-blank candidate: a text cut to ``limit``, or (no limit) a URL, dropped
        when too long."""
        for value in candidates:
            if value and value.strip():
                if limit is not None:
                    return cap_text(value, limit)
                return cap_url(" ".join(value.split()))
        return ""

    title_tag = root.find(".//title")
    h1 = root.find(".//h1")
    canonical = _link_href(root, "canonical")
    image = first(
        meta.get("og:image"),
        meta.get("og:image:url"),
        meta.get("twitter:image"),
        meta.get("twitter:image:src"),
        _ld_image(ld),
    )
    out = {
        "title": first(
            meta.get("og:title"),
            meta.get("twitter:title"),
            _ld_value(ld, "headline"),
            title_tag.text_content() if title_tag is not None else None,
            _ld_value(ld, "name"),
            h1.text_content() if h1 is not None else None,
            limit=TEXT_LIMITS["title"],
        ),
        "description": first(
            meta.get("og:description"),
            meta.get("twitter:description"),
            meta.get("description"),
            _ld_value(ld, "description"),
            limit=TEXT_LIMITS["description"],
        ),
        "canonical_url": _absolute(url, first(canonical, meta.get("og:url"))) or url,
        "site_name": first(
            meta.get("og:site_name"),
            meta.get("application-name"),
            _ld_publisher(ld),
            urlsplit(url).hostname,
            limit=TEXT_LIMITS["site_name"],
        ),
        "image": _absolute(url, image),
        "language": first(
            root.get("lang"),
            root.get("xml:lang"),
            meta.get("content-language"),
            (meta.get("og:locale") or "").replace("_", "-"),
            limit=TEXT_LIMITS["language"],
        ),
        "final_url": url,
    }
    return out


def cap_text(value: str, limit: int) -> str:
    """``value`` with whitespace collapsed, cut to ``limit`` characters (the last an ellipsis)
    when longer."""
    scanned = value[: limit * _SCAN_FACTOR]
    text = " ".join(scanned.split())
    if len(text) <= limit and len(scanned) == len(value):
        return text
    return text[: limit - 1].rstrip() + ELLIPSIS


def cap_url(value: str) -> str:
    """``value``, or "" when it is longer than ``URL_LIMIT``."""
    return value if len(value) <= URL_LIMIT else ""


def _meta_tags(root: lxml.html.HtmlElement) -> dict[str, str]:
    """The first content of each meta name/property/http-equiv, lowercased keys."""
    found: dict[str, str] = {}
    for element in root.iter("meta"):
        key = element.get("property") or element.get("name") or element.get("http-equiv")
        content = element.get("content")
        if key and content is not None:
            found.setdefault(key.strip().lower(), content)
    return found


def _link_href(root: lxml.html.HtmlElement, rel: str) -> str | None:
    for element in root.iter("link"):
        rels = (element.get("rel") or "").lower().split()
        if rel in rels and element.get("href"):
            return element.get("href")
    return None


def json_ld_objects(root: lxml.html.HtmlElement) -> Iterator[dict[str, Any]]:
    """Every JSON-LD object on the page, @graph members included; broken blocks are skipped."""
    for element in root.iter("script"):
        if (element.get("type") or "").strip().lower() != "application/ld+json":
            continue
        try:
            data = json.loads(element.text or "")
        except (ValueError, RecursionError):  # broken, or nested deeper than the parser goes
            continue
        stack = data if isinstance(data, list) else [data]
        for item in stack:
            if not isinstance(item, dict):
                continue
            yield item
            graph = item.get("@graph")
            if isinstance(graph, list):
                yield from (node for node in graph if isinstance(node, dict))


def _ld_value(ld: list[dict[str, Any]], key: str) -> str | None:
    for item in ld:
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _ld_image(ld: list[dict[str, Any]]) -> str | None:
    for item in ld:
        value = item.get("image")
        if isinstance(value, list) and value:
            value = value[0]
        if isinstance(value, dict):
            value = value.get("url")
        if isinstance(value, str) and value.strip():
            return value
    return None


def _ld_publisher(ld: list[dict[str, Any]]) -> str | None:
    for item in ld:
        publisher = item.get("publisher")
        if isinstance(publisher, dict) and isinstance(publisher.get("name"), str):
            return str(publisher["name"])
    return None


def _absolute(base: str, value: str) -> str:
    """``value`` made absolute against ``base``; "" when empty, broken or too long."""
    if not value or len(value) > URL_LIMIT:
        return ""
    try:
        return cap_url(urljoin(base, value.strip()))
    except ValueError:
        return ""
