"""Reading jobs: a job's progress and its results in finishing order for its owner, page
counts, what an organization's active jobs hold, and the deletion of ended jobs (the retention
sweep, and room made for a new job); their other writes are :mod:`store.jobs`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import peewee

from store.db import is_sqlite, write_transaction
from store.job_types import JOB_ACTIVE, JOB_ENDED, QUEUED, RUNNING, SKIPPED, OrgLoad
from store.models import Job, JobPage, WebhookEvent, as_utc, utc_now

_SWEEP_BATCH = 500


@dataclass(frozen=True)
class JobView:
    """A job as its owner sees it."""

    id: str
    kind: str
    status: str
    stop_reason: str | None
    pages_total: int
    pages_done: int
    pages_failed: int
    pages_running: int
    pages_skipped: int
    credits: int
    created_at: datetime
    finished_at: datetime | None
    expires_at: datetime | None
    webhook_url: str | None
    webhook: WebhookOutcomes | None = None
    """What became of its webhook's events, when it has one."""


@dataclass(frozen=True)
class WebhookOutcomes:
    """A job's webhook events: delivered, given up or dropped, waiting, and the last failure."""

    delivered: int
    failed: int
    pending: int
    last_error: str | None
    last_error_at: datetime | None


@dataclass(frozen=True)
class PageView:
    """One finished page of a job; ``result_json`` is its answer (or error) as stored: a JSON
    object, answered as it is without being decoded."""

    seq: int
    url: str
    depth: int
    status: str
    credits: int
    result_json: str

    @property
    def result(self) -> dict[str, Any]:
        """The stored answer, decoded."""
        decoded: dict[str, Any] = json.loads(self.result_json)
        return decoded


def job_view(db: peewee.Database, *, job_id: str, org_id: int) -> JobView | None:
    """The job ``job_id`` of ``org_id`` with its progress; None when there is no such job."""
    job = Job.select().where((Job.id == job_id) & (Job.org == org_id)).first(db)
    if job is None:
        return None
    counts = dict(
        JobPage.select(JobPage.status, peewee.fn.COUNT(JobPage.id))
        .where((JobPage.job == job_id) & JobPage.status.in_((RUNNING, SKIPPED)))
        .group_by(JobPage.status)
        .tuples()
        .execute(db)
    )
    return JobView(
        id=job.id,
        kind=job.kind,
        status=job.status,
        stop_reason=job.stop_reason,
        pages_total=job.pages_total,
        pages_done=job.pages_done,
        pages_failed=job.pages_failed,
        pages_running=counts.get(RUNNING, 0),
        pages_skipped=counts.get(SKIPPED, 0),
        credits=job.credits,
        created_at=as_utc(job.created_at),
        finished_at=as_utc(job.finished_at) if job.finished_at else None,
        expires_at=as_utc(job.expires_at) if job.expires_at else None,
        webhook_url=job.webhook_url,
        webhook=_webhook_outcomes(db, job) if job.webhook_url else None,
    )


def _webhook_outcomes(db: peewee.Database, job: Job) -> WebhookOutcomes:
    pending = WebhookEvent.select().where(WebhookEvent.job_id == job.id).count(db)
    return WebhookOutcomes(
        delivered=job.webhook_delivered,
        failed=job.webhook_failed,
        pending=int(pending),
        last_error=job.webhook_error,
        last_error_at=as_utc(job.webhook_error_at) if job.webhook_error_at else None,
    )


def result_sizes(
    db: peewee.Database, *, job_id: str, after: int, limit: int
) -> list[tuple[int, int]]:
    """The numbers of the job's finished pages after ``after`` (at most ``limit``, in finishing
    order) with the bytes of each stored result, without reading the results: as stored beside
    each, or measured for a result stored before its size was (SQLite reads the whole text to
    measure it)."""
    measured = (
        peewee.fn.LENGTH(JobPage.result.cast("BLOB"))
        if is_sqlite(db)
        else peewee.fn.OCTET_LENGTH(JobPage.result)
    )
    query = (
        JobPage.select(JobPage.seq, peewee.fn.COALESCE(JobPage.result_bytes, measured, 0))
        .where((JobPage.job == job_id) & (JobPage.seq > after))
        .order_by(JobPage.seq)
        .limit(limit)
    )
    return [(int(seq), int(size)) for seq, size in query.tuples().execute(db)]


