"""What a crawl adds to a job: the links of each page that the crawl's scope and the site's
robots.txt admit, as pages to queue one level deeper, and the site's Crawl-delay.

robots.txt is fetched once per job and host in each process (through the fetcher, so the SSRF
guard and fetch limits apply), and kept for the job's life in a bounded memory. Links are read
and filtered in a conversion worker (pure work, off the IOLoop). A start URL is fetched whatever
robots.txt says of it (it is what the client asked for); every other page is admitted by both.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from browser.fetch.client import Fetcher
from convert.crawl.discovery import page_links
from convert.crawl.robots import RobotsRules
from convert.crawl.scope import CrawlScope
from convert.crawl.urls import clean_url, url_key
from services.markdown import MarkdownAnswer
from services.pool import ConverterPool
from services.robots_file import fetch_robots
from store.job_types import ActiveJob, Claim, NewPage

REMEMBERED_SITES = 256
"""robots.txt rules and scopes kept in memory (one per job and host)."""
ROBOTS_DEADLINE = 10.0
"""Seconds a robots.txt fetch may take."""


def page_key(url: str) -> str:
    """The dedup key stored for ``url``: the sha256 of its crawl key."""
    return _digest(url_key(url))


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def host_of(url: str) -> str:
    """``host`` or ``host:port`` of ``url``, lowercased (the unit of politeness)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    return f"{host}:{parts.port}" if parts.port is not None else host


def new_page(url: str, depth: int = 0) -> NewPage:
    """``url`` as a page to queue: fetched as cleaned, deduplicated by its crawl key.
    Raises :class:`~convert.crawl.urls.CrawlURLError` for a URL that is not http(s)."""
    cleaned = clean_url(url)
    return NewPage(page_key(cleaned), cleaned, host_of(cleaned), depth)


def crawl_options(
    start: str,
    *,
    max_pages: int,
    max_depth: int,
    subdomains: bool,
    include: list[str],
    exclude: list[str],
    markdown: Mapping[str, Any],
) -> dict[str, Any]:
    """A crawl's stored options."""
    return {
        "markdown": dict(markdown),
        "start": clean_url(start),
        "max_pages": max_pages,
        "max_depth": max_depth,
        "subdomains": subdomains,
        "include": include,
        "exclude": exclude,
    }


def scope_of(options: Mapping[str, Any]) -> CrawlScope:
    """The scope a crawl's stored options describe."""
    return CrawlScope(
        options["start"],
        subdomains=bool(options.get("subdomains")),
        include=options.get("include") or (),
        exclude=options.get("exclude") or (),
        max_depth=int(options.get("max_depth", 0)),
    )


class CrawlDiscovery:
    """The runner's :class:`~services.jobs.runner.Discovery` for crawls."""

    def __init__(self, fetcher: Fetcher, pool: ConverterPool) -> None:
        self.fetcher = fetcher
        self.pool = pool
        self._robots: OrderedDict[tuple[str, str], asyncio.Future[RobotsRules]] = OrderedDict()
        self._scopes: OrderedDict[str, CrawlScope] = OrderedDict()

    async def links(self, job: ActiveJob, claim: Claim, answer: MarkdownAnswer) -> list[NewPage]:
        fetch = answer.got.fetch
        if not fetch.is_html or not fetch.text:
            return []
        scope = self._scope(job)
        max_depth = scope.max_depth if scope.max_depth is not None else 0
        if claim.depth >= max_depth:
            return []
        found = await self.pool.run(
            page_links, fetch.text, fetch.final_url, scope, claim.depth + 1, owner=job.org
        )
        admitted = []
        for url, key in found:
            page = NewPage(_digest(key), url, host_of(url), claim.depth + 1)
            rules = await self._rules(job, page.host, page.url)
            if rules.allowed(page.url):
                admitted.append(page)
        return admitted

    async def delay(self, job: ActiveJob, host: str) -> float:
        scheme = urlsplit(job.options.get("start", "")).scheme or "http"
        rules = await self._rules(job, host, f"{scheme}://{host}/")
        return rules.crawl_delay or 0.0

    def _scope(self, job: ActiveJob) -> CrawlScope:
        scope = self._scopes.get(job.id)
        if scope is None:
            scope = self._scopes[job.id] = scope_of(job.options)
            while len(self._scopes) > REMEMBERED_SITES:
                self._scopes.popitem(last=False)
        return scope

    async def _rules(self, job: ActiveJob, host: str, like: str) -> RobotsRules:
        """The robots.txt rules of ``host`` for ``job``, fetched once (``like``: a URL on that
        host, for its scheme)."""
        key = (job.id, host)
        future = self._robots.get(key)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            self._robots[key] = future
            while len(self._robots) > REMEMBERED_SITES:
                self._robots.popitem(last=False)
            try:
                future.set_result(await self._fetch_rules(like))
            except BaseException as exc:
                self._robots.pop(key, None)
                future.set_exception(exc)
                raise
        return await asyncio.shield(future)

    async def _fetch_rules(self, like: str) -> RobotsRules:
        robots = await fetch_robots(self.fetcher, like, deadline=time.monotonic() + ROBOTS_DEADLINE)
        return robots.rules
