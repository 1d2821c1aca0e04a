"""Typed results of a site's map and of batch and crawl jobs, and the polling rule of waiting
for a job.

A job is answered at once (:class:`JobAccepted`); its pages are worked on in the background.
:class:`Job` is its status, progress and credits, with a page of its results in finishing order
(:class:`JobResult`) and the cursor to read on. Like every result, each keeps the answer's JSON
as ``raw``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from pagecast_client.models import Chunk, Metadata, Usage, pick

JOB_ENDED = frozenset({"completed", "cancelled", "failed", "quota_exceeded", "failure_limit"})
"""The statuses of a job that has ended: no page of it starts any more."""


@dataclass
class MapResult:
    """The URLs of a site: the start URL, its page's links, then its sitemaps' URLs."""

    url: str
    """The start URL, cleaned (the URL its redirects end on when they lead to another site)."""
    urls: list[str]
    count: int
    truncated: bool
    """``limit`` cut the list."""
    complete: bool
    """False when the map's time or a sitemap bound ran out first."""
    sources: dict[str, int]
    """How many of ``urls`` each source gave first: ``start``, ``links``, ``sitemaps``."""
    robots: str
    """``found``, ``absent`` or ``unreachable`` (then only the start URL is answered)."""
    sitemaps_read: int
    sitemaps_failed: int
    request_id: str = ""
    credits: int = 0
    warnings: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, body: dict[str, Any], credits: int) -> MapResult:
        return pick(cls, body, credits=credits, warnings=list(body.get("warnings", [])), raw=body)


@dataclass
class JobAccepted:
    """A batch or a crawl, accepted: its id, and where to read it."""

    id: str
    status: str
    pages_queued: int
    url: str
    """Where to GET the job."""
    webhook_secret: str | None = None
    """The webhook's signing secret, when the job has a webhook and none was sent: shown once."""
    pages_admitted: int | None = None
    """When the plan admitted fewer pages than asked: the pages the job may have."""
    admission_bound: str | None = None
    """The plan's bound that cut the job (``max_queued_pages`` or ``monthly_credits``)."""
    request_id: str = ""
    warnings: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, body: dict[str, Any], request_id: str) -> JobAccepted:
        return pick(
            cls, body, request_id=request_id, warnings=list(body.get("warnings", [])), raw=body
        )


@dataclass
class JobProgress:
    """A job's pages by state: ``total = done + failed + running + skipped + queued``."""

    total: int = 0
    done: int = 0
    failed: int = 0
    running: int = 0
    skipped: int = 0
    queued: int = 0

    @property
    def ended(self) -> int:
        """Pages finished, done or failed."""
        return self.done + self.failed


@dataclass
class PageError:
    """Why a job's page failed, in the Markdown endpoint's error shape (``-3001``: could not
    connect, ``-4000``: no HTML...)."""

    code: int
    message: str


@dataclass
class JobResult:
    """One finished page of a job: its Markdown (``status == "done"``) or its ``error``."""

    seq: int
    """The page's place in the finishing order."""
    url: str
    status: str
    """``done`` or ``failed``."""
    depth: int = 0
    """Links from the start page (crawls)."""
    credits: int = 0
    final_url: str | None = None
    status_code: int | None = None
    markdown: str | None = None
    metadata: Metadata | None = None
    usage: Usage | None = None
    chunks: list[Chunk] | None = None
    error: PageError | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "done"

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> JobResult:
        error = body.get("error")
        chunks = body.get("chunks")
        return pick(
            cls,
            body,
            metadata=pick(Metadata, body["metadata"]) if body.get("metadata") else None,
            usage=pick(Usage, body["usage"]) if "usage" in body else None,
            chunks=None if chunks is None else [pick(Chunk, chunk) for chunk in chunks],
            error=None if error is None else pick(PageError, error),
            raw=body,
        )


@dataclass
class JobWebhook:
    """What became of a job's webhook events."""

    delivered: int = 0
    failed: int = 0
    """Given up after their attempts, or dropped for the organization's bound."""
    pending: int = 0
    """Waiting for delivery, or being sent."""
    last_error: str | None = None
    """The last failure in a few words ("given up after 10 attempt(s): status 404")."""
    last_error_at: str | None = None


@dataclass
class Job:
    """A job's status, progress and credits, and one page of its results after the cursor."""

    id: str
    kind: str
    """``batch`` or ``crawl``."""
    status: str
    """``queued`` or ``running`` while pages are left; then ``completed``, ``cancelled``,
    ``failed`` (not one page done), ``quota_exceeded`` or ``failure_limit``."""
    progress: JobProgress
    credits: int
    created_at: str
    stop_reason: str | None = None
    finished_at: str | None = None
    expires_at: str | None = None
    """When the job and its results are deleted (set when it ends)."""
    results: list[JobResult] = field(default_factory=list)
    next_cursor: str | None = None
    """The cursor of the next call (the same when nothing new finished)."""
    has_more: bool = False
    """More results have finished already: read on from ``next_cursor``."""
    results_cut: str | None = None
    """Set when the server stopped this answer's results early; read on from next_cursor."""
    webhook: JobWebhook | None = None
    """What became of its webhook's events (None: the job has no webhook)."""
    request_id: str = ""
    warnings: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def ended(self) -> bool:
        """Whether the job's status has ended: no page of it starts any more."""
        return self.status in JOB_ENDED

    @property
    def settled(self) -> bool:
        """Whether the job has ended and no page of it is under way: its results are all
        readable (a cancelled job's pages under way finish and are recorded)."""
        return self.ended and self.progress.running == 0

    @classmethod
    def from_json(cls, body: dict[str, Any], request_id: str) -> Job:
        return pick(
            cls,
            body,
            progress=pick(JobProgress, body.get("progress")),
            results=[JobResult.from_json(result) for result in body.get("results", [])],
            webhook=pick(JobWebhook, body["webhook"]) if body.get("webhook") else None,
            request_id=request_id,
            warnings=list(body.get("warnings", [])),
            raw=body,
        )


class Polling:
    """The pauses of :meth:`Pagecast.wait_for_job` and :meth:`Pagecast.wait_for_screenshot`:
    the first of ``interval`` seconds, each
    next ``factor`` times longer up to ``max_interval``, none past ``timeout`` seconds from
    now."""

    FACTOR = 1.5

    def __init__(self, timeout: float, interval: float, max_interval: float) -> None:
        if timeout < 0 or interval <= 0 or max_interval < interval:
            raise ValueError(
                "waiting needs timeout >= 0 and 0 < poll_interval <= max_poll_interval"
            )
        self.deadline = time.monotonic() + timeout
        self.pause = interval
        self.max_interval = max_interval

    def over(self) -> bool:
        """Whether the time is up."""
        return time.monotonic() >= self.deadline

    def next_pause(self) -> float:
        """Seconds to sleep before the next poll (cut to the time left); the one after grows."""
        pause = max(0.0, min(self.pause, self.deadline - time.monotonic()))
        self.pause = min(self.pause * self.FACTOR, self.max_interval)
        return pause
