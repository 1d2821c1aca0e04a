"""What the job runner is given: how a failed page is told (:class:`PageErrors`, the API's error
table, from the composition root), what a crawl adds (:class:`Discovery`), and where events go
(:data:`Notify`, the webhooks)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from services.markdown import MarkdownAnswer
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


Notify = Callable[[ActiveJob, dict[str, Any]], Awaitable[None]]
"""Awaited with a job and an event (a page done, the job ended) when the job has a webhook: the
event is stored for delivery (:mod:`services.webhook_outbox`)."""


def ended_event(job_id: str, status: str) -> dict[str, Any]:
    """The webhook event of a job that ended as ``status``."""
    return {"event": "job", "event_id": f"{job_id}-end", "job_id": job_id, "status": status}
