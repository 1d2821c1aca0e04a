"""A local site for the map, crawl and batch tests and benchmark: a few hundred pages on 127.0.0.1
with robots.txt rules, sitemaps, redirect chains, duplicate links, slow and failing pages and
links to addresses Pagecast must refuse. It records every request it serves and knows the exact
set of pages a correct map or crawl finds.

Use it from a test with pytest-tornado's ``io_loop`` (the ``crawl_site`` fixture below does
this; import it into a test module to use it)::

    site = CrawlSite(SiteShape(pages=300)).start()
    ...
    io_loop.run_sync(site.close)

or, when the code under test runs its own IOLoop (a benchmark, a server process), on a thread
of its own::

    with CrawlSite(SiteShape(pages=500)).running_in_thread() as site:
        ...

The site (``n`` = ``shape.pages``; every page is HTML with a title, a heading and two paragraphs
inside ``<article>``):

- ``/`` (depth 0) links to ``/docs/page-1``, ``/blog/``, ``/private/secret`` (robots refuse it),
  ``/private/public-note`` (robots allow it by a longer Allow rule), ``/docs/draft-0`` (refused),
  itself with tracking parameters, ``mailto:``/``javascript:``/``tel:`` links, and
  :data:`REFUSED_LINKS` plus the trap origin and ``http://localhost:<port>/...`` (another host).
- ``/docs/page-<i>``, ``i`` in 1..n, a binary tree: page ``i`` links to pages ``2i`` and ``2i+1``,
  so page ``i`` is at depth ``floor(log2 i) + 1``. Each also links to its parent and home in
  duplicate forms (trailing slash, ``utm_*``/``gclid``/``fbclid`` parameters, fragments); every
  tenth page writes its links relative to ``<base href="/docs/">``; every ninth links to
  ``/docs/draft-<i>`` and to itself with ``?print=1`` (both refused by robots).
- Every 25th page links to ``/old/<i>``: 301 to ``/moved/<i>``, 302 to ``/docs/landing-<i>``,
  whose relative link ``after-<i>`` leads to ``/docs/after-<i>`` (right only when links are
  resolved against the final URL).
- Page 2 links to ``/docs/broken`` (500) and ``/docs/missing`` (404); page 3 to ``/go/metadata``
  (a redirect to the cloud metadata address). Page ``k+3`` links to the slow page
  ``/docs/slow-<k>`` (``shape.slow_seconds`` before it answers).
- ``/blog/`` links to ``/blog/post-<k>`` (twice: plain and with ``utm_source``).
- Sitemaps, reachable only through robots.txt: ``/sitemap_index.xml`` names ``/sitemaps/docs.xml``
  (plain), ``/sitemaps/more.xml.gz`` (gzip, served as ``application/gzip``) and
  ``/sitemaps/archive-index.xml`` (an index inside the index, naming ``/sitemaps/archive.xml``);
  robots.txt also names the plain-text sitemap ``/sitemaps/extra.txt``. Between them they list
  every docs and blog page, pages no link leads to (``/docs/orphan-<k>``, ``/docs/orphan-text``,
  ``/archive/a-<k>``), duplicates, a robots-refused URL and a URL on another host.

Named hosts: with ``SiteShape(host="crawl.test")`` the site is ``http://crawl.test:<port>``
and also answers as ``docs.crawl.test`` (a subdomain with its own robots.txt, which refuses
``/hidden``, and pages ``/``, ``/guide-<k>``, ``/hidden``), linked from the home page beside
``elsewhere.test`` and ``evilcrawl.test`` (other hosts, served as foreign). Every name resolves
to 127.0.0.1 through :meth:`CrawlSite.resolver` (give it to the
:class:`~browser.fetch.client.Fetcher`) and :attr:`CrawlSite.allow_hosts` lists them all for
``fetch.allow_hosts``, so only a crawl's scope keeps it off the other hosts. Requests to the
subdomain are recorded in :attr:`CrawlSite.subdomain_hits`; ``subdomains=True`` in the
expectations takes its pages in.

The conventions the expectations follow (those of :mod:`convert.crawl.urls`,
:mod:`convert.crawl.robots` and :mod:`convert.crawl.scope`): URLs normalised with the fragment,
tracking parameters and a trailing slash (except the root's) dropped; robots.txt groups and
longest-match Allow/Disallow with ``*`` and ``$``; include and exclude patterns are shell-style
globs on the URL's path (``*`` crosses ``/``); a page not admitted is neither fetched nor followed;
the start URL is always admitted; same host and port only (scope without subdomains).

Expectations: :meth:`CrawlSite.expected_crawl` (URL to depth), :meth:`CrawlSite.expected_map`,
:attr:`CrawlSite.failing` (the pages that fail), :attr:`CrawlSite.redirected` (URL to final URL).
Records: :attr:`CrawlSite.page_hits` (a Counter of pages served, by path without trailing slash,
query ignored, so a page fetched under two query strings counts twice),
:attr:`CrawlSite.file_hits` (robots.txt and sitemaps), :attr:`CrawlSite.foreign_hits` (requests
naming another host), :attr:`CrawlSite.trap_hits` (requests to the trap origin, another port of
127.0.0.1 that a crawl must not reach), :attr:`CrawlSite.subdomain_hits` (named sites) and
:attr:`CrawlSite.requests` (every request: host header and URI, in order). The content itself is
built by :mod:`tests.crawl_pages`.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import Counter, deque
from collections.abc import Iterator
from fnmatch import fnmatchcase
from typing import Any
from urllib.parse import urlsplit

import pytest
import tornado.web
from tornado.ioloop import IOLoop

from browser.resolver import ResolutionError
from tests.crawl_pages import (
    METADATA_REDIRECT,
    REFUSED_LINKS,
    SiteContent,
    SiteShape,
    render_page,
)
from tests.origin import Origin, serve

__all__ = [
    "METADATA_REDIRECT",
    "REFUSED_LINKS",
    "CrawlSite",
    "SiteShape",
    "crawl_site",
]


class _TrapHandler(tornado.web.RequestHandler):
    def initialize(self, hits: Counter[str]) -> None:
        self.hits = hits

    def get(self, *_: str) -> None:
        self.hits[self.request.uri or "/"] += 1
        self.write("<p>trap</p>")


class _SiteHandler(tornado.web.RequestHandler):
    def initialize(self, site: CrawlSite) -> None:
        self.site = site

    async def get(self, *_: str) -> None:
        await self.site.answer(self)


class CrawlSite:
    """The site; :meth:`start` serves it on the current IOLoop."""

    def __init__(self, shape: SiteShape | None = None) -> None:
        self.shape = shape or SiteShape()
        self.page_hits: Counter[str] = Counter()
        self.file_hits: Counter[str] = Counter()
        self.foreign_hits: Counter[str] = Counter()
        self.requests: list[tuple[str, str]] = []
        self.trap_hits: Counter[str] = Counter()
        self.subdomain_hits: Counter[str] = Counter()
        self.trap: Origin | None = None
        self._origin: Origin | None = None
        self._content: SiteContent | None = None

    # -- serving ---------------------------------------------------------------------------

    def start(self) -> CrawlSite:
        """Serve the site and its trap origin on 127.0.0.1 at free ports (on the current IOLoop)."""
        app = tornado.web.Application([(r"/(.*)", _SiteHandler, {"site": self})])
        self._origin = serve(app)
        trap_app = tornado.web.Application([(r"/(.*)", _TrapHandler, {"hits": self.trap_hits})])
        self.trap = serve(trap_app)
        self._content = SiteContent(self.shape, self._origin.port, self.trap.url("/stolen"))
        return self

    async def close(self) -> None:
        """Stop both servers."""
        for origin in (self._origin, self.trap):
            if origin is not None:
                await origin.close()

    @contextlib.contextmanager
    def running_in_thread(self) -> Iterator[CrawlSite]:
        """Serve the site from an IOLoop on a thread of its own, for as long as the block runs."""
        ready = threading.Event()
        loop_box: list[IOLoop] = []

        def run() -> None:
            asyncio.set_event_loop(asyncio.new_event_loop())
            loop = IOLoop.current()
            loop_box.append(loop)
            self.start()
            ready.set()
            loop.start()
            loop.run_sync(self.close)
            loop.close(all_fds=True)

        thread = threading.Thread(target=run, name="crawl-site", daemon=True)
        thread.start()
        if not ready.wait(10):
            raise RuntimeError("the crawl site did not start")
        try:
            yield self
        finally:
            loop_box[0].add_callback(loop_box[0].stop)
            thread.join(10)

    @property
    def content(self) -> SiteContent:
        """What the site serves (its pages, files, redirects; see :mod:`tests.crawl_pages`)."""
        assert self._content is not None, "start() the site first"
        return self._content

    @property
    def base_url(self) -> str:
        """``http://<host>:<port>`` (``127.0.0.1`` unless the shape names a host)."""
        return self.content.base_url

    def url(self, path: str = "/") -> str:
        """An absolute URL on the site."""
        return self.content.url(path)

    @property
    def port(self) -> int:
        """The port every name of the site is served on."""
        return self.content.port

    @property
    def named(self) -> bool:
        """Whether the site has a host name (and so a subdomain and other hosts)."""
        return self.content.named

    @property
    def subdomain(self) -> str:
        """The subdomain's host name, ``docs.<host>`` (named sites only)."""
        return self.content.subdomain

    def sub_url(self, path: str = "/") -> str:
        """An absolute URL on the subdomain."""
        return self.content.sub_url(path)

    @property
    def other_hosts(self) -> tuple[str, ...]:
        """Hosts a named site links to that are not its own."""
        return self.content.other_hosts

    @property
    def failing(self) -> set[str]:
        """The pages that fail (500, 404, a redirect to a refused address), normalised."""
        return self.content.failing

    @property
    def redirected(self) -> dict[str, str]:
        """Each redirecting URL and the URL its chain ends at."""
        return self.content.redirected

    @property
    def allow_hosts(self) -> list[str]:
        """Every name the site answers to (for ``fetch.allow_hosts``: then only the crawl's
        scope keeps a fetch off the other hosts)."""
        if not self.named:
            return ["127.0.0.1"]
        return [self.shape.host, self.subdomain, *self.other_hosts, "127.0.0.1"]

    async def resolver(self, host: str, port: int) -> list[str]:
        """A :data:`browser.resolver.Resolver` mapping the site's names to 127.0.0.1."""
        if host in self.allow_hosts:
            return ["127.0.0.1"]
        raise ResolutionError(f"{host} does not resolve")

    async def answer(self, handler: tornado.web.RequestHandler) -> None:
        """Serve one request and record it."""
        request = handler.request
        host = request.host or ""
        self.requests.append((host, request.uri or ""))
        path = request.path
        if self.named and request.host_name == self.subdomain:
            self._answer_subdomain(handler, path)
            return
        if host != urlsplit(self.base_url).netloc:
            self.foreign_hits[request.uri or ""] += 1
        content = self.content
        if path in content.files:
            self.file_hits[path] += 1
            content_type, body = content.files[path]
            handler.set_header("Content-Type", content_type)
            handler.write(body)
            return
        key = path.rstrip("/") or "/"
        self.page_hits[key] += 1
        if key in content.redirects:
            status, location = content.redirects[key]
            handler.redirect(location, status=status)
            return
        if key in content.statuses:
            handler.set_status(content.statuses[key])
            handler.write(f"<html><body><p>Error {content.statuses[key]}</p></body></html>")
            return
        page = content.pages.get(key)
        if page is None:
            handler.set_status(404)
            handler.write("<html><body><p>Not here</p></body></html>")
            return
        if key.startswith("/docs/slow-"):
            await asyncio.sleep(self.shape.slow_seconds)
        handler.set_header("Content-Type", "text/html; charset=utf-8")
        handler.write(render_page(key, page))

    def _answer_subdomain(self, handler: tornado.web.RequestHandler, path: str) -> None:
        key = path.rstrip("/") or "/"
        self.subdomain_hits[key] += 1
        if key == "/robots.txt":
            handler.set_header("Content-Type", "text/plain")
            handler.write("User-agent: *\nDisallow: /hidden\n")
            return
        page = self.content.sub_pages.get(key)
        if page is None:
            handler.set_status(404)
            return
        handler.set_header("Content-Type", "text/html; charset=utf-8")
        handler.write(render_page(key, page))

    # -- expectations ----------------------------------------------------------------------

    def robots_allows(self, url: str) -> bool:
        """Whether the robots.txt of ``url``'s host (the site's or its subdomain's) lets
        Pagecast (any agent but BadBot) fetch ``url``."""
        parts = urlsplit(url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        if url.startswith(self.sub_url("/")):
            return not target.startswith("/hidden")
        if target.startswith("/private/"):
            return target.startswith("/private/public-note")
        return not target.startswith("/docs/draft-") and "?print=" not in target

    def expected_crawl(
        self,
        start: str = "/",
        *,
        max_depth: int | None = None,
        include: tuple[str, ...] = (),
        exclude: tuple[str, ...] = (),
        subdomains: bool = False,
    ) -> dict[str, int]:
        """Every URL a correct breadth-first crawl from ``start`` (a path) records, failed pages
        included, normalised, with its depth. Redirects are recorded under the URL linked to."""
        origin = self.url(start)
        depths = {origin: 0}
        queue = deque([origin])
        while queue:
            url = queue.popleft()
            depth = depths[url]
            if max_depth is not None and depth >= max_depth:
                continue
            for target in self._outlinks(url):
                if target in depths or not self._admits(target, include, exclude, subdomains):
                    continue
                depths[target] = depth + 1
                queue.append(target)
        return depths

    def expected_map(
        self,
        start: str = "/",
        *,
        include: tuple[str, ...] = (),
        exclude: tuple[str, ...] = (),
        sitemap: bool = True,
        subdomains: bool = False,
    ) -> set[str]:
        """Every URL a correct map from ``start`` answers: the start URL, the start page's links
        and (with ``sitemap``) every sitemap's URLs, normalised, on this host, allowed by
        robots.txt and by the patterns."""
        origin = self.url(start)
        found = {origin, *self._outlinks(origin, follow_redirects=False)}
        if sitemap:
            found.update(self.content.sitemap_urls)
        return {
            url for url in found if url == origin or self._admits(url, include, exclude, subdomains)
        }

    def _admits(
        self, url: str, include: tuple[str, ...], exclude: tuple[str, ...], subdomains: bool
    ) -> bool:
        on_site = url.startswith(self.base_url + "/") or (
            subdomains and self.named and url.startswith(self.sub_url("/"))
        )
        if not on_site or not self.robots_allows(url):
            return False
        path = urlsplit(url).path
        if include and not any(fnmatchcase(path, pattern) for pattern in include):
            return False
        return not any(fnmatchcase(path, pattern) for pattern in exclude)

    def _outlinks(self, url: str, *, follow_redirects: bool = True) -> list[str]:
        final = self.redirected.get(url, url) if follow_redirects else url
        if self.named and final.startswith(self.sub_url("/")):
            page = self.content.sub_pages.get(
                final.removeprefix(self.sub_url("")).rstrip("/") or "/"
            )
        else:
            page = self.content.pages.get(final.removeprefix(self.base_url) or "/")
        return [target for _, target in page.links if target] if page else []


@pytest.fixture
def crawl_site(io_loop: Any) -> Iterator[CrawlSite]:
    """A started :class:`CrawlSite` of the default shape, closed after the test."""
    site = CrawlSite().start()
    yield site
    io_loop.run_sync(site.close)
