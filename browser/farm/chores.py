"""One browser's work in the background on pages the farm is done with: closing a context or
resetting a page for its organization's next capture, after the capture's answer has gone.

At most ``farm.background_pages`` of them run at once; the others wait their turn. The queue
stays bounded: a page given back by a capture keeps the capture's page slot (of ``max_pages``)
until its close or reset is done (:meth:`browser.farm.admission.Hold.keep_until`), so captures
cannot finish faster than their pages are cleared away, and idle pages closed (expired, beyond
the caps, or with a retiring browser) are at most ``farm.warm_pages``. Every piece of work is
bounded by its own timeouts (a close by the context's close timeout, a reset by its own), so a
turn comes within a bounded time; :meth:`Chores.close` ends what is left at shutdown.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

log = logging.getLogger(__name__)

TURN_WAIT = 60.0
"""Most seconds a piece of work waits for its turn; past it (which only a stuck event loop could
cause, each piece being bounded) it runs anyway rather than leave a context open."""

Work = Callable[[], Coroutine[Any, Any, None]]


class Chores:
    """The background closes and resets of one browser, ``limit`` at a time; ``on_change`` is
    called when their number changes (for the gauges)."""

    def __init__(self, limit: int, on_change: Callable[[], None]) -> None:
        self.limit = limit
        self._turns = asyncio.Semaphore(limit)
        self._tasks: set[asyncio.Task[None]] = set()
        self._on_change = on_change
        self.running = 0
        """Pieces of work running now (at most ``limit``)."""
        self.closed = False
        """Whether the browser is closing: work given from then on is left undone (the
        browser's contexts and their lanes go with it)."""

    @property
    def pending(self) -> int:
        """Pieces of work not done yet: running, or waiting for their turn."""
        return len(self._tasks)

    def spawn(self, work: Work, first: Work | None = None) -> asyncio.Task[None] | None:
        """Run ``work()`` in the background once it is its turn (after ``first()``, a wait that
        takes no turn); the task, done when it is (None once closed: the work is not done)."""
        if self.closed:
            return None
        task = asyncio.create_task(self._run(work, first))
        self._tasks.add(task)
        task.add_done_callback(self._done)
        self._on_change()
        return task

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("background work on a page failed: %r", task.exception())
        self._on_change()

    async def _run(self, work: Work, first: Work | None) -> None:
        if first is not None:
            await first()
        try:
            async with asyncio.timeout(TURN_WAIT):
                await self._turns.acquire()
            turn = True
        except TimeoutError:
            log.warning("background work on a page waited %.0f s for its turn", TURN_WAIT)
            turn = False
        self.running += 1
        try:
            await work()
        finally:
            self.running -= 1
            if turn:
                self._turns.release()

    async def close(self) -> None:
        """Cancel the work not done yet and wait for it to end (the browser is closing, and its
        contexts with it); the caller bounds the wait."""
        self.closed = True
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
