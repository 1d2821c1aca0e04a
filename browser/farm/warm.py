"""Warm pages: a page kept open after a capture and lent again, reset to a clean state, to the
next capture of the same organization and shape.

A fresh browser context costs a renderer's start, about a tenth of a second of Chromium's CPU
more than a page that is reused, which costs a navigation to ``about:blank`` and a few protocol
calls. Per-request isolation only matters between customers, so a page (and its context) belongs
to one organization for its whole life and is never lent to another; between two captures it is
reset (:func:`reset`): the blank document, cookies, every origin's storage the context touched
(local and session storage, IndexedDB, cache storage, service workers, file systems),
permissions, geolocation and timezone overrides, extra headers, media emulation. The HTTP cache
is kept for the organization's next captures (a site's cached scripts, styles and images then
load as they do in a browser's next tab) unless ``farm.reset_http_cache`` says to empty it. The
hiding CSS and URL blocking a capture asked for (its init script and interception) stay for the
next capture that asks the same; one that asks otherwise, and any render, has them replaced
before it navigates (:func:`browser.farm.page.prepare`). A page whose context touched more
than MAX_ORIGINS origins is retired instead.

A page is retired after ``farm.page_reuse`` captures or ``farm.page_max_age`` seconds, after a
failed capture, a crash or a reset that fails, and once its organization has left it idle for
``farm.org_idle`` seconds. A page is kept only for an organization that had already captured
within ``farm.org_idle`` (one seen once may never come back, and its reset would be wasted). At
most ``farm.warm_pages_per_org`` idle pages are kept per organization and ``farm.warm_pages`` in
all (the least recently used go first). A page retired for its uses is replaced in the
background (:meth:`WarmPages.give_back`): its context is closed and a fresh one opened for the
organization's next capture, which then takes a ready page instead of waiting for a new one; the
replacement keeps the retired page's slot until it is open and is one of the organization's idle
pages from then on, so the caps above hold as they do for a reset, and it is skipped when they
are reached (or the browser is closing). A capture that finds its organization's pages all being
reset waits for one, unless the organization has fewer than ALTERNATING pages (and
``farm.warm_pages_per_org`` allows them): then it gets a new one, so that captures one after
another alternate between two pages instead of each waiting for the last one's reset. An
organization capturing several at once keeps as many pages as it uses, up to
``farm.warm_pages_per_org``. Requests without an organization never share a page.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import weakref
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from cachetools import TTLCache
from playwright.async_api import BrowserContext, Page, Request
from playwright.async_api import Error as PlaywrightError

from browser.farm.chores import Chores
from browser.farm.loading import LoadGate
from browser.farm.page import PageSession, Prepared
from browser.farm.readiness import http_origin
from browser.farm.settings import FarmSettings
from browser.farm.types import ContextKey

log = logging.getLogger(__name__)

RESET_TIMEOUT = 3.0
"""Most seconds a reset may take; a page slower than that is retired."""
RESET_DEFER = 0.3
"""Most seconds a reset that no capture is waiting for waits for its organization's pages
navigating now (a reset beside a navigation slows it on two cores). Only its own: another
organization's page may wait seconds for a slow server, and a reset held up that long is not
done when the organization's capture after next wants the page."""
DEFER_WHILE_LOADING = 1
"""Most navigations of its organization under way for which a reset may wait (with more, its
pages are busy and its page slot is wanted)."""
RESET_GRACE = 0.02
"""Seconds such a reset first gives the next capture, which follows an answer closely, to start
navigating."""
RESET_WAIT = 1.0
"""Most seconds a capture waits for a page of its organization that is being reset, rather than
opening a new context."""
ALTERNATING = 2
"""Pages an organization gets, rather than wait for a reset, when its captures come one after
another (each then finds the other page reset); beyond them a capture waits for a reset."""
RECENT_ORGS = 10_000
"""Organizations remembered as having captured within org_idle (the oldest are forgotten)."""
MAX_ORIGINS = 256
"""Origins a page may touch and still be reset (each is cleared by one protocol call)."""
STORAGE_TYPES = (
    "local_storage,indexeddb,cache_storage,service_workers,file_systems,websql,"
    "shader_cache,shared_storage,storage_buckets,interest_groups"
)
"""What ``Storage.clearDataForOrigin`` clears for every origin the page touched (local storage
takes the origin's session storage with it; cookies go for the whole context at once)."""


