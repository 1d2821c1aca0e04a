"""Batch and crawl jobs in the database: creating them (admitted by what the organization's
active jobs hold), claiming their pages under a lease and recording results. Their rows and
states are :mod:`store.job_types`; reading them and the retention sweep :mod:`store.job_views`;
ending one early (a cancel, a stop for the plan) :mod:`store.job_stops`.

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
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import peewee

from store.db import execute_sql, is_sqlite, write_transaction
from store.job_types import (
    DONE,
    FAILED,
    JOB_ACTIVE,
    QUEUED,
    RUNNING,
    SKIPPED,
    Abandoned,
    ActiveJob,
    Claim,
    JobEnd,
    NewPage,
    OrgLoad,
    Outcome,
    Recorded,
)
from store.job_views import make_room, org_load
from store.models import Job, JobPage, Organization, utc_now


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
    admit: Callable[[OrgLoad], int] | None = None,
    keep_jobs: int = 0,
) -> int:
    """Store a job and queue its first pages (duplicates by key queued once); return how many.

    ``admit``, when given, is asked in the same transaction, with the organization's row locked
    (two submissions of one organization are admitted one after the other), how many pages the
    job may have given what the organization's active jobs hold: the batch's pages are cut to
    that, a crawl's ``max_pages`` lowered to it. It may raise to refuse the job. With
    ``keep_jobs``, the organization keeps at most that many jobs: its oldest ended ones are
    deleted (before their retention ends) to make room for this one."""
    with write_transaction(db):
        if admit is not None:
            if not is_sqlite(db):
                _run(db, "SELECT id FROM organization WHERE id = ? FOR NO KEY UPDATE", (org_id,))
            limit = admit(org_load(db, org_id))
            pages = pages[:limit]
            if "max_pages" in options:
                options = {**options, "max_pages": min(int(options["max_pages"]), limit)}
        if keep_jobs > 0:
            make_room(db, org_id, keep_jobs)
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
            max(job.pages_total - job.pages_done - job.pages_failed, 0),
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
    then: Callable[[peewee.Database, Outcome, Recorded], None] | None = None,
) -> Claim | Abandoned | None:
    """Claim the next page of ``job_id`` (shallowest first, then in queue order) for ``owner``:
    a queued page, or one whose lease expired (``took_over``). None when there is none (hosts in
    ``skip_hosts`` are left alone). A page whose lease expired ``max_attempts`` times fails
    instead (:class:`Abandoned`; ``then`` is called with its outcome and record in the same
    transaction, as :func:`record_page` calls its own).

    The queries of this and :func:`record_page`, run for every page, are written out: Peewee
    would spend more time building them than the database spends running them."""
    now = utc_now()
    hosts = list(skip_hosts)
    text = (
        "SELECT id, url, host, depth, attempts, status FROM job_page WHERE job_id = ? AND "
        "(status = ? OR (status = ? AND lease_expires < ?))"
    )
    if hosts:
        text += f" AND host NOT IN ({', '.join('?' * len(hosts))})"
    text += " ORDER BY depth, id LIMIT 1"
    if not is_sqlite(db):
        text += " FOR UPDATE SKIP LOCKED"
    with write_transaction(db):
        row = _run(db, text, (job_id, QUEUED, RUNNING, now, *hosts)).fetchone()
        if row is None:
            return None
        page_id, url, host, depth, attempts, status = row
        if attempts >= max_attempts:
            outcome, recorded = _fail_abandoned(db, job_id, page_id, now)
            if recorded is None:
                return None
            if then is not None:
                then(db, outcome, recorded)
            return Abandoned(page_id, job_id, url, outcome, recorded)
        _run(
            db,
            "UPDATE job_page SET status = ?, lease_owner = ?, lease_expires = ?, "
            "attempts = attempts + 1 WHERE id = ?",
            (RUNNING, owner, now + timedelta(seconds=lease_seconds), page_id),
        )
        started = _run(
            db,
            "UPDATE job SET status = ?, updated_at = ? WHERE id = ? AND status = ?",
            ("running", now, job_id, "queued"),
        ).rowcount
    return Claim(
        page_id,
        job_id,
        url,
        host,
        depth,
        attempts + 1,
        started=bool(started),
        took_over=status == RUNNING,
    )


def _run(db: peewee.Database, text: str, params: Sequence[Any]) -> Any:
    """One written-out statement, ``?`` its placeholder whatever the database's."""
    if db.param != "?":
        text = text.replace("?", db.param)
    return execute_sql(db, text, tuple(params))