def job_results(db: peewee.Database, *, job_id: str, seqs: Sequence[int]) -> list[PageView]:
    """The job's finished pages numbered ``seqs``, in finishing order."""
    query = (
        JobPage.select()
        .where((JobPage.job == job_id) & JobPage.seq.in_(list(seqs)))
        .order_by(JobPage.seq)
    )
    return [
        PageView(
            page.seq,
            page.url,
            page.depth,
            page.status,
            page.credits,
            page.result or "{}",
        )
        for page in query.execute(db)
    ]


def page_counts(db: peewee.Database, *, job_id: str) -> dict[str, int]:
    """How many pages of the job are in each state (for tests and the command line)."""
    return dict(
        JobPage.select(JobPage.status, peewee.fn.COUNT(JobPage.id))
        .where(JobPage.job == job_id)
        .group_by(JobPage.status)
        .tuples()
        .execute(db)
    )


@dataclass(frozen=True)
class ActiveCounts:
    """The database's active jobs, by state, and the pages they have queued (the queue's
    depth), for the metrics."""

    queued_jobs: int
    running_jobs: int
    queued_pages: int


def active_counts(db: peewee.Database) -> ActiveCounts:
    """How many jobs are queued and running, and how many of their pages are queued."""
    by_state = dict(
        Job.select(Job.status, peewee.fn.COUNT(Job.id))
        .where(Job.status.in_(JOB_ACTIVE))
        .group_by(Job.status)
        .tuples()
        .execute(db)
    )
    active = Job.select(Job.id).where(Job.status.in_(JOB_ACTIVE))
    pages = (
        JobPage.select(peewee.fn.COUNT(JobPage.id))
        .where(JobPage.job.in_(active) & (JobPage.status == QUEUED))
        .scalar(db)
    )
    return ActiveCounts(
        int(by_state.get("queued", 0)), int(by_state.get("running", 0)), int(pages or 0)
    )


def sweep(db: peewee.Database, *, now: datetime | None = None) -> int:
    """Delete up to a batch of jobs whose retention ended, with their pages; return how many."""
    now = now or utc_now()
    with write_transaction(db):
        expired = [
            job_id
            for (job_id,) in Job.select(Job.id)
            .where(Job.expires_at < now)
            .limit(_SWEEP_BATCH)
            .tuples()
            .execute(db)
        ]
        if not expired:
            return 0
        JobPage.delete().where(JobPage.job.in_(expired)).execute(db)
        Job.delete().where(Job.id.in_(expired)).execute(db)
    return len(expired)


def make_room(db: peewee.Database, org_id: int, keep_jobs: int) -> None:
    """Delete the oldest ended jobs of ``org_id`` (with their pages) beyond ``keep_jobs - 1``,
    at most a sweep's batch of them at once."""
    kept = Job.select(peewee.fn.COUNT(Job.id)).where(Job.org == org_id).scalar(db) or 0
    extra = min(int(kept) - keep_jobs + 1, _SWEEP_BATCH)
    if extra <= 0:
        return
    oldest = [
        job_id
        for (job_id,) in Job.select(Job.id)
        .where((Job.org == org_id) & Job.status.in_(JOB_ENDED))
        .order_by(Job.finished_at, Job.created_at)
        .limit(extra)
        .tuples()
        .execute(db)
    ]
    if oldest:
        JobPage.delete().where(JobPage.job.in_(oldest)).execute(db)
        Job.delete().where(Job.id.in_(oldest)).execute(db)


def org_load(db: peewee.Database, org_id: int) -> OrgLoad:
    """What the active jobs of ``org_id`` hold (a job's price per page is its options'
    ``page_price``, 1 when it has none)."""
    rows = (
        Job.select(Job.options, Job.pages_total, Job.pages_done, Job.pages_failed)
        .where((Job.org == org_id) & Job.status.in_(JOB_ACTIVE))
        .tuples()
        .execute(db)
    )
    jobs = pages = credits = 0
    for options, total, done, failed in rows:
        stored = json.loads(options)
        left = max(max(total, int(stored.get("max_pages", total))) - done - failed, 0)
        jobs, pages = jobs + 1, pages + left
        credits += left * int(stored.get("page_price", 1))
    return OrgLoad(jobs, pages, credits)
