"""Batch and crawl jobs in the database: creating them, claiming their pages under a lease,
recording results, cancelling, reading progress and results, and the retention sweep.

Several processes on one database share the work safely. A page is claimed in one write
transaction that picks it and stamps it with the claimer's lease (Postgres: the pick is
``SELECT ... FOR UPDATE SKIP LOCKED``, so two hosts never wait on or take the same row; SQLite:
the transaction holds the file's write lock). A result is recorded only while the recorder still
holds the lease, in the same transaction that numbers it, updates the job's totals, queues the
links a crawl found and ends a job with nothing left to do. A process renews the leases of the
pages it works on; the pages of a process that died are claimed again once their lease expired.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import peewee

from store.db import is_sqlite, write_transaction
from store.models import Job, JobPage, Organization, as_utc, utc_now

QUEUED, RUNNING, DONE, FAILED, SKIPPED = "queued", "running", "done", "failed", "skipped"
"""A page's states."""
JOB_ACTIVE = ("queued", "running")
JOB_ENDED = ("completed", "cancelled", "failed", "quota_exceeded")
"""A job's states: active while pages are left, then one of the ended ones."""
_SWEEP_BATCH = 500


@dataclass(frozen=True)
class NewPage:
    """A URL to queue: its dedup key (sha256 of the normalised URL), the URL, its host, depth."""

    key: str
    url: str
    host: str
    depth: int = 0


@dataclass(frozen=True)
class ActiveJob:
    """A job with pages to work on, as the runner needs it."""

    id: str
    org: str
    plan: str
    kind: str
    options: dict[str, Any]
    webhook_url: str | None
    webhook_secret: str | None


@dataclass(frozen=True)
class Claim:
    """A page claimed under a lease."""

    id: int
    job_id: str
    url: str
    host: str
    depth: int
    attempts: int


@dataclass(frozen=True)
class Outcome:
    """What became of a page: ``result`` is its answer (or its error), ``ok`` says which."""

    ok: bool
    result: dict[str, Any]
    credits: int = 0


@dataclass(frozen=True)
class Recorded:
    """A result recorded: its number in the finishing order, the pages queued from its links,
    and the job's status when this page ended it (else None)."""

    seq: int
    queued: int
    ended: str | None


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


@dataclass(frozen=True)
class PageView:
    """One finished page of a job."""

    seq: int
    url: str
    depth: int
    status: str
    credits: int
    result: dict[str, Any]


def new_job_id() -> str:
    """A job's id: 128 random bits, hex."""
    return secrets.token_hex(16)


def create_job(
    db: peewee.Database,
    *,
    job_id: str,
    org_id: int,
    plan: str,
    kind: str,
    options: dict[str, Any],
    pages: Sequence[NewPage],
    webhook_url: str | None = None,
    webhook_secret: str | None = None,
) -> int:
    """Store a job and queue its first pages (duplicates by key queued once); return how many."""
    with write_transaction(db):
        Job.insert(
            id=job_id,
            org=org_id,
            plan=plan,
            kind=kind,
            options=json.dumps(options, separators=(",", ":")),
            status="queued",
            webhook_url=webhook_url,
            webhook_secret=webhook_secret,
        ).execute(db)
        queued = _queue_pages(db, job_id, pages, limit=len(pages))
        Job.update(pages_total=queued).where(Job.id == job_id).execute(db)
    return queued


def active_jobs(db: peewee.Database) -> list[ActiveJob]:
    """Every job that still has pages to work on, oldest first."""
    query = (
        Job.select(Job, Organization.name)
        .join(Organization)
        .where(Job.status.in_(JOB_ACTIVE))
        .order_by(Job.created_at)
    )
    return [
        ActiveJob(
            job.id,
            job.org.name,
            job.plan,
            job.kind,
            json.loads(job.options),
            job.webhook_url,
            job.webhook_secret,
        )
        for job in query.execute(db)
    ]


