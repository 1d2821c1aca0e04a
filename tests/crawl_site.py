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
:class:`~browser.fetch.Fetcher`) and :attr:`CrawlSite.allow_hosts` lists them all for
``fetch.allow_hosts``, so only a crawl's scope keeps it off the other hosts. Requests to the
subdomain are recorded in :attr:`CrawlSite.subdomain_hits`; ``subdomains=True`` in the
expectations takes its pages in.

The conventions the expectations follow (those of :mod:`convert.crawlurls`, :mod:`convert.robots`
and :mod:`convert.scope`): URLs normalised with the fragment, tracking parameters and a trailing
slash (except the root's) dropped; robots.txt groups and longest-match Allow/Disallow with ``*``
and ``$``; include and exclude patterns are shell-style globs on the URL's path (``*`` crosses
``/``); a page not admitted is neither fetched nor followed; the start URL is always admitted;
same host and port only (scope without subdomains).

Expectations: :meth:`CrawlSite.expected_crawl` (URL to depth), :meth:`CrawlSite.expected_map`,
:attr:`CrawlSite.failing` (the pages that fail), :attr:`CrawlSite.redirected` (URL to final URL).
Records: :attr:`CrawlSite.page_hits` (a Counter of pages served, by path without trailing slash,
query ignored, so a page fetched under two query strings counts twice), :attr:`CrawlSite.file_hits`
(robots.txt and sitemaps), :attr:`CrawlSite.foreign_hits` (requests naming another host),
``site.trap.hits`` (requests to the trap origin, another port of 127.0.0.1 that a crawl must not
reach), :attr:`CrawlSite.requests` (every request: host header and URI, in order).
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import html
import threading
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any
from urllib.parse import urlsplit

import pytest
import tornado.web
from tornado.ioloop import IOLoop

from browser.resolver import ResolutionError
from tests.origin import Origin, serve

REFUSED_LINKS = (
    "http://10.0.0.1/internal",
    "http://169.254.169.254/latest/meta-data",
    "http://[::1]:1/",
)
"""Links on the home page to addresses the SSRF guard refuses (each already normalised)."""

METADATA_REDIRECT = "http://169.254.169.254/latest/meta-data/iam"
"""Where ``/go/metadata`` redirects."""

_PARENT_VARIANTS = ("/", "?utm_source=newsletter&utm_medium=email", "?gclid=abc123", "#part-2")
_ARTICLE = (
    "<p>{title} explains how the harbour office schedules pilots, tugs and berths for ship "
    "number {number}. The tide tables decide which vessels enter first.</p>"
    "<p>Crews record every manoeuvre in the logbook, and the port authority publishes a summary "
    "for page {number} each evening so that agents can plan the next day.</p>"
)


@dataclass(frozen=True)
class SiteShape:
    """How big the site is and how it behaves."""

    pages: int = 300
    blog_posts: int = 20
    orphans: int = 5
    slow_pages: int = 3
    slow_seconds: float = 0.5
    crawl_delay: float | None = None
    """Written as robots.txt's Crawl-delay for every agent when set."""
    host: str = "127.0.0.1"
    """The site's host. A name (``crawl.test``) adds a subdomain and other hosts, all served
    on 127.0.0.1: see "Named hosts" in the module docstring."""
    subdomain_pages: int = 3


