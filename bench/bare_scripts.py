"""The bare Playwright scripts the screenshot benchmark (``bench/screenshot.py``) compares Pagecast
with: a fresh context per shot, a page per worker reused and reset between shots, and a browser
launched per shot."""

from __future__ import annotations

import pagecast_process  # noqa: F401 (puts Pagecast's root on sys.path, for its flags)
from playwright.async_api import Browser, Page, Playwright, ViewportSize

from browser.farm.flags import LAUNCH_ARGS

CHROMIUM = "/usr/bin/chromium"
FLAGS = list(LAUNCH_ARGS)  # the flags Pagecast launches Chromium with
VIEWPORT: ViewportSize = {"width": 1366, "height": 768}


class Bare:
    """The bare Playwright scripts Pagecast is compared with."""

    def __init__(self, playwright: Playwright, browser: Browser, pages: list[str]) -> None:
        self.playwright = playwright
        self.browser = browser
        self.pages = pages
        self.idle: list[Page] = []

    async def fresh_context(self, site: int) -> None:
        context = await self.browser.new_context(viewport=VIEWPORT)
        try:
            tab = await context.new_page()
            await tab.goto(self.pages[site])
            await tab.screenshot(type="png")
        finally:
            await context.close()

    async def reused_page(self, site: int) -> None:
        """A page of the worker's own (one per worker), reset after each shot."""
        tab = self.idle.pop() if self.idle else await self._new_page()
        try:
            await tab.goto(self.pages[site])
            await tab.screenshot(type="png")
            await tab.goto("about:blank")
            await tab.context.clear_cookies()
            session = await tab.context.new_cdp_session(tab)
            origin = self.pages[site].rstrip("/")
            await session.send(
                "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"}
            )
            await session.detach()
        finally:
            self.idle.append(tab)

    async def _new_page(self) -> Page:
        context = await self.browser.new_context(viewport=VIEWPORT)
        return await context.new_page()

    async def launch_per_shot(self, site: int) -> None:
        own = await self.playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            tab = await own.new_page(viewport=VIEWPORT)
            await tab.goto(self.pages[site])
            await tab.screenshot(type="png")
        finally:
            await own.close()
