"""Webhook events in the database until they are delivered: stored when a job's page ends (within
the organization's bounds in count and bytes), claimed under a lease by the process that
delivers them, put back with a later due time after a failed attempt, deleted once delivered or
given up. Several processes on one database share them as they share job pages (Postgres:
``FOR UPDATE SKIP LOCKED``; SQLite: the write lock), and a process that died leaves its events
to the others once their lease expires."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import peewee

from store.db import execute_sql, is_sqlite, write_transaction
from store.job_types import RUNNING
from store.models import Job, JobPage, Organization, WebhookEvent, utc_now

_BOUND_LOCK = 0x7767_686B
"""The first key of the Postgres advisory lock, one per organization (the second key), under
which a page event's bound is checked and the event stored."""

END_KIND = "job"
"""The kind of a job's end event (its body's ``event``), sent after every other event of its
job: see :func:`_claimable`."""


@dataclass(frozen=True)
class NewEvent:
    """An event to store: whose, for which job, where it goes and its body as sent."""

    org: str
    job_id: str
    event_id: str
    kind: str
    url: str
    secret: str
    body: str


@dataclass(frozen=True)
class PendingEvent:
    """An event claimed for delivery."""

    id: int
    org: str
    event_id: str
    kind: str
    url: str
    secret: str
    body: str
    attempts: int
    created_at: datetime
    job_id: str = ""


def insert_event(
    db: peewee.Database, event: NewEvent, *, max_count: int, max_bytes: int, bounded: bool
) -> bool:
    """Store ``event`` within the caller's write transaction (so that it is kept exactly when
    what it tells is; on SQLite, a :func:`~store.db.write_transaction`); when ``bounded``,
    only if, with it, its organization has at most ``max_count`` events and ``max_bytes`` of
    bodies waiting, checked under a lock held until the caller commits, so that concurrent
    writers, in this process or another, never pass the bound together. False when it was not
    stored (the bound, or an organization that does not exist)."""
    size = len(event.body.encode())
    org = Organization.select(Organization.id).where(Organization.name == event.org).first(db)
    if org is None:
        return False
    if bounded:
        if not is_sqlite(db):
            # Writers of one organization's page events check its bound one after the other,
            # until their commits (SQLite: the write transaction holds the file's lock). A lock
            # of its own, not the organization's row: the caller may hold a job's row already.
            execute_sql(db, "SELECT pg_advisory_xact_lock(%s, %s)", (_BOUND_LOCK, org.id))
        count, held = _waiting(db, WebhookEvent.org == org.id)
        if count >= max_count or held + size > max_bytes:
            return False
    WebhookEvent.insert(
        org=org.id,
        job_id=event.job_id,
        event_id=event.event_id[:80],
        kind=event.kind[:16],
        url=event.url,
        secret=event.secret,
        body=event.body,
        size=size,
    ).execute(db)
    return True


def due_orgs(db: peewee.Database, *, now: datetime | None = None) -> dict[str, int]:
    """The organizations with events due and free to claim, and how many each has."""
    now = now or utc_now()
    query = (
        WebhookEvent.select(Organization.name, peewee.fn.COUNT(WebhookEvent.id))
        .join(Organization)
        .where(_claimable(now))
        .group_by(Organization.name)
        .tuples()
    )
    return {name: int(count) for name, count in query.execute(db)}


def claim_events(
    db: peewee.Database, *, org: str, owner: str, lease_seconds: float, limit: int
) -> list[PendingEvent]:
    """Claim up to ``limit`` of ``org``'s due events for ``owner`` (oldest due first)."""
    now = utc_now()
    with write_transaction(db):
        found = Organization.select(Organization.id).where(Organization.name == org).first(db)
        if found is None:
            return []
        query = (
            WebhookEvent.select()
            .where((WebhookEvent.org == found.id) & _claimable(now))
            .order_by(WebhookEvent.due_at, WebhookEvent.id)
            .limit(limit)
        )
        if not is_sqlite(db):
            query = query.for_update("FOR UPDATE SKIP LOCKED")  # type: ignore[arg-type]
        rows = list(query.execute(db))
        if not rows:
            return []
        WebhookEvent.update(
            lease_owner=owner, lease_expires=now + timedelta(seconds=lease_seconds)
        ).where(WebhookEvent.id.in_([row.id for row in rows])).execute(db)
    return [
        PendingEvent(
            row.id,
            org,
            row.event_id,
            row.kind,
            row.url,
            row.secret,
            row.body,
            row.attempts,
            row.created_at,
            row.job_id,
        )
        for row in rows
    ]


