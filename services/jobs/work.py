"""What the job runner is given: how a failed page is told (:class:`PageErrors`, the API's error
table, from the composition root), what a crawl adds (:class:`Discovery`), and where events go
(:class:`JobEvents`, the webhooks)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import peewee

from services.markdown import MarkdownAnswer
from services.webhooks import EncodedEvent
from store.job_types import ActiveJob, Claim, NewPage

FAILED_PAGES = "job_failed_pages"
"""The usage endpoint each failed job page is counted under, for the plan's
``monthly_failed_pages`` (the page itself is counted, free, under its job's kind)."""


class PageErrors(Protocol):
    """How a failed job page is told, in the Markdown endpoint's error shape (given by the
    composition root: the API's error table lives with the handlers)."""

    def error(self, exc: BaseException) -> tuple[dict[str, Any], bool]:
        """The Markdown error shape's ``error`` object for ``exc``, and whether it is a known
        failure (an unknown one is logged with its traceback)."""
        ...

    def blocked(self, ai_safety: Mapping[str, Any] | None) -> dict[str, Any]:
        """The ``error`` object of a page blocked for its prompt-injection risk."""
        ...


class Discovery(Protocol):
    """What a crawl adds: the links of a page that its scope admits, and a host's delay."""

    async def links(self, job: ActiveJob, claim: Claim, answer: MarkdownAnswer) -> list[NewPage]:
        """The pages to queue from ``answer`` (a page of ``job`` at ``claim.depth``)."""
        ...

    async def delay(self, job: ActiveJob, host: str) -> float:
        """Seconds between two fetches of ``job`` from ``host`` (robots.txt's Crawl-delay)."""
        ...


class JobEvents(Protocol):
    """Where a job's webhook events go (:mod:`services.webhook_outbox`): written in the store's
    transaction that records what they tell, so that a page or an end is never kept without its
    event, nor an event without what it tells."""

    def write(
        self,
        db: peewee.Database,
        job: ActiveJob,
        events: Sequence[dict[str, Any] | EncodedEvent],
    ) -> list[str]:
        """Store ``events`` of ``job`` for delivery (nothing when the job has no webhook),
        within the caller's transaction: runs in the store's thread. Answers the ids of the
        events dropped (their organization's bound), to be given to :meth:`wake`."""
        ...

    def wake(self, dropped: Sequence[str] = ()) -> None:
        """Tell the sender that events were stored, and count those ``dropped`` (on the IOLoop,
        after the commit: a transaction that rolled back dropped nothing)."""
        ...

    async def behind(self) -> frozenset[str]:
        """The organizations whose events wait in such number that their jobs with a webhook
        start no page for now (their receiver is behind)."""
        ...


def ended_event(job_id: str, status: str) -> dict[str, Any]:
    """The webhook event of a job that ended as ``status``."""
    return {"event": "job", "event_id": f"{job_id}-end", "job_id": job_id, "status": status}


def end_writer(
    events: JobEvents | None, job: ActiveJob | None, status: str
) -> Callable[[peewee.Database], None] | None:
    """What :func:`store.job_stops.stop_job` calls in its transaction to store the end event of
    ``job`` stopped as ``status``; None when there is nothing to store."""
    if events is None or job is None or not job.webhook_url:
        return None

    def write(db: peewee.Database) -> None:
        events.write(db, job, [ended_event(job.id, status)])  # an end event is never dropped

    return write
