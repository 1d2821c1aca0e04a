"""Screenshots captured in the background (``async=true``): accepted at once, captured by the
screenshot service as a synchronous request would be, their end kept in the store (so any
process answers their status) and told to their webhook through the jobs' outbox (the same
signing, event ids, retries and address rules).

A capture is accepted while its organization has fewer than ``max_pending`` captures pending
(:class:`DeferredError` ``TOO_MANY_PENDING`` past it). It is charged once, when it ends, what the
synchronous request would have been charged (nothing when it failed). A capture still pending
``max_seconds`` after it was accepted was lost with the process running it: it is told as
failed and no longer counts against the bound.
"""

from __future__ import annotations

import asyncio
import enum
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any, ClassVar, Protocol

from browser.farm.types import FarmErrorKind
from services.failure import ServiceError
from services.screenshots.request import ScreenshotError, ScreenshotRequest
from services.screenshots.service import ScreenshotService, Shot
from services.webhook_outbox import WebhookOutbox
from settings.fields import setting
from store import async_captures as rows
from store.db import write_transaction
from store.store import Store, StoreUnavailable

log = logging.getLogger(__name__)

EVENT_KIND = "screenshot"
"""The ``event`` of a background capture's webhook event."""


@dataclass
class AsyncCaptureSettings:
    """Screenshots captured in the background (``async=true``)."""

    SECTION: ClassVar[str] = "async_captures"
    max_pending: int = setting(
        10,
        "Background screenshot captures one organization may have pending at once; beyond, "
        "async=true is answered 429 (rate_limited).",
        min=1,
        max=10_000,
    )
    max_seconds: float = setting(
        300.0,
        "Seconds a background capture may take in all; then it fails (capture_failed). A "
        "capture still pending this long after it was accepted was lost with its server and "
        "is told as failed.",
        min=10,
        max=3600,
    )


class DeferredFailure(enum.Enum):
    """Why a background capture is refused, or cannot be read."""

    TOO_MANY_PENDING = "too_many_pending"
    WEBHOOK_REFUSED = "webhook_refused"
    NOT_FOUND = "not_found"


class DeferredError(ServiceError):
    """A background capture refused or not found; ``message`` is safe to show."""


class CaptureAnswers(Protocol):
    """How a capture's end is told, as the synchronous endpoint would answer it (the API's
    shapes, given by the handlers' layer)."""

    def result(self, shot: Shot) -> dict[str, Any]:
        """The JSON result of a capture that succeeded."""
        ...

    def error(self, exc: BaseException, request_id: str) -> dict[str, Any]:
        """The error body of a capture that failed, in the endpoint's error shape."""
        ...


@dataclass(frozen=True)
class Accepted:
    """A background capture accepted: its id and the secret its webhook events are signed
    with (None without a webhook)."""

    id: str
    secret: str | None


@dataclass(frozen=True)
class CaptureStatus:
    """A background capture's state: ``pending``, ``done`` (``answer`` holds the result) or
    ``failed`` (``answer`` holds the error)."""

    id: str
    status: str
    answer: dict[str, Any] | None
    created_at: datetime
    ended_at: datetime | None


