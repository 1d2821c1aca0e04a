"""The supervised Chromium farm: screenshots (:meth:`Farm.capture`) and rendered HTML
(:meth:`Farm.render`) from one Chromium driven by Playwright.

Admission (:mod:`browser.farm.admission`): at most ``max_pages`` pages render at once and one
organization holds at most its share of them (``org_share``); its surplus waits in a queue of its
own, the others' requests in the farm's queue, each bounded by ``queue_size`` and each wait by
``queue_timeout``, else :class:`FarmError` ``busy`` with a ``retry_after`` hint. Each request then
gets a page of its organization's, reset since its last capture (:mod:`browser.farm.warm`), or a
blank page in a fresh, isolated context (pre-warmed where its shape allows), and a deadline of
navigationTimeout + ``capture_margin`` (+ capture_delay); every wait inside keeps to it. The
request deadline starts once a page slot is granted.

A request whose browser went away during it (crash, kill, failed health probe) is retried once on
the browser that replaced it, with a fresh deadline: a request may take twice its deadline plus a
launch. Keeping a browser healthy (replacement, probes, recycling, reaping) is
:mod:`browser.farm.supervisor`'s job; the pages' work is :mod:`browser.farm.page`'s. The renderer
watchdog (:mod:`browser.farm.watchdog`) kills a page's renderer the moment it uses more than
``page_memory_mb`` and lowers one that keeps a core busy; the page's request then fails alone
(502).

Metrics: ``pagecast_farm_*`` gauges of busy and idle contexts per preset, of the queues and of
the pages being closed or reset in the background, counters of browser replacements, crashes,
renderers killed and captures by outcome, and a latency histogram. No label carries a URL or an
organization.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter as Tally
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError

from browser import timing
from browser.farm import page as farm_page
from browser.farm.admission import Admission, Hold
from browser.farm.browser import FarmBrowser
from browser.farm.gone import BrowserGoneError, gone, unless_gone
from browser.farm.lanes import Egress, proxy_settings
from browser.farm.metrics import (
    BACKGROUND,
    CAPTURE_DURATION,
    CAPTURES,
    CONTEXTS,
    CRASHES,
    ORG_QUEUE,
    PAGES,
    QUEUE,
    RENDERERS_KILLED,
    RESTARTS,
    WARM_PAGES,
)
from browser.farm.navigation import Budget, page_caused_error
from browser.farm.settings import FarmSettings
from browser.farm.supervisor import Supervisor
from browser.farm.types import (
    DEFAULT_ROUTE,
    PRESETS,
    CaptureOptions,
    CaptureResult,
    ContextKey,
    FarmError,
    FarmErrorKind,
    ReadyRules,
    RenderOptions,
    RenderResult,
)
from browser.farm.warm import WarmPage
from browser.farm.watchdog import RendererWatchdog

log = logging.getLogger(__name__)

T = TypeVar("T")
Work = Callable[[WarmPage, Budget], Awaitable[T]]

WATCHDOG_INTERVAL = 0.1
"""Seconds between the renderer watchdog's passes: how long a page may run over its share."""