@dataclass(frozen=True)
class WarmRules:
    """How warm pages are kept, from the farm's settings."""

    reuse: int
    max_age: float
    per_org: int
    total: int
    org_idle: float
    clear_cache: bool = False
    """Whether a reset empties the page's HTTP cache too."""

    @classmethod
    def of(cls, settings: FarmSettings) -> WarmRules:
        """The rules ``settings`` declare."""
        return cls(
            reuse=settings.page_reuse,
            max_age=settings.page_max_age,
            per_org=settings.warm_pages_per_org,
            total=settings.warm_pages,
            org_idle=settings.org_idle,
            clear_cache=settings.reset_http_cache,
        )


@dataclass(eq=False)
class WarmPage:
    """A page lent to one capture at a time, for one organization, with what a reset needs."""

    org: str
    key: ContextKey
    context: BrowserContext
    session: PageSession
    created: float = field(default_factory=time.monotonic)
    uses: int = 0
    idle_since: float = 0.0
    prepared: Prepared = field(default_factory=Prepared)
    """The hiding CSS and URL blocking its captures installed, kept while the next capture asks
    the same (a capture or render that asks otherwise replaces them first)."""
    screen_media: bool = False
    """Whether a capture emulated screen media (a PDF's), undone by the reset."""
    timer: asyncio.TimerHandle | None = None
    origins: set[str] = field(default_factory=set)
    """The http(s) origins of every request of the context since the last reset (its page's,
    and a popup's before it was closed)."""
    returning: bool = False
    """Whether its organization had captured within org_idle before this page was lent: only
    then is a page worth a reset (an organization seen once may never come back)."""
    replacement: bool = False
    """Whether it was opened in the background for its organization when another of its pages
    retired for its uses."""

    def __post_init__(self) -> None:
        self.context.on("request", self._seen)

    def _seen(self, request: Request) -> None:
        origin = http_origin(request.url)
        if origin:
            self.origins.add(origin)

    @property
    def page_key(self) -> tuple[str, ContextKey]:
        return self.org, self.key


