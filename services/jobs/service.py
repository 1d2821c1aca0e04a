"""The jobs use case the endpoints call: submit a batch or a crawl, read a job's progress and
results, cancel it. The pages themselves are worked on by :mod:`services.jobs.runner`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from services.jobs.settings import JobSettings
from services.jobs.work import Notify, ended_event
from store import job_views
from store import jobs as job_rows
from store.job_views import JobView, PageView
from store.jobs import NewPage
from store.store import Store


@dataclass(frozen=True)
class Submitted:
    """A job accepted: its id and how many pages it queued."""

    id: str
    queued: int


class JobService:
    """Jobs over the store; ``wake`` tells this process's runner that work arrived."""

    def __init__(
        self,
        store: Store,
        settings: JobSettings,
        wake: Callable[[], None],
        *,
        notify: Notify | None = None,
        webhook_check: Callable[[str], Awaitable[str | None]] | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.wake = wake
        self.notify = notify
        self.webhook_check = webhook_check

    async def webhook_refusal(self, url: str) -> str | None:
        """Why ``url`` may not be a job's webhook (the SSRF guard's rules), or None."""
        return await self.webhook_check(url) if self.webhook_check is not None else None

    async def submit(
        self,
        *,
        org_id: int,
        plan: str,
        kind: str,
        options: dict[str, Any],
        pages: Sequence[NewPage],
        webhook_url: str | None = None,
        webhook_secret: str | None = None,
    ) -> Submitted:
        """Store the job with its first pages and wake the runner."""
        job_id = job_rows.new_job_id()
        work = partial(
            job_rows.create_job,
            job_id=job_id,
            org_id=org_id,
            plan=plan,
            kind=kind,
            options=options,
            pages=pages,
            webhook_url=webhook_url,
            webhook_secret=webhook_secret,
        )
        queued = await self.store.run(work, "job creation", write=True)
        self.wake()
        return Submitted(job_id, queued)

    async def view(self, org_id: int, job_id: str) -> JobView | None:
        """The job with its progress; None when ``org_id`` has no such job."""
        return await self.store.run(
            partial(job_views.job_view, job_id=job_id, org_id=org_id), "job read"
        )

    async def results(self, job_id: str, after: int, limit: int) -> list[PageView]:
        """Finished pages numbered after ``after``, at most ``limit``."""
        work = partial(job_views.job_results, job_id=job_id, after=after, limit=limit)
        return await self.store.run(work, "job results")

    async def cancel(self, org_id: int, job_id: str) -> bool:
        """Cancel an active job of ``org_id``: its queued pages are skipped, its webhook told;
        False when it is not active (or not there)."""
        active = await self.store.run(job_rows.active_jobs, "active jobs")
        job = next((item for item in active if item.id == job_id), None)
        work = partial(
            job_rows.stop_job,
            job_id=job_id,
            status="cancelled",
            reason="cancelled",
            org_id=org_id,
            retention_seconds=self.settings.retention_seconds,
        )
        cancelled = bool(await self.store.run(work, "job cancel", write=True))
        self.wake()
        if cancelled and job is not None and self.notify is not None:
            self.notify(job, ended_event(job_id, "cancelled"))
        return cancelled