def retry_event(
    db: peewee.Database, *, event_id: int, owner: str, after: float, restart: bool = False
) -> bool:
    """Give a claimed event back after a failed attempt, due ``after`` seconds from now; with
    ``restart``, its time to deliver (``created_at``) counts from now (a job's end event after
    its first attempt: the time it waited behind its job's other events is not its own)."""
    now = utc_now()
    values: dict[Any, Any] = {
        WebhookEvent.attempts: WebhookEvent.attempts + 1,
        WebhookEvent.due_at: now + timedelta(seconds=after),
        WebhookEvent.lease_owner: None,
        WebhookEvent.lease_expires: None,
    }
    if restart:
        values[WebhookEvent.created_at] = now
    with write_transaction(db):
        changed = (
            WebhookEvent.update(values)
            .where((WebhookEvent.id == event_id) & (WebhookEvent.lease_owner == owner))
            .execute(db)
        )
    return bool(changed)


def release_events(db: peewee.Database, *, event_ids: Sequence[int], owner: str) -> int:
    """Give claimed events back untried (a process stopping)."""
    if not event_ids:
        return 0
    with write_transaction(db):
        return int(
            WebhookEvent.update(lease_owner=None, lease_expires=None)
            .where(WebhookEvent.id.in_(list(event_ids)) & (WebhookEvent.lease_owner == owner))
            .execute(db)
        )


def delete_event(
    db: peewee.Database, *, event_id: int, job_id: str = "", failure: str | None = None
) -> None:
    """An event delivered (``failure`` None) or given up (``failure``: why, in a few words),
    counted on its job."""
    with write_transaction(db):
        WebhookEvent.delete().where(WebhookEvent.id == event_id).execute(db)
        if job_id:
            count_outcome(db, job_id=job_id, failure=failure)


def count_outcome(db: peewee.Database, *, job_id: str, failure: str | None = None) -> None:
    """Count one of the job's events delivered, or given up or dropped (``failure``: why),
    within the caller's write transaction."""
    update: dict[Any, Any]
    if failure is None:
        update = {Job.webhook_delivered: Job.webhook_delivered + 1}
    else:
        update = {
            Job.webhook_failed: Job.webhook_failed + 1,
            Job.webhook_error: failure[:_ERROR_CHARS],
            Job.webhook_error_at: utc_now(),
        }
    Job.update(update).where(Job.id == job_id).execute(db)


_ERROR_CHARS = 200


def orgs_waiting(db: peewee.Database, *, at_least: int) -> dict[str, int]:
    """The organizations with at least ``at_least`` events waiting (being sent included), and
    how many each has."""
    count = peewee.fn.COUNT(WebhookEvent.id)
    query = (
        WebhookEvent.select(Organization.name, count)
        .join(Organization)
        .group_by(Organization.name)
        .having(count >= at_least)
        .tuples()
    )
    return {name: int(n) for name, n in query.execute(db)}


def pending_events(db: peewee.Database, *, org: str) -> tuple[int, int]:
    """How many events of ``org`` wait, and their bodies' bytes."""
    found = Organization.select(Organization.id).where(Organization.name == org).first(db)
    return _waiting(db, WebhookEvent.org == found.id) if found is not None else (0, 0)


def _waiting(db: peewee.Database, where: peewee.Expression) -> tuple[int, int]:
    """How many events match ``where``, and their bodies' bytes."""
    query = WebhookEvent.select(
        peewee.fn.COUNT(WebhookEvent.id), peewee.fn.COALESCE(peewee.fn.SUM(WebhookEvent.size), 0)
    ).where(where)
    for count, held in query.tuples().execute(db):
        return int(count), int(held or 0)
    return 0, 0


def _claimable(now: datetime) -> peewee.Expression:
    """Due, not held by a live lease, and, for a job's end event, once nothing else of its job
    can still reach the receiver: no other event of the job waiting (delivered or given up, be
    it stored before the end or after it), and no page of the job being worked on under a live
    lease (a job cancelled or stopped with pages in flight records them, and stores their
    events, after its end event). A receiver hears of the end last. A page whose worker died
    holds the end back until its lease expires."""
    other = WebhookEvent.alias("other")
    pending_other = other.select(other.id).where(
        (other.job_id == WebhookEvent.job_id) & (other.kind != END_KIND)
    )
    in_flight = JobPage.select(JobPage.id).where(
        (JobPage.job == WebhookEvent.job_id)
        & (JobPage.status == RUNNING)
        & (JobPage.lease_expires >= now)
    )
    claimable: peewee.Expression = (
        (WebhookEvent.due_at <= now)
        & (WebhookEvent.lease_owner.is_null() | (WebhookEvent.lease_expires < now))
        & (
            (WebhookEvent.kind != END_KIND)
            | (~peewee.fn.EXISTS(pending_other) & ~peewee.fn.EXISTS(in_flight))
        )
    )
    return claimable
