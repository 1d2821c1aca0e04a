"""One page of a job worked to its outcome: the page through the Markdown service with the job's
stored options, the answer (or the error, in the Markdown endpoint's shape) as it is stored and
sent to the webhook, and the links a crawl queues from it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import peewee

from services.accounts import AccountService
from services.failure import ServiceError
from services.jobs.work import Discovery, JobEvents, PageErrors, ended_event
from services.markdown import (
    MarkdownAnswer,
    MarkdownError,
    MarkdownFailure,
    MarkdownOptions,
    MarkdownRequest,
    MarkdownService,
)
from services.pool import ConversionTimeoutError, PoolBusyError
from services.webhooks import EncodedEvent, encoded
from store.job_types import ActiveJob, Claim, NewPage, Outcome, Recorded

log = logging.getLogger(__name__)


class PageWork:
    """How the runner turns a claimed page into its outcome."""

    def __init__(
        self,
        markdown: Callable[[bool], MarkdownService],
        errors: PageErrors,
        accounts: AccountService,
        discovery: Discovery | None = None,
    ) -> None:
        self._markdown = markdown
        self.errors = errors
        self.accounts = accounts
        self.discovery = discovery

    async def outcome(
        self, claim: Claim, job: ActiveJob, small: bool = False
    ) -> tuple[Outcome | None, list[NewPage]]:
        """The page's outcome and the links to queue; (None, []) when the conversion workers
        stayed busy (the page goes back to the queue). A ``small`` job's page is converted by
        the Markdown service ``markdown(True)`` gives (the requests' workers)."""
        try:
            request = MarkdownRequest(
                claim.url,
                job.org,
                self.accounts.plan_tiers(job.plan),
                MarkdownOptions.from_stored(job.options.get("markdown", {})),
            )
            answer: MarkdownAnswer = await self._markdown(small).run(request)
        except MarkdownError as exc:
            if exc.failure is MarkdownFailure.BUSY:
                return None, []
            return self._failed(claim, exc), []
        except Exception as exc:
            return self._failed(claim, exc), []
        result = answer.result
        if result.blocked:
            blocked = {"url": claim.url, "error": self.errors.blocked(result.ai_safety)}
            return Outcome(False, blocked, kind="ai_blocked"), []
        fetch = answer.got.fetch
        body: dict[str, Any] = {
            "url": claim.url,
            "final_url": fetch.final_url,
            "status_code": fetch.status,
            "markdown": result.markdown,
            "metadata": result.metadata,
            "usage": {
                "character_count": result.character_count,
                "estimated_token_count": result.estimated_tokens,
                "truncated": result.truncated,
                "comment_count": result.comment_count,
            },
        }
        if result.chunks is not None:
            body["chunks"] = result.chunks
        links: list[NewPage] = []
        if self.discovery is not None and job.kind == "crawl":
            try:
                links = await self.discovery.links(job, claim, answer)
            except PoolBusyError:
                return None, []  # the workers stayed busy: the page again later, links and all
            except ConversionTimeoutError:
                log.warning("jobs: links of %s not read in time; none followed", shown(claim.url))
        return Outcome(True, body, answer.credits), links

    def _failed(self, claim: Claim, exc: BaseException) -> Outcome:
        error, known = self.errors.error(exc)
        if not known:
            log.error("jobs: page %s failed unexpectedly", shown(claim.url), exc_info=exc)
        return Outcome(False, {"url": claim.url, "error": error}, kind=failure_kind(exc))


def failure_kind(exc: BaseException) -> str:
    """A page's failure in a word, for the logs: the service's failure kind (``timeout``,
    ``http_error``...), else the exception's class."""
    if isinstance(exc, ServiceError):
        return str(getattr(exc.failure, "value", exc.failure))
    return type(exc).__name__


def shown(url: str) -> str:
    """``url`` for a log line: scheme, host and path only (a user, a password or a query may
    carry a secret), at most 200 characters."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return "(malformed URL)"
    query = "?..." if parts.query else ""
    return f"{parts.scheme}://{host}{port}{parts.path}{query}"[:200]


EVENT_FIELDS = ("url", "final_url", "status_code", "metadata", "error")
"""What a page event keeps of a result too large to carry: where the page was and what it is."""


def page_event(
    job: ActiveJob, recorded: Recorded, outcome: Outcome, max_result_bytes: int
) -> EncodedEvent:
    """The webhook event of a page of ``job`` recorded as ``recorded``: with its whole result
    when that is at most ``max_result_bytes`` of JSON; else with the result's URL, metadata or
    error, and ``result_url``, the job's results from this page on (``limit=1``: this one).
    The result's JSON is the one the store keeps (:attr:`Outcome.result_json`), not made
    again."""
    event: dict[str, Any] = {
        "event": "page",
        "event_id": f"{job.id}-{recorded.seq}",
        "job_id": job.id,
        "seq": recorded.seq,
        "status": "done" if outcome.ok else "failed",
        "credits": outcome.credits if outcome.ok else 0,
    }
    size = outcome.result_bytes
    if size <= max_result_bytes:
        return encoded(event, {"result": outcome.result_json})
    kept = {name: outcome.result[name] for name in EVENT_FIELDS if name in outcome.result}
    event.update(
        result=kept,
        result_omitted=True,
        result_bytes=size,
        result_url=f"/api/3.0/jobs/{job.id}?cursor={recorded.seq - 1}&limit=1",
    )
    return encoded(event)


@dataclass
class EventWriter:
    """What stores the webhook events of a page of ``job`` (and the job's end event when the
    page ended it) in the store's transaction that records the page, in the store's thread;
    ``dropped`` collects the ids of those the organization's bound left out, to be told to
    ``events`` after the commit."""

    events: JobEvents
    job: ActiveJob
    max_result_bytes: int
    dropped: list[str] = field(default_factory=list)

    def page(self, outcome: Outcome) -> Callable[[peewee.Database, Recorded], None]:
        """What :func:`store.jobs.record_page` calls for a page worked to ``outcome``."""
        return lambda db, recorded: self.write(db, outcome, recorded)

    def write(self, db: peewee.Database, outcome: Outcome, recorded: Recorded) -> None:
        """Store the events of a page recorded as ``recorded`` (also what
        :func:`store.jobs.claim_page` calls for a page it fails as abandoned)."""
        written: list[dict[str, Any] | EncodedEvent] = [
            page_event(self.job, recorded, outcome, self.max_result_bytes)
        ]
        if recorded.ended is not None:
            written.append(ended_event(self.job.id, recorded.ended))
        self.dropped.extend(self.events.write(db, self.job, written))
