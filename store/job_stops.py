"""Ending a job before its pages are done: cancelled by its owner, or stopped for its plan's
monthly bounds (:mod:`store.jobs` holds the rest of its writes)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import peewee

from store.db import write_transaction
from store.job_types import JOB_ACTIVE, QUEUED, RUNNING, SKIPPED, JobEnd
from store.models import Job, JobPage, utc_now


def stop_job(
    db: peewee.Database,
    *,
    job_id: str,
    status: str,
    reason: str | None = None,
    org_id: int | None = None,
    retention_seconds: float = 86400.0,
    then: Callable[[peewee.Database], None] | None = None,
) -> JobEnd | None:
    """End an active job as ``status`` (cancelled, quota_exceeded, failed): its queued pages,
    and those whose lease expired (their workers died), are skipped; pages being worked on
    under a live lease finish and are recorded; ``then`` is called in the same
    transaction (the job's end event). How it ended, or None when the job is not active (or not
    ``org_id``'s)."""
    now = utc_now()
    with write_transaction(db):
        where = (Job.id == job_id) & Job.status.in_(JOB_ACTIVE)
        if org_id is not None:
            where &= Job.org == org_id
        changed = (
            Job.update(_ending(status, reason, now, retention_seconds)).where(where).execute(db)
        )
        if not changed:
            return None
        # Queued pages, and those whose workers died (their lease expired): nobody will claim
        # them again.
        left = (JobPage.status == QUEUED) | (
            (JobPage.status == RUNNING) & (JobPage.lease_expires < now)
        )
        JobPage.update(status=SKIPPED, finished_at=now, lease_expires=None).where(
            (JobPage.job == job_id) & left
        ).execute(db)
        if then is not None:
            then(db)
        job = Job.select(Job.pages_done, Job.pages_failed, Job.created_at).where(Job.id == job_id)
        row = job.first(db)
    seconds = max((now - row.created_at).total_seconds(), 0.0)
    return JobEnd(status, row.pages_done, row.pages_failed, seconds)


def _ending(status: str, reason: str | None, now: datetime, retention: float) -> dict[Any, Any]:
    return {
        Job.status: status,
        Job.stop_reason: reason,
        Job.finished_at: now,
        Job.expires_at: now + timedelta(seconds=retention),
    }
