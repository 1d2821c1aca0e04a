"""Waiting until a loaded page is ready: the network quiet, the DOM settled, and a page that
shows nothing yet given the time its pending work needs.

The ``load`` event says that a document and its first resources arrived, not that a script-built
page has built itself: a single-page app fetches its data, a news site hydrates, a product page
fills in its price, after ``load``. After navigation every render waits (within the request's
budget and ``farm.ready_timeout``) until, for ``farm.ready_quiet`` seconds, no request is in flight
and no significant change is made to the DOM. Requests of the kinds that never end (event streams,
WebSockets, media) and requests open for longer than ``farm.ready_long_request`` (long polling)
are not waited for.

A page that shows nothing yet (blank) or hardly anything (a "Loading..." line) is waited for
longer: while one of its short one-shot timers is pending (a render scheduled 300 ms after
``load``), and a blank page for ``farm.ready_blank_grace`` of complete quiet before it is taken
as blank. A page that already shows its content is not held for its timers: analytics and
carousels keep timers pending on most pages.

The page-side half is an init script installed before the page's own scripts: it keeps the time
of the last significant DOM change (nodes with text or boxes added or removed, text changed;
attribute changes such as animations' are not significant) and the page's pending short timers
(``setTimeout`` wrapped; timers set by a timer's callback beyond a few links of a chain are
polling loops and are not kept). A hostile page can only make the wait last until its bound.
Before a screenshot, :func:`wait_for_paint` lets web fonts and the images in view finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Request

from browser.farm.navigation import Budget
from browser.farm.types import Readiness, ReadyRules, ReadyState

log = logging.getLogger(__name__)

POLL = 0.05
"""Seconds between two looks at the page while waiting."""
TIMER_CHAIN = 3
"""Links of a timer chain (a timer set by a timer's callback...) that are still waited for;
longer chains are polling or animation loops."""
SPARSE_CHARS = 64
"""Characters of visible text below which a page counts as hardly showing anything (a spinner's
"Loading..."), so that its pending timers are waited for."""
BLANK_SCAN = 3000
"""Most elements looked at to tell whether a page without text paints anything."""
PAINT_LIMIT = 2.0
"""Most seconds to wait for web fonts and the images in view before a screenshot."""
ENDLESS_TYPES = frozenset({"eventsource", "websocket", "media"})
"""Playwright resource types of requests that may stay open for the page's life."""
_NAVIGATED: dict[str, Any] = {}
"""What :func:`_probe` answers when the page replaced its document while being looked at."""
_NAVIGATING = ("Execution context was destroyed", "Cannot find context with specified id")
"""Playwright's words for an evaluation cut short by the page loading another document."""
PROBE_NAME = "__pagecastReadiness"
"""The (non-enumerable) window property through which the init script answers."""


# Installed with add_init_script: runs in every document before the page's own scripts.
_INIT_SCRIPT = """
(() => {
  const KEY = %(key)s;
  if (Object.prototype.hasOwnProperty.call(window, KEY)) return;
  const HORIZON = %(horizon)d, CHAIN = %(chain)d, SPARSE = %(sparse)d, SCAN = %(scan)d;
  const clock = () => performance.now();
  let lastChange = clock();
  let depth = 0;
  const pending = new Map();
  const nativeSet = window.setTimeout, nativeClear = window.clearTimeout;
  const setTimeout = function setTimeout(handler, delay, ...args) {
    const wait = Math.max(Number(delay) || 0, 0);
    const link = depth + 1;
    if (typeof handler !== 'function' || wait > HORIZON || link > CHAIN) {
      return nativeSet.apply(window, arguments);
    }
    const id = nativeSet.call(window, () => {
      pending.delete(id);
      const outer = depth;
      depth = link;
      try { handler.apply(window, args); } finally { depth = outer; }
    }, wait);
    pending.set(id, clock() + wait);
    return id;
  };
  const clearTimeout = function clearTimeout(id) {
    pending.delete(id);
    return nativeClear.call(window, id);
  };
  for (const [wrapper, native] of [[setTimeout, nativeSet], [clearTimeout, nativeClear]]) {
    Object.defineProperty(wrapper, 'toString', { value: () => native.toString() });
  }
  window.setTimeout = setTimeout;
  window.clearTimeout = clearTimeout;

  const significant = (node) => node.nodeType === 1
    ? !['SCRIPT', 'STYLE', 'LINK', 'META', 'NOSCRIPT', 'TEMPLATE'].includes(node.nodeName)
    : node.nodeType === 3 && node.data.trim() !== '';
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === 'characterData'
          || [...record.addedNodes].some(significant)
          || [...record.removedNodes].some(significant)) {
        lastChange = clock();
        return;
      }
    }
  }).observe(document, { childList: true, subtree: true, characterData: true });

  const painted = (style) => style.backgroundImage !== 'none'
    || !/^(transparent|rgba\\(.*,\\s*0\\))$/.test(style.backgroundColor)
    || ['Top', 'Right', 'Bottom', 'Left'].some((side) =>
      parseFloat(style['border' + side + 'Width']) > 0
      && style['border' + side + 'Style'] !== 'none');
  const REPLACED = new Set(['img', 'svg', 'canvas', 'video', 'iframe', 'object', 'embed',
                            'input', 'button', 'textarea', 'select', 'picture']);
  const shows = (body) => {
    const text = (body.innerText || '').trim();
    if (text.length >= SPARSE) return 'content';
    const walker = document.createTreeWalker(body, NodeFilter.SHOW_ELEMENT);
    for (let seen = 0, el = walker.nextNode(); el && seen < SCAN; el = walker.nextNode(), seen++) {
      const rect = el.getBoundingClientRect();
      if (rect.width < 1 || rect.height < 1) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || style.opacity === '0') continue;
      if (REPLACED.has(el.localName) || painted(style)) return text ? 'sparse' : 'painted';
    }
    return text ? 'sparse' : 'blank';
  };
  Object.defineProperty(window, KEY, {
    enumerable: false,
    value: (look) => {
      const now = clock();
      let timers = 0;
      for (const due of pending.values()) if (due - now <= HORIZON) timers++;
      const body = document.body;
      return {
        since: now - lastChange,
        timers,
        scripted: document.scripts.length > 0 || window.frames.length > 0,
        shows: look ? (body ? shows(body) : 'blank') : null,
      };
    },
  });
})();
"""

_PROBE = f"(look) => window.{PROBE_NAME} ? window.{PROBE_NAME}(look) : null"

_PAINT = """
async (limitMs) => {
  const inView = [...document.images].filter((img) => {
    if (img.complete) return false;
    const rect = img.getBoundingClientRect();
    return rect.bottom > 0 && rect.right > 0 && rect.top < innerHeight && rect.left < innerWidth;
  });
  const loaded = inView.map((img) => new Promise((resolve) => {
    img.addEventListener('load', resolve, { once: true });
    img.addEventListener('error', resolve, { once: true });
  }));
  const fonts = document.fonts ? document.fonts.ready : Promise.resolve();
  await Promise.race([
    Promise.all([fonts, ...loaded]),
    new Promise((resolve) => setTimeout(resolve, limitMs)),
  ]);
}
"""


def init_script(rules: ReadyRules) -> str:
    """The page-side half, with ``rules`` filled in."""
    return _INIT_SCRIPT % {
        "key": json.dumps(PROBE_NAME),
        "horizon": int(rules.timer_horizon * 1000),
        "chain": TIMER_CHAIN,
        "sparse": SPARSE_CHARS,
        "scan": BLANK_SCAN,
    }


class NetworkWatch:
    """The page's requests in flight, each with when it started; requests that may stay open
    for the page's life (streams, WebSockets, media) are not counted."""

    def __init__(self, page: Page) -> None:
        self._started: dict[Request, float] = {}
        self.last_change = time.monotonic()
        page.on("request", self._start)
        page.on("requestfinished", self._end)
        page.on("requestfailed", self._end)

    def _start(self, request: Request) -> None:
        if request.resource_type not in ENDLESS_TYPES:
            self._started[request] = time.monotonic()
            self.last_change = time.monotonic()

    def _end(self, request: Request) -> None:
        if self._started.pop(request, None) is not None:
            self.last_change = time.monotonic()

    def in_flight(self, long_request: float) -> int:
        """Requests in flight that started less than ``long_request`` seconds ago."""
        now = time.monotonic()
        return sum(1 for started in self._started.values() if now - started < long_request)

    def quiet_for(self, long_request: float) -> float:
        """Seconds since the network last changed, 0 while a (short-lived) request is open.
        A request open longer than ``long_request`` no longer holds the network busy: quiet
        counts from the moment it turned long."""
        now = time.monotonic()
        if self.in_flight(long_request):
            return 0.0
        turned_long = [started + long_request for started in self._started.values()]
        return now - max([self.last_change, *turned_long])


async def wait_until_ready(
    page: Page, network: NetworkWatch, rules: ReadyRules, budget: Budget, load_ms: int
) -> Readiness:
    """Wait until the loaded ``page`` is ready (see the module's docstring), at most
    ``rules.timeout`` seconds and never past the request's navigation deadline."""
    started = time.monotonic()
    if rules.timeout <= 0:
        return Readiness(ReadyState.off, 0, load_ms)
    until = min(started + rules.timeout, budget.navigation)
    state = ReadyState.timeout
    blank_since: float | None = None
    while time.monotonic() < until:
        look = await _probe(page, False, budget)
        if look is _NAVIGATED:  # the page moved on by itself: wait for the new document
            blank_since = None
            continue
        if look is None:  # a document the init script did not reach (an error page)
            state = ReadyState.settled
            break
        if not look["scripted"]:  # nothing on the page can change it after its load
            state = ReadyState.settled
            break
        quiet = min(look["since"] / 1000, network.quiet_for(rules.long_request))
        if quiet < rules.quiet:
            blank_since = None
            await asyncio.sleep(POLL)
            continue
        seen = await _probe(page, True, budget)
        if seen is _NAVIGATED:
            blank_since = None
            continue
        shows = (seen or {}).get("shows") or "content"
        busy = look["timers"] > 0 or network.in_flight(rules.long_request) > 0
        if shows in ("content", "painted"):
            state = ReadyState.settled
            break
        if not busy:
            if shows == "sparse":
                state = ReadyState.settled
                break
            blank_since = blank_since or time.monotonic()
            if time.monotonic() - blank_since >= rules.blank_grace:
                state = ReadyState.blank
                break
        else:
            blank_since = None
        await asyncio.sleep(POLL)
    waited = int((time.monotonic() - started) * 1000)
    if state is ReadyState.timeout:
        log.debug("the page was still changing after %d ms; capturing it as it is", waited)
    return Readiness(state, waited, load_ms)


async def _probe(page: Page, look: bool, budget: Budget) -> dict[str, Any] | None:
    """The init script's answer (with what the page shows when ``look``); None where the
    script is absent; ``_NAVIGATED`` once the page replaced its document by itself (a script
    or meta redirect), after the new document's DOM arrived."""
    try:
        result: dict[str, Any] | None = await page.evaluate(_PROBE, look)
    except PlaywrightError as exc:
        if not any(words in exc.message for words in _NAVIGATING):
            raise
        await page.wait_for_load_state("domcontentloaded", timeout=budget.ms(budget.navigation))
        return _NAVIGATED
    return result


async def wait_for_paint(page: Page, budget: Budget) -> None:
    """Let web fonts load and the images in view arrive (at most PAINT_LIMIT seconds, within
    the budget) so the screenshot shows the page as a reader sees it."""
    limit = min(PAINT_LIMIT, budget.left(budget.waits))
    if limit <= 0:
        return
    with contextlib.suppress(PlaywrightError):
        await page.evaluate(_PAINT, int(limit * 1000))
