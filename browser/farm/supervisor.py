"""Keeping the farm's Chromium healthy: launching it, replacing one that crashed or failed its
health probe, recycling one that served ``recycle_after`` contexts or outgrew ``rss_ceiling_mb``,
and closing retired browsers once their pages are done.

A replacement always starts the new browser first and only then retires the old one, so new work
never waits for a close. Playwright's driver (one Node process) is shared by the browsers and
restarted when a launch fails with no browser left alive.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Playwright, async_playwright

from browser.farm.browser import CLOSE_GRACE, FarmBrowser
from browser.farm.lanes import Egress
from browser.farm.procs import enable_subreaper, reap_orphans, tree_memory_bytes
from browser.farm.settings import FarmSettings

log = logging.getLogger(__name__)

PROBE_TIMEOUT_RANGE = (2.0, 10.0)
"""The health probe's timeout: health_interval, kept within these seconds."""
HUNG_GRACE = 0.2
"""Seconds a browser that failed its health probe gets to close before it is killed."""
DRIVER_TIMEOUT = 10.0
"""Seconds to start or stop Playwright's driver process."""
PLANNED = ("recycle", "memory")
"""Replacement reasons that are not failures."""


class Supervisor:
    """Owns the browsers: the current one taking new work and any retiring ones.

    ``on_change`` is called when the state the gauges show changes, ``on_restart(reason)`` after
    each replacement and ``on_crash()`` when a browser disconnects unexpectedly.
    """

    def __init__(
        self,
        settings: FarmSettings,
        egress: Mapping[str, Egress] | None,
        *,
        on_change: Callable[[], None],
        on_restart: Callable[[str], None],
        on_crash: Callable[[], None],
    ) -> None:
        self.settings = settings
        self.current: FarmBrowser | None = None
        self.browsers: set[FarmBrowser] = set()
        self.restarts = 0
        """Browsers replaced because they crashed or failed the health probe."""
        self.recycles = 0
        """Browsers replaced as planned (context count or memory)."""
        self.crashes = 0
        """Browsers that disconnected unexpectedly."""
        self.memory_bytes = 0
        """The current browser's memory at the last probe."""
        self.closing = False
        self._egress = egress
        self._on_change = on_change
        self._on_restart = on_restart
        self._on_crash = on_crash
        self._playwright: Playwright | None = None
        self._ready = asyncio.Event()
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._generation = 0

    @property
    def ready(self) -> bool:
        """Whether a connected browser is taking new work."""
        current = self.current
        return (
            self._loop_task is not None
            and not self.closing
            and current is not None
            and not current.dead
            and not current.retiring
        )

    async def start(self) -> None:
        """Start the driver and the first browser, then supervise; raises if Chromium cannot
        start."""
        enable_subreaper()
        await self._start_driver()
        try:
            self.current = await self._launch()
        except BaseException:
            await self._stop_driver()
            raise
        self._ready.set()
        self._loop_task = asyncio.create_task(self._supervise())

    async def close(self) -> None:
        """Close every browser (killing what does not close in time), the driver, and reap."""
        self.closing = True
        self._ready.clear()
        tasks = [task for task in (self._loop_task, *self._tasks) if task is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=DRIVER_TIMEOUT)
        await asyncio.gather(*(browser.close() for browser in list(self.browsers)))
        self.browsers.clear()
        await self._stop_driver()
        reap_orphans()

    async def serving_browser(self) -> FarmBrowser | None:
        """The browser taking new work, waiting up to launch_timeout while one starts; None when
        there is none by then (or the farm is closing)."""
        waited = False
        while not self.closing:
            current = self.current
            if current is not None and not current.dead and not current.retiring:
                return current
            if waited:
                return None
            self._ready.clear()
            self._wake.set()
            try:
                async with asyncio.timeout(self.settings.launch_timeout):
                    await self._ready.wait()
            except TimeoutError:
                waited = True
        return None

    def released(self, browser: FarmBrowser) -> None:
        """A request on ``browser`` ended: close it if it is retired and idle; recycle it if it
        reached ``recycle_after``."""
        if browser.retiring and browser.active == 0 and not browser.closing:
            self._spawn(self._dispose(browser))
        if browser.contexts_served >= self.settings.recycle_after:
            self._wake.set()

    async def _supervise(self) -> None:
        interval = self.settings.health_interval
        next_probe = time.monotonic() + interval
        backoff = 1.0
        while not self.closing:
            try:
                async with asyncio.timeout(max(next_probe - time.monotonic(), 0.0)):
                    await self._wake.wait()
            except TimeoutError:
                pass
            self._wake.clear()
            try:
                current = self.current
                if current is None or current.dead:
                    if not await self._replace("crash"):
                        await asyncio.sleep(backoff)
                        backoff = min(backoff * 2, 30.0)
                        self._wake.set()
                        continue
                    backoff = 1.0
                elif time.monotonic() >= next_probe:
                    next_probe = time.monotonic() + interval
                    await self._check(current)
                elif current.contexts_served >= self.settings.recycle_after:
                    await self._replace("recycle")
                reap_orphans()
            except Exception:  # the supervisor must outlive any one failure
                log.exception("browser farm supervision failed")

    async def _check(self, current: FarmBrowser) -> None:
        """The periodic checks: the health probe, then the recycle limits."""
        low, high = PROBE_TIMEOUT_RANGE
        if not await current.probe(min(max(self.settings.health_interval, low), high)):
            await self._replace("unhealthy")
            return
        if current.pid is not None:
            self.memory_bytes = await asyncio.to_thread(tree_memory_bytes, current.pid)
        if current.contexts_served >= self.settings.recycle_after:
            await self._replace("recycle")
        elif self.memory_bytes > self.settings.rss_ceiling_mb * 2**20:
            log.info(
                "browser %d uses %d MiB (ceiling %d); recycling it",
                current.generation,
                self.memory_bytes // 2**20,
                self.settings.rss_ceiling_mb,
            )
            await self._replace("memory")

    async def _replace(self, reason: str) -> bool:
        """Start a new browser, move new work to it and retire the current one."""
        old = self.current
        try:
            new = await self._launch()
        except (PlaywrightError, TimeoutError, OSError) as exc:
            log.error("could not start a browser (%s): %s", reason, exc)
            await self._restart_driver()
            return False
        self.current = new
        self._ready.set()
        if reason in PLANNED:
            self.recycles += 1
        else:
            self.restarts += 1
        self._on_restart(reason)
        log.info(
            "browser %d replaced browser %s (%s)", new.generation, old and old.generation, reason
        )
        if old is not None:
            old.retire()
            # A browser that failed its probe may be hung: it goes now, and its requests are
            # retried on the new one. A healthy one finishes its pages first.
            if reason == "unhealthy":
                self._spawn(self._dispose(old, grace=HUNG_GRACE))
            elif old.dead or old.active == 0:
                self._spawn(self._dispose(old))
        self._on_change()
        return True

    async def _launch(self) -> FarmBrowser:
        if self._playwright is None:
            raise PlaywrightError("Playwright's driver is not running")
        self._generation += 1
        browser = await FarmBrowser.launch(
            self._playwright, self.settings, self._generation, self._egress, self._on_change
        )
        browser.browser.on("disconnected", lambda _: self._browser_gone(browser))
        self.browsers.add(browser)
        return browser

    def _browser_gone(self, browser: FarmBrowser) -> None:
        if browser.closing or self.closing:
            return
        self.crashes += 1
        self._on_crash()
        log.error("browser %d (pid %s) disconnected unexpectedly", browser.generation, browser.pid)
        if browser is self.current:
            self._ready.clear()
            self._wake.set()
        self._spawn(self._dispose(browser))

    async def _dispose(self, browser: FarmBrowser, grace: float = CLOSE_GRACE) -> None:
        """Close a retired or dead browser and reap its processes."""
        if browser.closing:
            return
        await browser.close(grace)
        self.browsers.discard(browser)
        self._on_change()

    async def _start_driver(self) -> None:
        async with asyncio.timeout(DRIVER_TIMEOUT):
            self._playwright = await async_playwright().start()

    async def _stop_driver(self) -> None:
        playwright, self._playwright = self._playwright, None
        if playwright is None:
            return
        try:
            async with asyncio.timeout(DRIVER_TIMEOUT):
                await playwright.stop()
        except (PlaywrightError, TimeoutError, OSError) as exc:
            log.warning("Playwright's driver did not stop cleanly: %s", exc)

    async def _restart_driver(self) -> None:
        """Start Playwright's driver afresh (a failed launch may mean the driver died)."""
        if self.closing or any(not browser.dead for browser in self.browsers):
            return
        await self._stop_driver()
        try:
            await self._start_driver()
        except (PlaywrightError, TimeoutError, OSError) as exc:
            log.error("could not restart Playwright's driver: %s", exc)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
