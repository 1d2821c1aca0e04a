"""The map use case: the URLs of a site, from its robots.txt sitemaps and its start page's links,
answered at once.

Public API:

- :class:`MapSettings` (section ``map``): the time a map may take and how many sitemap files it
  reads, how deep through indexes and how many at once.
- :class:`MapRequest` (url, include, exclude, subdomains, sitemap, limit): one map, read and
  checked by its handler. ``sitemap`` is ``include`` (sitemaps and the start page's links),
  ``skip`` (links only) or ``only`` (sitemaps only).
- :class:`SiteMapper` (fetcher, pool, settings, credits): ``await mapper.run(request) ->
  MapResult``; raises :class:`~services.failure.ServiceError` with a
  :class:`~browser.fetch.client.FetchError` kind, as the Markdown endpoint would for the same
  target: a start URL that is not http(s) (``invalid_url``), that the guard refuses
  (``address_not_allowed``) or whose host does not resolve (``dns``), or a start page that failed
  when nothing else was found.
- :class:`MapResult`: ``url`` (the start URL, cleaned; the URL it ends on when its redirects
  lead to another site, which is then the site mapped), ``urls`` (cleaned by
  :func:`convert.crawl.urls.clean_url`, one per :func:`~convert.crawl.urls.url_key`, in the order
  found: the start URL, the start page's links in document order, then the sitemaps' URLs,
  indexes followed breadth first), ``sources`` (how many answered URLs each source gave first),
  ``robots`` (``found``, ``absent`` or ``unreachable``), ``sitemaps_read``, ``sitemaps_failed``,
  ``truncated`` (``limit`` cut the list), ``complete`` (False when the time or a sitemap bound
  ran out first), ``credits``.

What is kept: URLs inside the scope (:class:`convert.crawl.scope.CrawlScope`: the start URL's host
and port, subdomains when asked, the include and exclude globs on the path; the start URL always)
and allowed by robots.txt for Pagecast (each host's own: the start host's first, a subdomain's when
one of its URLs comes up, up to ``max_hosts``; read by :mod:`services.robots_file`, which crawls
share). robots.txt is read as RFC 9309 says: a 4xx means no rules, a 5xx or an unreachable file
means the host is not to be crawled (on the start host, only the start URL is answered). Sitemaps
come from robots.txt's Sitemap lines, else ``/sitemap.xml``; only sitemap files on the site are
read. Every fetch goes through the fetcher (the SSRF guard, its size and time limits); sitemaps and
pages are parsed in the conversion workers.
"""

from services.site_map.mapper import SiteMapper
from services.site_map.types import (
    SITEMAP_MODES,
    MapFailure,
    MapRequest,
    MapResult,
    MapSettings,
    SitemapMode,
)

__all__ = [
    "SITEMAP_MODES",
    "MapFailure",
    "MapRequest",
    "MapResult",
    "MapSettings",
    "SiteMapper",
    "SitemapMode",
]
