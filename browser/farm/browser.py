"""One Chromium of the farm: launching it, its pools of pre-warmed contexts, and closing it for
sure (killing its process tree and reaping it when a polite close is not enough).

A context is isolated storage, cookies and cache. Its page serves the captures of one
organization (reset between two, see :mod:`browser.farm.warm`) and never another's; fresh
contexts for the common shapes (preset x color scheme, scale 1, the default egress route) are
made ahead of time so a request does not wait for one (a context costs no renderer until it has
a page).
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from playwright.async_api import Browser, BrowserContext, Page, Playwright
from playwright.async_api import Error as PlaywrightError

from browser.farm.chores import Chores
from browser.farm.flags import launch_args, user_agents
from browser.farm.lanes import ContextLanes, Egress, EgressLane
from browser.farm.page import PageSession, page_init_script
from browser.farm.procs import (
    chromium_orphans,
    is_chromium,
    kill_processes,
    process_tree,
    reap_orphans,
)
from browser.farm.settings import FarmSettings
from browser.farm.types import COLOR_SCHEMES, PRESETS, ContextKey, ReadyRules
from browser.farm.warm import WarmPage, WarmPages, WarmRules

log = logging.getLogger(__name__)

CLOSE_GRACE = 5.0
"""Seconds a browser may take to close before its process tree is killed."""
REAP_WAIT = 3.0
"""Seconds to wait for a closed browser's processes to exit and be reaped."""
CONTEXT_TIMEOUT = 10.0
"""Seconds to make one context (its egress lane and init script included), and to open its page."""
CONTEXT_CLOSE_TIMEOUT = 2.0
"""Seconds to close one context; a browser slower than that is in trouble the probe will see."""
BACKGROUND_GRACE = 2.0
"""Seconds a closing browser waits for its background work (cancelled) to end."""


_LIVE: weakref.WeakSet[FarmBrowser] = weakref.WeakSet()
"""Browsers of this process, across farms: their helper processes are not strays."""


def _protected() -> set[int]:
    """Helper processes of running browsers (they are this process's children by design)."""
    protected: set[int] = set()
    for browser in list(_LIVE):
        if not (browser.closing or browser.dead):
            protected |= browser.helpers
    return protected


