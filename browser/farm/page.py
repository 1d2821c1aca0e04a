"""One page's work in the farm: navigate, wait, scroll, hide, then take the screenshot or the HTML.

Everything here works on a Playwright page the farm has lent to one request (a page of the
request's organization, reset since its last capture, or a new one). Each wait takes its
timeout from the request's
:class:`~browser.farm.navigation.Budget`, so a page can never hold a request past its deadline
(the waits for the elements a request names are in :mod:`browser.farm.elements`).
Expected failures become :class:`FarmError`; anything else (the browser going away, protocol
errors) propagates for the farm to judge.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from playwright.async_api import (
    CDPSession,
    Dialog,
    Download,
    Page,
    Response,
)
from playwright.async_api import Error as PlaywrightError

from browser import timing
from browser.farm.blocking import Blocker
from browser.farm.elements import Wanted, click_load_more, wait_for
from browser.farm.loading import LoadGate
from browser.farm.navigation import Budget, navigate
from browser.farm.notices import hide_notices
from browser.farm.pictures import take_picture
from browser.farm.readiness import NetworkWatch, init_script, wait_for_paint, wait_until_ready
from browser.farm.types import (
    CaptureOptions,
    CaptureResult,
    Readiness,
    ReadyRules,
    ReadyState,
    RenderOptions,
    RenderResult,
)

log = logging.getLogger(__name__)

SETTLE_QUIET = 0.5
"""Seconds without a request in flight that count as the network having settled."""
SETTLE_LIMIT = 3.0
"""Most seconds to wait for the network to settle after scrolling or a click."""
SCROLL_LIMIT = 10.0
"""Most seconds spent scrolling down a page."""

# Inserts a <style> element as soon as the document has a root element, before the page's own
# content is parsed or painted. Runs in every frame, at document start.
_STYLE_SCRIPT = """
(() => {
  const css = %s;
  const add = () => {
    const style = document.createElement('style');
    style.setAttribute('data-pagecast', '');
    style.textContent = css;
    (document.head || document.documentElement).appendChild(style);
  };
  if (document.documentElement) { add(); return; }
  const observer = new MutationObserver(() => {
    if (document.documentElement) { observer.disconnect(); add(); }
  });
  observer.observe(document, { childList: true });
})();
"""

# Inline styles are set through the CSSOM, which a page's Content-Security-Policy does not block
# (a <style> element can be), so excluded elements stay hidden on strict pages too.
_HIDE_ELEMENTS = """
(selectors) => {
  for (const selector of selectors) {
    let found = [];
    try { found = document.querySelectorAll(selector); } catch (e) { continue; }
    for (const element of found) {
      element.style.setProperty('visibility', 'hidden', 'important');
    }
  }
}
"""

_SCROLL_DOWN = """
async (budgetMs) => {
  const until = Date.now() + budgetMs;
  const root = document.scrollingElement || document.documentElement;
  let still = 0;
  while (Date.now() < until && still < 3) {
    const before = root.scrollTop;
    window.scrollBy(0, Math.max(window.innerHeight * 0.8, 200));
    await new Promise((resolve) => setTimeout(resolve, 120));
    const atBottom = window.innerHeight + root.scrollTop >= root.scrollHeight - 2;
    still = atBottom && root.scrollTop === before ? still + 1 : 0;
  }
}
"""

_TWO_FRAMES = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"


class PageSession:
    """A request's page with its event handlers: dialogs dismissed, popups and downloads refused,
    a renderer crash recorded, and the requests in flight watched."""

    def __init__(
        self, page: Page, on_crash: Callable[[], None], gate: LoadGate | None = None
    ) -> None:
        self.page = page
        self.crashed = False
        self.gate = gate or LoadGate()
        """Held while the page navigates (its organization's on its browser, shared by that
        organization's pages there)."""
        self.on_crash = on_crash
        self.network = NetworkWatch(page)
        self._tasks: set[asyncio.Task[None]] = set()
        self._devtools: CDPSession | None = None
        page.on("dialog", self._dialog)
        page.on("popup", self._popup)
        page.on("download", self._download)
        page.on("crash", self._crash)

    def renew(self) -> None:
        """The page was reset to a blank document: it starts over."""
        self.network.renew()

    async def devtools(self) -> CDPSession:
        """The page's own DevTools session, opened at the first call and shared by every later
        one (the URL blocking's and the reset's, which never run at once), so that a page's
        life attaches once."""
        if self._devtools is None:
            self._devtools = await self.page.context.new_cdp_session(self.page)
        return self._devtools

    async def _dialog(self, dialog: Dialog) -> None:
        try:
            # beforeunload is accepted so that a navigation the page starts itself goes ahead.
            if dialog.type == "beforeunload":
                await dialog.accept()
            else:
                await dialog.dismiss()
        except PlaywrightError:
            pass  # the page went away first

    async def _popup(self, popup: Page) -> None:
        log.debug("closing a popup the page opened")
        with contextlib.suppress(PlaywrightError):
            await popup.close()

    async def _download(self, download: Download) -> None:
        log.debug("refused a download the page started")
        with contextlib.suppress(PlaywrightError):
            await download.cancel()

    def _crash(self, page: Page) -> None:
        self.crashed = True
        self.on_crash()
        # Closing the page fails the pending calls at once instead of at their timeouts.
        task = asyncio.ensure_future(self._close_quietly())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _close_quietly(self) -> None:
        with contextlib.suppress(PlaywrightError):
            await self.page.close()

    async def settle(self, budget: Budget, *, until: float | None = None) -> None:
        """Wait until no request has been in flight for SETTLE_QUIET seconds, at most
        SETTLE_LIMIT seconds and never past ``until``."""
        end = min(time.monotonic() + SETTLE_LIMIT, budget.waits)
        until = end if until is None else min(end, until)
        while time.monotonic() < until:
            if self.network.quiet_for(SETTLE_LIMIT) >= SETTLE_QUIET:
                return
            await asyncio.sleep(0.05)


def page_init_script(rules: ReadyRules) -> str:
    """What every page gets before its first navigation: the readiness wait's page side
    (nothing when readiness waits are off)."""
    return init_script(rules) if rules.timeout > 0 else ""


class Installed(Protocol):
    """What Playwright returns for an init script: closing it removes the script."""

    async def close(self) -> None: ...


@dataclass
class Prepared:
    """What a page has installed for its captures (hiding CSS as an init script, blocked URL
    patterns), kept from one capture to the next that asks the same."""

    css: str = ""
    script: Installed | None = None
    blocker: Blocker = field(default_factory=Blocker)


async def prepare(session: PageSession, options: CaptureOptions | None, prepared: Prepared) -> None:
    """Install what a capture needs before navigation (hiding CSS, URL blocking), and take away
    what an earlier capture on the page installed that this one does not ask (``options`` None:
    a render, which asks nothing). What is already there as asked stays: no protocol call. The
    CSS and the blocking, when both change, are set up side by side (each is a round trip to
    the browser); a failure of one cancels the other."""
    css = options.hide_css + exclude_css(options.exclude_selectors) if options else ""
    patterns = options.block_url_patterns if options else ()
    page = session.page
    if css == prepared.css:
        await prepared.blocker.block(session.devtools, patterns)
    elif patterns == prepared.blocker.patterns:
        await _hide(page, css, prepared)
    else:
        try:
            async with asyncio.TaskGroup() as both:
                both.create_task(_hide(page, css, prepared))
                both.create_task(prepared.blocker.block(session.devtools, patterns))
        except ExceptionGroup as failed:  # the first failure, as the farm judges errors
            raise failed.exceptions[0] from failed


async def _hide(page: Page, css: str, prepared: Prepared) -> None:
    """The page's hiding CSS made ``css`` (the init script replaced)."""
    if css == prepared.css:
        return
    if prepared.script is not None:
        await prepared.script.close()
    prepared.css, prepared.script = "", None
    if css:
        prepared.script = await page.add_init_script(script=_STYLE_SCRIPT % json.dumps(css))
        prepared.css = css


def exclude_css(selectors: tuple[str, ...]) -> str:
    """CSS hiding each selector; one rule each, so one bad selector cannot void the others."""
    return "".join(f"{selector} {{ visibility: hidden !important; }}\n" for selector in selectors)


async def scroll_to_bottom(session: PageSession, budget: Budget) -> None:
    """Scroll down in steps so lazy content loads, let the network settle, then go back up."""
    page = session.page
    budget_ms = min(SCROLL_LIMIT, budget.left(budget.waits)) * 1000
    await page.evaluate(_SCROLL_DOWN, budget_ms)
    await session.settle(budget)
    await page.evaluate("() => window.scrollTo(0, 0)")
    # Two frames, so fixed headers and sticky elements settle back into place.
    await page.evaluate(_TWO_FRAMES)


async def loaded(
    session: PageSession,
    url: str,
    awaited: Wanted | None,
    budget: Budget,
    rules: ReadyRules,
    *,
    paint: bool = False,
) -> tuple[Response | None, Readiness]:
    """Navigate to ``url`` and wait until the page is ready: until the element the request names
    in wait_for_selector (``awaited``) is there, else by the readiness rules, and then with
    ``paint`` for its fonts and images in view."""
    started = time.monotonic()
    try:
        async with session.gate.navigation():
            response = await navigate(session.page, url, budget)
    finally:  # a navigation that failed took its time too (Server-Timing)
        load_ms = int(timing.since(started))
        timing.record("navigation", load_ms)
    if awaited is not None:
        await wait_for(session.page, awaited, budget)
        waited = int(timing.since(started)) - load_ms
        if paint and rules.timeout > 0:
            await wait_for_paint(session.page, budget)
        ready = Readiness(ReadyState.selector, waited, load_ms)
    else:
        ready = await wait_until_ready(
            session.page, session.network, rules, budget, load_ms, paint=paint
        )
    timing.record("ready", ready.waited_ms, ready.state.value)
    return response, ready


async def capture(
    session: PageSession, url: str, options: CaptureOptions, budget: Budget, rules: ReadyRules
) -> CaptureResult:
    """Capture ``url`` on the session's page (prepared with :func:`prepare`)."""
    page = session.page
    # The paint is waited for last: with the readiness wait (one look at the page for both)
    # unless scrolling or an element's wait come after it.
    paint_last = options.scroll_to_bottom or bool(options.selector)
    waits = options.wait_timeout_ms
    awaited = options.wait_for_selector
    response, readiness = await loaded(
        session,
        url,
        Wanted.awaited(awaited, "visible", waits) if awaited else None,
        budget,
        rules,
        paint=not paint_last,
    )
    ready_at = time.monotonic()
    if options.scroll_to_bottom:
        await scroll_to_bottom(session, budget)
    # The page is ready: the element to capture is there, or about to be, or never will be.
    element = (
        await wait_for(page, Wanted.on_ready("selector", options.selector, waits), budget)
        if options.selector
        else None
    )
    if paint_last and rules.timeout > 0:
        await wait_for_paint(page, budget)
    if options.capture_delay_ms:
        await asyncio.sleep(min(options.capture_delay_ms / 1000, budget.left()))
    # The HTML is the page as it made itself: read before excluded elements and consent notices
    # are hidden for the picture (hiding is the picture's business, not the text's).
    html = await _content(page, budget) if options.keep_html else None
    if options.exclude_selectors:
        await page.evaluate(_HIDE_ELEMENTS, list(options.exclude_selectors))
    if options.notices is not None:
        await hide_notices(page, options.notices)
    picture = await take_picture(page, element, options, budget)
    timing.record("capture", timing.since(ready_at))
    return CaptureResult(
        image=picture.data,
        image_type=options.image_type,
        width=picture.width,
        height=picture.height,
        status=response.status if response is not None else None,
        final_url=page.url,
        readiness=readiness,
        pages=picture.pages,
        html=html,
    )


async def _content(page: Page, budget: Budget) -> str:
    """The page's HTML; a page that started loading another document by itself just now is
    read once that document's DOM has arrived."""
    try:
        return await page.content()
    except PlaywrightError as exc:
        if "navigating" not in exc.message:
            raise
    await page.wait_for_load_state("domcontentloaded", timeout=budget.ms())
    return await page.content()


async def render(
    session: PageSession, url: str, options: RenderOptions, budget: Budget, rules: ReadyRules
) -> RenderResult:
    """Render ``url`` on the session's page and serialize its DOM."""
    page = session.page
    waits = options.wait_timeout_ms
    awaited = options.wait_for_selector
    response, readiness = await loaded(
        session, url, Wanted.awaited(awaited, "attached", waits) if awaited else None, budget, rules
    )
    if options.scroll_to_bottom:
        await scroll_to_bottom(session, budget)
    if options.load_more_selector:
        button = Wanted.on_ready("load_more_selector", options.load_more_selector, waits)
        await click_load_more(session, button, waits, budget)
    html = await _content(page, budget)
    return RenderResult(
        html=html,
        final_url=page.url,
        status=response.status if response is not None else None,
        readiness=readiness,
    )
