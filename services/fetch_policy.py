"""Getting a target page the way a request asks: from the cache, or fetched directly or through a
proxy tier, retried with escalation, learning per domain which tier works.

:class:`PageFetcher` is the service the endpoints call; the fetcher does single fetches, this
module decides which fetches to make.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol
from urllib.parse import urlsplit

from browser import timing
from browser.farm.types import RenderResult
from browser.fetch.charset import declared_charset, decode_text, is_textual
from browser.fetch.client import Fetcher, FetchError, FetchResult, fail_for_status
from browser.fetch.retry import retryable, retryable_on_same_tier
from browser.proxies import TIERS, ProxyPool, ProxySettings, ladder
from services.failure import ServiceError
from services.memcache import BoundedCache
from store.cache import CachedPage, page_key
from store.store import StoreUnavailable
from store.strategy import Strategy

log = logging.getLogger(__name__)

RENDER_TIMEOUT_MS = 20_000
"""Navigation time limit of a render that reads a page (for its Markdown, or an embed's card):
the fetch limit of DESIGN.md."""
MEMO_ENTRY_BYTES = 1024
"""Bytes allowed per remembered domain (a host name of at most 253 characters and a tier take
about half): the strategy memo's byte bound is this times ``learned_max_domains``."""


class PageProblem(enum.Enum):
    """Why a page request cannot be served as asked."""

    TIER_NOT_IN_PLAN = "tier_not_in_plan"
    """A proxy tier the key's plan does not include."""
    NOT_CONFIGURED = "not_configured"
    """A proxy tier (or a country of one) this server has not configured."""


class PageRequestError(ServiceError):
    """The request cannot be served as asked; ``message`` is safe to show."""


class PageStore(Protocol):
    """What the page fetcher needs of the store."""

    async def cache_get(
        self, key: str, max_age_seconds: float | None = None
    ) -> CachedPage | None: ...

    async def cache_put(self, page: CachedPage) -> bool: ...

    async def strategy_get(self, domain: str, ttl_seconds: float) -> Strategy | None: ...

    async def strategy_put(self, domain: str, tier: str, *, max_domains: int = 10_000) -> None: ...


@dataclass(frozen=True)
class PageRequest:
    """What one API request asks of the fetch. ``allowed_tiers``: the proxy tiers of its plan."""

    url: str
    allowed_tiers: frozenset[str] = frozenset({"standard"})
    accept_lang: str | None = None
    use_proxy: bool = False
    use_premium: bool = False
    use_superior: bool = False
    proxy_country: str | None = None
    auto_proxy: bool = True
    retry: bool = True
    max_retries: int = 4
    retry_escalate: bool = True
    cache_ok: bool = True
    max_cache_age: float | None = None  # seconds

    @property
    def forced_tier(self) -> str | None:
        if self.use_superior:
            return "superior"
        if self.use_premium:
            return "premium"
        if self.use_proxy:
            return "standard"
        return None

    @property
    def country(self) -> str | None:
        """The proxy country in force: proxy_country applies to a forced tier only, and is
        ignored without one (the endpoints warn the client that it was)."""
        return self.proxy_country if self.forced_tier is not None else None


@dataclass
class PageResult:
    """The page (or the last failure) and how it was obtained."""

    fetch: FetchResult
    tier: str = "direct"
    attempts: int = 1
    cache_hit: bool = False
    tiers_tried: list[str] = field(default_factory=list)
    fetched_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    """When the page was fetched (or rendered): a cached page's own fetch time. Identifies the
    version of the page an answer was made from."""

    @property
    def proxy_used(self) -> str | None:
        return None if self.tier == "direct" else self.tier


class PageFetcher:
    """Cache, tier choice, retry with escalation and strategy learning around the fetcher."""

    def __init__(
        self,
        fetcher: Fetcher,
        proxy_settings: ProxySettings,
        store: PageStore,
        *,
        request_deadline: float,
    ) -> None:
        self.fetcher = fetcher
        self.proxy_settings = proxy_settings
        self.proxies = ProxyPool(proxy_settings)
        self.store = store
        self.request_deadline = request_deadline
        self.learn = proxy_settings.learn
        self._memo = StrategyMemo(proxy_settings.learned_ttl, proxy_settings.learned_max_domains)
        self._background: set[asyncio.Task[None]] = set()

    def check(self, request: PageRequest) -> None:
        """Refuse what cannot be honoured, before any work: raises :class:`PageRequestError`."""
        forced = request.forced_tier
        for tier, flag in (
            ("standard", "use_proxy"),
            ("premium", "use_premium"),
            ("superior", "use_superior"),
        ):
            if not getattr(request, flag):
                continue
            if tier not in request.allowed_tiers:
                raise PageRequestError(
                    PageProblem.TIER_NOT_IN_PLAN,
                    f"{flag}: the {tier} proxy tier is not in your plan",
                )
            if not self.proxies.configured(tier):
                raise PageRequestError(
                    PageProblem.NOT_CONFIGURED,
                    f"{flag}: no {tier} proxy is configured on this server",
                )
        if (
            forced is not None
            and request.country
            and not self.proxies.serves(forced, request.country)
        ):
            raise PageRequestError(
                PageProblem.NOT_CONFIGURED,
                f"proxy_country: no {forced} proxy for {request.country} is configured",
            )

    async def get(self, request: PageRequest) -> PageResult:
        """The page, from the cache when allowed, else fetched (see the module docstring)."""
        self.check(request)
        key = page_key(request.url, request.accept_lang)
        if request.cache_ok:
            cached = await self.store.cache_get(key, request.max_cache_age)
            if cached is not None:
                page = await _from_cache(cached)
                return PageResult(
                    page,
                    tier=cached.tier or "direct",
                    attempts=0,
                    cache_hit=True,
                    fetched_at=cached.fetched_at,
                )
        result = await self._fetch(request)
        if result.fetch.ok:
            self._later(self._remember(key, request, result))
        return result

    async def _fetch(self, request: PageRequest) -> PageResult:
        deadline = time.monotonic() + self.request_deadline
        domain = _domain(request.url)
        start = await self._start_tier(request, domain)
        usable = [
            t
            for t in TIERS
            if t == "direct" or (t in request.allowed_tiers and self.proxies.configured(t))
        ]
        attempts = request.max_retries if request.retry else 1
        plan = ladder(start, usable, attempts=attempts, escalate=request.retry_escalate)
        result: PageResult | None = None
        number = 0
        while plan:
            tier = plan.pop(0)
            number += 1
            route = self.proxies.route(tier, request.country)
            # Every attempt keeps to the request's one deadline: it gets what is left of it.
            fetched = await self.fetcher.fetch(
                request.url, accept_lang=request.accept_lang, proxy=route, deadline=deadline
            )
            timing.record("fetch", fetched.elapsed * 1000)
            result = PageResult(
                fetch=fetched,
                tier=tier,
                attempts=number,
                tiers_tried=[*(result.tiers_tried if result else []), tier],
            )
            if fetched.ok and not retryable(fetched):
                return result
            if not retryable(fetched) or time.monotonic() >= deadline:
                break
            if not retryable_on_same_tier(fetched):
                plan = [other for other in plan if other != tier]
            if not plan:
                break
            log.info(
                "attempt %d on the %s tier failed (%s); retrying on the %s tier",
                number,
                tier,
                fetched.error.value if fetched.error else "bot wall",
                plan[0],
            )
        assert result is not None
        if result.fetch.ok:
            # Still a bot wall after every attempt: report it as the target refusing us.
            result.fetch.error = FetchError.blocked
            result.fetch.message = "the target answered with a bot-protection challenge"
        return result

    async def _start_tier(self, request: PageRequest, domain: str) -> str:
        forced = request.forced_tier
        if forced is not None:
            return forced
        if not request.auto_proxy:
            return "direct"
        learned = await self._learned(domain) if self.learn else None
        tier = learned or self.proxies.seed_tier(domain) or "direct"
        # A tier the plan or the server lacks: the best one below it that is available.
        while tier != "direct" and (
            tier not in request.allowed_tiers or not self.proxies.configured(tier)
        ):
            tier = TIERS[TIERS.index(tier) - 1]
        return tier

    async def _learned(self, domain: str) -> str | None:
        known, tier = self._memo.get(domain)
        if known:
            return tier
        try:
            learned = await self.store.strategy_get(domain, self.proxy_settings.learned_ttl)
        except Exception:  # a strategy is an optimisation: never fail a fetch over it
            log.warning("could not read the learned strategy of %s", domain, exc_info=True)
            return None
        tier = learned.tier if learned else None
        self._memo.put(domain, tier, written=False)
        return tier

    async def _remember(self, key: str, request: PageRequest, result: PageResult) -> None:
        fetched = result.fetch
        page = CachedPage(
            key=key,
            url=request.url,
            final_url=fetched.final_url,
            status=fetched.status or 200,
            content_type=fetched.headers.get("content-type", ""),
            headers={},
            body=fetched.body,
            tier=result.proxy_used,
            fetched_at=result.fetched_at,
        )
        try:
            await self.store.cache_put(page)
            domain = _domain(request.url)
            if (
                self.learn
                and request.auto_proxy
                and request.forced_tier is None
                and self._memo.needs_write(domain, result.tier)
            ):
                await self.store.strategy_put(
                    domain, result.tier, max_domains=self.proxy_settings.learned_max_domains
                )
                self._memo.put(domain, result.tier, written=True)
        except StoreUnavailable:
            # The store has logged what failed; the answer did not depend on this write.
            log.info("did not cache %s: the store is unavailable", request.url)
        except Exception:
            log.warning("could not cache %s or remember its strategy", request.url, exc_info=True)

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def drain(self, seconds: float = 5.0) -> None:
        """Wait for background cache writes (at shutdown), at most ``seconds``."""
        if self._background:
            await asyncio.wait(self._background, timeout=seconds)


class StrategyMemo:
    """This process's copy of the learned strategies, so that a busy domain costs no database
    round trip per request. An entry is trusted for a tenth of the learned TTL (other processes
    may learn meanwhile) and dropped after that; the database is written only when the tier
    changes or the stored entry needs refreshing before it expires. Bounded in domains and in
    bytes."""

    def __init__(self, ttl: float, max_domains: int) -> None:
        self.fresh_for = ttl / 10
        # domain -> (tier or None when nothing is learned, written at or 0.0)
        self._entries: BoundedCache[str, tuple[str | None, float]] = BoundedCache(
            max_domains * MEMO_ENTRY_BYTES, self.fresh_for, max_entries=max_domains
        )

    def get(self, domain: str) -> tuple[bool, str | None]:
        """(known, tier): known is False when the database must be asked."""
        entry = self._entries.get(domain)
        if entry is None:
            return False, None
        return True, entry[0]

    def needs_write(self, domain: str, tier: str) -> bool:
        entry = self._entries.get(domain)
        return entry is None or entry[0] != tier or time.monotonic() - entry[1] > self.fresh_for

    def put(self, domain: str, tier: str | None, *, written: bool) -> None:
        now = time.monotonic()
        previous = self._entries.get(domain)
        written_at = now if written else (previous[1] if previous and previous[0] == tier else 0.0)
        self._entries.put(domain, (tier, written_at))


def _domain(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    return host.removeprefix("www.")


async def _from_cache(page: CachedPage) -> FetchResult:
    """A fetch result rebuilt from a cached page (decoded again, off the IOLoop)."""
    content_type = page.content_type.partition(";")[0].strip().lower()
    result = FetchResult(
        url=page.url,
        final_url=page.final_url,
        status=page.status,
        headers={"content-type": page.content_type} if page.content_type else {},
        content_type=content_type,
        body=page.body,
    )
    declared = declared_charset(page.content_type)
    if page.body and is_textual(content_type, page.body, declared):
        loop = asyncio.get_running_loop()
        result.text, result.charset = await loop.run_in_executor(
            None, decode_text, page.body, declared
        )
    return result


def rendered_result(url: str, rendered: RenderResult, tier: str) -> PageResult:
    """A page rendered by the farm as a page result, failed like a fetch when the document
    answered an error status."""
    status = rendered.status or 200
    fetch = FetchResult(
        url=url,
        final_url=rendered.final_url or url,
        status=status,
        content_type="text/html",
        text=rendered.html,
    )
    fail_for_status(fetch, status)
    return PageResult(fetch=fetch, tier=tier)
