"""Webhooks: a job's events POSTed as JSON to the URL its owner gave, signed, retried, guarded.

Public API:

- :class:`WebhookSettings` (section ``webhooks``): time per attempt, attempts, backoff, the time
  one delivery may take in all, deliveries at once.
- :class:`WebhookSender` (fetcher, settings): build one per process, on the IOLoop.

  - ``await sender.deliver(url, secret, event, event_id=None) -> DeliveryResult``: POST
    ``event`` (a JSON-able dict) to ``url``; returns when it was delivered or given up. Never
    raises for the receiver's or the network's failures.
  - ``await sender.post(url, secret, body, event_id, attempt, owner=, deadline=) ->
    Attempt``: one POST, in ``owner``'s share of the slots (delivered, or whether another
    attempt may help); :mod:`services.webhook_outbox` delivers jobs' events so, one attempt
    per turn, keeping them in the store between attempts. ``sender.backoff(attempts)`` is the
    wait before the next attempt.
  - ``await sender.refusal(url) -> str | None``: why the SSRF guard would refuse ``url`` (or a
    malformed URL), None when it may be called: check a webhook URL when a job is submitted.

- :class:`EncodedEvent` and :func:`encoded` (event, raw members): an event's body made once,
  with members already JSON (a page's stored result) put in as they are.
- :func:`sign` (secret, body) -> str: the signature header's value, ``sha256=<hex>``.
- :func:`verify` (secret, body, header) -> bool: a receiver's check, in constant time.
- :class:`DeliveryResult`: ``delivered``, ``attempts``, ``status`` (the last answer's HTTP
  status, None when there was none), ``error`` (a :class:`~browser.fetch.client.FetchError` value,
  ``status`` for an answer outside 2xx, or None), ``event_id``, ``elapsed`` (seconds).

Each POST carries the body (UTF-8 JSON, compact) and the headers ``Content-Type:
application/json``, :data:`SIGNATURE_HEADER` (HMAC-SHA256 of the raw body with the secret, as
``sha256=<hex>``), :data:`EVENT_ID_HEADER` (the same for every attempt of one event: receivers
drop repeats by it), :data:`TIMESTAMP_HEADER` (Unix seconds of this attempt) and
:data:`ATTEMPT_HEADER` (1, 2, ...). Every attempt goes through the fetcher: the SSRF guard checks
the URL and pins the connection to the checked addresses, so a webhook can never reach an
internal address; redirects are not followed.

Each attempt is logged (the event's kind and id, the attempt, the status or the failure's name:
never the URL, which may carry a token, nor the secret), and each event's end is counted in
``pagecast_webhook_deliveries_total`` by outcome.

Any 2xx is a delivery. A timeout, a broken connection, a 408, a 429 or a 5xx is tried again after
``backoff * 2**(attempt-1)`` seconds (at most ``max_backoff``, with up to 20% jitter), up to
``attempts`` attempts and within ``max_seconds`` in all; a refused address, an invalid URL and
other answers are final at once.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import math
import random
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from browser.fair import FairSlots
from browser.fetch.client import Fetcher, FetchError, FetchResult
from browser.ssrf import URLRefusedError
from services.metrics import WEBHOOK_ATTEMPTS, WEBHOOK_DELIVERIES
from settings.fields import setting

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Pagecast-Signature"
EVENT_ID_HEADER = "X-Pagecast-Event-Id"
TIMESTAMP_HEADER = "X-Pagecast-Timestamp"
ATTEMPT_HEADER = "X-Pagecast-Delivery-Attempt"
USER_AGENT = "Pagecast-Webhook/1.0"

RETRIED_STATUSES = frozenset({408, 429})
"""Answers below 500 that are tried again (every 5xx is)."""
RETRIED_ERRORS = frozenset(
    {FetchError.timeout, FetchError.connect, FetchError.dns, FetchError.invalid_response}
)
"""Fetch failures that are tried again; the others (a refused address, an invalid URL, TLS,
an over-large answer) would fail the same way."""
JITTER = 0.2
RESERVED_SHARE = 0.125
"""Share of the delivery slots kept for organizations sending nothing at the moment: however
many organizations' receivers hang, another's first event goes at once."""


@dataclass
class WebhookSettings:
    """Webhook deliveries of jobs' events."""

    SECTION: ClassVar[str] = "webhooks"
    timeout: float = setting(10.0, "Seconds one POST to a webhook may take.", min=0.1, max=120)
    attempts: int = setting(
        10,
        "Attempts at one event before it is given up (the first included); with the default "
        "waits they span about max_seconds, so a receiver down for a few minutes loses nothing.",
        min=1,
        max=20,
    )
    backoff: float = setting(
        2.0,
        "Seconds before the second attempt; each later wait doubles (with some jitter).",
        min=0.01,
        max=600,
    )
    max_backoff: float = setting(60.0, "Longest wait between two attempts.", min=0.01, max=3600)
    max_seconds: float = setting(
        300.0,
        "Seconds one event's delivery may take in all, waits included; then it is given up.",
        min=1,
        max=86400,
    )
    concurrency: int = setting(
        32, "Webhook POSTs in flight at once, for the whole process.", min=1, max=1000
    )
    pause_pending_per_org: int = setting(
        100,
        "Events of one organization waiting in the store (those being sent included) from "
        "which its jobs with a webhook pause: their next pages wait until events are delivered "
        "or given up (attempts, max_seconds), so that a job runs at most about this far ahead "
        "of its receiver, and one that hangs or fails does not keep its jobs working; jobs "
        "without a webhook go on (0: jobs never pause).",
        min=0,
    )
    max_pending_per_org: int = setting(
        10_000,
        "Page events of one organization waiting in the store beyond which a page event is "
        "dropped (logged and counted as dropped; the job's results still hold the page): a "
        "last bound, as jobs pause long before it (pause_pending_per_org). A job's end event "
        "is always kept.",
        min=1,
    )
    max_pending_bytes_per_org: int = setting(
        100_000_000,
        "Bytes of page events one organization may have waiting in the store; beyond it a page "
        "event is dropped as above.",
        min=1_000,
    )
    org_concurrency: int = setting(
        8,
        "Most of those one organization's events hold at once (a hanging receiver holds at "
        "most these); a freed slot goes to the organization holding the fewest.",
        min=1,
        max=1000,
    )