class FarmBrowser:
    """A launched Chromium with its warm contexts and its bookkeeping."""

    def __init__(
        self,
        browser: Browser,
        *,
        generation: int,
        pid: int | None,
        helpers: set[int],
        egress: Mapping[str, Egress] | None,
        warm_per_key: int,
        fill_below: int,
        warm_pages: WarmRules,
        background_pages: int,
        init_script: str,
        on_change: Callable[[], None],
    ) -> None:
        self.browser = browser
        self.generation = generation
        self.pid = pid
        self.helpers = helpers
        """Chromium's crash handlers: they daemonize, so they are this process's children
        (as a subreaper), not the browser's."""
        self.version = browser.version
        self.contexts_served = 0
        self.active = 0
        """Pages rendering on this browser now."""
        self.retiring = False
        self.closing = False
        self.gone = asyncio.Event()
        """Set when the browser disconnects, whatever the reason."""
        self._lanes = ContextLanes(egress)
        self._warm_per_key = warm_per_key
        self._fill_below = fill_below
        self.prewarmed = 0
        """Contexts taken from the warm pools."""
        self._init_script = init_script
        """Installed in every context, so in each of its pages before their first navigation
        (empty: none)."""
        self._on_change = on_change
        self._warm: dict[ContextKey, list[BrowserContext]] = {
            ContextKey(preset, dark): [] for preset in PRESETS for dark in COLOR_SCHEMES
        }
        self._filling: asyncio.Task[None] | None = None
        self.chores = Chores(background_pages, on_change)
        """Closes and resets of pages after their captures answered."""
        self.pages = WarmPages(
            warm_pages,
            self.discard,
            self._lanes.renew,
            self.chores,
            on_change,
            open_page=self.blank_page,
        )
        """Pages kept between captures, each for one organization."""
        self._user_agents = user_agents(self.version)
        browser.on("disconnected", self._disconnected)
        _LIVE.add(self)

    @classmethod
    async def launch(
        cls,
        playwright: Playwright,
        settings: FarmSettings,
        generation: int,
        egress: Mapping[str, Egress] | None,
        on_change: Callable[[], None],
    ) -> FarmBrowser:
        """Start a Chromium (within ``launch_timeout``) and begin warming its contexts."""
        before = {info.pid for info in chromium_orphans()}
        browser = await playwright.chromium.launch(
            executable_path=settings.executable_path or None,
            args=launch_args(settings),
            timeout=settings.launch_timeout * 1000,
            # The server stops the farm itself, in order; the driver must not race it.
            handle_sigint=False,
            handle_sigterm=False,
            handle_sighup=False,
        )
        pid = await _browser_pid(browser)
        helpers = {info.pid for info in chromium_orphans() if info.state != "Z"} - before
        instance = cls(
            browser,
            generation=generation,
            pid=pid,
            helpers=helpers,
            egress=egress,
            warm_per_key=settings.warm_contexts,
            fill_below=settings.fill_below(),
            warm_pages=WarmRules.of(settings),
            background_pages=settings.background_pages,
            init_script=page_init_script(ReadyRules.of(settings)),
            on_change=on_change,
        )
        instance.refill()
        log.info("browser %d started: Chromium %s, pid %s", generation, instance.version, pid)
        return instance

    @property
    def dead(self) -> bool:
        """Whether the browser is gone (disconnected, crashed or closed)."""
        return self.gone.is_set() or not self.browser.is_connected()

    def _disconnected(self, browser: Browser) -> None:
        self.gone.set()
        self._warm = {key: [] for key in self._warm}
        self.pages.close_all()
        self._lanes.close_all()
        self._on_change()

    def idle(self, preset: str) -> int:
        """Warm contexts ready for ``preset`` (both color schemes)."""
        return sum(len(pool) for key, pool in self._warm.items() if key.preset == preset)

    async def new_context(self, key: ContextKey) -> BrowserContext:
        """A fresh context of shape ``key``, made within one CONTEXT_TIMEOUT in all: its egress
        lane, the context and its init script."""
        preset = PRESETS[key.preset]
        desktop, mobile = self._user_agents
        width, height = key.size()
        viewport = {"width": width, "height": height}
        options: dict[str, Any] = {
            "viewport": viewport,
            "screen": viewport,
            "device_scale_factor": key.scale,
            "is_mobile": preset.mobile,
            "has_touch": preset.mobile,
            "user_agent": mobile if preset.mobile else desktop,
            "color_scheme": "dark" if key.dark else "light",
            "accept_downloads": False,
            "service_workers": "block",
            "bypass_csp": False,
            "java_script_enabled": True,
        }
        lane: EgressLane | None = None
        context: BrowserContext | None = None
        try:
            async with asyncio.timeout(CONTEXT_TIMEOUT):
                proxy, lane = await self._lanes.proxy(key.route)
                if proxy is not None:
                    options["proxy"] = proxy
                context = await self.browser.new_context(**options)
                if lane is not None:
                    self._lanes.bind(context, lane)
                if self._init_script:
                    # On the context, before it has a page: the page then gets it as it is
                    # made, with no round trip of its own to the renderer.
                    await context.add_init_script(script=self._init_script)
        except BaseException:
            if context is not None:
                await self.discard(context)  # its lane with it
            elif lane is not None:
                lane.close()
            raise
        return context

    async def discard(self, context: BrowserContext) -> None:
        """Close a context the farm is done with, and its egress lane whatever the close did (a
        close that times out may never report the context closed)."""
        try:
            await close_context(context)
        finally:
            self._lanes.release(context)

    async def blank_page(self, key: ContextKey) -> Page:
        """A blank page of shape ``key`` in a fresh context (a warm one when there is one), with
        the farm's own init script (the context's)."""
        pool = self._warm.get(key) if key.warmable else None
        if pool:
            context = pool.pop()
            self.prewarmed += 1
            self.refill()  # made up beside this capture when few others render
        else:
            context = await self.new_context(key)
        self.contexts_served += 1
        self._on_change()
        try:
            async with asyncio.timeout(CONTEXT_TIMEOUT):
                page = await context.new_page()
        except BaseException:
            await self.discard(context)
            raise
        return page

    async def lease(self, org: str, key: ContextKey, on_crash: Callable[[], None]) -> WarmPage:
        """A page for one capture of ``org``: an idle page of the organization and shape when
        there is one, else a blank page in a fresh context. Hand it back with
        ``pages.give_back``."""
        returning = self.pages.returning(org)
        lent = await self.pages.take(org, key)
        if lent is not None:
            return lent
        page = await self.blank_page(key)
        lent = WarmPage(
            org,
            key,
            page.context,
            PageSession(page, on_crash, self.pages.gate(org)),
            uses=1,
            returning=returning,
        )
        self.pages.lend(lent)
        return lent

    @property
    def filling(self) -> bool:
        """Whether the warm pools are being made up now."""
        return self._filling is not None and not self._filling.done()

    def refill(self) -> None:
        """Make up the warm pools to ``warm_contexts`` each, one context at a time by one filler,
        while fewer than ``fill_below`` pages render here (a context made beside captures takes
        the browser's time from them); a request done calls this again."""
        if self._warm_per_key <= 0 or self.dead or self.closing or self.retiring:
            return
        if self._filling is None or self._filling.done():
            self._filling = asyncio.create_task(self._fill())

    async def _fill(self) -> None:
        for key, pool in self._warm.items():
            while len(pool) < self._warm_per_key and not (self.dead or self.closing):
                if self.active >= self._fill_below:
                    return  # made up once fewer pages render
                try:
                    context = await self.new_context(key)
                except (PlaywrightError, TimeoutError) as exc:
                    if not (self.dead or self.closing):
                        log.warning("could not warm a %s context: %s", key.preset, exc)
                    return
                if self.dead or self.closing or self.retiring:
                    await self.discard(context)
                    return
                pool.append(context)
                self._on_change()

    async def probe(self, limit: float) -> bool:
        """Whether the browser opens and renders a blank page within ``limit`` seconds."""
        context: BrowserContext | None = None
        try:
            async with asyncio.timeout(limit):
                context = await self.browser.new_context()
                page = await context.new_page()
                await page.goto("about:blank")
                healthy = await page.evaluate("1 + 1") == 2
        except (PlaywrightError, TimeoutError) as exc:
            log.warning(
                "browser %d failed its health probe: %s", self.generation, str(exc) or "timed out"
            )
            return False
        # Closed outside the probe's time limit: a cancelled close could hang on a stuck browser.
        await close_context(context)
        return bool(healthy)

    def retire(self) -> None:
        """Take no new work: drop the warm contexts (they close with the browser) and close the
        idle pages."""
        self.retiring = True
        self._warm = {key: [] for key in self._warm}
        self.pages.close_all()
        self._on_change()

    async def close(self, grace: float = CLOSE_GRACE) -> None:
        """Close the browser; kill its process tree if it does not go within ``grace`` seconds,
        then reap its processes. Never raises."""
        self.closing = True
        await self._end_background()
        self.retire()  # its idle pages go with the browser
        try:
            async with asyncio.timeout(grace):
                await self.browser.close()
        except (PlaywrightError, TimeoutError) as exc:
            log.warning("browser %d did not close cleanly: %s", self.generation, exc)
        await self.reap()
        self._lanes.close_all()  # a close cancelled above, or its disconnect not yet seen
        log.info("browser %d closed, %d contexts served", self.generation, self.contexts_served)

    async def _end_background(self) -> None:
        """Cancel the filler and the background closes and resets (the contexts go with the
        browser), and wait at most BACKGROUND_GRACE for them to end."""
        filling = self._filling
        if filling is not None:
            filling.cancel()
        try:
            async with asyncio.timeout(BACKGROUND_GRACE):
                if filling is not None:
                    await asyncio.gather(filling, return_exceptions=True)
                await self.chores.close()
        except TimeoutError:
            log.warning("browser %d: background work did not end in time", self.generation)

    def _living(self) -> list[int]:
        """This browser's processes still running, and stray Chromium processes re-parented here
        (left by a browser that is gone: only running browsers' helpers are not strays)."""
        tree = process_tree(self.pid) if self.pid else []
        living = [info.pid for info in tree if info.state != "Z" and is_chromium(info)]
        protected = _protected()
        living += [
            info.pid
            for info in chromium_orphans()
            if info.state != "Z" and info.pid not in protected and info.pid not in living
        ]
        return living

    async def reap(self) -> None:
        """Wait (at most REAP_WAIT) until this browser's processes have exited, killing those
        that linger, and reap those re-parented here."""
        now = time.monotonic()
        until, force_at = now + REAP_WAIT, now + 0.5
        while True:
            reap_orphans()
            living = self._living()
            if not living and not any(info.state == "Z" for info in chromium_orphans()):
                return
            now = time.monotonic()
            if now >= until:
                log.warning("browser %d left %d processes behind", self.generation, len(living))
                return
            if living and now >= force_at:
                kill_processes(living)
            await asyncio.sleep(0.05)


async def close_context(context: BrowserContext) -> None:
    """Close a context (within CONTEXT_CLOSE_TIMEOUT), ignoring a browser that is gone."""
    try:
        async with asyncio.timeout(CONTEXT_CLOSE_TIMEOUT):
            await context.close()
    except (PlaywrightError, TimeoutError):
        pass


async def _browser_pid(browser: Browser) -> int | None:
    """The browser process's pid, asked of Chromium itself (Playwright does not tell)."""
    try:
        async with asyncio.timeout(5.0):
            session = await browser.new_browser_cdp_session()
            try:
                info = await session.send("SystemInfo.getProcessInfo")
            finally:
                await session.detach()
    except (PlaywrightError, TimeoutError) as exc:
        log.warning("could not learn the browser's pid: %s", exc)
        return None
    for process in info.get("processInfo", []):
        if process.get("type") == "browser":
            return int(process["id"])
    return None
