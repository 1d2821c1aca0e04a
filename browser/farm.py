"""The supervised Chromium farm: screenshots (:meth:`Farm.capture`) and rendered HTML
(:meth:`Farm.render`) from one Chromium driven by Playwright.

Admission: at most ``max_pages`` pages render at once; up to ``queue_size`` requests wait, each at
most ``queue_timeout``, else :class:`FarmError` ``busy`` with a ``retry_after`` hint. Each request
then gets a fresh, isolated context (pre-warmed where its shape allows), used once and closed, and
a deadline of navigationTimeout + ``capture_margin`` (+ capture_delay); every wait inside keeps to
it. The request deadline starts once a page slot is granted.

A request whose browser went away during it (crash, kill, failed health probe) is retried once on
the browser that replaced it, with a fresh deadline: a request may take twice its deadline plus a
launch. Keeping a browser healthy (replacement, probes, recycling, reaping) is
:mod:`browser.farm_supervisor`'s job; the pages' work is :mod:`browser.farm_page`'s.

Metrics: ``pagecast_farm_*`` gauges of busy and idle contexts per preset and of the queue,
counters of browser replacements, crashes and captures by outcome, and a latency histogram. No
label carries a URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections import Counter as Tally
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext
from playwright.async_api import Error as PlaywrightError
from prometheus_client import Counter, Gauge, Histogram

from browser import farm_page
from browser.farm_browser import (
    DEFAULT_ROUTE,
    ContextKey,
    Egress,
    FarmBrowser,
    close_context,
    proxy_settings,
)
from browser.farm_navigation import Budget
from browser.farm_page import PageSession
from browser.farm_supervisor import Supervisor
from browser.farm_types import (
    PRESETS,
    CaptureOptions,
    CaptureResult,
    FarmError,
    FarmErrorKind,
    FarmSettings,
    RenderOptions,
    RenderResult,
    image_size,
)
from browser.farm_watchdog import RendererWatchdog

__all__ = [
    "CaptureOptions",
    "CaptureResult",
    "Farm",
    "FarmError",
    "FarmErrorKind",
    "FarmSettings",
    "RenderOptions",
    "RenderResult",
    "image_size",
]

log = logging.getLogger(__name__)

T = TypeVar("T")
Work = Callable[[PageSession, Budget], Awaitable[T]]

CONTEXTS = Gauge(
    "pagecast_farm_contexts",
    "Browser contexts by preset and state: busy (a page rendering) or idle (warm, ready).",
    ["preset", "state"],
)
QUEUE = Gauge("pagecast_farm_queue_length", "Requests waiting for a free page slot.")
RESTARTS = Counter(
    "pagecast_farm_restarts_total",
    "Browsers replaced, by reason: crash, unhealthy, recycle (context count) or memory.",
    ["reason"],
)
CRASHES = Counter(
    "pagecast_farm_crashes_total",
    "Unexpected ends of a browser or of a page's renderer.",
    ["process"],
)
CAPTURES = Counter(
    "pagecast_farm_captures_total",
    "Captures and renders by kind and outcome (ok or the error kind).",
    ["kind", "outcome"],
)
CAPTURE_DURATION = Histogram(
    "pagecast_farm_capture_duration_seconds",
    "Time from admission to result of a capture or render, queueing included.",
    ["kind"],
    buckets=(0.25, 0.5, 1, 2, 3, 5, 8, 12, 20, 30, 45, 60, 90),
)
for _kind in ("capture", "render"):
    CAPTURE_DURATION.labels(_kind)
    for _outcome in ("ok", *FarmErrorKind):
        CAPTURES.labels(_kind, _outcome)
for _reason in ("crash", "unhealthy", "recycle", "memory"):
    RESTARTS.labels(_reason)
for _process in ("browser", "page"):
    CRASHES.labels(_process)
RENDERERS_KILLED = Counter(
    "pagecast_farm_renderers_killed_total",
    "Page renderers killed by the watchdog for using more than page_memory_mb.",
)

WATCHDOG_INTERVAL = 0.1
"""Seconds between the renderer watchdog's passes: how long a page may run over its share."""

GONE_WAIT = 1.0
"""Seconds to wait for a disconnect event after an unexplained Playwright error."""


