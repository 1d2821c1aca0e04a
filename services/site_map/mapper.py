"""The map use case's work: robots.txt, the start page's links and the sitemaps, read within
the map's budget (see :mod:`services.site_map`)."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from browser.fetch.client import Fetcher, FetchError, FetchResult
from convert.crawl.discovery import Candidate, page_links, sitemap_urls
from convert.crawl.robots import RobotsRules
from convert.crawl.scope import CrawlScope, PatternError, check_patterns
from convert.crawl.sitemaps import Sitemap, SitemapKind
from convert.crawl.urls import CrawlURLError, url_key
from services.accounts.billing import CreditSettings, Usage, price
from services.failure import ServiceError
from services.pool import ConversionTimeoutError, ConverterPool, PoolBusyError
from services.robots_file import read_robots, robots_url
from services.site_map.types import MapFailure, MapRequest, MapResult, MapSettings
from services.target_guard import (
    TargetProblem,
    TargetRefusedError,
    check_target,
    unsafe_url_refusal,
)

DEFAULT_SITEMAP = "/sitemap.xml"
"""Where a sitemap is looked for when robots.txt names none."""


@dataclass
class _Budget:
    """What one map may still spend on parsing: bytes of sitemaps, and the workers' seconds."""

    owner: str
    bytes: int
    seconds: float

    @property
    def spent(self) -> bool:
        return self.bytes <= 0 or self.seconds <= 0


RobotsLookup = Callable[[str], Awaitable[RobotsRules | None]]
"""The robots.txt rules of a URL's host (None: not read, the bound on hosts was reached)."""


YIELD_EVERY = 500
"""URLs taken in a row before the IOLoop is let run other work."""


class _Collector:
    """The answer being built from URLs already cleaned and scoped (in a worker): robots.txt,
    deduplication and the limit applied as they arrive."""

    def __init__(self, robots: RobotsLookup, result: MapResult, limit: int):
        self.robots, self.result, self.limit = robots, result, limit
        self.keys: set[str] = set()

    @property
    def full(self) -> bool:
        return len(self.result.urls) >= self.limit

    def add(self, url: str, key: str, source: str) -> None:
        """Take ``url`` as it is (the start URL)."""
        self.keys.add(key)
        self.result.urls.append(url)
        self.result.sources[source] += 1

    async def offer(self, candidates: list[Candidate], source: str) -> None:
        """Take the candidates robots.txt allows, until the limit."""
        for index, (url, key) in enumerate(candidates):
            if index % YIELD_EVERY == YIELD_EVERY - 1:
                await asyncio.sleep(0)
            if key in self.keys:
                continue
            rules = await self.robots(url)
            if rules is None or not rules.allowed(url):
                continue
            if self.full:
                self.result.truncated = True
                return
            self.add(url, key, source)


