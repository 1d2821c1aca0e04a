"""What the local crawl site (:mod:`tests.crawl_site`) serves: its pages and their links, its
redirects and failing pages, its sitemaps and robots.txt, built for one shape, host and port.

:class:`SiteContent` holds the tables the site answers from (``pages``, ``sub_pages``,
``files``, ``redirects``, ``statuses``) and what the expectations need (``failing``,
``redirected``, ``sitemap_urls``); :func:`render_page` writes one page's HTML. The layout of the
site is described in :mod:`tests.crawl_site`.
"""

from __future__ import annotations

import gzip
import html
from dataclasses import dataclass, field

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
class Page:
    """One HTML page of the site: its links and an optional ``<base href>``."""

    links: list[tuple[str, str]] = field(default_factory=list)
    """(href as written, the URL it means, normalised; "" for links that are not pages)."""
    base: str | None = None
    title: str = ""


class SiteContent:
    """The site's content for ``shape`` at ``port`` (see the module docstring)."""

    def __init__(self, shape: SiteShape, port: int, trap_url: str) -> None:
        self.shape = shape
        self.port = port
        self.trap_url = trap_url
        """A URL on the trap origin, another port of 127.0.0.1 that a crawl must not reach."""
        self.pages: dict[str, Page] = {}
        self.sub_pages: dict[str, Page] = {}
        self.files: dict[str, tuple[str, bytes]] = {}
        self.redirects: dict[str, tuple[int, str]] = {}
        self.statuses: dict[str, int] = {}
        self.failing: set[str] = set()
        self.redirected: dict[str, str] = {}
        self.sitemap_urls: list[str] = []
        self._build()

    @property
    def base_url(self) -> str:
        """``http://<host>:<port>``."""
        return f"http://{self.shape.host}:{self.port}"

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
        return f"http://{self.subdomain}:{self.port}{path}"

    @property
    def other_hosts(self) -> tuple[str, ...]:
        """Hosts a named site links to that are not its own: another site, and one whose name
        merely ends with the site's."""
        return ("elsewhere.test", f"evil{self.shape.host}")

    def _build(self) -> None:
        n = self.shape.pages
        base = self.base_url
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
            (self.trap_url, self.trap_url),
            (
                f"http://localhost:{self.port}/docs/page-1",
                f"http://localhost:{self.port}/docs/page-1",
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
        self.statuses = {"/docs/broken": 500, "/docs/missing": 404}
        self.redirects["/go/metadata"] = (302, METADATA_REDIRECT)
        self.failing = {f"{base}/docs/broken", f"{base}/docs/missing", f"{base}/go/metadata"}
        orphans = [f"/docs/orphan-{k}" for k in range(1, self.shape.orphans + 1)]
        archive = [f"/archive/a-{k}" for k in range(1, 4)]
        for path in [*orphans, *archive, "/docs/orphan-text"]:
            self._page(path, path.rsplit("/", 1)[1].replace("-", " ").title())
            self.pages[path].links.append(("/", f"{base}/"))
        self._sitemaps(n, orphans, archive)
        if self.named:
            self._named_hosts(home)

    def _named_hosts(self, home: Page) -> None:
        """The subdomain's pages, and the home page's links to it and to the other hosts."""
        base = self.base_url
        index = self.sub_pages["/"] = Page(title="Docs subdomain")
        index.links += [("/hidden", self.sub_url("/hidden")), (base + "/", base + "/")]
        for k in range(1, self.shape.subdomain_pages + 1):
            index.links.append((f"/guide-{k}#top", self.sub_url(f"/guide-{k}")))
            page = self.sub_pages[f"/guide-{k}"] = Page(title=f"Guide {k}")
            page.links.append(("/", self.sub_url("/")))
        self.sub_pages["/hidden"] = Page(title="Hidden")
        home.links.append((self.sub_url("/"), self.sub_url("/")))
        for host in self.other_hosts:
            home.links.append((f"http://{host}:{self.port}/", f"http://{host}:{self.port}/"))

    def _page(self, path: str, title: str) -> Page:
        page = self.pages[path] = Page(title=title)
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

    def _redirect_chain(self, page: Page, i: int) -> None:
        base = self.base_url
        page.links.append((f"/old/{i}", f"{base}/old/{i}"))
        self.redirects[f"/old/{i}"] = (301, f"/moved/{i}")
        self.redirects[f"/moved/{i}"] = (302, f"{base}/docs/landing-{i}")
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
        self.files["/sitemap_index.xml"] = _xml(
            _sitemap_index(
                [f"{base}/sitemaps/{name}" for name in ("docs.xml", "more.xml.gz")]
                + [f"{base}/sitemaps/archive-index.xml"]
            )
        )
        self.files["/sitemaps/docs.xml"] = _xml(_urlset(docs_listed))
        self.files["/sitemaps/more.xml.gz"] = (
            "application/gzip",
            gzip.compress(_urlset(more_listed).encode(), mtime=0),
        )
        self.files["/sitemaps/archive-index.xml"] = _xml(
            _sitemap_index([f"{base}/sitemaps/archive.xml"])
        )
        self.files["/sitemaps/archive.xml"] = _xml(_urlset([base + p for p in archive]))
        text = [
            f"{base}/docs/orphan-text",
            f"http://localhost:{self.port}/elsewhere",
            f"{base}/private/listed",
            "",
        ]
        self.files["/sitemaps/extra.txt"] = ("text/plain", "\n".join(text).encode())
        self.files["/robots.txt"] = ("text/plain", self._robots().encode())
        self.sitemap_urls = [
            *docs, f"{base}/docs/draft-1", *more, *blog, *(base + p for p in orphans),
            *(base + p for p in archive), f"{base}/docs/orphan-text",
            f"http://localhost:{self.port}/elsewhere", f"{base}/private/listed",
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


def render_page(path: str, page: Page) -> str:
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
