"""The usage a process counts: each request's credits counted in memory at once, written to the
database in batches, and each organization's credits this month as quotas read them.

A charge is never lost or counted twice: a batch being written still counts here until its write
commits, and goes back into memory if the write fails, for the next flush. A quota read takes
what is counted here before it reads the database, so a charge made before the read is never
missed. Another process's usage is read from the database at most every
``QUOTA_REFRESH_SECONDS`` (or at once, when asked fresh).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import date
from functools import partial

import peewee

from store.db import DATABASE_ERRORS, run_unit
from store.threads import Runner, StoreUnavailable, summary
from store.usage import (
    UsageBuffer,
    UsageCount,
    UsageKey,
    stored_credits_since,
    stored_requests_since,
    utc_today,
    write_usage,
)

QUOTA_REFRESH_SECONDS = 30.0
"""How stale a process's view of another process's usage may get, for monthly quotas."""

log = logging.getLogger(__name__)


class UsageLedger:
    """One process's count of usage, over the store's threads (``runner``) and its database
    (``database``, read at each call)."""

    def __init__(self, runner: Runner, database: Callable[[], peewee.Database]) -> None:
        self._runner = runner
        self._database = database
        self._usage = UsageBuffer()
        # org -> (month, monotonic time of the database read, credits this month)
        self._quota: dict[str, tuple[date, float, int]] = {}
        self._inflight: asyncio.Future[int] | None = None

    def __len__(self) -> int:
        """How many usage rows are counted in memory and not yet written."""
        return len(self._usage)

    def record(self, org: str, endpoint: str, credits: int) -> None:
        """Count one request of ``org`` on ``endpoint`` costing ``credits``, in memory."""
        if credits < 0:
            raise ValueError("credits must not be negative")
        today = utc_today()
        self._usage.add(UsageKey(org, endpoint, today), UsageCount(1, credits))
        entry = self._quota.get(org)
        if entry is not None and entry[0] == today.replace(day=1):
            self._quota[org] = (entry[0], entry[1], entry[2] + credits)

    async def month_credits(self, org: str, *, fresh: bool = False) -> int:
        """Credits ``org`` used this UTC calendar month: stored plus counted here, read from the
        database at most every ``quota_refresh_seconds`` (``fresh``: now) and kept up to date in
        between. What is counted here is taken before the database is read, so a charge made
        before the call is never missed, even while its flush is being written."""
        month = utc_today().replace(day=1)
        entry = self._quota.get(org)
        now = time.monotonic()
        if fresh or entry is None or entry[0] != month or now - entry[1] > QUOTA_REFRESH_SECONDS:
            pending = self._usage.credits_since(org, month)
            work = partial(stored_credits_since, org=org, since=month)
            stored = await self._runner.run(self._database(), work, "quota read")
            entry = (month, now, stored + pending)
            self._quota[org] = entry
        return entry[2]

    async def month_requests(self, org: str, endpoint: str) -> int:
        """Requests ``org`` made on ``endpoint`` this UTC calendar month, stored and counted
        here (read from the database on every call; what is counted here taken first, as
        :meth:`month_credits` does)."""
        month = utc_today().replace(day=1)
        pending = self._usage.requests_since(org, endpoint, month)
        work = partial(stored_requests_since, org=org, endpoint=endpoint, since=month)
        stored = await self._runner.run(self._database(), work, "usage read")
        return int(stored) + pending

    async def flush(self) -> int:
        """Add the usage counted so far to the database in one transaction; return the number
        of rows written. A batch that fails goes back into memory for the next flush.

        A write that outlives ``query_timeout`` keeps running; its rows go back into memory
        only if it then fails, so nothing is counted twice. The next flush waits for it.
        """
        previous = self._inflight
        if previous is not None and not previous.done():
            finished, _ = await asyncio.wait([previous], timeout=self._runner.query_timeout())
            if not finished:
                raise StoreUnavailable("the database did not answer in time")
        batch = self._usage.take()
        if not batch:
            return 0
        try:
            future = self._runner.submit(
                self._database(), partial(write_usage, batch=batch), write=True
            )
        except BaseException:
            self._usage.restore(batch)
            raise
        future.add_done_callback(partial(self._settle_flush, batch))
        self._inflight = future
        return await self._runner.bounded(
            asyncio.shield(future), self._runner.query_timeout(), "flush"
        )

    def flush_sync(self, db: peewee.Database) -> None:
        """Write the usage counted so far in this thread (the CLI's close); a failed write is
        logged and the rows kept (:meth:`report_lost` tells them)."""
        batch = self._usage.take()
        if not batch:
            return
        try:
            run_unit(db, partial(write_usage, batch=batch))
            self._usage.settled(batch)
        except DATABASE_ERRORS as exc:
            self._usage.restore(batch)
            log.warning("usage flush failed: %s", summary(exc))

    def _settle_flush(self, batch: dict[UsageKey, UsageCount], future: asyncio.Future[int]) -> None:
        if future.cancelled() or future.exception() is not None:
            self._usage.restore(batch)
            log.info("kept %d usage row(s) for the next flush", len(batch))
        else:
            self._usage.settled(batch)

    def report_lost(self) -> None:
        """Log the usage that could not be written before shutdown, if any."""
        lost = self._usage.take()
        if lost:
            log.error(
                "%d usage row(s) (%d request(s)) could not be written before shutdown",
                len(lost),
                sum(count.requests for count in lost.values()),
            )
