"""The job runner: background workers in the server process that claim job pages from the store,
have each worked to its outcome (:mod:`services.jobs.pages`: the Markdown service), record the
result and charge it.

Fairness and politeness, per process:

- at most ``workers`` pages at once; each free worker goes to a small job first, then to the
  organization with the fewest pages in flight, and large jobs yield to small ones
  (:mod:`services.jobs.order`); no organization holds more than ``org_workers``;
- job pages convert in a pool of their own, at a lower CPU priority than the single-page
  requests' workers (a small job's pages in the requests' workers, as a request's), and while
  the process serves other requests (``busy``) it works on at most ``busy_workers`` pages,
  started at most every ``busy_interval``;
- at most ``host_concurrency`` fetches per host, starts spaced by the host's delay (the
  setting, or a crawl's robots.txt Crawl-delay);
- a job with a webhook starts no page while its organization's events wait in number
  (``webhooks.pause_pending_per_org``): it goes on as they are delivered or given up.

Durability: every claim is a lease in the database, renewed while the page is worked on; a
result is recorded only by the lease holder. At shutdown the pages in flight get
``shutdown_timeout`` to finish, the rest are given back to the queue. Pages of a process that
died are taken over when their lease expires.

What it does is logged and counted by :mod:`services.jobs.observe`; its leases' renewal, the
metrics' counts and the retention sweep are :mod:`services.jobs.upkeep`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from services.accounts import AccountService
from services.jobs import observe, upkeep
from services.jobs.order import JobOrder
from services.jobs.pages import EventWriter, PageWork
from services.jobs.quota import MonthBounds
from services.jobs.settings import JobSettings
from services.jobs.work import (
    FAILED_PAGES,
    Discovery,
    JobEvents,
    PageErrors,
)
from services.markdown import MarkdownService
from services.metrics import JOB_PAGES_IN_FLIGHT
from store import jobs as job_rows
from store.job_types import Abandoned, ActiveJob, Claim, NewPage, Outcome, Recorded
from store.periodic import repeat
from store.store import Store, StoreUnavailable

log = logging.getLogger(__name__)

ACTIVE_CACHE_SECONDS = 0.5
"""How long the list of active jobs is reused between claims."""
BUSY_BACKOFF_SECONDS = 1.0
"""How long a host is left alone after the conversion workers were found busy."""
COUNT_SECONDS = 15.0
"""How often the database's active jobs and queued pages are counted for the metrics (and at
once when a job is created, started or ended in this process)."""


@dataclass
class _Counts:
    """Pages in flight in this process, by organization, job and host."""

    orgs: collections.Counter[str]
    jobs: collections.Counter[str]
    hosts: collections.Counter[str]


class JobRunner:
    """The background workers of one process; :meth:`start` on the IOLoop, :meth:`close` at
    shutdown (before the store, the fetcher and the pool close)."""

    def __init__(
        self,
        store: Store,
        markdown: Callable[[bool], MarkdownService],
        errors: PageErrors,
        settings: JobSettings,
        *,
        accounts: AccountService,
        discovery: Discovery | None = None,
        events: JobEvents | None = None,
        busy: Callable[[], bool] | None = None,
    ) -> None:
        self.store = store
        self.pages = PageWork(markdown, errors, accounts, discovery)
        self.settings = settings
        self.accounts = accounts
        self.discovery = discovery
        self.events = events
        self.busy = busy
        self.owner = f"{socket.gethostname()[:32]}-{os.getpid()}-{secrets.token_hex(4)}"
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._counts = _Counts(collections.Counter(), collections.Counter(), collections.Counter())
        self._host_next: dict[str, float] = {}
        self._order = JobOrder(settings)
        self._active: tuple[float, list[ActiveJob]] = (0.0, [])
        self.bounds = MonthBounds(store, accounts, settings, events, self._stopped)
        self._wake = asyncio.Event()
        self._recount = asyncio.Event()
        self._background: list[asyncio.Task[None]] = []
        self._stopping = False
        self._last_start = 0.0
        self.fetched = 0
        """Pages this process worked to an end (recorded), for tests and logs."""

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the workers (none when ``workers`` is 0), lease renewal and the sweep."""
        loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._recount = asyncio.Event()
        lease = self.settings.lease_seconds
        if self.settings.workers > 0:
            renew = partial(upkeep.renew, self.store, self.owner, self._tasks.keys(), lease)
            self._background = [
                loop.create_task(self._claim_loop()),
                loop.create_task(repeat(lease / 3, renew, "lease renewal")),
            ]
        sweep = partial(upkeep.sweep, self.store)
        count = partial(upkeep.count, self.store)
        self._background += [
            loop.create_task(repeat(self.settings.sweep_interval, sweep, "job sweep")),
            loop.create_task(repeat(COUNT_SECONDS, count, "job counts", wake=self._recount)),
        ]

    def wake(self) -> None:
        """Look for work now (a job was just created here)."""
        self._active = (0.0, [])
        self._wake.set()
        self._recount.set()

    async def close(self, grace: float | None = None) -> None:
        """Stop claiming; give the pages in flight ``grace`` seconds (``shutdown_timeout``) to
        finish, then give the rest back to the queue."""
        self._stopping = True
        self._wake.set()
        for task in self._background:
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        self._background = []
        pending = list(self._tasks.values())
        if pending:
            seconds = self.settings.shutdown_timeout if grace is None else grace
            log.info("jobs: %d page(s) in flight at shutdown", len(pending))
            _, late = await asyncio.wait(pending, timeout=seconds)
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late, timeout=5)

    # -- claiming ----------------------------------------------------------------------------

    async def _claim_loop(self) -> None:
        while not self._stopping:
            self._wake.clear()
            claimed = None
            pause = self._pause()
            if pause > 0:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(pause):
                        await self._wake.wait()
                continue
            if len(self._tasks) < self._workers() + self.settings.small_job_workers:
                try:
                    claimed = await self._claim_next(full=len(self._tasks) >= self._workers())
                except StoreUnavailable:
                    claimed = None
                except Exception:
                    log.exception("jobs: claiming failed unexpectedly")
            if claimed is not None:
                claim, job = claimed
                self._last_start = time.monotonic()
                self._begin(claim, job)
                continue
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._idle_seconds()):
                    await self._wake.wait()

    def _workers(self) -> int:
        """Pages to work on at once now: fewer while the process serves other requests."""
        if self.busy is not None and self.busy():
            return min(self.settings.busy_workers, self.settings.workers)
        return self.settings.workers

    def _pause(self) -> float:
        """Seconds before the next page may start: while the process serves other requests,
        pages start at most every ``busy_interval``."""
        if self.busy is None or not self.busy():
            return 0.0
        return self._last_start + self.settings.busy_interval - time.monotonic()

    def _idle_seconds(self) -> float:
        """Until the next poll, or sooner when a host's delay or a large job's wait ends."""
        now = time.monotonic()
        ends = [*self._host_next.values(), self._order.held_until]
        soonest = min((at - now for at in ends if at > now), default=None)
        wait = self.settings.poll_interval
        return max(min(wait, soonest), 0.01) if soonest is not None else wait

    async def _active_jobs(self) -> list[ActiveJob]:
        read_at, active = self._active
        if time.monotonic() - read_at > ACTIVE_CACHE_SECONDS:
            active = await self.store.run(job_rows.active_jobs, "active jobs")
            self._active = (time.monotonic(), active)
        return active

    async def _claim_next(self, full: bool = False) -> tuple[Claim, ActiveJob] | None:
        """A page of the first job in :class:`~services.jobs.order.JobOrder`'s order (those
        that may start one now; with every worker ``full``, small jobs only), among jobs within
        their quota; None when no job has a page this process may take now."""
        counts = self._counts
        active = await self._waiting_on_receivers(await self._active_jobs())
        now = time.monotonic()
        order = self._order.order(active, counts.orgs, counts.jobs, now, full)
        busy = [host for host, n in counts.hosts.items() if n >= self.settings.host_concurrency]
        busy += [host for host, at in self._host_next.items() if at > now]
        for job in order:
            if counts.orgs[job.org] >= self.settings.org_workers:
                continue
            if not await self.bounds.allow(job, counts.orgs[job.org]):
                continue
            writer = self._writer(job)
            work = partial(
                job_rows.claim_page,
                job_id=job.id,
                owner=self.owner,
                lease_seconds=self.settings.lease_seconds,
                skip_hosts=sorted(set(busy)),
                max_attempts=self.settings.max_attempts,
                then=None if writer is None else writer.write,
            )
            claim = await self.store.run(work, "job claim", write=True)
            if isinstance(claim, Abandoned):
                self._abandoned(job, claim, writer)
                continue
            if claim is not None:
                self._order.started(job, now)
                if claim.started:
                    observe.started(job, claim)
                    self._recount.set()
                if claim.took_over:
                    observe.took_over(job, claim)
                return claim, job
        return None

    async def _waiting_on_receivers(self, active: list[ActiveJob]) -> list[ActiveJob]:
        """``active`` but for the jobs with a webhook of organizations whose events wait in
        such number that their jobs pause (``webhooks.pause_pending_per_org``): they go on as
        their events are delivered or given up."""
        if self.events is None or not any(job.webhook_url for job in active):
            return active
        behind = await self.events.behind()
        if not behind:
            return active
        return [job for job in active if not (job.webhook_url and job.org in behind)]

    def _stopped(self) -> None:
        """A job was stopped for its plan's bounds: the active jobs and the counts read again."""
        self._active = (0.0, [])
        self._recount.set()

    def _writer(self, job: ActiveJob) -> EventWriter | None:
        """What stores the events of ``job``'s pages; None when it has no webhook."""
        if self.events is None or not job.webhook_url:
            return None
        return EventWriter(self.events, job, self.settings.event_result_bytes)

    def _abandoned(self, job: ActiveJob, page: Abandoned, writer: EventWriter | None) -> None:
        """A page of ``job`` failed as abandoned when it was to be claimed: told as a failed
        page (its events stored with it), and the job's end if it was the last."""
        observe.abandoned(job, page.page_id, page.url)
        self._counted(job, page.url, page.outcome, page.recorded, writer)
        self._wake.set()

    # -- working on a page -------------------------------------------------------------------

    def _begin(self, claim: Claim, job: ActiveJob) -> None:
        counts = self._counts
        counts.orgs[job.org] += 1
        counts.jobs[job.id] += 1
        counts.hosts[claim.host] += 1
        task = asyncio.get_running_loop().create_task(self._work(claim, job))
        self._tasks[claim.id] = task
        JOB_PAGES_IN_FLIGHT.inc()

    async def _work(self, claim: Claim, job: ActiveJob) -> None:
        try:
            await self._space(job, claim.host)
            outcome, links = await self.pages.outcome(claim, job, self._order.small(job))
            if outcome is None:  # busy: back to the queue, the host left alone for a while
                self._host_next[claim.host] = time.monotonic() + BUSY_BACKOFF_SECONDS
                await self._release(claim)
                return
            await self._record(claim, job, outcome, links)
        except asyncio.CancelledError:
            await asyncio.shield(self._release(claim))
            raise
        except StoreUnavailable:
            log.warning("jobs: page %d of %s not recorded: the database is away", claim.id, job.id)
        except Exception:
            log.exception("jobs: page %d of %s failed unexpectedly", claim.id, job.id)
            await self._release(claim)
        finally:
            if self._tasks.pop(claim.id, None) is not None:
                JOB_PAGES_IN_FLIGHT.dec()
            counts = self._counts
            for counter, name in (
                (counts.orgs, job.org),
                (counts.jobs, job.id),
                (counts.hosts, claim.host),
            ):
                counter[name] -= 1
                if counter[name] <= 0:
                    del counter[name]
            self._wake.set()

    async def _space(self, job: ActiveJob, host: str) -> None:
        """Mark the host's next start after this fetch's delay."""
        delay = self.settings.host_delay
        if self.discovery is not None and job.kind == "crawl":
            delay = max(
                delay, min(await self.discovery.delay(job, host), self.settings.max_crawl_delay)
            )
        if delay > 0:
            now = time.monotonic()
            start = max(now, self._host_next.get(host, 0.0))
            self._host_next[host] = start + delay
            if start > now:
                await asyncio.sleep(start - now)

    async def _record(
        self, claim: Claim, job: ActiveJob, outcome: Outcome, links: list[NewPage]
    ) -> None:
        writer = self._writer(job)
        work = partial(
            job_rows.record_page,
            job_id=claim.job_id,
            page_id=claim.id,
            owner=self.owner,
            outcome=outcome,
            links=links,
            max_pages=int(job.options.get("max_pages", 0)),
            retention_seconds=self.settings.retention_seconds,
            then=None if writer is None else writer.page(outcome),
        )
        recorded: Recorded | None = await self.store.run(work, "job result", write=True)
        if recorded is None:
            log.warning("jobs: page %d of %s was taken over; result dropped", claim.id, job.id)
            return
        self.fetched += 1
        if recorded.queued:
            self._wake.set()
        self._counted(job, claim.url, outcome, recorded, writer)

    def _counted(
        self,
        job: ActiveJob,
        url: str,
        outcome: Outcome,
        recorded: Recorded,
        writer: EventWriter | None,
    ) -> None:
        """After the commit that recorded a page of ``job`` (worked here, or abandoned): the
        page charged under the job's kind (free when it failed) and its failure counted against
        the plan, its events' sender woken (told those the organization's bound left out), the
        job's end told."""
        observe.page_ended(job, url, outcome)
        self.accounts.charge(job.org, job.kind, outcome.credits if outcome.ok else 0)
        if not outcome.ok:
            self.accounts.charge(job.org, FAILED_PAGES, 0)
            self.bounds.failed(job.org)
        if writer is not None:
            writer.events.wake(writer.dropped)
        if recorded.end is not None:
            observe.ended(job.id, job.kind, job.org, recorded.end)
            self._active = (0.0, [])
            self._recount.set()

    async def _release(self, claim: Claim) -> None:
        work = partial(job_rows.release_page, page_id=claim.id, owner=self.owner)
        # When the database is away the lease expires; another process or the next start
        # takes the page.
        with contextlib.suppress(StoreUnavailable):
            await self.store.run(work, "job release", write=True)