class SiteMapper:
    """Maps sites through the fetcher (guarded) and the conversion workers."""

    def __init__(
        self,
        fetcher: Fetcher,
        pool: ConverterPool,
        settings: MapSettings,
        credits: CreditSettings,
    ) -> None:
        self.fetcher = fetcher
        self.pool = pool
        self.settings = settings
        self.credits = credits

    async def run(self, request: MapRequest) -> MapResult:
        """Map the site of ``request.url`` (see the module docstring)."""
        for name, patterns in (("include", request.include), ("exclude", request.exclude)):
            try:
                check_patterns(patterns)
            except PatternError as exc:
                raise ServiceError(
                    MapFailure.INVALID_PATTERN, f"invalid parameters: {name}: {exc}"
                ) from exc
        try:
            scope = _scope(request, request.url)
        except CrawlURLError as exc:
            raise ServiceError(
                FetchError.invalid_url, "the URL must be an http or https URL"
            ) from exc
        refused = unsafe_url_refusal(scope.start)
        if refused is not None:
            raise ServiceError(FetchError.invalid_url, refused)
        try:
            await check_target(self.fetcher, scope.start)
        except TargetRefusedError as exc:
            # Told as the fetch failures the Markdown endpoint answers for the same target.
            raise ServiceError(_REFUSALS[exc.failure], exc.message) from exc
        deadline = time.monotonic() + self.settings.timeout
        result = MapResult(url=scope.start)
        robots_at = robots_url(scope.start)
        want_links = request.sitemap != "only"
        robots_fetch, page = await asyncio.gather(
            self._fetch(robots_at, deadline),
            self._fetch(scope.start, deadline) if want_links else _nothing(),
        )
        if page is not None and page.ok and not scope.on_site(page.final_url):
            # The start URL ends on another site (http://example.org to https://www.example.org/):
            # that site is the one mapped, from its own robots.txt.
            scope = _scope(request, page.final_url)
            result.url, robots_at = scope.start, robots_url(scope.start)
            robots_fetch = await self._fetch(robots_at, deadline)
        site_robots = read_robots(robots_fetch)
        result.robots, robots = site_robots.state, site_robots.rules
        lookup = self._robots_lookup(robots_at, robots, result, deadline)
        collect = _Collector(lookup, result, request.limit)
        collect.add(scope.start, url_key(scope.start), "start")
        found_links = False
        budget = _Budget(request.org, self.settings.max_sitemap_bytes, self.settings.parse_seconds)
        if page is not None and page.ok and page.is_html and page.text is not None:
            links = await self._links(page, scope, budget)
            found_links = links is not None
            result.complete = found_links
            await collect.offer(links or [], "links")
        if request.sitemap != "skip" and not robots.refuse_all:
            seeds = [urljoin(robots_at, url) for url in robots.sitemaps]
            seeds = seeds or [urljoin(robots_at, DEFAULT_SITEMAP)]
            await self._sitemaps(seeds, scope, collect, deadline, budget)
        if page is not None and not found_links and len(result.urls) <= 1:
            _raise_for(page)
        result.complete = result.complete and time.monotonic() < deadline
        result.credits = price(self.credits, Usage("map", "3.0"))
        return result

    def _robots_lookup(
        self, robots_at: str, rules: RobotsRules, result: MapResult, deadline: float
    ) -> RobotsLookup:
        """The rules of each host a URL is on: the start host's as read, another's (a
        subdomain's) read on first use, up to ``max_hosts`` hosts."""
        known: dict[str, RobotsRules] = {urlsplit(robots_at).netloc: rules}

        async def lookup(url: str) -> RobotsRules | None:
            host = urlsplit(url).netloc
            if host in known:
                return known[host]
            if len(known) >= self.settings.max_hosts:
                result.complete = False
                return None
            known[host] = read_robots(await self._fetch(robots_url(url), deadline)).rules
            return known[host]

        return lookup

    async def _fetch(self, url: str, deadline: float) -> FetchResult:
        return await self.fetcher.fetch(url, deadline=deadline)

    async def _links(
        self, page: FetchResult, scope: CrawlScope, budget: _Budget
    ) -> list[Candidate] | None:
        text = page.text or ""
        links: list[Candidate] | None = await self._parse(
            budget, len(text), page_links, text, page.final_url, scope
        )
        return links

    async def _parse(self, budget: _Budget, size: int, func: Callable[..., Any], *args: Any) -> Any:
        """``func(*args)`` over a document of ``size`` characters or bytes (large ones go to the
        background workers) in the conversion workers, in the asking organization's share, its
        time taken from ``budget``; None when the workers are busy or it ran too long."""
        started = time.monotonic()
        try:
            return await self.pool.run(func, *args, owner=budget.owner, size=size)
        except (PoolBusyError, ConversionTimeoutError):
            return None
        finally:
            budget.seconds -= time.monotonic() - started

    async def _sitemaps(
        self,
        seeds: list[str],
        scope: CrawlScope,
        collect: _Collector,
        deadline: float,
        budget: _Budget,
    ) -> None:
        """Read sitemap files breadth first, a few at a time, within the bounds."""
        settings, result = self.settings, collect.result
        queue = deque((url, 1) for url in seeds if scope.on_site(url))
        seen = {url_key(url) for url, _ in queue}
        while queue and not collect.full:
            if result.sitemaps_read + result.sitemaps_failed >= settings.max_sitemaps:
                result.complete = False
                break
            if time.monotonic() >= deadline or budget.spent:
                result.complete = False
                break
            room = settings.max_sitemaps - result.sitemaps_read - result.sitemaps_failed
            batch = [
                queue.popleft() for _ in range(min(settings.sitemap_concurrency, len(queue), room))
            ]
            reads = (self._sitemap(url, scope, deadline, budget) for url, _ in batch)
            maps = await asyncio.gather(*reads)
            for (_, depth), read in zip(batch, maps, strict=True):
                if read is None:
                    result.sitemaps_failed += 1
                    continue
                sitemap, candidates = read
                result.sitemaps_read += 1
                result.complete = result.complete and not sitemap.truncated
                if sitemap.kind != SitemapKind.sitemapindex:
                    await collect.offer(candidates, "sitemaps")
                    continue
                for child in sitemap.urls:
                    key = _key(child)
                    if key is None or key in seen or not scope.on_site(child):
                        continue
                    if depth >= settings.max_sitemap_depth:
                        result.complete = False
                        continue
                    seen.add(key)
                    queue.append((child, depth + 1))

    async def _sitemap(
        self, url: str, scope: CrawlScope, deadline: float, budget: _Budget
    ) -> tuple[Sitemap, list[Candidate]] | None:
        fetched = await self._fetch(url, deadline)
        if not fetched.ok or budget.spent:
            return None
        budget.bytes -= len(fetched.body)
        body = fetched.body
        read = await self._parse(budget, len(body), sitemap_urls, body, fetched.final_url, scope)
        return None if read is None or read[0].kind == SitemapKind.invalid else read


_REFUSALS: dict[Any, FetchError] = {
    TargetProblem.MALFORMED: FetchError.invalid_url,
    TargetProblem.NOT_ALLOWED: FetchError.address_not_allowed,
    TargetProblem.UNRESOLVED: FetchError.dns,
}


def _scope(request: MapRequest, start: str) -> CrawlScope:
    """The scope of ``request`` from ``start``; raises CrawlURLError for a URL that is not
    http(s)."""
    return CrawlScope(
        start, subdomains=request.subdomains, include=request.include, exclude=request.exclude
    )


async def _nothing() -> None:
    return None


def _key(url: str) -> str | None:
    try:
        return url_key(url)
    except CrawlURLError:
        return None


def _raise_for(page: FetchResult) -> None:
    """The start page's failure, when nothing else was found."""
    if page.error is not None:
        raise ServiceError(page.error, page.message or None)