def claim_page(
    db: peewee.Database,
    *,
    job_id: str,
    owner: str,
    lease_seconds: float,
    skip_hosts: Sequence[str] = (),
    max_attempts: int = 3,
) -> Claim | None:
    """Claim the next page of ``job_id`` (shallowest first, then in queue order) for ``owner``:
    a queued page, or one whose lease expired. None when there is none (hosts in ``skip_hosts``
    are left alone). A page whose lease expired ``max_attempts`` times fails instead."""
    now = utc_now()
    with write_transaction(db):
        claimable = (JobPage.status == QUEUED) | (
            (JobPage.status == RUNNING) & (JobPage.lease_expires < now)
        )
        query = JobPage.select().where((JobPage.job == job_id) & claimable)
        if skip_hosts:
            query = query.where(JobPage.host.not_in(list(skip_hosts)))
        query = query.order_by(JobPage.depth, JobPage.id).limit(1)
        if not is_sqlite(db):
            # peewee takes the lock clause as a string too; its stubs say bool.
            query = query.for_update("FOR UPDATE SKIP LOCKED")  # type: ignore[arg-type]
        page = query.first(db)
        if page is None:
            return None
        if page.attempts >= max_attempts:
            _fail_abandoned(db, page, now)
            return None
        JobPage.update(
            status=RUNNING,
            lease_owner=owner,
            lease_expires=now + timedelta(seconds=lease_seconds),
            attempts=JobPage.attempts + 1,
        ).where(JobPage.id == page.id).execute(db)
        Job.update(status="running", updated_at=now).where(
            (Job.id == job_id) & (Job.status == "queued")
        ).execute(db)
    return Claim(page.id, job_id, page.url, page.host, page.depth, page.attempts + 1)


def _fail_abandoned(db: peewee.Database, page: JobPage, now: datetime) -> None:
    """A page whose workers died (or lost it) too often: failed, so the job can end."""
    outcome = Outcome(
        False,
        {"error": {"code": -5000, "message": "the page was abandoned by its workers too often"}},
    )
    JobPage.update(status=RUNNING, lease_owner="-").where(JobPage.id == page.id).execute(db)
    _record(db, page.id, "-", outcome, (), 0, now)


def renew_leases(
    db: peewee.Database, *, owner: str, page_ids: Sequence[int], lease_seconds: float
) -> int:
    """Extend ``owner``'s leases on the pages ``page_ids`` it still works on; return how many."""
    if not page_ids:
        return 0
    until = utc_now() + timedelta(seconds=lease_seconds)
    with write_transaction(db):
        return int(
            JobPage.update(lease_expires=until)
            .where(
                (JobPage.lease_owner == owner)
                & (JobPage.status == RUNNING)
                & JobPage.id.in_(list(page_ids))
            )
            .execute(db)
        )


def release_page(db: peewee.Database, *, page_id: int, owner: str) -> bool:
    """Give a claimed page back to the queue unfinished (a draining or busy process), without
    counting the attempt."""
    with write_transaction(db):
        changed = (
            JobPage.update(
                status=QUEUED,
                lease_owner=None,
                lease_expires=None,
                attempts=JobPage.attempts - 1,
            )
            .where(
                (JobPage.id == page_id)
                & (JobPage.lease_owner == owner)
                & (JobPage.status == RUNNING)
            )
            .execute(db)
        )
    return bool(changed)


def record_page(
    db: peewee.Database,
    *,
    page_id: int,
    owner: str,
    outcome: Outcome,
    links: Sequence[NewPage] = (),
    max_pages: int = 0,
    retention_seconds: float = 86400.0,
) -> Recorded | None:
    """Record a claimed page's outcome and queue the ``links`` its crawl admits (new keys only,
    the job's pages kept at most ``max_pages``); end the job when nothing is left. None when
    ``owner`` no longer holds the page's lease (nothing is recorded)."""
    with write_transaction(db):
        return _record(db, page_id, owner, outcome, links, max_pages, utc_now(), retention_seconds)


