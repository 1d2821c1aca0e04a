"""Prometheus metrics of the use cases, declared once: credits billed (by endpoint and
organization, named only when ``server.metrics_org_labels`` is on), requests refused by the rate
limit (by endpoint), batch and crawl jobs, and webhook deliveries. Never a URL, a job id or a key
in a label; every labelled series is created at import, so dashboards see zeros rather than gaps.
The HTTP layer's metrics are in :mod:`handlers.metrics`, the browser's in
``browser/*/metrics.py``."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

from store.job_types import JOB_ENDED

CREDITS = Counter(
    "pagecast_credits_total",
    "Credits billed, by endpoint and organization (org is - for every organization unless "
    "server.metrics_org_labels is on).",
    ["endpoint", "org"],
)
RATE_LIMITED = Counter(
    "pagecast_rate_limited_total", "Requests refused by the per-key rate limit.", ["endpoint"]
)

WEBHOOK_DELIVERIES = Counter(
    "pagecast_webhook_deliveries",
    "Webhook events, by outcome: delivered, given up (failed), or dropped (too many pending).",
    ["outcome"],
)
WEBHOOK_ATTEMPTS = Counter("pagecast_webhook_attempts", "Webhook POSTs sent, retries included.")
for _outcome in ("delivered", "failed", "dropped"):
    WEBHOOK_DELIVERIES.labels(_outcome)

JOB_KINDS = ("batch", "crawl")
JOBS_STARTED = Counter(
    "pagecast_jobs_started_total",
    "Jobs whose first page this process claimed (queued to running), by kind.",
    ["kind"],
)
JOBS_ENDED = Counter(
    "pagecast_jobs_ended_total",
    "Jobs ended by this process, by kind and final status (completed, cancelled, failed, "
    "quota_exceeded, failure_limit).",
    ["kind", "status"],
)
JOBS_ACTIVE = Gauge(
    "pagecast_jobs_active",
    "Jobs in the database with pages left, by state (queued: none claimed yet; running); every "
    "process reports the same count, read every 15 s and when it creates, starts or ends a job.",
    ["state"],
)
JOB_PAGES = Counter(
    "pagecast_job_pages_total",
    "Job pages this process worked to an end, by kind and outcome (done or failed; a page "
    "abandoned by its workers too often is failed).",
    ["kind", "outcome"],
)
JOB_PAGES_QUEUED = Gauge(
    "pagecast_job_pages_queued",
    "Job pages in the database waiting to be claimed, over every job (the queue depth); read "
    "every 15 s and when this process creates, starts or ends a job.",
)
JOB_PAGES_IN_FLIGHT = Gauge(
    "pagecast_job_pages_in_flight", "Job pages this process is working on now."
)
JOB_LEASE_TAKEOVERS = Counter(
    "pagecast_job_lease_takeovers_total",
    "Job pages this process claimed after another worker's lease on them expired (that worker "
    "died or stalled), by result: retried, or abandoned (out of attempts, failed).",
    ["result"],
)
for _kind in JOB_KINDS:
    JOBS_STARTED.labels(_kind)
    for _outcome in ("done", "failed"):
        JOB_PAGES.labels(_kind, _outcome)
    for _status in JOB_ENDED:
        JOBS_ENDED.labels(_kind, _status)
for _state in ("queued", "running"):
    JOBS_ACTIVE.labels(_state)
for _result in ("retried", "abandoned"):
    JOB_LEASE_TAKEOVERS.labels(_result)

# The org label's value for everyone when organizations are not to be named in metrics.
HIDDEN_ORG = "-"


def org_label(org: str, named: bool) -> str:
    """The org label of ``org``'s samples: its name, or :data:`HIDDEN_ORG` when ``named`` is off
    (the label set stays the same either way)."""
    return org if named else HIDDEN_ORG