@dataclass(frozen=True)
class Attempt:
    """One POST of an event: delivered (a 2xx), or whether another attempt may help (a timeout,
    a broken connection, a 408, a 429, a 5xx), the answer's status and the failure's name."""

    delivered: bool
    again: bool
    status: int | None = None
    error: str | None = None


@dataclass
class DeliveryResult:
    """How one event's delivery ended (see the module docstring)."""

    delivered: bool
    attempts: int
    event_id: str
    status: int | None = None
    error: str | None = None
    elapsed: float = 0.0


def sign(secret: str, body: bytes) -> str:
    """``sha256=`` and the hex HMAC-SHA256 of ``body`` with ``secret``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, header: str) -> bool:
    """Whether ``header`` is the signature of ``body`` with ``secret`` (constant-time)."""
    return hmac.compare_digest(sign(secret, body).encode(), header.strip().encode())


def encode_event(event: dict[str, Any]) -> bytes:
    """The body of an event: compact UTF-8 JSON."""
    return json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode()


@dataclass(frozen=True)
class EncodedEvent:
    """An event whose body is made: its kind (the body's ``event``), its id and the body (compact
    JSON, as :func:`encode_event` makes it)."""

    kind: str
    event_id: str
    body: str


def encoded(event: Mapping[str, Any], raw: Mapping[str, str] | None = None) -> EncodedEvent:
    """``event`` as sent, with the members of ``raw`` appended as they are (each a JSON text
    already made, such as a page's stored result: it is not encoded again)."""
    body = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    if raw:
        members = ",".join(f"{json.dumps(name)}:{text}" for name, text in raw.items())
        body = f"{body[:-1]},{members}}}" if len(body) > 2 else f"{{{members}}}"
    return EncodedEvent(str(event.get("event", "")), str(event.get("event_id", "")), body)


def attempt_log(kind: str, event_id: str, attempt: int, answer: Attempt) -> None:
    """Log one attempt at an event that was delivered or will be tried again."""
    if answer.delivered:
        log.info(
            "webhook %s event %s delivered: attempt %d, status %s",
            kind,
            event_id,
            attempt,
            answer.status,
        )
    else:
        log.info(
            "webhook %s event %s: attempt %d failed (%s); tried again later",
            kind,
            event_id,
            attempt,
            failure_text(answer.status, answer.error),
        )


def failure_text(status: int | None, error: str | None) -> str:
    """A failed attempt in a few words: ``status 503``, ``timeout``, ``connect``..."""
    if status is not None:
        return f"status {status}"
    return error or "no answer"


class WebhookSender:
    """Delivers events through the fetcher (see the module docstring)."""

    def __init__(self, fetcher: Fetcher, settings: WebhookSettings) -> None:
        self.fetcher = fetcher
        self.settings = settings
        self.reserve = math.ceil(settings.concurrency * RESERVED_SHARE)
        """Slots kept for organizations sending nothing at the moment."""
        self._slots = FairSlots(settings.concurrency, settings.org_concurrency, self.reserve)

    async def refusal(self, url: str) -> str | None:
        """Why ``url`` may not be a webhook (a message safe to show), or None."""
        try:
            await self.fetcher.policy.check(url, self.fetcher.resolver)
        except URLRefusedError as exc:
            return exc.message
        except Exception:  # the resolver's failures, whatever their type
            return "the webhook host could not be resolved"
        return None

    async def deliver(
        self,
        url: str,
        secret: str,
        event: dict[str, Any],
        event_id: str | None = None,
        *,
        owner: str = "",
    ) -> DeliveryResult:
        """POST ``event`` to ``url`` until it is delivered or given up, in ``owner``'s share of
        the delivery slots (the outbox of :mod:`services.webhook_outbox` makes one attempt per
        turn instead, keeping the event in the store between them)."""
        started = time.monotonic()
        deadline = started + self.settings.max_seconds
        result = DeliveryResult(False, 0, event_id or uuid.uuid4().hex)
        body = encode_event(event)
        while True:
            result.attempts += 1
            attempt = await self.post(
                url, secret, body, result.event_id, result.attempts, owner=owner, deadline=deadline
            )
            result.delivered, result.status, result.error = (
                attempt.delivered,
                attempt.status,
                attempt.error,
            )
            if attempt.delivered or not attempt.again:
                break
            if result.attempts >= self.settings.attempts or time.monotonic() >= deadline:
                break
            wait = self.backoff(result.attempts)
            if time.monotonic() + wait >= deadline:
                break
            await asyncio.sleep(wait)
        result.elapsed = time.monotonic() - started
        self.count(
            result.delivered,
            result.event_id,
            result.attempts,
            result.error,
            kind=str(event.get("event", "")),
            status=result.status,
        )
        return result

    def backoff(self, attempts: int) -> float:
        """Seconds before the attempt after ``attempts`` failed ones: doubling from
        ``backoff``, at most ``max_backoff``, with some jitter."""
        wait = min(self.settings.backoff * 2 ** (attempts - 1), self.settings.max_backoff)
        return float(wait * (1 + random.uniform(0, JITTER)))

    @staticmethod
    def count(
        delivered: bool,
        event_id: str,
        attempts: int,
        error: str | None,
        *,
        kind: str = "",
        status: int | None = None,
    ) -> None:
        """Count an event's delivery (or its giving up) in the metrics, and log a failure."""
        WEBHOOK_DELIVERIES.labels("delivered" if delivered else "failed").inc()
        if not delivered:
            log.warning(
                "webhook %s event %s given up after %d attempt(s): %s",
                kind or "-",
                event_id,
                attempts,
                failure_text(status, error),
            )

    async def post(
        self,
        url: str,
        secret: str,
        body: bytes,
        event_id: str,
        attempt: int,
        *,
        owner: str = "",
        deadline: float | None = None,
    ) -> Attempt:
        """One POST of ``body`` in one of ``owner``'s slots, within ``deadline`` (monotonic;
        ``timeout`` from now at most). Never raises for the receiver's or the network's
        failures."""
        deadline = deadline if deadline is not None else time.monotonic() + self.settings.timeout
        try:
            async with asyncio.timeout(max(deadline - time.monotonic(), 0)):
                await self._slots.acquire(owner)
        except TimeoutError:
            return Attempt(False, True, error=FetchError.timeout.value)
        try:
            headers = {
                "Content-Type": "application/json",
                "Accept": "*/*",
                "User-Agent": USER_AGENT,
                SIGNATURE_HEADER: sign(secret, body),
                EVENT_ID_HEADER: event_id,
                TIMESTAMP_HEADER: str(int(time.time())),
                ATTEMPT_HEADER: str(attempt),
            }
            WEBHOOK_ATTEMPTS.inc()
            limit = min(time.monotonic() + self.settings.timeout, deadline)
            answer = await self.fetcher.post(url, body, headers=headers, deadline=limit)
        finally:
            self._slots.release(owner)
        delivered = answer.status is not None and 200 <= answer.status < 300
        if delivered:
            return Attempt(True, False, answer.status)
        return Attempt(False, self._again(answer), answer.status, _error(answer))

    @staticmethod
    def _again(answer: FetchResult) -> bool:
        """Whether another attempt may help."""
        if answer.status is not None:
            return answer.status >= 500 or answer.status in RETRIED_STATUSES
        return answer.error in RETRIED_ERRORS


def _error(answer: FetchResult) -> str:
    if answer.status is not None:
        return "status"
    return answer.error.value if answer.error is not None else "status"
