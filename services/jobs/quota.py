"""A job's monthly bounds as the runner checks them before claiming its pages: its
organization's credits and failed job pages this month, against its plan's; a job past them is
stopped (``quota_exceeded`` or ``failure_limit``), its end event stored with the stop."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import partial

from services.accounts import AccountService
from services.jobs import observe
from services.jobs.settings import JobSettings
from services.jobs.work import FAILED_PAGES, JobEvents, end_writer
from store import job_stops
from store.job_types import ActiveJob
from store.store import Store

log = logging.getLogger(__name__)

READ_SECONDS = 0.5
"""How long an organization's failed job pages and month's credits, read from the store, are
reused (what this process records meanwhile is counted at once)."""


class MonthBounds:
    """The monthly bounds of jobs' organizations; ``stopped`` is called when a job was stopped
    for them."""

    def __init__(
        self,
        store: Store,
        accounts: AccountService,
        settings: JobSettings,
        events: JobEvents | None,
        stopped: Callable[[], None],
    ) -> None:
        self.store = store
        self.accounts = accounts
        self.settings = settings
        self.events = events
        self.stopped = stopped
        self._failures: dict[str, tuple[float, int]] = {}
        """Each organization's failed job pages this month, and when they were read."""
        self._credits_read: dict[str, float] = {}
        """When each organization's credits this month were last read from the store."""

    def failed(self, org: str) -> None:
        """A page of ``org`` failed here: counted at once, before the store is read again."""
        read_at, count = self._failures.get(org, (0.0, 0))
        self._failures[org] = (read_at, count + 1)

    async def allow(self, job: ActiveJob, in_flight: int) -> bool:
        """False (and the job stopped as quota_exceeded, or failure_limit) once its organization
        used its plan's monthly credits, or the failed job pages the plan allows a month
        (``in_flight``: the organization's pages being worked on here, each at least a
        credit)."""
        allowance = self.accounts.monthly_failed_pages(job.plan)
        if allowance > 0 and await self.failed_pages(job.org) >= allowance:
            if await self.stop(job, "failure_limit"):
                log.info(
                    "jobs: %s stopped, %s had %d failed pages this month",
                    job.id,
                    job.org,
                    allowance,
                )
            return False
        quota = self.accounts.monthly_credits(job.plan)
        if quota <= 0:
            return True
        used = await self.credits(job.org)
        if used + in_flight < quota:
            return True
        if in_flight:
            return False  # wait for them: they may fail and cost nothing
        if await self.stop(job, "quota_exceeded"):
            log.info("jobs: %s stopped, %s used its %d monthly credits", job.id, job.org, quota)
        return False

    async def credits(self, org: str) -> int:
        """The credits ``org`` used this month, read from the store at most every
        :data:`READ_SECONDS` (not the store's longer-lived quota cache: other processes'
        charges count once they are stored), those this process charged meanwhile counted at
        once."""
        now = time.monotonic()
        fresh = now - self._credits_read.get(org, -READ_SECONDS) >= READ_SECONDS
        if fresh:
            self._credits_read = {
                name: at for name, at in self._credits_read.items() if now - at < READ_SECONDS
            }
            self._credits_read[org] = now
        return await self.store.month_credits(org, fresh=fresh)

    async def failed_pages(self, org: str) -> int:
        """The failed job pages of ``org`` this month, read from the store at most every
        :data:`READ_SECONDS` (those this process records meanwhile counted at once)."""
        read_at, count = self._failures.get(org, (0.0, 0))
        if time.monotonic() - read_at > READ_SECONDS:
            count = await self.store.month_requests(org, FAILED_PAGES)
            self._failures[org] = (time.monotonic(), count)
        return count

    async def stop(self, job: ActiveJob, status: str) -> bool:
        """End ``job`` as ``status`` (its queued pages skipped, its end event stored with the
        stop); False when it had ended already."""
        stop = partial(
            job_stops.stop_job,
            job_id=job.id,
            status=status,
            reason=status,
            retention_seconds=self.settings.retention_seconds,
            then=end_writer(self.events, job, status),
        )
        end = await self.store.run(stop, "job stop", write=True)
        if end is not None:
            observe.ended(job.id, job.kind, job.org, end)
            if self.events is not None and job.webhook_url:
                self.events.wake()
        self.stopped()
        return end is not None
