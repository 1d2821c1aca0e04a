"""Waiting until a loaded page is ready: nothing under way, the DOM settled, and a page that
shows nothing yet given the time its pending work needs.

The ``load`` event says that a document and its first resources arrived, not that a script-built
page has built itself: a single-page app fetches its data, a news site hydrates, a product page
fills in its price, after ``load``. After navigation every render waits (within the request's
budget and ``farm.ready_timeout``) until the page is calm: its ``load`` handlers have run, no
``fetch()`` or ``XMLHttpRequest`` of the page and no request of the browser is in flight, no
timer is due within ``farm.ready_quiet``, and the DOM has not changed since ``load`` (a page that
was done at its load is ready at once) or for ``farm.ready_quiet`` seconds, the network being as
quiet. Requests of the kinds that never end (event streams, WebSockets, media) and requests open
longer than ``farm.ready_long_request`` (long polling) are not waited for. A page without any
script is ready at its load.

A page that shows nothing yet (blank) or hardly anything (a "Loading..." line) is waited for
longer: while one of its short one-shot timers is pending (a render scheduled 300 ms after
``load``) or one of its calls is in flight, and a blank page for ``farm.ready_blank_grace`` of
complete quiet before it is taken as blank. A page that already shows its content is not held
for its longer timers: analytics and carousels keep timers pending on most pages.

The page-side half (``readiness.js``) is an init script installed before the page's own scripts;
the farm asks it once a poll. A hostile page can only make the wait last until its bound. Before
a screenshot, :func:`wait_for_paint` lets web fonts and the images in view finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Request
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from browser.farm.navigation import Budget
from browser.farm.types import Readiness, ReadyRules, ReadyState

log = logging.getLogger(__name__)

POLL = 0.05
"""Seconds between two looks at the page while waiting."""
TIMER_CHAIN = 3
"""Links of a timer chain (a timer set by a timer's callback...) that are still waited for;
longer chains are polling or animation loops."""
TIMER_OVERDUE = 1.0
"""Seconds past its due time after which a pending timer is forgotten (its id was cleared in a
way the page side did not see, or the page is too busy to run it)."""
SPARSE_CHARS = 64
"""Characters of visible text below which a page counts as hardly showing anything (a spinner's
"Loading..."), so that its pending timers are waited for."""
BLANK_SCAN = 3000
"""Most elements looked at to tell whether a page without text paints anything."""
PAINT_LIMIT = 2.0
"""Most seconds to wait for web fonts and the images in view before a screenshot."""
PAINT_SLACK = 0.5
"""Seconds a look that also waits for the paint must have to spare within the readiness wait's
bound (for the look itself and the round trip)."""
ENDLESS_TYPES = frozenset({"eventsource", "websocket", "media"})
"""Playwright resource types of requests that may stay open for the page's life."""
_NAVIGATED: dict[str, Any] = {}
"""What :func:`_probe` answers when the page replaced its document while being looked at."""
_BUSY: dict[str, Any] = {}
"""What :func:`_probe` answers when the page's main thread did not answer within the bound."""
_NAVIGATING = ("Execution context was destroyed", "Cannot find context with specified id")
"""Playwright's words for an evaluation cut short by the page loading another document."""
PROBE_NAME = "__pagecastReadiness"
"""The (non-enumerable) window property through which the init script answers."""


_INIT_SCRIPT = (Path(__file__).parent / "readiness.js").read_text(encoding="utf-8")
"""The page-side half (see the file), with ``/*CONFIG*/ null`` to be replaced by its settings."""

_PROBE = f"() => window.{PROBE_NAME} ? window.{PROBE_NAME}() : null"

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
  let timer;
  await Promise.race([
    Promise.all([fonts, ...loaded]),
    new Promise((resolve) => { timer = setTimeout(resolve, limitMs); }),
  ]);
  clearTimeout(timer);  // not left pending: the readiness script counts the page's timers
}
"""


_PROBE_AND_PAINT = f"""
async (limitMs) => {{
  const look = window.{PROBE_NAME} ? window.{PROBE_NAME}() : null;
  const quiet = look && look.timers === 0 && look.calls === 0;
  const shows = look && (look.shows || 'content');
  if (look === null || !look.scripted || (look.calm && (shows === 'content'
      || shows === 'painted' || (shows === 'sparse' && quiet)))) {{
    const started = performance.now();
    await ({_PAINT.strip()})(limitMs);
    return {{ look, painted: true, spent: performance.now() - started }};
  }}
  return {{ look, painted: false, spent: 0 }};
}}
"""
"""The init script's answer and, when it reads as ready (the network aside, which the farm
watches), the paint wait, in one evaluation."""


def init_script(rules: ReadyRules) -> str:
    """The page-side half, with ``rules`` filled in."""
    config = {
        "key": PROBE_NAME,
        "horizon": int(rules.timer_horizon * 1000),
        "quiet": int(rules.quiet * 1000),
        "long": int(rules.long_request * 1000),
        "chain": TIMER_CHAIN,
        "overdue": int(TIMER_OVERDUE * 1000),
        "sparse": SPARSE_CHARS,
        "scan": BLANK_SCAN,
    }
    return _INIT_SCRIPT.replace("/*CONFIG*/ null", json.dumps(config))


DEFAULT_PORTS = {"http": 80, "https": 443}


def http_origin(url: str) -> str:
    """The origin of an http(s) URL as browsers write it (``scheme://host[:port]``, the host in
    lower case, no default port, no credentials); "" for any other URL."""
    parts = urlsplit(url)
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        return ""
    if parts.scheme not in DEFAULT_PORTS or not host:
        return ""
    host = f"[{host}]" if ":" in host else host
    shown = "" if port in (None, DEFAULT_PORTS[parts.scheme]) else f":{port}"
    return f"{parts.scheme}://{host}{shown}"


class NetworkWatch:
    """The page's requests in flight, each with when it started; requests that may stay open
    for the page's life (streams, WebSockets, media) are not counted."""

    def __init__(self, page: Page) -> None:
        self._started: dict[Request, float] = {}
        self.last_change = time.monotonic()
        page.on("request", self._start)
        page.on("requestfinished", self._end)
        page.on("requestfailed", self._end)

    def renew(self) -> None:
        """Forget every request: the page starts over (a warm page after its reset)."""
        self._started.clear()
        self.last_change = time.monotonic()

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
    page: Page,
    network: NetworkWatch,
    rules: ReadyRules,
    budget: Budget,
    load_ms: int,
    *,
    paint: bool = False,
) -> Readiness:
    """Wait until the loaded ``page`` is ready (see the module's docstring), at most
    ``rules.timeout`` seconds and never past the request's navigation deadline; with ``paint``,
    then for its fonts and images in view (:func:`wait_for_paint`), in the same look at the page
    when it shows its content by then (one round trip fewer)."""
    started = time.monotonic()
    if rules.timeout <= 0:
        return Readiness(ReadyState.off, 0, load_ms)
    until = min(started + rules.timeout, budget.navigation)
    state = ReadyState.timeout
    blank_since: float | None = None
    painted = False
    painting = 0.0  # seconds the looks spent on the paint: not counted as waiting to be ready
    while time.monotonic() < until:
        paint_ms = (
            _paint_ms(budget, until) if paint and not network.in_flight(rules.long_request) else 0
        )
        look, painted, spent = await _probe(page, until, paint_ms)
        painting += spent
        if look is _NAVIGATED or look is _BUSY:  # a new document, or a page too busy to say
            blank_since = None
            continue
        if look is None or not look["scripted"]:
            # No script can change the page after its load (or the init script did not reach
            # the document: an error page).
            state = ReadyState.settled
            break
        if _calm(look, network, rules):
            shows = look["shows"] or "content"
            busy = look["timers"] > 0 or look["calls"] > 0
            if shows in ("content", "painted") or (shows == "sparse" and not busy):
                state = ReadyState.settled
                break
            if shows == "blank" and not busy:
                blank_since = blank_since or time.monotonic()
                if time.monotonic() - blank_since >= rules.blank_grace:
                    state = ReadyState.blank
                    break
            elif busy:
                blank_since = None
        else:
            blank_since = None
        await asyncio.sleep(POLL)
    waited = int((time.monotonic() - started - painting) * 1000)
    if state is ReadyState.timeout:
        log.debug("the page was still changing after %d ms; capturing it as it is", waited)
    if paint and not (painted and state is ReadyState.settled):
        await wait_for_paint(page, budget)
    return Readiness(state, waited, load_ms)