class DeferredCaptures:
    """Background captures over the screenshot service, the store and the webhook outbox
    (:meth:`close` at shutdown, before the outbox closes)."""

    def __init__(
        self,
        store: Store,
        *,
        screenshots: Callable[[], ScreenshotService],
        outbox: WebhookOutbox,
        webhook_check: Callable[[str], Awaitable[str | None]],
        charge: Callable[[str, str, int], None],
        answers: CaptureAnswers,
        settings: AsyncCaptureSettings,
    ) -> None:
        self.store = store
        self.screenshots = screenshots
        self.outbox = outbox
        self.webhook_check = webhook_check
        self.charge = charge
        self.answers = answers
        self.settings = settings
        self._tasks: set[asyncio.Task[None]] = set()

    async def submit(
        self, request: ScreenshotRequest, webhook_url: str | None, request_id: str
    ) -> Accepted:
        """Accept ``request`` for a background capture (its options checked first, and its
        webhook against the SSRF guard), and start it."""
        self.screenshots().check(request)
        if webhook_url:
            refusal = await self.webhook_check(webhook_url)
            if refusal is not None:
                raise DeferredError(DeferredFailure.WEBHOOK_REFUSED, f"webhook_url: {refusal}")
        capture_id = secrets.token_hex(16)
        since = datetime.now(UTC) - timedelta(seconds=self.settings.max_seconds)
        work = partial(
            rows.add_pending,
            capture_id=capture_id,
            org_id=request.org_id,
            max_pending=self.settings.max_pending,
            since=since,
        )
        if not await self.store.run(work, "async capture", write=True):
            raise DeferredError(
                DeferredFailure.TOO_MANY_PENDING,
                f"this organization has {self.settings.max_pending} background captures "
                "pending; wait for one to end",
                retry_after=5,
            )
        secret = secrets.token_urlsafe(32) if webhook_url else None
        task = asyncio.get_running_loop().create_task(
            self._run(capture_id, request, webhook_url, secret, request_id)
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return Accepted(capture_id, secret)

    async def status(self, org_id: int, capture_id: str) -> CaptureStatus:
        """``org_id``'s capture ``capture_id`` (:class:`DeferredError` ``NOT_FOUND`` when it has
        none of that id)."""
        work = partial(rows.read, capture_id=capture_id, org_id=org_id)
        found = await self.store.run(work, "async capture")
        if found is None:
            raise DeferredError(DeferredFailure.NOT_FOUND, "no such screenshot request")
        answer = json.loads(found.answer) if found.answer else None
        lost = datetime.now(UTC) - found.created_at > timedelta(seconds=self.settings.max_seconds)
        if found.status == rows.PENDING and lost:
            gone = ScreenshotError(
                FarmErrorKind.capture_failed, "the capture was lost: its server stopped"
            )
            answer = self.answers.error(gone, capture_id)
            return CaptureStatus(found.id, rows.FAILED, answer, found.created_at, None)
        return CaptureStatus(found.id, found.status, answer, found.created_at, found.ended_at)

    async def close(self) -> None:
        """Stop the captures in flight (their rows stay pending until they count as lost)."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=5)

    async def _run(
        self,
        capture_id: str,
        request: ScreenshotRequest,
        webhook_url: str | None,
        secret: str | None,
        request_id: str,
    ) -> None:
        """Capture, record the end, charge it and tell the webhook."""
        try:
            async with asyncio.timeout(self.settings.max_seconds):
                shot = await self.screenshots().take(request)
            status, answer, credits = rows.DONE, self.answers.result(shot), shot.credits
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            late = ScreenshotError(
                FarmErrorKind.capture_failed,
                f"the capture took more than {self.settings.max_seconds:g} seconds",
            )
            status, answer, credits = rows.FAILED, self.answers.error(late, request_id), 0
        except Exception as exc:  # every failure is told, as the synchronous answer would be
            if not isinstance(exc, ServiceError | StoreUnavailable):
                log.exception("background capture %s failed unexpectedly", capture_id)
            status, answer, credits = rows.FAILED, self.answers.error(exc, request_id), 0
        body = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
        event = None
        if webhook_url and secret:
            head = {"event": EVENT_KIND, "event_id": secrets.token_hex(16)}
            event = {**head, **told(capture_id, status, answer)}

        def finish(db: Any) -> list[str]:
            # The capture's end and its event in one transaction: both or neither.
            with write_transaction(db):
                rows.finish(db, capture_id=capture_id, status=status, answer=body)
                if event is None or not webhook_url or not secret:
                    return []
                return self.outbox.write_one(
                    db,
                    org=request.org,
                    ref_id=capture_id,
                    url=webhook_url,
                    secret=secret,
                    event=event,
                )

        try:
            dropped = await self.store.run(finish, "async capture end", write=True)
            self.outbox.wake(dropped)
        except StoreUnavailable:
            log.warning("background capture %s: its end could not be stored", capture_id)
        self.charge(request.org, "screenshot", credits)
        log.info("background capture %s %s", capture_id, status)


def told(capture_id: str, status: str, answer: dict[str, Any] | None) -> dict[str, Any]:
    """How a capture's state is told (by its status and its webhook event): its id and status,
    then its result under ``result`` when done, or the error body's members (``success``,
    ``error``, ``request_id``) when failed."""
    body: dict[str, Any] = {"id": capture_id, "status": status}
    if status == rows.DONE:
        body["result"] = answer
    elif answer is not None:
        body.update(answer)
    return body
