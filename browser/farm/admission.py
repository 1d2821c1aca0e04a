"""Admission to the farm's pages: at most ``max_pages`` render at once, one organization holds at
most its share of them (``org_share``), and requests that cannot start at once wait in bounded
queues, each request at most ``queue_timeout``; a request that cannot be admitted gets
:class:`~browser.farm.types.FarmError` ``busy`` with a ``retry_after`` hint.

There are two kinds of queue, each bounded by ``queue_size``:

* an organization's own queue: its requests beyond its share wait there for one of its own
  requests to finish;
* the farm's queue: requests that hold their organization's share and wait for a free page.

A page that a request leaves to be closed or reset in the background (:mod:`browser.farm.chores`)
keeps the request's page slot until that work is done (:meth:`Hold.keep_until`), though the
answer does not wait for it: ``max_pages`` counts the pages being cleared away with those
rendering, so that neither the pages at once nor their memory outgrow the limits. The kept slot
is the farm's, no longer the organization's (:meth:`browser.fair.FairSlots.keep`): an
organization with no capture under way and one request (a newcomer, not a busy organization
between two captures) may start it beside pages being cleared away, up to ``reserved_pages``
beyond ``max_pages`` (pages rendering never pass ``max_pages``). Without it, an organization
capturing one page after another beside busy ones would wait for each of its pages to be reset
before its next capture, which alone it never does.

An organization's surplus therefore never fills the farm's queue: another organization arriving
while every page is busy still queues for the next free page, and a page that frees goes to the
waiting organization holding the fewest pages (then the one waiting longest), and
``reserved_pages`` are kept for organizations holding none, so that busy organizations never
keep a newcomer waiting. A request moves
from its organization's queue to the farm's only when another request of the same organization
leaves (giving up a page, or its own place in the farm's queue), so the farm's queue does not
grow that way.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from browser.fair import FairSlots
from browser.farm.settings import FarmSettings
from browser.farm.types import FarmError, FarmErrorKind

TYPICAL_SECONDS = 2.0
"""A request's expected duration before any has finished (for ``retry_after``)."""
TYPICAL_WEIGHT = 0.2
"""Weight of each successful request's duration in the running typical duration."""
RETRY_AFTER_RANGE = (1, 60)

"""The ``retry_after`` hint (seconds) is kept within these bounds."""


class Hold:
    """What one request holds of the admission; see :meth:`Admission.slot`."""

    def __init__(self) -> None:
        self.kept: set[asyncio.Task[None]] = set()

    def keep_until(self, work: asyncio.Task[None] | None) -> None:
        """Keep the page slot after the request, until ``work`` (on the request's page) is
        done."""
        if work is not None and not work.done():
            self.kept.add(work)


@dataclass
class _Organization:
    """One organization's share of the pages and its requests."""

    share: asyncio.Semaphore
    users: int = 0
    """Its requests holding or waiting for its share."""
    waiting: int = 0
    """Its requests waiting for its share (its own queue)."""