@dataclass
class _Page:
    links: list[tuple[str, str]] = field(default_factory=list)
    """(href as written, the URL it means, normalised; "" for links that are not pages)."""
    base: str | None = None
    title: str = ""


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
        self.failing: set[str] = set()
        self.redirected: dict[str, str] = {}
        self._pages: dict[str, _Page] = {}
        self._files: dict[str, tuple[str, bytes]] = {}
        self._redirects: dict[str, tuple[int, str]] = {}
        self._statuses: dict[str, int] = {}
        self._sitemap_urls: list[str] = []
        self._origin: Origin | None = None
        self.trap: Origin | None = None
        self.trap_hits: Counter[str] = Counter()
        self.subdomain_hits: Counter[str] = Counter()
        self._sub_pages: dict[str, _Page] = {}

    # -- serving ---------------------------------------------------------------------------

    def start(self) -> CrawlSite:
        """Serve the site and its trap origin on 127.0.0.1 at free ports (on the current IOLoop)."""
        app = tornado.web.Application([(r"/(.*)", _SiteHandler, {"site": self})])
        self._origin = serve(app)
        trap_app = tornado.web.Application([(r"/(.*)", _TrapHandler, {"hits": self.trap_hits})])
        self.trap = serve(trap_app)
        self._build()
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
    def base_url(self) -> str:
        """``http://<host>:<port>`` (``127.0.0.1`` unless the shape names a host)."""
        return f"http://{self.shape.host}:{self._port}"

    def url(self, path: str = "/") -> str:
        """An absolute URL on the site."""
        return self.base_url + path

    @property
    def named(self) -> bool:
        """Whether the site has a host name (and so a subdomain and other hosts)."""
        return any(char.isalpha() for char in self.shape.host) and ":" not in self.shape.host

    @property
    def subdomain(self) -> str:
        """The subdomain's host name, ``docs.<host>`` (named sites only)."""
        return f"docs.{self.shape.host}"

    def sub_url(self, path: str = "/") -> str:
        """An absolute URL on the subdomain."""
        return f"http://{self.subdomain}:{self._port}{path}"

    @property
    def other_hosts(self) -> tuple[str, ...]:
        """Hosts a named site links to that are not its own: another site, and one whose name
        merely ends with the site's."""
        return ("elsewhere.test", f"evil{self.shape.host}")

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
        if path in self._files:
            self.file_hits[path] += 1
            content_type, body = self._files[path]
            handler.set_header("Content-Type", content_type)
            handler.write(body)
            return
        key = path.rstrip("/") or "/"
        self.page_hits[key] += 1
        if key in self._redirects:
            status, location = self._redirects[key]
            handler.redirect(location, status=status)
            return
        if key in self._statuses:
            handler.set_status(self._statuses[key])
            handler.write(f"<html><body><p>Error {self._statuses[key]}</p></body></html>")
            return
        page = self._pages.get(key)
        if page is None:
            handler.set_status(404)
            handler.write("<html><body><p>Not here</p></body></html>")
            return
        if key.startswith("/docs/slow-"):
            await asyncio.sleep(self.shape.slow_seconds)
        handler.set_header("Content-Type", "text/html; charset=utf-8")
        handler.write(_render(key, page))

    def _answer_subdomain(self, handler: tornado.web.RequestHandler, path: str) -> None:
        key = path.rstrip("/") or "/"
        self.subdomain_hits[key] += 1
        if key == "/robots.txt":
            handler.set_header("Content-Type", "text/plain")
            handler.write("User-agent: *\nDisallow: /hidden\n")
            return
        page = self._sub_pages.get(key)
        if page is None:
            handler.set_status(404)
            return
        handler.set_header("Content-Type", "text/html; charset=utf-8")
        handler.write(_render(key, page))

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
            found.update(self._sitemap_urls)
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
            page = self._sub_pages.get(final.removeprefix(self.sub_url("")).rstrip("/") or "/")
        else:
            page = self._pages.get(final.removeprefix(self.base_url) or "/")
        return [target for _, target in page.links if target] if page else []

    # -- building --------------------------------------------------------------------------

    def _build(self) -> None:
        n = self.shape.pages
        base = self.base_url
        assert self.trap is not None
        home = self._page("/", "Harbour office")
        home.links += [
            ("/docs/page-1#intro", f"{base}/docs/page-1"),
            ("/blog/", f"{base}/blog"),
            ("/private/secret", f"{base}/private/secret"),
            ("/private/public-note", f"{base}/private/public-note"),
            ("/docs/draft-0", f"{base}/docs/draft-0"),
            ("/?utm_campaign=spring&fbclid=x1", f"{base}/"),
            ("mailto:office@example.org", ""),
            ("javascript:void(0)", ""),
            ("tel:+100200300", ""),
            (self.trap.url("/stolen"), self.trap.url("/stolen")),
            (
                f"http://localhost:{self._port}/docs/page-1",
                f"http://localhost:{self._port}/docs/page-1",
            ),
            *((link, link) for link in REFUSED_LINKS),
        ]
        self._page("/private/public-note", "Public note").links.append(("/", f"{base}/"))
        for i in range(1, n + 1):
            self._docs_page(i)
        blog = self._page("/blog", "Blog")
        for k in range(1, self.shape.blog_posts + 1):
            blog.links.append((f"/blog/post-{k}", f"{base}/blog/post-{k}"))
            blog.links.append((f"/blog/post-{k}?utm_source=blog", f"{base}/blog/post-{k}"))
            self._page(f"/blog/post-{k}", f"Blog post {k}").links.append(("/blog/", f"{base}/blog"))
        for k in range(1, self.shape.slow_pages + 1):
            self._page(f"/docs/slow-{k}", f"Slow page {k}").links.append(("/", f"{base}/"))
        self._statuses = {"/docs/broken": 500, "/docs/missing": 404}
        self._redirects["/go/metadata"] = (302, METADATA_REDIRECT)
        self.failing = {f"{base}/docs/broken", f"{base}/docs/missing", f"{base}/go/metadata"}
        orphans = [f"/docs/orphan-{k}" for k in range(1, self.shape.orphans + 1)]
        archive = [f"/archive/a-{k}" for k in range(1, 4)]
        for path in [*orphans, *archive, "/docs/orphan-text"]:
            self._page(path, path.rsplit("/", 1)[1].replace("-", " ").title())
            self._pages[path].links.append(("/", f"{base}/"))
        self._sitemaps(n, orphans, archive)
        if self.named:
            self._named_hosts(home)

    def _named_hosts(self, home: _Page) -> None:
        """The subdomain's pages, and the home page's links to it and to the other hosts."""
        base = self.base_url
        index = self._sub_pages["/"] = _Page(title="Docs subdomain")
        index.links += [("/hidden", self.sub_url("/hidden")), (base + "/", base + "/")]
        for k in range(1, self.shape.subdomain_pages + 1):
            index.links.append((f"/guide-{k}#top", self.sub_url(f"/guide-{k}")))
            page = self._sub_pages[f"/guide-{k}"] = _Page(title=f"Guide {k}")
            page.links.append(("/", self.sub_url("/")))
        self._sub_pages["/hidden"] = _Page(title="Hidden")
        home.links.append((self.sub_url("/"), self.sub_url("/")))
        for host in self.other_hosts:
            home.links.append((f"http://{host}:{self._port}/", f"http://{host}:{self._port}/"))

    @property
    def _port(self) -> int:
        assert self._origin is not None, "start() the site first"
        return self._origin.port

    def _page(self, path: str, title: str) -> _Page:
        page = self._pages[path] = _Page(title=title)
        return page

    def _docs_page(self, i: int) -> None:
        base = self.base_url
        page = self._page(f"/docs/page-{i}", f"Docs page {i}")
        relative = i % 10 == 0
        if relative:
            page.base = "/docs/"
        for child in (2 * i, 2 * i + 1):
            if child <= self.shape.pages:
                href = f"page-{child}" if relative else f"/docs/page-{child}"
                page.links.append((href, f"{base}/docs/page-{child}"))
        parent = f"/docs/page-{i // 2}" if i > 1 else "/"
        variant = _PARENT_VARIANTS[i % len(_PARENT_VARIANTS)] if i > 1 else ""
        page.links.append((parent + variant, f"{base}{parent}"))
        page.links.append(("/?utm_source=docs", f"{base}/"))
        if i % 7 == 0:
            page.links.append((f"/docs/page-{i}#top", f"{base}/docs/page-{i}"))
        if i % 9 == 0:
            page.links.append((f"/docs/draft-{i}", f"{base}/docs/draft-{i}"))
            page.links.append((f"/docs/page-{i}?print=1", f"{base}/docs/page-{i}?print=1"))
        if i % 25 == 0:
            self._redirect_chain(page, i)
        if i == 2:
            page.links += [
                ("/docs/broken", f"{base}/docs/broken"),
                ("/docs/missing", f"{base}/docs/missing"),
            ]
        if i == 3:
            page.links.append(("/go/metadata", f"{base}/go/metadata"))
        if 1 <= i - 3 <= self.shape.slow_pages:
            page.links.append((f"/docs/slow-{i - 3}", f"{base}/docs/slow-{i - 3}"))

    def _redirect_chain(self, page: _Page, i: int) -> None:
        base = self.base_url
        page.links.append((f"/old/{i}", f"{base}/old/{i}"))
        self._redirects[f"/old/{i}"] = (301, f"/moved/{i}")
        self._redirects[f"/moved/{i}"] = (302, f"{base}/docs/landing-{i}")
        self.redirected[f"{base}/old/{i}"] = f"{base}/docs/landing-{i}"
        landing = self._page(f"/docs/landing-{i}", f"Landing {i}")
        landing.links += [(f"after-{i}", f"{base}/docs/after-{i}"), ("/", f"{base}/")]
        self._page(f"/docs/after-{i}", f"After {i}").links.append(("/", f"{base}/"))

    def _sitemaps(self, n: int, orphans: list[str], archive: list[str]) -> None:
        base = self.base_url
        half = n // 2
        docs = [f"{base}/docs/page-{i}" for i in range(1, half + 1)]
        more = [f"{base}/docs/page-{i}" for i in range(half + 1, n + 1)]
        blog = [f"{base}/blog/post-{k}" for k in range(1, self.shape.blog_posts + 1)]
        docs_listed = [*docs, f"{base}/docs/page-3/", f"{base}/docs/draft-1"]
        more_listed = [
            *more,
            *blog,
            *(base + p for p in orphans),
            f"{base}/docs/page-4?utm_source=x",
        ]
        self._files["/sitemap_index.xml"] = _xml(
            _sitemap_index(
                [f"{base}/sitemaps/{name}" for name in ("docs.xml", "more.xml.gz")]
                + [f"{base}/sitemaps/archive-index.xml"]
            )
        )
        self._files["/sitemaps/docs.xml"] = _xml(_urlset(docs_listed))
        self._files["/sitemaps/more.xml.gz"] = (
            "application/gzip",
            gzip.compress(_urlset(more_listed).encode(), mtime=0),
        )
        self._files["/sitemaps/archive-index.xml"] = _xml(
            _sitemap_index([f"{base}/sitemaps/archive.xml"])
        )
        self._files["/sitemaps/archive.xml"] = _xml(_urlset([base + p for p in archive]))
        text = [
            f"{base}/docs/orphan-text",
            f"http://localhost:{self._port}/elsewhere",
            f"{base}/private/listed",
            "",
        ]
        self._files["/sitemaps/extra.txt"] = ("text/plain", "\n".join(text).encode())
        self._files["/robots.txt"] = ("text/plain", self._robots().encode())
        self._sitemap_urls = [
            *docs, f"{base}/docs/draft-1", *more, *blog, *(base + p for p in orphans),
            *(base + p for p in archive), f"{base}/docs/orphan-text",
            f"http://localhost:{self._port}/elsewhere", f"{base}/private/listed",
        ]  # fmt: skip

    def _robots(self) -> str:
        lines = [
            "# Harbour office",
            "User-agent: BadBot",
            "Disallow: /",
            "",
            "User-agent: *",
            "Disallow: /private/",
            "Allow: /private/public-note",
            "Disallow: /docs/draft-",
            "Disallow: /*?print=",
        ]
        if self.shape.crawl_delay is not None:
            lines.append(f"Crawl-delay: {self.shape.crawl_delay}")
        lines += ["", f"Sitemap: {self.url('/sitemap_index.xml')}"]
        lines += [f"Sitemap: {self.url('/sitemaps/extra.txt')}", ""]
        return "\n".join(lines)


