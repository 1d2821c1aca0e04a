"""The states of jobs and their pages, and the rows the job store takes and gives: a page to
queue, an active job, a claimed page, a page's outcome, a recorded result, and what an
organization's active jobs hold (:mod:`store.jobs` writes them, :mod:`store.job_views` reads
them)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
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
    pages_left: int = 0
    """Pages queued and not yet done or failed when the job was read (a crawl's grow)."""


@dataclass(frozen=True)
class Claim:
    """A page claimed under a lease; ``started`` when this claim started its job (its first
    page), ``took_over`` when another worker's lease on the page had expired."""

    id: int
    job_id: str
    url: str
    host: str
    depth: int
    attempts: int
    started: bool = field(default=False, compare=False)
    took_over: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class Outcome:
    """What became of a page: ``result`` is its answer (or its error), ``ok`` says which;
    ``kind`` names a failure for the logs (not stored)."""

    ok: bool
    result: dict[str, Any]
    credits: int = 0
    kind: str = field(default="", compare=False)

    @cached_property
    def result_json(self) -> str:
        """``result`` as stored and sent: compact JSON, made once however often it is asked."""
        return json.dumps(self.result, ensure_ascii=False, separators=(",", ":"))

    @cached_property
    def result_bytes(self) -> int:
        """The length of :attr:`result_json` in UTF-8, as stored beside it."""
        text = self.result_json
        return len(text) if text.isascii() else len(text.encode())


@dataclass(frozen=True)
class JobEnd:
    """How a job ended: its final status, its pages done and failed, and the seconds from its
    submission to its end."""

    status: str
    pages_done: int
    pages_failed: int
    seconds: float


@dataclass(frozen=True)
class Recorded:
    """A result recorded: its number in the finishing order, the pages queued from its links,
    and the job's status when this page ended it (else None; ``end`` tells more)."""

    seq: int
    queued: int
    ended: str | None
    end: JobEnd | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Abandoned:
    """A page found with its lease expired once too often (its workers died or stalled on it):
    failed instead of claimed again, with what its failure recorded (``outcome`` the error
    stored)."""

    page_id: int
    job_id: str
    url: str
    outcome: Outcome
    recorded: Recorded


@dataclass(frozen=True)
class OrgLoad:
    """What an organization's active jobs hold: how many there are, the pages they have left to
    do (a crawl counts up to its ``max_pages``) and the credits those pages are reserved."""

    jobs: int
    pages: int
    credits: int
