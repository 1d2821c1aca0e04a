"""Jobs' webhook events kept in the store until delivered: the outbox.

A job's event is stored with what it tells, in the same transaction (:meth:`WebhookOutbox.write`,
the outbox's one way in), not held in memory. An organization with ``pause_pending_per_org``
events waiting is *behind* (:meth:`WebhookOutbox.behind`): its jobs with a webhook start no page
until events are delivered or given up, so that a receiver that hangs or fails holds its jobs
back instead of losing their events. Beyond that, a page event is stored only while its
organization has fewer than ``max_pending_per_org`` events and ``max_pending_bytes_per_org`` of
them waiting, checked under a lock so that concurrent writers never pass the bound together
(beyond, it is dropped, logged and counted; the job's results still hold the page), a job's end
event always.
Each process's sender loop claims due events under a lease, organization by organization, at
most ``org_concurrency`` of one organization's at once, and makes one attempt each
(:meth:`~services.webhooks.WebhookSender.post`, in the organization's share of the delivery
slots). A delivered event is deleted; a failed attempt that may succeed later puts the event
back, due after the backoff; an event out of attempts (``attempts``) or of time
(``max_seconds`` since it was stored) is given up and deleted. The events of a process that
stopped or died are delivered by another (or the next start) once their lease ends; a receiver
drops repeats by ``X-Pagecast-Event-Id``.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import secrets
import socket
import time
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any

import peewee

from services.metrics import WEBHOOK_DELIVERIES
from services.webhooks import (
    EncodedEvent,
    WebhookSender,
    WebhookSettings,
    attempt_log,
    encoded,
    failure_text,
)
from store import webhook_events as rows
from store.job_types import ActiveJob
from store.models import as_utc
from store.periodic import repeat
from store.store import Store, StoreUnavailable
from store.webhook_events import NewEvent, PendingEvent

log = logging.getLogger(__name__)

POLL_SECONDS = 0.5
"""How often an idle sender loop looks for due events (a stored event wakes it at once)."""
BEHIND_SECONDS = 0.5
"""How long the organizations found behind are trusted before the store is counted again."""
DROPPED = "dropped: the organization had as many events waiting as its bound allows"
"""A page event not stored, as its job tells it."""
LEASE_MARGIN_SECONDS = 60.0
"""A claimed event stays this process's own for twice ``webhooks.timeout`` (a wait for a slot,
then the POST) and this much more (the store's writes)."""


class WebhookOutbox:
    """The store's webhook events and this process's sender loop (:meth:`start` on the IOLoop,
    :meth:`close` at shutdown, before the store closes)."""

    def __init__(self, store: Store, sender: WebhookSender, settings: WebhookSettings) -> None:
        self.store = store
        self.sender = sender
        self.settings = settings
        self.owner = f"{socket.gethostname()[:32]}-{os.getpid()}-{secrets.token_hex(4)}"
        self._flying: collections.Counter[str] = collections.Counter()
        self._tasks: dict[tuple[int, str], asyncio.Task[None]] = {}
        """The events being sent here, by their row's id and ``event_id``: a deleted row's id
        comes back on SQLite, and a new event under it must not be taken for one being sent."""
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._behind: frozenset[str] = frozenset()
        self._behind_read = -BEHIND_SECONDS

    @staticmethod
    def _new(
        org: str, job_id: str, url: str, secret: str, event: dict[str, Any] | EncodedEvent
    ) -> NewEvent:
        made = event if isinstance(event, EncodedEvent) else encoded(event)
        return NewEvent(org, job_id, made.event_id, made.kind, url, secret, made.body)

    def _bounds(self, event: NewEvent) -> dict[str, Any]:
        """The organization's bounds on waiting events; a page event is held to them, a job's
        end event always kept."""
        return {
            "max_count": self.settings.max_pending_per_org,
            "max_bytes": self.settings.max_pending_bytes_per_org,
            "bounded": event.kind == "page",
        }

    def _dropped(self, event_ids: Iterable[str]) -> None:
        for event_id in event_ids:
            WEBHOOK_DELIVERIES.labels("dropped").inc()
            log.warning(
                "webhook event %s dropped: its organization has %d events or %d bytes waiting",
                event_id,
                self.settings.max_pending_per_org,
                self.settings.max_pending_bytes_per_org,
            )

    def write(
        self,
        db: peewee.Database,
        job: ActiveJob,
        events: Sequence[dict[str, Any] | EncodedEvent],
    ) -> list[str]:
        """Store ``events`` of ``job`` within the caller's write transaction (the one that
        records the page or the end they tell); nothing when the job has no webhook. Runs in
        the store's thread. Answers the ids of the events dropped for their organization's
        bound: give them to :meth:`wake` after the commit (a transaction that rolls back
        dropped nothing)."""
        if not (job.webhook_url and job.webhook_secret):
            return []
        dropped = []
        for event in events:
            new = self._new(job.org, job.id, job.webhook_url, job.webhook_secret, event)
            if not rows.insert_event(db, new, **self._bounds(new)):
                dropped.append(new.event_id)
                rows.count_outcome(db, job_id=job.id, failure=DROPPED)
        return dropped

    def write_one(
        self,
        db: peewee.Database,
        *,
        org: str,
        ref_id: str,
        url: str,
        secret: str,
        event: dict[str, Any],
    ) -> list[str]:
        """Store one event of something other than a job (a background capture's end, under its
        id ``ref_id``) within the caller's write transaction, as :meth:`write` does."""
        new = self._new(org, ref_id, url, secret, event)
        return [] if rows.insert_event(db, new, **self._bounds(new)) else [new.event_id]

    async def behind(self) -> frozenset[str]:
        """The organizations whose jobs with a webhook wait: those with at least
        ``pause_pending_per_org`` events waiting in the store (none when it is 0), counted at
        most every :data:`BEHIND_SECONDS`. An organization's start and end of waiting are
        logged."""
        limit = self.settings.pause_pending_per_org
        if limit <= 0:
            return frozenset()
        if time.monotonic() - self._behind_read < BEHIND_SECONDS:
            return self._behind
        self._behind_read = time.monotonic()
        work = partial(rows.orgs_waiting, at_least=limit)
        waiting = await self.store.run(work, "webhook backlog")
        for org in sorted(waiting.keys() - self._behind):
            log.warning(
                "webhook events of %s: %d waiting; its jobs with a webhook wait until they are "
                "delivered or given up",
                org,
                waiting[org],
            )
        for org in sorted(self._behind - waiting.keys()):
            log.info("webhook events of %s: fewer than %d waiting; its jobs go on", org, limit)
        self._behind = frozenset(waiting)
        return self._behind

    def wake(self, dropped: Sequence[str] = ()) -> None:
        """After the commit that stored events: count and log those ``dropped``
        (:meth:`write`'s answer), and wake the sender loop."""
        self._dropped(dropped)
        self._wake.set()

    # -- the sender loop ---------------------------------------------------------------------

    def start(self) -> None:
        """Start this process's sender loop."""
        self._wake = asyncio.Event()
        self._loop_task = asyncio.get_running_loop().create_task(
            repeat(POLL_SECONDS, self._turn, "webhook outbox", wake=self._wake)
        )

    async def close(self, grace: float = 5.0) -> None:
        """Stop claiming; give the attempts in flight ``grace`` seconds, then give their events
        back to the store for another process or the next start."""
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop_task
            self._loop_task = None
        pending = list(self._tasks.values())
        if not pending:
            return
        _, late = await asyncio.wait(pending, timeout=grace)
        unsent = [row for (row, _), task in self._tasks.items() if task in late]
        for task in late:
            task.cancel()
        if late:
            await asyncio.wait(late, timeout=1)
        if unsent:
            release = partial(rows.release_events, event_ids=unsent, owner=self.owner)
            with contextlib.suppress(StoreUnavailable):
                await self.store.run(release, "webhook release", write=True)

    async def _turn(self) -> None:
        """Claim the due events each organization may send now, and send them."""
        due = await self.store.run(rows.due_orgs, "webhook events")
        room = self.settings.concurrency - len(self._tasks)
        # The organizations sending the fewest first, so that one's backlog waits its turn; one
        # sending nothing may also use the slots the sender keeps for such.
        for org in sorted(due, key=lambda name: self._flying[name]):
            allowed = room + (self.sender.reserve if not self._flying[org] else 0)
            free = min(self.settings.org_concurrency - self._flying[org], allowed, due[org])
            if free <= 0:
                continue
            work = partial(
                rows.claim_events,
                org=org,
                owner=self.owner,
                lease_seconds=2 * self.settings.timeout + LEASE_MARGIN_SECONDS,
                limit=free,
            )
            for event in await self.store.run(work, "webhook claim", write=True):
                if (event.id, event.event_id) in self._tasks:
                    continue  # still being sent here (its lease ran out meanwhile)
                self._flying[org] += 1
                room -= 1
                task = asyncio.get_running_loop().create_task(self._send(event))
                self._tasks[event.id, event.event_id] = task

    async def _send(self, event: PendingEvent) -> None:
        tried = event.attempts + 1
        try:
            attempt = await self.sender.post(
                event.url,
                event.secret,
                event.body.encode(),
                event.event_id,
                event.attempts + 1,
                owner=event.org,
            )
            # A job's end event waited behind its job's other events: its time runs from its
            # first attempt.
            first_end = event.kind == rows.END_KIND and event.attempts == 0
            age = (datetime.now(UTC) - as_utc(event.created_at)).total_seconds()
            age = 0.0 if first_end else age
            wait = self.sender.backoff(tried)
            again = (
                attempt.again
                and tried < self.settings.attempts
                and age + wait < self.settings.max_seconds
            )
            if attempt.delivered or again:
                attempt_log(event.kind, event.event_id, tried, attempt)
            if again:
                retry = partial(
                    rows.retry_event,
                    event_id=event.id,
                    owner=self.owner,
                    after=wait,
                    restart=first_end,
                )
                await self.store.run(retry, "webhook retry", write=True)
                asyncio.get_running_loop().call_later(wait, self._wake.set)
                return
            self.sender.count(
                attempt.delivered,
                event.event_id,
                tried,
                attempt.error,
                kind=event.kind,
                status=attempt.status,
            )
            failure = None
            if not attempt.delivered:
                said = failure_text(attempt.status, attempt.error)
                failure = f"given up after {tried} attempt(s): {said}"
            done = partial(
                rows.delete_event, event_id=event.id, job_id=event.job_id, failure=failure
            )
            await self.store.run(done, "webhook done")
        except StoreUnavailable:
            log.warning("webhook event %s: the database is away; its lease will end", event.id)
        except Exception:
            log.exception("webhook event %s failed unexpectedly", event.event_id)
            await self._retry_after_failure(event, tried)
        finally:
            self._tasks.pop((event.id, event.event_id), None)
            self._flying[event.org] -= 1
            if self._flying[event.org] <= 0:
                del self._flying[event.org]
            self._wake.set()

    async def _retry_after_failure(self, event: PendingEvent, tried: int) -> None:
        """An attempt that failed in Pagecast itself counts as an attempt: the event is tried
        again after the backoff, or given up when out of attempts."""
        with contextlib.suppress(StoreUnavailable):
            if tried < self.settings.attempts:
                retry = partial(
                    rows.retry_event,
                    event_id=event.id,
                    owner=self.owner,
                    after=self.sender.backoff(tried),
                )
                await self.store.run(retry, "webhook retry", write=True)
            else:
                self.sender.count(False, event.event_id, tried, "internal", kind=event.kind)
                done = partial(
                    rows.delete_event,
                    event_id=event.id,
                    job_id=event.job_id,
                    failure=f"given up after {tried} attempt(s): an error in Pagecast",
                )
                await self.store.run(done, "webhook done")
