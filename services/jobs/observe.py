"""What the job runner tells the operator: log lines and Prometheus metrics
(:mod:`services.metrics`) of a job's start and end, its pages' ends, failures and takeovers.

Log lines never carry a secret: page URLs are shown without their query or user
(:func:`~services.jobs.pages.shown`), webhook URLs and secrets not at all. Metric labels are the
job's kind, a page's outcome and a job's final status: never a URL, a job or an organization."""

from __future__ import annotations

import logging

from services.jobs.pages import shown
from services.metrics import (
    JOB_LEASE_TAKEOVERS,
    JOB_PAGES,
    JOB_PAGES_QUEUED,
    JOBS_ACTIVE,
    JOBS_ENDED,
    JOBS_STARTED,
)
from store.job_types import ActiveJob, Claim, JobEnd, Outcome
from store.job_views import ActiveCounts

log = logging.getLogger(__name__)


def started(job: ActiveJob, claim: Claim) -> None:
    """``claim`` is the first page of ``job``: the job started."""
    JOBS_STARTED.labels(job.kind).inc()
    log.info("jobs: %s job %s of %s started", job.kind, job.id, job.org)


def took_over(job: ActiveJob, claim: Claim) -> None:
    """``claim`` was taken over from a worker whose lease on it expired."""
    JOB_LEASE_TAKEOVERS.labels("retried").inc()
    log.warning(
        "jobs: page %d of job %s taken over after its lease expired (attempt %d)",
        claim.id,
        job.id,
        claim.attempts,
    )


def abandoned(job: ActiveJob, page_id: int, url: str) -> None:
    """A page found with its lease expired once too often was failed instead."""
    JOB_LEASE_TAKEOVERS.labels("abandoned").inc()
    log.warning(
        "jobs: page %d of job %s (%s) abandoned: its lease expired too often",
        page_id,
        job.id,
        shown(url),
    )


def page_ended(job: ActiveJob, url: str, outcome: Outcome) -> None:
    """A page of ``job`` was recorded as ``outcome``; a failure is logged with its kind."""
    JOB_PAGES.labels(job.kind, "done" if outcome.ok else "failed").inc()
    if not outcome.ok:
        log.info("jobs: page %s of job %s failed: %s", shown(url), job.id, outcome.kind or "error")


def ended(job_id: str, kind: str, org: str, end: JobEnd) -> None:
    """A job ended (this process recorded its last page, or stopped it)."""
    JOBS_ENDED.labels(kind, end.status).inc()
    log.info(
        "jobs: %s job %s of %s ended %s: %d page(s) done, %d failed, in %.1f s",
        kind,
        job_id,
        org,
        end.status,
        end.pages_done,
        end.pages_failed,
        end.seconds,
    )


def counted(counts: ActiveCounts) -> None:
    """The database's active jobs and queued pages, as last read."""
    JOBS_ACTIVE.labels("queued").set(counts.queued_jobs)
    JOBS_ACTIVE.labels("running").set(counts.running_jobs)
    JOB_PAGES_QUEUED.set(counts.queued_pages)