def _paint_ms(budget: Budget, until: float) -> int:
    """How long a look may wait for the paint: what :func:`wait_for_paint` would wait at most
    (PAINT_LIMIT, within the request's waits), when that fits in the wait's bound with
    PAINT_SLACK to spare; else 0, and the paint is waited for after the readiness wait."""
    limit = min(PAINT_LIMIT, budget.left(budget.waits))
    if limit <= 0 or until - time.monotonic() < limit + PAINT_SLACK:
        return 0
    return int(limit * 1000)


def _calm(look: dict[str, Any], network: NetworkWatch, rules: ReadyRules) -> bool:
    """Whether nothing is under way: the page calm by its own account (loaded, no call in
    flight, no timer due within the quiet window, no DOM change since its load or for the quiet
    window) and no request in flight, the network quiet too unless nothing changed since the
    load."""
    if not look["calm"] or network.in_flight(rules.long_request):
        return False
    return bool(look["unchanged"]) or network.quiet_for(rules.long_request) >= rules.quiet


async def _probe(
    page: Page, until: float, paint_ms: int = 0
) -> tuple[dict[str, Any] | None, bool, float]:
    """The init script's answer, asked within the wait's bound: None where the script is absent;
    ``_BUSY`` when the page did not answer in time; ``_NAVIGATED`` once the page replaced its
    document by itself (a script or meta redirect), after the new document's DOM arrived (or the
    bound). With ``paint_ms``, a page that shows its content is given that long for its paint
    (:data:`_PAINT`) in the same look; and whether it was, and the seconds that took."""
    left = max(until - time.monotonic(), POLL)
    try:
        async with asyncio.timeout(left):
            if paint_ms <= 0:
                return await page.evaluate(_PROBE), False, 0.0
            answer: dict[str, Any] = await page.evaluate(_PROBE_AND_PAINT, paint_ms)
            return answer["look"], bool(answer["painted"]), float(answer["spent"]) / 1000
    except TimeoutError:
        return _BUSY, False, 0.0
    except PlaywrightError as exc:
        if not any(words in exc.message for words in _NAVIGATING):
            raise
        with contextlib.suppress(PlaywrightTimeoutError):
            await page.wait_for_load_state("domcontentloaded", timeout=left * 1000)
        return _NAVIGATED, False, 0.0


async def wait_for_paint(page: Page, budget: Budget) -> None:
    """Let web fonts load and the images in view arrive (at most PAINT_LIMIT seconds, within
    the budget) so the screenshot shows the page as a reader sees it."""
    limit = min(PAINT_LIMIT, budget.left(budget.waits))
    if limit <= 0:
        return
    with contextlib.suppress(PlaywrightError):
        await page.evaluate(_PAINT, int(limit * 1000))