class _BrowserGoneError(Exception):
    """The browser serving a request went away during it."""


class Farm:
    """Chromium pages for captures and renders; create and start it on the running IOLoop.

    ``egress_urls`` maps each route name ("direct", "standard") to the local proxy URL (the SSRF
    egress guard) that contexts of that route must use, or to an opener of one guard lane per
    context (:meth:`browser.egress.EgressGuard.open_lane`: a byte budget per page);
    ``egress_url`` is the "direct" one. With
    neither, pages reach the network without a proxy (tests of the farm alone).
    """

    def __init__(
        self,
        settings: FarmSettings,
        egress_url: str | None = None,
        egress_urls: Mapping[str, Egress] | None = None,
    ) -> None:
        self.settings = settings
        egress = dict(egress_urls or {})
        if egress_url:
            egress.setdefault(DEFAULT_ROUTE, egress_url)
        if egress and DEFAULT_ROUTE not in egress:
            raise ValueError(f"egress URLs need a {DEFAULT_ROUTE!r} route")
        for url in egress.values():
            if isinstance(url, str):
                proxy_settings(url)  # a malformed URL fails here, not on the first request
        self._egress: dict[str, Egress] | None = egress or None
        self._supervisor = Supervisor(
            settings,
            self._egress,
            on_change=self._publish,
            on_restart=lambda reason: RESTARTS.labels(reason).inc(),
            on_crash=CRASHES.labels("browser").inc,
        )
        self._watchdog = RendererWatchdog(
            settings.page_memory_mb * 2**20,
            WATCHDOG_INTERVAL,
            roots=lambda: [b.pid for b in list(self._supervisor.browsers) if b.pid],
            on_kill=lambda _rss: RENDERERS_KILLED.inc(),
        )
        self._slots = asyncio.Semaphore(settings.max_pages)
        self._org_slots: dict[str, asyncio.Semaphore] = {}
        self._org_users: Tally[str] = Tally()
        """Requests of each organization holding or waiting for its share."""
        self._waiting = 0
        self._busy: Tally[str] = Tally()
        self._started = False
        self._closing = False
        self._typical_seconds = 2.0
        self.page_crashes = 0
        self.contexts_served = 0

    # -- life cycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start Playwright's driver and the first browser; raises if Chromium cannot start."""
        if self._started:
            raise RuntimeError("the farm is already started")
        if self._egress is None:
            log.warning("the browser farm has no egress guard: pages reach the network directly")
        await self._supervisor.start()
        self._watchdog.start()
        self._started = True
        self._publish()

    async def close(self) -> None:
        """Stop the farm: requests in progress fail, browsers close (their process trees killed if
        they do not close in time) and exited processes are reaped. Bounded; never raises."""
        if self._closing:
            return
        self._closing = True
        await self._watchdog.stop()
        await self._supervisor.close()
        self._publish()
        log.info("browser farm closed")

    @property
    def ready(self) -> bool:
        """Whether a connected browser is taking work."""
        return self._started and not self._closing and self._supervisor.ready

    def health(self) -> dict[str, Any]:
        """The farm's state for the health endpoint and tests."""
        supervisor = self._supervisor
        current = supervisor.current
        serving = current if current is not None and not current.dead else None
        return {
            "ready": self.ready,
            "connected": serving is not None,
            "browser_pid": current.pid if current else None,
            "browser_version": current.version if current else None,
            "browsers": len(supervisor.browsers),
            "restarts": supervisor.restarts,
            "recycles": supervisor.recycles,
            "crashes": supervisor.crashes,
            "page_crashes": self.page_crashes,
            "renderers_killed": self._watchdog.kills,
            "renderers_lowered": self._watchdog.lowered,
            "contexts_served": self.contexts_served,
            "browser_contexts_served": current.contexts_served if current else 0,
            "rss_mb": round(supervisor.memory_bytes / 2**20),
            "pages_busy": sum(self._busy.values()),
            "max_pages": self.settings.max_pages,
            "queue_length": self._waiting,
            "presets": {
                preset: {
                    "busy": self._busy[preset],
                    "idle": serving.idle(preset) if serving and not serving.retiring else 0,
                }
                for preset in PRESETS
            },
        }

    # -- requests --------------------------------------------------------------------------------

    async def capture(self, url: str, options: CaptureOptions) -> CaptureResult:
        """A screenshot of ``url``; raises :class:`FarmError`.

        ``url`` must be http or https and ``options.route`` a configured route (ValueError
        otherwise: the caller checks both before asking).
        """
        self._check_request(url, options.route)

        async def work(session: PageSession, budget: Budget) -> CaptureResult:
            await farm_page.prepare(session.page, options)
            return await farm_page.capture(session, url, options, budget)

        key = ContextKey(
            options.preset, options.dark_mode, options.device_scale_factor, options.route
        )
        return await self._serve("capture", key, options, options.capture_delay_ms, work)

    async def render(self, url: str, options: RenderOptions) -> RenderResult:
        """The HTML of ``url`` after rendering; raises :class:`FarmError` (ValueError as for
        :meth:`capture`)."""
        self._check_request(url, options.route)

        async def work(session: PageSession, budget: Budget) -> RenderResult:
            return await farm_page.render(session, url, options, budget)

        key = ContextKey(options.preset, False, 1.0, options.route)
        return await self._serve("render", key, options, 0, work)

    def _check_request(self, url: str, route: str) -> None:
        # Defence in depth: file:, chrome: or data: URLs would read the host or the browser.
        if urlsplit(url).scheme.lower() not in ("http", "https"):
            raise ValueError("the farm loads http and https URLs only")
        if self._egress is not None and route not in self._egress:
            raise ValueError(f"no egress URL is configured for route {route!r}")

    async def _serve(
        self,
        kind: str,
        key: ContextKey,
        options: CaptureOptions | RenderOptions,
        delay_ms: int,
        work: Work[T],
    ) -> T:
        started = time.monotonic()
        outcome = FarmErrorKind.capture_failed.value
        navigation_s = options.navigation_timeout_ms / 1000
        try:
            async with self._slot(options.org):
                result = await self._attempts(key, navigation_s, delay_ms / 1000, work)
            outcome = "ok"
            return result
        except FarmError as exc:
            outcome = exc.kind.value
            raise
        finally:
            elapsed = time.monotonic() - started
            CAPTURES.labels(kind, outcome).inc()
            CAPTURE_DURATION.labels(kind).observe(elapsed)
            if outcome == "ok":
                self._typical_seconds = 0.8 * self._typical_seconds + 0.2 * elapsed

    def _busy_error(self, message: str) -> FarmError:
        # How long until a slot is likely free: the typical request time per queue "row".
        rows = self._waiting / self.settings.max_pages + 1
        retry_after = min(max(math.ceil(self._typical_seconds * rows), 1), 60)
        return FarmError(FarmErrorKind.busy, message, retry_after=retry_after)

    @asynccontextmanager
    async def _slot(self, org: str) -> AsyncIterator[None]:
        """Hold one of the ``max_pages`` page slots, waiting in the bounded queue for it.

        An organization first waits for its own share (``org_share`` of the pages) in a queue of
        its own, and only then for a page: its surplus never queues ahead of other organizations.
        """
        if not self._started or self._closing:
            raise self._busy_error("the browser farm is not running")
        share = self._org_slots.get(org)
        if share is None:
            share = self._org_slots[org] = asyncio.Semaphore(self.settings.org_slots())
        if share.locked() and self._org_users[org] - self.settings.org_slots() >= (
            self.settings.queue_size
        ):
            raise self._busy_error("this organization's capture queue is full")
        if self._slots.locked() and self._waiting >= self.settings.queue_size:
            raise self._busy_error("the capture queue is full")
        self._org_users[org] += 1
        self._waiting += 1
        self._publish()
        acquired: list[asyncio.Semaphore] = []
        try:
            try:
                async with asyncio.timeout(self.settings.queue_timeout):
                    await share.acquire()
                    acquired.append(share)
                    await self._slots.acquire()
                    acquired.append(self._slots)
            except TimeoutError:
                raise self._busy_error("no browser page became free in time") from None
            finally:
                self._waiting -= 1
                self._publish()
            yield
        finally:
            for semaphore in acquired:
                semaphore.release()
            self._org_users[org] -= 1
            if self._org_users[org] <= 0:
                del self._org_users[org]
                self._org_slots.pop(org, None)

    async def _attempts(
        self, key: ContextKey, navigation_s: float, delay_s: float, work: Work[T]
    ) -> T:
        for attempt in (1, 2):
            budget = Budget.start(navigation_s, self.settings.capture_margin, delay_s)
            browser = await self._supervisor.serving_browser()
            if browser is None:
                if self._closing:
                    raise self._busy_error("the browser farm is shutting down")
                raise self._busy_error("the browser is restarting")
            try:
                return await self._on_browser(browser, key, work, budget)
            except _BrowserGoneError:
                if attempt == 2 or self._closing:
                    break
                log.warning(
                    "browser %d went away during a request; retrying it once on a new browser",
                    browser.generation,
                )
        # Two browsers gone under one request: the farm is restarting, not the page failing.
        raise self._busy_error("the browser restarted during the capture; retry shortly")

    async def _on_browser(
        self, browser: FarmBrowser, key: ContextKey, work: Work[T], budget: Budget
    ) -> T:
        browser.active += 1
        self._busy[key.preset] += 1
        self._publish()
        context: BrowserContext | None = None
        session: PageSession | None = None

        async def use() -> T:
            nonlocal context, session
            context = await browser.take(key)
            self.contexts_served += 1
            page = await context.new_page()
            session = PageSession(page, self._page_crashed)
            page.set_default_timeout(budget.ms())
            return await work(session, budget)

        try:
            async with asyncio.timeout(budget.left()):
                return await self._unless_gone(browser, use())
        except FarmError:
            if browser.dead or browser.closing:
                raise _BrowserGoneError() from None
            raise
        except TimeoutError as exc:
            if await self._gone(browser):
                raise _BrowserGoneError() from exc
            raise FarmError(
                FarmErrorKind.navigation_timeout,
                "the page did not finish rendering within its time limit",
            ) from exc
        except (PlaywrightError, ValueError) as exc:
            if browser.dead or browser.closing:
                raise _BrowserGoneError() from exc
            if session is not None and session.crashed:
                raise self._crash_error() from exc
            if await self._gone(browser):
                raise _BrowserGoneError() from exc
            log.warning("capture failed: %s", exc)
            raise FarmError(FarmErrorKind.capture_failed, "the page could not be captured") from exc
        finally:
            if context is not None:
                await close_context(context)
            browser.active -= 1
            self._busy[key.preset] -= 1
            self._publish()
            self._supervisor.released(browser)

    async def _unless_gone(self, browser: FarmBrowser, work: Awaitable[T]) -> T:
        """``work``, abandoned the moment ``browser`` disconnects: neither a call still pending
        in the browser nor a wait that makes no call to it (the network settling, a capture
        delay) may sit out its whole budget on a browser that is no longer there."""
        task = asyncio.ensure_future(work)
        gone = asyncio.ensure_future(browser.gone.wait())
        try:
            await asyncio.wait((task, gone), return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if task.cancelled():
            raise _BrowserGoneError()
        return task.result()

    async def _gone(self, browser: FarmBrowser) -> bool:
        """Whether ``browser`` went away (waiting briefly: the error can beat the event)."""
        if browser.dead or browser.closing:
            return True
        try:
            async with asyncio.timeout(GONE_WAIT):
                await browser.gone.wait()
        except TimeoutError:
            return False
        return True

    def _crash_error(self) -> FarmError:
        """Why a page's renderer went away: the target's page caused it either way (502)."""
        if self._watchdog.killed_recently():
            return FarmError(
                FarmErrorKind.target_unreachable,
                f"the page used more than the {self.settings.page_memory_mb} MiB of memory a "
                "page may use, and was stopped",
            )
        return FarmError(
            FarmErrorKind.target_unreachable, "the page's renderer crashed (out of memory?)"
        )

    def _page_crashed(self) -> None:
        self.page_crashes += 1
        CRASHES.labels("page").inc()
        log.warning("a page's renderer crashed")

    def _publish(self) -> None:
        """Update the gauges from the farm's state."""
        current = self._supervisor.current
        serving = current is not None and not current.dead and not current.retiring
        for preset in PRESETS:
            CONTEXTS.labels(preset, "busy").set(self._busy[preset])
            idle = current.idle(preset) if serving and current is not None else 0
            CONTEXTS.labels(preset, "idle").set(idle)
        QUEUE.set(self._waiting)
