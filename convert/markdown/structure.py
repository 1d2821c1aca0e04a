"""Page structure of the main content: heading outline, links and images, with counts of data
tables and code blocks. Read from the extracted tree before it is rendered."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from lxml import etree

from convert.html.document import text_of
from convert.markdown.tables import is_layout_table
from convert.text.urls import registrable_domain

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# Second-level labels under which registrations happen one level down (example.co.uk).


@dataclass(frozen=True)
class StructureLimits:
    """Caps on each list; the ``*_truncated`` flags say when one was hit."""

    headings: int = 500
    links: int = 2000
    images: int = 500


@dataclass
class Structure:
    """What :func:`page_structure` found, as JSON-ready lists."""

    headings: list[dict[str, Any]] = field(default_factory=list)
    links: list[dict[str, Any]] = field(default_factory=list)
    images: list[dict[str, str]] = field(default_factory=list)
    headings_truncated: bool = False
    links_truncated: bool = False
    images_truncated: bool = False
    tables_detected: int = 0
    code_blocks_detected: int = 0


def page_structure(root: etree._Element, url: str, limits: StructureLimits) -> Structure:
    """The outline, links and images of ``root`` (URLs already absolute)."""
    found = Structure()
    for heading in root.iter(*_HEADINGS):
        text = text_of(heading)
        if not text:
            continue
        if len(found.headings) >= limits.headings:
            found.headings_truncated = True
            break
        found.headings.append({"level": int(heading.tag[1]), "text": text})
    site = registrable_domain(urlsplit(url).hostname or "")
    seen: set[tuple[str, str]] = set()
    for link in root.iter("a"):
        href = (link.get("href") or "").strip()
        if urlsplit(href).scheme not in ("http", "https"):
            continue
        text = text_of(link) or (link.get("title") or "").strip()
        if (href, text) in seen:
            continue
        seen.add((href, text))
        if len(found.links) >= limits.links:
            found.links_truncated = True
            break
        rel = " ".join((link.get("rel") or "").split()) or None
        host = urlsplit(href).hostname or ""
        found.links.append(
            {"url": href, "text": text, "rel": rel, "internal": registrable_domain(host) == site}
        )
    sources: set[str] = set()
    for image in root.iter("img"):
        src = (image.get("src") or "").strip()
        if urlsplit(src).scheme not in ("http", "https") or src in sources:
            continue
        sources.add(src)
        if len(found.images) >= limits.images:
            found.images_truncated = True
            break
        found.images.append({"url": src, "alt": " ".join((image.get("alt") or "").split())})
    found.tables_detected = sum(1 for table in root.iter("table") if not is_layout_table(table))
    found.code_blocks_detected = sum(1 for _ in root.iter("pre"))
    return found