def _record(  # noqa: PLR0917 (the record_page call, spelled out)
    db: peewee.Database,
    page_id: int,
    owner: str,
    outcome: Outcome,
    links: Sequence[NewPage],
    max_pages: int,
    now: datetime,
    retention_seconds: float = 86400.0,
) -> Recorded | None:
    page = (
        JobPage.select(JobPage.id, JobPage.job)
        .where(
            (JobPage.id == page_id) & (JobPage.lease_owner == owner) & (JobPage.status == RUNNING)
        )
        .first(db)
    )
    if page is None:
        return None
    job_id = page.job_id
    job = _locked_job(db, job_id)
    seq = job.results + 1
    credits = outcome.credits if outcome.ok else 0
    JobPage.update(
        status=DONE if outcome.ok else FAILED,
        result=json.dumps(outcome.result, ensure_ascii=False, separators=(",", ":")),
        credits=credits,
        seq=seq,
        finished_at=now,
        lease_expires=None,  # lease_owner stays: which process did the page
    ).where(JobPage.id == page_id).execute(db)
    queued = 0
    if links and job.status in JOB_ACTIVE:
        queued = _queue_pages(db, job_id, links, limit=max(max_pages - job.pages_total, 0))
    changes: dict[Any, Any] = {
        Job.results: seq,
        Job.credits: job.credits + credits,
        Job.pages_total: job.pages_total + queued,
        Job.updated_at: now,
    }
    changes[Job.pages_done if outcome.ok else Job.pages_failed] = (
        job.pages_done + 1 if outcome.ok else job.pages_failed + 1
    )
    ended = None
    if job.status in JOB_ACTIVE and not _pages_left(db, job_id):
        # A job none of whose pages could be done failed; otherwise it completed.
        ended = "completed" if job.pages_done + outcome.ok > 0 else "failed"
        changes.update(_ending(ended, None, now, retention_seconds))
    Job.update(changes).where(Job.id == job_id).execute(db)
    return Recorded(seq, queued, ended)


def _locked_job(db: peewee.Database, job_id: str) -> Job:
    query = Job.select().where(Job.id == job_id)
    if not is_sqlite(db):
        query = query.for_update()
    job: Job = query.get(db)
    return job


def _pages_left(db: peewee.Database, job_id: str) -> bool:
    left = (
        JobPage.select(JobPage.id)
        .where((JobPage.job == job_id) & JobPage.status.in_((QUEUED, RUNNING)))
        .limit(1)
        .first(db)
    )
    return left is not None


def _ending(status: str, reason: str | None, now: datetime, retention: float) -> dict[Any, Any]:
    return {
        Job.status: status,
        Job.stop_reason: reason,
        Job.finished_at: now,
        Job.expires_at: now + timedelta(seconds=retention),
    }


def _queue_pages(db: peewee.Database, job_id: str, pages: Sequence[NewPage], limit: int) -> int:
    """Insert the pages whose key the job does not have yet, at most ``limit``; return how many."""
    unique: dict[str, NewPage] = {}
    for page in pages:
        unique.setdefault(page.key, page)
    if not unique or limit <= 0:
        return 0
    known: set[str] = set()
    keys = list(unique)
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        known.update(
            key
            for (key,) in JobPage.select(JobPage.url_key)
            .where((JobPage.job == job_id) & JobPage.url_key.in_(chunk))
            .tuples()
            .execute(db)
        )
    fresh = [page for key, page in unique.items() if key not in known][:limit]
    rows = [
        {
            "job": job_id,
            "url_key": page.key,
            "url": page.url,
            "host": page.host[:255],
            "depth": page.depth,
            "status": QUEUED,
        }
        for page in fresh
    ]
    for start in range(0, len(rows), 200):
        JobPage.insert_many(rows[start : start + 200]).execute(db)
    return len(rows)


def stop_job(
    db: peewee.Database,
    *,
    job_id: str,
    status: str,
    reason: str | None = None,
    org_id: int | None = None,
    retention_seconds: float = 86400.0,
) -> bool:
    """End an active job as ``status`` (cancelled, quota_exceeded, failed): its queued pages are
    skipped; pages being worked on finish and are recorded. False when the job is not active (or
    not ``org_id``'s)."""
    now = utc_now()
    with write_transaction(db):
        where = (Job.id == job_id) & Job.status.in_(JOB_ACTIVE)
        if org_id is not None:
            where &= Job.org == org_id
        changed = (
            Job.update(_ending(status, reason, now, retention_seconds)).where(where).execute(db)
        )
        if not changed:
            return False
        JobPage.update(status=SKIPPED, finished_at=now).where(
            (JobPage.job == job_id) & (JobPage.status == QUEUED)
        ).execute(db)
    return True


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
    )


def job_results(db: peewee.Database, *, job_id: str, after: int, limit: int) -> list[PageView]:
    """The job's finished pages numbered after ``after``, in finishing order, at most ``limit``."""
    query = (
        JobPage.select()
        .where((JobPage.job == job_id) & (JobPage.seq > after))
        .order_by(JobPage.seq)
        .limit(limit)
    )
    return [
        PageView(
            page.seq,
            page.url,
            page.depth,
            page.status,
            page.credits,
            json.loads(page.result) if page.result else {},
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