class Admission:
    """The page slots, the organizations' shares and the queues; ``on_change`` is called when the
    queue lengths change (for the gauges). Takes requests once :attr:`open` is set."""

    def __init__(self, settings: FarmSettings, on_change: Callable[[], None]) -> None:
        self.settings = settings
        self.open = False
        """Whether requests are taken (the farm is started and not closing)."""
        self.waiting = 0
        """Requests holding their organization's share and waiting for a page (the farm's
        queue)."""
        self.org_waiting = 0
        """Requests waiting for their organization's share (all organizations' queues)."""
        self.kept = 0
        """Page slots kept after their request for the background work on its page."""
        self.typical_seconds = TYPICAL_SECONDS
        """Running typical duration of a successful request, queueing included."""
        self._pages = FairSlots(
            settings.max_pages, settings.max_pages, settings.reserved_pages, asking=self._users
        )
        self._orgs: dict[str, _Organization] = {}
        self._on_change = on_change

    @property
    def full(self) -> bool:
        """Whether every page slot is held (by a request, or by background work on its page)."""
        return self._pages.in_use >= self._pages.capacity

    @property
    def organizations(self) -> int:
        """Organizations with a request holding or waiting for its share."""
        return len(self._orgs)

    def observe(self, seconds: float) -> None:
        """A request succeeded after ``seconds``: update the typical duration."""
        self.typical_seconds += TYPICAL_WEIGHT * (seconds - self.typical_seconds)

    def busy(self, message: str, waiting: int | None = None, slots: int | None = None) -> FarmError:
        """A ``busy`` error; ``retry_after`` is the typical duration per "row" of the queue
        (``waiting`` requests over ``slots`` slots; the farm's queue by default)."""
        waiting = self.waiting if waiting is None else waiting
        slots = self.settings.max_pages if slots is None else slots
        rows = waiting / slots + 1
        low, high = RETRY_AFTER_RANGE
        retry_after = min(max(math.ceil(self.typical_seconds * rows), low), high)
        return FarmError(FarmErrorKind.busy, message, retry_after=retry_after)

    @asynccontextmanager
    async def slot(self, org: str) -> AsyncIterator[Hold]:
        """Hold one of the ``max_pages`` page slots for ``org``: first its share (waiting in its
        own queue when its share is taken), then a page (waiting in the farm's queue). Raises
        ``busy`` when the queue it would join is full or the wait passes ``queue_timeout``; a
        timeout or a cancellation gives back exactly what was taken. The share is given back
        at the end; the page slot once the work the request kept it for is done too."""
        if not self.open:
            raise self.busy("the browser farm is not running")
        queue_size = self.settings.queue_size
        member = self._orgs.get(org)
        if member is not None and member.share.locked():
            if member.waiting >= queue_size:
                raise self.busy(
                    "this organization's capture queue is full",
                    member.waiting,
                    self.settings.org_slots(),
                )
        elif self.full and self.waiting >= queue_size:
            raise self.busy("the capture queue is full")
        if member is None:
            member = self._orgs[org] = _Organization(asyncio.Semaphore(self.settings.org_slots()))
        member.users += 1
        held_share = held_page = False
        hold = Hold()
        try:
            try:
                async with asyncio.timeout(self.settings.queue_timeout):
                    held_share = await self._take_share(member)
                    held_page = await self._take_page(org)
            except TimeoutError:
                raise self.busy("no browser page became free in time") from None
            yield hold
        finally:
            if held_page:
                self._release_after(org, hold.kept)
            if held_share:
                member.share.release()
            member.users -= 1
            if member.users <= 0:
                del self._orgs[org]

    def _users(self, org: str) -> int:
        """``org``'s requests holding or waiting for its share: one for an organization asking
        for one page, many for one keeping the farm busy."""
        member = self._orgs.get(org)
        return member.users if member is not None else 0

    def _release_after(self, org: str, kept: set[asyncio.Task[None]]) -> None:
        """Give back ``org``'s page slot once the work in ``kept`` is all done."""
        pending = {work for work in kept if not work.done()}
        if not pending:
            self._pages.release(org)
            return
        self.kept += 1
        self._pages.keep(org)  # the farm's now, no longer the organization's

        def done(work: asyncio.Task[None]) -> None:
            pending.discard(work)
            if not pending:
                self.kept -= 1
                self._pages.release_kept()
                self._on_change()

        for work in pending:
            work.add_done_callback(done)
        self._on_change()

    async def _take_share(self, member: _Organization) -> bool:
        """Wait in the organization's queue for its share; True once taken."""
        if not member.share.locked():
            return await member.share.acquire()
        member.waiting += 1
        self.org_waiting += 1
        self._on_change()
        try:
            return await member.share.acquire()
        finally:
            member.waiting -= 1
            self.org_waiting -= 1
            self._on_change()

    async def _take_page(self, org: str) -> bool:
        """Wait in the farm's queue for a page for ``org``; True once taken."""
        if self._pages.free_for(org):
            await self._pages.acquire(org)
            return True
        self.waiting += 1
        self._on_change()
        try:
            await self._pages.acquire(org)
            return True
        finally:
            self.waiting -= 1
            self._on_change()