def _fail_abandoned(
    db: peewee.Database, job_id: str, page_id: int, now: datetime
) -> tuple[Outcome, Recorded | None]:
    """A page whose workers died (or lost it) too often: failed, so the job can end."""
    outcome = Outcome(
        False,
        {"error": {"code": -5000, "message": "the page was abandoned by its workers too often"}},
        kind="abandoned",
    )
    _run(
        db, "UPDATE job_page SET status = ?, lease_owner = ? WHERE id = ?", (RUNNING, "-", page_id)
    )
    return outcome, _record(db, job_id, page_id, "-", outcome, (), 0, now)


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
    counting the attempt; skipped when its job has ended meanwhile (cancelled, stopped), as the
    end skipped the job's queued pages."""
    with write_transaction(db):
        ended = (
            Job.select(Job.id)
            .join(JobPage, on=(JobPage.job == Job.id))
            .where((JobPage.id == page_id) & Job.status.not_in(JOB_ACTIVE))
            .exists(db)
        )
        back = {"status": SKIPPED, "finished_at": utc_now()} if ended else {"status": QUEUED}
        changed = (
            JobPage.update(
                **back,
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
    job_id: str,
    page_id: int,
    owner: str,
    outcome: Outcome,
    links: Sequence[NewPage] = (),
    max_pages: int = 0,
    retention_seconds: float = 86400.0,
    then: Callable[[peewee.Database, Recorded], None] | None = None,
) -> Recorded | None:
    """Record the outcome of the page ``page_id`` of ``job_id`` and queue the ``links`` its
    crawl admits (new keys only, the job's pages kept at most ``max_pages``); end the job when
    nothing is left; then call ``then`` with what was recorded, in the same transaction (the
    job's webhook events, kept exactly when the page is). None when ``owner`` no longer holds
    the page's lease (nothing is recorded)."""
    with write_transaction(db):
        recorded = _record(
            db, job_id, page_id, owner, outcome, links, max_pages, utc_now(), retention_seconds
        )
        if recorded is not None and then is not None:
            then(db, recorded)
        return recorded


def _record(  # noqa: PLR0917 (the record_page call, spelled out)
    db: peewee.Database,
    job_id: str,
    page_id: int,
    owner: str,
    outcome: Outcome,
    links: Sequence[NewPage],
    max_pages: int,
    now: datetime,
    retention_seconds: float = 86400.0,
) -> Recorded | None:
    text = (
        "SELECT status, results, credits, pages_total, pages_done, pages_failed FROM job "
        "WHERE id = ?"
    )
    if not is_sqlite(db):
        text += " FOR UPDATE"
    row = _run(db, text, (job_id,)).fetchone()
    if row is None:
        return None
    status, results, total_credits, pages_total, pages_done, pages_failed = row
    seq = results + 1
    credits = outcome.credits if outcome.ok else 0
    result = outcome.result_json
    changed = _run(
        db,
        # lease_owner stays: which process did the page.
        "UPDATE job_page SET status = ?, result = ?, result_bytes = ?, credits = ?, seq = ?, "
        "finished_at = ?, lease_expires = NULL "
        "WHERE id = ? AND job_id = ? AND lease_owner = ? AND status = ?",
        (
            DONE if outcome.ok else FAILED,
            result,
            outcome.result_bytes,
            credits,
            seq,
            now,
            page_id,
            job_id,
            owner,
            RUNNING,
        ),
    ).rowcount
    if not changed:
        return None
    queued = 0
    if links and status in JOB_ACTIVE:
        queued = _queue_pages(db, job_id, links, limit=max(max_pages - pages_total, 0))
    pages_done += outcome.ok
    pages_failed += not outcome.ok
    values: list[Any] = [seq, total_credits + credits, pages_total + queued, pages_done]
    values += [pages_failed, now]
    text = (
        "UPDATE job SET results = ?, credits = ?, pages_total = ?, pages_done = ?, "
        "pages_failed = ?, updated_at = ?"
    )
    ended = end = None
    left = _run(
        db,
        "SELECT id FROM job_page WHERE job_id = ? AND status IN (?, ?) LIMIT 1",
        (job_id, QUEUED, RUNNING),
    ).fetchone()
    if status in JOB_ACTIVE and left is None:
        # A job none of whose pages could be done failed; otherwise it completed.
        ended = "completed" if pages_done > 0 else "failed"
        text += ", status = ?, stop_reason = NULL, finished_at = ?, expires_at = ?"
        values += [ended, now, now + timedelta(seconds=retention_seconds)]
        end = JobEnd(ended, pages_done, pages_failed, _age(db, job_id, now))
    _run(db, text + " WHERE id = ?", (*values, job_id))
    return Recorded(seq, queued, ended, end)


def _age(db: peewee.Database, job_id: str, now: datetime) -> float:
    """Seconds since ``job_id`` was submitted."""
    job = Job.select(Job.created_at).where(Job.id == job_id).first(db)
    return max((now - job.created_at).total_seconds(), 0.0) if job is not None else 0.0


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
