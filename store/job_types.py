"""The states of jobs and their pages, and the rows the job store takes and gives: a page to
queue, an active job, a claimed page, a page's outcome, a recorded result, and what an
organization's active jobs hold (:mod:`store.jobs` writes them, :mod:`store.job_views` reads
them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

QUEUED, RUNNING, DONE, FAILED, SKIPPED = "queued", "running", "done", "failed", "skipped"
"""A page's states."""
JOB_ACTIVE = ("queued", "running")
JOB_ENDED = ("completed", "cancelled", "failed", "quota_exceeded", "failure_limit")
"""A job's states: active while pages are left, then one of the ended ones."""


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
class OrgLoad:
    """What an organization's active jobs hold: how many there are, the pages they have left to
    do (a crawl counts up to its ``max_pages``) and the credits those pages are reserved."""

    jobs: int
    pages: int
    credits: int