class Farm:
    """Chromium pages for captures and renders; create and start it on the running IOLoop.

    ``egress_urls`` maps each route name ("direct", "standard") to the local proxy URL (the SSRF
    egress guard) that contexts of that route must use, or to an opener of one guard lane per
    context (:meth:`browser.egress.guard.EgressGuard.open_lane`: a byte budget per page);
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
        self.ready_rules = ReadyRules.of(settings)
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
        self._admission = Admission(settings, on_change=self._publish)
        self._busy: Tally[str] = Tally()
        self._started = False
        self._closing = False
        self.page_crashes = 0
        self.contexts_served = 0
        self.pages_reused = 0
        self.pages_replaced = 0
        """Captures that got a page opened in the background when one of their organization's
        pages retired for its uses (not reused yet, but not opened for the capture either)."""

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
        self._admission.open = True
        self._publish()

    async def close(self) -> None:
        """Stop the farm: requests in progress fail, browsers close (their process trees killed if
        they do not close in time) and exited processes are reaped. Bounded; never raises."""
        if self._closing:
            return
        self._closing = True
        self._admission.open = False
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
            "warm_pages": serving.pages.idle_count if serving else 0,
            "pages_reused": self.pages_reused,
            "pages_replaced": self.pages_replaced,
            "browser_contexts_served": current.contexts_served if current else 0,
            "rss_mb": round(supervisor.memory_bytes / 2**20),
            "pages_busy": sum(self._busy.values()),
            "background_pages": self._background(),
            "filling": any(browser.filling for browser in list(self._supervisor.browsers)),
            "max_pages": self.settings.max_pages,
            "slots_full": self._admission.full,
            "queue_length": self._admission.waiting,
            "org_queue_length": self._admission.org_waiting,
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

        async def work(lent: WarmPage, budget: Budget) -> CaptureResult:
            await farm_page.prepare(lent.session, options, lent.prepared)
            lent.screen_media |= options.image_type == "pdf"
            return await farm_page.capture(lent.session, url, options, budget, self.ready_rules)

        key = ContextKey(
            options.preset,
            options.dark_mode,
            options.device_scale_factor,
            options.route,
            options.viewport,
        )
        return await self._serve("capture", key, options, options.capture_delay_ms, work)

    async def render(self, url: str, options: RenderOptions) -> RenderResult:
        """The HTML of ``url`` after rendering; raises :class:`FarmError` (ValueError as for
        :meth:`capture`)."""
        self._check_request(url, options.route)

        async def work(lent: WarmPage, budget: Budget) -> RenderResult:
            await farm_page.prepare(lent.session, None, lent.prepared)
            return await farm_page.render(lent.session, url, options, budget, self.ready_rules)

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
        leased: list[float] = []

        async def on_page(lent: WarmPage, budget: Budget) -> T:
            leased.append(time.monotonic())
            return await work(lent, budget)

        try:
            async with self._admission.slot(options.org) as hold:
                result = await self._attempts(
                    options.org, key, navigation_s, delay_ms / 1000, on_page, hold=hold
                )
            outcome = "ok"
            return result
        except FarmError as exc:
            outcome = exc.kind.value
            raise
        finally:
            # Waiting for a page slot, a browser and a page, until the first page was in hand
            # (the whole request when none was).
            timing.record("queue", ((leased[0] if leased else time.monotonic()) - started) * 1000)
            elapsed = time.monotonic() - started
            CAPTURES.labels(kind, outcome).inc()
            CAPTURE_DURATION.labels(kind).observe(elapsed)
            if outcome == "ok":
                self._admission.observe(elapsed)

    async def _attempts(
        self,
        org: str,
        key: ContextKey,
        navigation_s: float,
        delay_s: float,
        work: Work[T],
        *,
        hold: Hold,
    ) -> T:
        for attempt in (1, 2):
            budget = Budget.start(navigation_s, self.settings.capture_margin, delay_s)
            browser = await self._supervisor.serving_browser()
            if browser is None:
                if self._closing:
                    raise self._admission.busy("the browser farm is shutting down")
                raise self._admission.busy("the browser is restarting")
            try:
                return await self._on_browser(browser, org, key, work, budget, hold=hold)
            except BrowserGoneError:
                if attempt == 2 or self._closing:
                    break
                log.warning(
                    "browser %d went away during a request; retrying it once on a new browser",
                    browser.generation,
                )
        # Two browsers gone under one request: the farm is restarting, not the page failing.
        raise self._admission.busy("the browser restarted during the capture; retry shortly")

    async def _on_browser(
        self,
        browser: FarmBrowser,
        org: str,
        key: ContextKey,
        work: Work[T],
        budget: Budget,
        *,
        hold: Hold,
    ) -> T:
        browser.active += 1
        self._busy[key.preset] += 1
        self._publish()
        lent: WarmPage | None = None
        done = False

        async def use() -> T:
            nonlocal lent, done
            lent = await browser.lease(org, key, self._page_crashed)
            self._count_page(lent)
            lent.session.page.set_default_timeout(budget.ms())
            result = await work(lent, budget)
            done = True
            return result

        try:
            async with asyncio.timeout(budget.left()):
                return await unless_gone(browser, use())
        except FarmError:
            if browser.dead or browser.closing:
                raise BrowserGoneError() from None
            raise
        except TimeoutError as exc:
            if await gone(browser):
                raise BrowserGoneError() from exc
            raise FarmError(
                FarmErrorKind.navigation_timeout,
                "the page did not finish rendering within its time limit",
            ) from exc
        except (PlaywrightError, ValueError) as exc:
            if browser.dead or browser.closing:
                raise BrowserGoneError() from exc
            if lent is not None and lent.session.crashed:
                raise self._crash_error() from exc
            if await gone(browser):
                raise BrowserGoneError() from exc
            # One line: Playwright's messages carry a multi-line call log.
            message = exc.message if isinstance(exc, PlaywrightError) else str(exc)
            first_line = next(iter(message.splitlines()), "")
            caused = page_caused_error(message) if isinstance(exc, PlaywrightError) else None
            if caused is not None:
                log.info("capture failed by the page's doing: %s", first_line)
                raise caused from exc
            log.warning("capture failed: %s", first_line)
            raise FarmError(FarmErrorKind.capture_failed, "the page could not be captured") from exc
        finally:
            if lent is not None:
                # Reset and kept for the organization's next capture, or closed: in the
                # background either way, the page slot kept until that is done.
                hold.keep_until(
                    browser.pages.give_back(lent, healthy=done and not browser.retiring)
                )
            browser.active -= 1
            # A filler that stopped while many pages rendered goes on once fewer do.
            browser.refill()
            self._busy[key.preset] -= 1
            self._publish()
            self._supervisor.released(browser)

    def _count_page(self, lent: WarmPage) -> None:
        """A page lent to a capture: reused, a replacement opened ahead, or new."""
        self.contexts_served += 1
        reused = lent.uses > 1
        replacement = lent.replacement and not reused
        self.pages_reused += reused
        self.pages_replaced += replacement
        PAGES.labels("reused" if reused else "replacement" if replacement else "new").inc()

    def _crash_error(self) -> FarmError:
        """Why a page's renderer went away: the target's page caused it either way (502)."""
        return FarmError(FarmErrorKind.target_unreachable, self._watchdog.crash_message())

    def _page_crashed(self) -> None:
        self._watchdog.page_crashed()
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
        WARM_PAGES.set(current.pages.idle_count if serving and current is not None else 0)
        QUEUE.set(self._admission.waiting)
        ORG_QUEUE.set(self._admission.org_waiting)
        BACKGROUND.set(self._background())

    def _background(self) -> int:
        """Pages being closed or reset in the background, on every browser."""
        return sum(browser.chores.pending for browser in list(self._supervisor.browsers))