def _xml(text: str) -> tuple[str, bytes]:
    return "application/xml", text.encode()


def _urlset(urls: list[str]) -> str:
    entries = "".join(
        f"<url><loc>{html.escape(url)}</loc><lastmod>2026-01-01</lastmod></url>" for url in urls
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'
    )


def _sitemap_index(urls: list[str]) -> str:
    entries = "".join(f"<sitemap><loc>{html.escape(url)}</loc></sitemap>" for url in urls)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</sitemapindex>'
    )


def _render(path: str, page: _Page) -> str:
    number = path.rsplit("-", 1)[-1] if "-" in path else "0"
    base = f'<base href="{page.base}">' if page.base else ""
    links = "".join(
        f'<li><a href="{html.escape(href)}">link {index}</a></li>'
        for index, (href, _) in enumerate(page.links)
    )
    body = _ARTICLE.format(title=html.escape(page.title), number=html.escape(number))
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">{base}'
        f"<title>{html.escape(page.title)}</title></head><body>"
        f"<nav><ul>{links}</ul></nav>"
        f"<article><h1>{html.escape(page.title)}</h1>{body}</article></body></html>"
    )


@pytest.fixture
def crawl_site(io_loop: Any) -> Iterator[CrawlSite]:
    """A started :class:`CrawlSite` of the default shape, closed after the test."""
    site = CrawlSite().start()
    yield site
    io_loop.run_sync(site.close)
