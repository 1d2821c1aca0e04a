"""Sitemaps read from their bytes (pure, no I/O): XML ``urlset`` and ``sitemapindex`` files,
RSS and Atom feeds, plain-text lists of URLs, any of them gzip-compressed.

Public API:

- :func:`parse_sitemap` (body, max_urls=:data:`MAX_URLS`, max_bytes=:data:`MAX_BYTES`)
  -> :class:`Sitemap`: ``kind`` (a :class:`SitemapKind`), ``urls`` (page URLs for a urlset, a
  feed or a text sitemap; child sitemap URLs for an index; stripped, as written, in order, at
  most ``max_urls``) and ``truncated`` (URLs or bytes were left out at a bound). A body that is
  gzip (by its magic bytes, whatever the Content-Type) is decompressed first, at most
  ``max_bytes`` of it: a decompression bomb ends as a truncated sitemap, never as memory.
  Anything unreadable is ``SitemapKind.invalid`` with no URLs; nothing raises.

XML is parsed without entities, DTDs or network access, and leniently (a sitemap cut off
midway still gives the URLs before the cut).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from enum import StrEnum

from lxml import etree

MAX_URLS = 50_000
"""URLs read from one sitemap file (the sitemap protocol's own limit)."""

MAX_BYTES = 50 * 1024 * 1024
"""Bytes of one sitemap read after decompression (the protocol's limit, 50 MiB)."""

_GZIP_MAGIC = b"\x1f\x8b"
_SCHEMES = ("http://", "https://")


class SitemapKind(StrEnum):
    """What a sitemap file turned out to be."""

    urlset = "urlset"
    sitemapindex = "sitemapindex"
    feed = "feed"
    text = "text"
    invalid = "invalid"


@dataclass
class Sitemap:
    """One sitemap file's URLs (see the module docstring)."""

    kind: SitemapKind
    urls: list[str] = field(default_factory=list)
    truncated: bool = False


def parse_sitemap(body: bytes, *, max_urls: int = MAX_URLS, max_bytes: int = MAX_BYTES) -> Sitemap:
    """The URLs of one sitemap file (see the module docstring)."""
    truncated = False
    if body.startswith(_GZIP_MAGIC):
        unpacked = _gunzip(body, max_bytes)
        if unpacked is None:
            return Sitemap(SitemapKind.invalid)
        body, truncated = unpacked
    elif len(body) > max_bytes:
        body, truncated = body[:max_bytes], True
    text_start = body.lstrip(b"\xef\xbb\xbf \t\r\n")
    sitemap = _xml(text_start) if text_start.startswith(b"<") else _text(text_start)
    if len(sitemap.urls) > max_urls:
        del sitemap.urls[max_urls:]
        truncated = True
    sitemap.truncated = truncated
    return sitemap


def _gunzip(body: bytes, max_bytes: int) -> tuple[bytes, bool] | None:
    """The decompressed bytes (at most ``max_bytes``) and whether there were more; None when
    the body is not gzip after all."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        data = inflater.decompress(body, max_bytes)
    except zlib.error:
        return None
    return data, bool(inflater.unconsumed_tail)


def _xml(body: bytes) -> Sitemap:
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, recover=True, huge_tree=False
    )
    try:
        root = etree.fromstring(body, parser)
    except etree.XMLSyntaxError:
        return Sitemap(SitemapKind.invalid)
    if root is None:
        return Sitemap(SitemapKind.invalid)
    kind = etree.QName(root).localname.lower()
    if kind == "urlset":
        return Sitemap(SitemapKind.urlset, _locs(root, "url"))
    if kind == "sitemapindex":
        return Sitemap(SitemapKind.sitemapindex, _locs(root, "sitemap"))
    if kind == "rss":
        return Sitemap(SitemapKind.feed, _texts(root, "item", "link"))
    if kind == "feed":
        return Sitemap(SitemapKind.feed, _atom_links(root))
    return Sitemap(SitemapKind.invalid)


def _children(element: etree._Element, name: str) -> list[etree._Element]:
    return [
        child
        for child in element
        if isinstance(child.tag, str) and etree.QName(child).localname.lower() == name
    ]


def _locs(root: etree._Element, entry: str) -> list[str]:
    return _texts(root, entry, "loc")


def _texts(root: etree._Element, entry: str, name: str) -> list[str]:
    found = []
    for element in root.iter():
        if not isinstance(element.tag, str) or etree.QName(element).localname.lower() != entry:
            continue
        for child in _children(element, name):
            value = (child.text or "").strip()
            if value:
                found.append(value)
                break
    return found


def _atom_links(root: etree._Element) -> list[str]:
    found = []
    for entry in _children(root, "entry"):
        for link in _children(entry, "link"):
            href = (link.get("href") or "").strip()
            if href and link.get("rel", "alternate") == "alternate":
                found.append(href)
                break
    return found


def _text(body: bytes) -> Sitemap:
    lines = body.decode("utf-8", errors="replace").splitlines()
    urls = [line.strip() for line in lines if line.strip().lower().startswith(_SCHEMES)]
    return Sitemap(SitemapKind.text if urls or not body.strip() else SitemapKind.invalid, urls)
