"""Discovery steps that run in a conversion worker (pure, no I/O): a page's links and a sitemap's
URLs, resolved, cleaned, kept to a scope and deduplicated, so the IOLoop only applies robots.txt
and the limits.

Public API (each function is picklable by reference, for :meth:`services.pool.ConverterPool.run`):

- :func:`scoped_urls` (urls, base_url, scope, depth=1) -> list[Candidate]: ``urls`` resolved
  against ``base_url``, cleaned (:func:`convert.crawl.urls.clean_url`), those ``scope`` admits at
  ``depth``, once per :func:`~convert.crawl.urls.url_key`, in their order.
- :func:`page_links` (html, page_url, scope, depth=1) -> list[Candidate]: the same for the
  links of a page (:func:`convert.crawl.links.extract_links`; ``page_url`` is the URL the page was
  finally served from).
- :func:`sitemap_urls` (body, sitemap_url, scope) -> (Sitemap, list[Candidate]): a sitemap file
  read (:func:`convert.crawl.sitemaps.parse_sitemap`); for an index, its ``urls`` are the child
  sitemaps' absolute URLs and there are no candidates; otherwise its ``urls`` are emptied and
  the page URLs come as candidates.
- ``Candidate``: a (cleaned URL, key) pair.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urljoin

from convert.crawl.links import extract_links
from convert.crawl.scope import CrawlScope
from convert.crawl.sitemaps import Sitemap, SitemapKind, parse_sitemap
from convert.crawl.urls import CrawlURLError, clean_url, key_of

Candidate = tuple[str, str]
_ABSOLUTE = ("http://", "https://")


def scoped_urls(
    urls: Iterable[str], base_url: str, scope: CrawlScope, depth: int = 1
) -> list[Candidate]:
    """The URLs ``scope`` admits, cleaned, once each (see the module docstring)."""
    seen: set[str] = set()
    kept: list[Candidate] = []
    for url in urls:
        try:
            absolute = url if url.startswith(_ABSOLUTE) else urljoin(base_url, url)
            cleaned = clean_url(absolute)
            key = key_of(cleaned)
        except (CrawlURLError, ValueError):
            continue
        if key in seen or scope.refusal_of_key(key, depth) is not None:
            continue
        seen.add(key)
        kept.append((cleaned, key))
    return kept


def page_links(html: str, page_url: str, scope: CrawlScope, depth: int = 1) -> list[Candidate]:
    """The links of a page that ``scope`` admits (see the module docstring)."""
    return scoped_urls(extract_links(html, page_url), page_url, scope, depth)


def sitemap_urls(
    body: bytes, sitemap_url: str, scope: CrawlScope
) -> tuple[Sitemap, list[Candidate]]:
    """A sitemap file's child sitemaps or admitted page URLs (see the module docstring)."""
    sitemap = parse_sitemap(body)
    if sitemap.kind == SitemapKind.sitemapindex:
        children = []
        for url in sitemap.urls:
            try:
                children.append(urljoin(sitemap_url, url))
            except ValueError:
                continue
        sitemap.urls = children
        return sitemap, []
    candidates = scoped_urls(sitemap.urls, sitemap_url, scope)
    sitemap.urls = []
    return sitemap, candidates