class WarmPages:
    """One browser's idle warm pages by organization and shape, and those being reset."""

    def __init__(
        self,
        rules: WarmRules,
        discard: Callable[[BrowserContext], Coroutine[Any, Any, None]],
        renew_lane: Callable[[BrowserContext], None],
        chores: Chores,
        on_change: Callable[[], None],
        *,
        open_page: Callable[[ContextKey], Coroutine[Any, Any, Page]] | None = None,
    ) -> None:
        self.rules = rules
        self._open_page = open_page
        """A blank page of a shape in a fresh context (None: retired pages are not replaced)."""
        self._discard = discard
        self._chores = chores
        self._renew_lane = renew_lane
        self._on_change = on_change
        self._idle: dict[tuple[str, ContextKey], list[WarmPage]] = {}
        self._resets: dict[tuple[str, ContextKey], set[asyncio.Task[None]]] = {}
        self._lent: Counter[tuple[str, ContextKey]] = Counter()
        """Pages of each organization and shape out with a capture now."""
        self._recent: TTLCache[str, bool] = TTLCache(RECENT_ORGS, max(rules.org_idle, 1e-3))
        self._gates: weakref.WeakValueDictionary[str, LoadGate] = weakref.WeakValueDictionary()
        """Each organization's :meth:`gate`, while a page of its holds it."""
        self._hurry = asyncio.Event()
        """Set (and replaced) when a capture starts waiting for a reset."""
        self.closed = False
        self.reused = 0
        """Captures that got a warm page."""
        self.replaced = 0
        """Pages opened in the background to replace a page retired for its uses."""

    @property
    def idle_count(self) -> int:
        return sum(len(pages) for pages in self._idle.values())

    def gate(self, org: str) -> LoadGate:
        """The navigations of ``org``'s pages on this browser, which its resets that can wait
        let pass (its pages' sessions hold it: it goes with the last of them)."""
        gate = self._gates.get(org)
        if gate is None:
            gate = self._gates[org] = LoadGate()
        return gate

    def idle_of(self, org: str) -> int:
        """Idle pages of ``org`` (for tests and the status page)."""
        return sum(len(pages) for (owner, _), pages in self._idle.items() if owner == org)

    def reuses(self, org: str) -> bool:
        """Whether pages of ``org`` may be kept (an organization is needed to share one)."""
        return bool(org) and self.rules.reuse > 1 and not self.closed

    def returning(self, org: str) -> bool:
        """Note a capture of ``org``; whether it had captured within org_idle before."""
        if not self.reuses(org):
            return False
        seen = org in self._recent
        self._recent[org] = True
        return seen

    async def take(self, org: str, key: ContextKey) -> WarmPage | None:
        """An idle page of ``org`` and ``key``, waiting briefly for one being reset; None when
        there is none (the caller opens a new context)."""
        if not self.reuses(org):
            return None
        wanted = (org, key)
        loop = asyncio.get_running_loop()
        until = loop.time() + RESET_WAIT
        # Two captures may wait on the same resets: the one that finds the page taken by the
        # other waits on for the next reset rather than opening a context.
        while not self._idle.get(wanted) and self._resets.get(wanted) and loop.time() < until:
            if self._pages_of(wanted) < min(self.rules.per_org, ALTERNATING):
                # Room for another page: the organization gets a second one rather than wait
                # for its page's reset, so that its captures one after another alternate
                # between two pages and none waits for a reset again.
                return None
            self._call_deferred_resets()
            await asyncio.wait(
                set(self._resets[wanted]),
                timeout=until - loop.time(),
                return_when=asyncio.FIRST_COMPLETED,
            )
        pages = self._idle.get(wanted, [])
        while pages:
            page = pages.pop()
            self._cancel_timer(page)
            if self._fit(page):
                page.uses += 1
                self.reused += 1
                self.lend(page)
                self._forget_empty(wanted)
                self._on_change()
                return page
            self._close(page)  # too old, or its renderer went away while it was idle
        self._forget_empty(wanted)
        return None

    def lend(self, page: WarmPage) -> None:
        """``page`` is out with a capture until :meth:`give_back`."""
        self._lent[page.page_key] += 1

    def _pages_of(self, wanted: tuple[str, ContextKey]) -> int:
        """Pages of an organization and shape: idle, being reset and out with a capture."""
        resets = len(self._resets.get(wanted, ()))
        return len(self._idle.get(wanted, [])) + resets + self._lent[wanted]

    def _fit(self, page: WarmPage) -> bool:
        """Whether an idle page may serve again: young enough, its renderer still there."""
        young = time.monotonic() - page.created < self.rules.max_age
        return young and not page.session.crashed and not page.session.page.is_closed()

    def _forget_empty(self, wanted: tuple[str, ContextKey]) -> None:
        """Drop the bookkeeping of a key with nothing left in it."""
        if not self._idle.get(wanted):
            self._idle.pop(wanted, None)
        if not self._resets.get(wanted):
            self._resets.pop(wanted, None)

    def give_back(self, page: WarmPage, healthy: bool) -> asyncio.Task[None] | None:
        """``page`` is done with its capture: reset in the background and kept when it may serve
        again, else closed in the background (the answer waits for neither; a close is bounded
        by the context's close timeout, a reset by RESET_TIMEOUT). The task of that work, done
        once the page is reset or closed (None when the browser is closing)."""
        self._lent[page.page_key] -= 1
        if self._lent[page.page_key] <= 0:
            del self._lent[page.page_key]
        if self.reuses(page.org):
            self._recent[page.org] = True  # org_idle counts from the end of its last capture
        keep = (
            healthy
            and (page.returning or page.uses > 1)
            and self.reuses(page.org)
            and page.uses < self.rules.reuse
            and time.monotonic() - page.created < self.rules.max_age
            and not page.session.crashed
        )
        if not keep:
            if self._replaces(page, healthy):
                return self._ready(page, self._replace)
            return self._close(page)
        return self._ready(page, self._reset_and_keep)

    def _ready(
        self, page: WarmPage, work: Callable[[WarmPage], Coroutine[Any, Any, None]]
    ) -> asyncio.Task[None] | None:
        """Run ``work(page)`` as a chore that readies a page of ``page``'s organization and
        shape (resets it, or replaces it): a capture of theirs that finds none idle waits for
        it (see take). With another
        page of its kind idle, the organization's next capture takes that one: the work can wait
        for the organization's navigations under way (that next capture's), unless its pages
        are busy (its page slot is then wanted) or a capture starts waiting for it."""
        gate = page.session.gate
        defer = bool(self._idle.get(page.page_key)) and gate.loading <= DEFER_WHILE_LOADING
        task = self._chores.spawn(
            functools.partial(work, page),
            functools.partial(self._let_loads_pass, gate) if defer else None,
        )
        if task is not None:
            self._resets.setdefault(page.page_key, set()).add(task)
            task.add_done_callback(lambda done: self._reset_done(page.page_key, done))
        return task

    def _replaces(self, page: WarmPage, healthy: bool) -> bool:
        """Whether ``page``, retired for its uses, gets a replacement: its organization keeps
        pages and has room for one more idle page (its own cap and the farm's, counting the
        pages being readied for it), and the browser opens pages."""
        if self._open_page is None or not healthy or page.session.crashed:
            return False
        if page.uses < self.rules.reuse or not self.reuses(page.org):
            return False
        readying = sum(len(tasks) for (org, _), tasks in self._resets.items() if org == page.org)
        readying_all = sum(len(tasks) for tasks in self._resets.values())
        return (
            self.idle_of(page.org) + readying < self.rules.per_org
            and self.idle_count + readying_all < self.rules.total
        )

    async def _replace(self, retired: WarmPage) -> None:
        """Close ``retired`` and open a fresh page in its place for its organization (its
        context first: the two are never open at once). Opening is bounded by the browser's
        context timeout; a page that cannot be opened is skipped."""
        await self._discard(retired.context)
        if self.closed or self._open_page is None:
            return
        try:
            opened = await self._open_page(retired.key)
        except (PlaywrightError, TimeoutError, OSError) as exc:
            log.info("a retired page's replacement could not be opened: %s", str(exc) or "timeout")
            return
        if self.closed:
            await self._discard(opened.context)
            return
        session = PageSession(opened, retired.session.on_crash, self.gate(retired.org))
        page = WarmPage(
            retired.org, retired.key, opened.context, session, returning=True, replacement=True
        )
        self.replaced += 1
        self._keep(page)

    def _reset_done(self, wanted: tuple[str, ContextKey], task: asyncio.Task[None]) -> None:
        self._resets.get(wanted, set()).discard(task)
        self._forget_empty(wanted)

    async def _let_loads_pass(self, gate: LoadGate) -> None:
        hurry = self._hurry
        await asyncio.sleep(RESET_GRACE)
        if hurry.is_set():
            return
        quiet = asyncio.ensure_future(gate.quiet(RESET_DEFER))
        called = asyncio.ensure_future(hurry.wait())
        try:
            await asyncio.wait((quiet, called), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in (quiet, called):
                waiting.cancel()
            await asyncio.gather(quiet, called, return_exceptions=True)

    def _call_deferred_resets(self) -> None:
        """A capture waits for a reset: the resets waiting for navigations go ahead."""
        self._hurry.set()
        self._hurry = asyncio.Event()

    async def _reset_and_keep(self, page: WarmPage) -> None:
        if self.closed:
            await self._discard(page.context)  # the browser retires: no reset worth doing
            return
        try:
            async with asyncio.timeout(RESET_TIMEOUT):
                clean = await reset(page, clear_cache=self.rules.clear_cache)
        except (PlaywrightError, TimeoutError) as exc:
            log.info("a warm page failed its reset and is retired: %s", str(exc) or "timed out")
            clean = False
        if not clean or self.closed:
            await self._discard(page.context)
            return
        self._renew_lane(page.context)
        self._keep(page)

    def _keep(self, page: WarmPage) -> None:
        """``page`` is ready: idle for its organization's next capture, within the caps."""
        page.idle_since = time.monotonic()
        self._idle.setdefault(page.page_key, []).append(page)
        page.timer = asyncio.get_running_loop().call_later(self.rules.org_idle, self._expire, page)
        self._trim(page.org)
        self._on_change()

    def _trim(self, org: str) -> None:
        """Close the least recently used idle pages beyond the caps."""
        while self.idle_of(org) > self.rules.per_org:
            self._close(self._oldest(lambda owner: owner == org))
        while self.idle_count > self.rules.total:
            self._close(self._oldest(lambda _owner: True))

    def _oldest(self, of: Callable[[str], bool]) -> WarmPage:
        candidates = [page for (org, _), pages in self._idle.items() if of(org) for page in pages]
        oldest = min(candidates, key=lambda page: page.idle_since)
        self._idle[oldest.page_key].remove(oldest)
        self._forget_empty(oldest.page_key)
        return oldest

    def _expire(self, page: WarmPage) -> None:
        """The organization left ``page`` idle for org_idle seconds: close it."""
        pages = self._idle.get(page.page_key, [])
        if page in pages:
            pages.remove(page)
            self._forget_empty(page.page_key)
            page.timer = None
            self._close(page)
            self._on_change()

    def _cancel_timer(self, page: WarmPage) -> None:
        if page.timer is not None:
            page.timer.cancel()
            page.timer = None

    def _close(self, page: WarmPage) -> asyncio.Task[None] | None:
        """Close ``page``'s context in the background."""
        self._cancel_timer(page)
        return self._chores.spawn(functools.partial(self._discard, page.context))

    def close_all(self) -> None:
        """Close every idle page and keep no more (the browser retires or is gone)."""
        self.closed = True
        idle, self._idle = self._idle, {}
        for pages in idle.values():
            for page in pages:
                self._close(page)
        self._on_change()


async def reset(page: WarmPage, *, clear_cache: bool = False) -> bool:
    """Bring ``page`` back to a clean state (see the module's docstring), its HTTP cache emptied
    too with ``clear_cache``; False when it cannot be made clean and must be retired."""
    session = page.session
    browser_page = session.page
    if len(page.origins) > MAX_ORIGINS:
        return False
    # Once the blank document has committed, the page's own is gone (its unload handlers have
    # run, its timers with it); the blank document's load event is not worth waiting for.
    await browser_page.goto("about:blank", wait_until="commit")
    cdp = await session.devtools()
    clear = {"storageTypes": STORAGE_TYPES}
    # All at once: each is a round trip to the driver and the browser, none depends on another.
    await asyncio.gather(
        page.context.clear_cookies(),
        page.context.clear_permissions(),
        browser_page.set_extra_http_headers({}),
        *([browser_page.emulate_media(media="null")] if page.screen_media else []),
        cdp.send("Emulation.clearGeolocationOverride"),
        cdp.send("Emulation.setTimezoneOverride", {"timezoneId": ""}),
        *([cdp.send("Network.clearBrowserCache")] if clear_cache else []),
        *(
            cdp.send("Storage.clearDataForOrigin", {"origin": origin, **clear})
            for origin in page.origins
        ),
    )
    page.screen_media = False
    page.origins.clear()
    session.renew()
    return True
