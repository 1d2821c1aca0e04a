"""The webhook sender against a real receiver on 127.0.0.1: signed deliveries, retries with
backoff for failures worth retrying, final answers at once, no redirect followed, and refused
addresses never called."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import tornado.web

from app.config import Settings
from browser.fetch.client import Fetcher
from services.webhooks import (
    ATTEMPT_HEADER,
    EVENT_ID_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    WebhookSender,
    WebhookSettings,
    sign,
    verify,
)
from tests.origin import Origin, serve

SECRET = "whsec_test_0123456789"


@dataclass
class Received:
    """What the receiver saw, per path."""

    calls: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)
    plans: dict[str, list[int]] = field(default_factory=dict)
    """Statuses to answer on a path, in turn (the last one repeats); 200 when none."""

    def on(self, path: str) -> list[tuple[dict[str, str], bytes]]:
        return [(headers, body) for where, headers, body in self.calls if where == path]


class _Receiver(tornado.web.RequestHandler):
    def initialize(self, received: Received) -> None:
        self.received = received

    async def post(self, path: str) -> None:
        self.received.calls.append((path, dict(self.request.headers), self.request.body))
        if path == "slow":
            await asyncio.sleep(2)
        plan = self.received.plans.get(path, [200])
        status = plan.pop(0) if len(plan) > 1 else plan[0]
        if status in (301, 302):
            self.redirect("/elsewhere", status=status)
            return
        self.set_status(status)
        self.finish("ok")


@pytest.fixture
def received() -> Received:
    return Received()


@pytest.fixture
def receiver(io_loop: Any, received: Received) -> Iterator[Origin]:
    origin = serve(tornado.web.Application([(r"/(.*)", _Receiver, {"received": received})]))
    yield origin
    io_loop.run_sync(origin.close)


@pytest.fixture
def fetcher(io_loop: Any, settings: Settings, receiver: Origin) -> Iterator[Fetcher]:
    """Closed before the receiver, so no POST is left waiting on it."""
    fetcher = Fetcher(settings.fetch)
    yield fetcher
    fetcher.close()


def quick(**overrides: Any) -> WebhookSettings:
    return WebhookSettings(**{"backoff": 0.05, "max_backoff": 0.2, "timeout": 2.0, **overrides})


@pytest.mark.gen_test(timeout=20)
async def test_a_delivery_is_signed_and_described(
    fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    sender = WebhookSender(fetcher, quick())
    event = {"type": "page", "job_id": "j1", "url": "https://e.org/é", "status": "done"}
    started = time.time()
    result = await sender.deliver(receiver.url("/hook"), SECRET, event, event_id="evt-1")
    assert (result.delivered, result.attempts, result.status, result.error) == (
        True,
        1,
        200,
        None,
    )
    [(headers, body)] = received.on("hook")
    assert json.loads(body) == event
    assert verify(SECRET, body, headers[SIGNATURE_HEADER])
    assert headers[SIGNATURE_HEADER] == sign(SECRET, body) and sign(SECRET, body).startswith(
        "sha256="
    )
    assert not verify("another secret", body, headers[SIGNATURE_HEADER])
    assert not verify(SECRET, body + b" ", headers[SIGNATURE_HEADER])
    assert headers[EVENT_ID_HEADER] == "evt-1" and headers[ATTEMPT_HEADER] == "1"
    assert abs(int(headers[TIMESTAMP_HEADER]) - started) <= 2
    assert headers["Content-Type"] == "application/json"
    assert headers["User-Agent"].startswith("Pagecast-Webhook/")


@pytest.mark.gen_test(timeout=20)
async def test_failures_worth_retrying_are_retried_with_backoff(
    fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    received.plans["flaky"] = [503, 429, 200]
    sender = WebhookSender(fetcher, quick(backoff=0.1))
    result = await sender.deliver(receiver.url("/flaky"), SECRET, {"type": "completed"})
    assert result.delivered and result.attempts == 3 and result.status == 200
    calls = received.on("flaky")
    assert [headers[ATTEMPT_HEADER] for headers, _ in calls] == ["1", "2", "3"]
    assert len({headers[EVENT_ID_HEADER] for headers, _ in calls}) == 1, "one event id"
    assert len({body for _, body in calls}) == 1
    assert all(verify(SECRET, body, headers[SIGNATURE_HEADER]) for headers, body in calls)
    assert result.elapsed >= 0.1 + 0.2, "waits of backoff, then twice as long"

    received.plans["down"] = [500]
    given_up = await sender.deliver(receiver.url("/down"), SECRET, {"type": "page"})
    assert (given_up.delivered, given_up.attempts, given_up.error) == (False, 5, "status")
    assert len(received.on("down")) == 5


@pytest.mark.gen_test(timeout=20)
async def test_final_answers_are_not_retried_and_redirects_not_followed(
    fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    sender = WebhookSender(fetcher, quick())
    received.plans["gone"] = [410]
    gone = await sender.deliver(receiver.url("/gone"), SECRET, {"type": "page"})
    assert (gone.delivered, gone.attempts, gone.status) == (False, 1, 410)
    received.plans["moved"] = [302]
    moved = await sender.deliver(receiver.url("/moved"), SECRET, {"type": "page"})
    assert (moved.delivered, moved.attempts, moved.status) == (False, 1, 302)
    assert not received.on("elsewhere")


@pytest.mark.gen_test(timeout=20)
async def test_a_slow_receiver_is_bounded(
    fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    sender = WebhookSender(fetcher, quick(timeout=0.3, attempts=2))
    result = await sender.deliver(receiver.url("/slow"), SECRET, {"type": "page"})
    assert (result.delivered, result.attempts, result.error) == (False, 2, "timeout")
    assert result.elapsed < 1.5
    budget = WebhookSender(fetcher, quick(timeout=0.3, max_seconds=1))
    ended = await budget.deliver(receiver.url("/slow"), SECRET, {"type": "page"})
    assert not ended.delivered and ended.elapsed < 1.5


@pytest.mark.gen_test(timeout=20)
async def test_refused_addresses_are_never_called(
    fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    sender = WebhookSender(fetcher, quick())
    refused = [
        "http://10.0.0.1/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]:1/hook",
        f"http://localhost:{receiver.port}/hook",  # loopback under a name that is not allowed
        "ftp://example.org/hook",
    ]
    for url in refused:
        result = await sender.deliver(url, SECRET, {"type": "page"})
        assert (result.delivered, result.attempts) == (False, 1), url
        assert result.error in ("address_not_allowed", "invalid_url"), (url, result.error)
        assert await sender.refusal(url), url
    assert await sender.refusal(receiver.url("/hook")) is None
    assert received.calls == []


@pytest.mark.gen_test(timeout=20)
async def test_background_deliveries_are_drained(
    fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    sender = WebhookSender(fetcher, quick())
    tasks = [sender.spawn(receiver.url("/hook"), SECRET, {"n": n}) for n in range(5)]
    await sender.drain(5)
    assert all(task.done() and task.result().delivered for task in tasks)
    assert sorted(json.loads(body)["n"] for _, body in received.on("hook")) == list(range(5))
    slow = sender.spawn(receiver.url("/slow"), SECRET, {"n": 9})
    await sender.drain(0.1)
    assert slow.cancelled()


@pytest.mark.gen_test(timeout=20)
async def test_a_hanging_receiver_holds_only_its_organizations_share_of_the_slots(
    fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    # Four slots, two per organization: twenty events to a receiver that takes 2 s each hold
    # two; another organization's event is delivered at once.
    sender = WebhookSender(fetcher, quick(concurrency=4, org_concurrency=2, timeout=5.0))
    for n in range(20):
        sender.spawn(receiver.url("/slow"), SECRET, {"n": n}, owner="hog")
    await asyncio.sleep(0.2)
    started = time.monotonic()
    result = await sender.deliver(receiver.url("/fast"), SECRET, {"n": "v"}, owner="victim")
    assert result.delivered and time.monotonic() - started < 1.0
    assert len(received.on("slow")) == 2
    await sender.drain(0.1)


@pytest.mark.gen_test(timeout=20)
async def test_page_events_beyond_the_pending_bound_are_dropped_and_counted(
    fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    sender = WebhookSender(fetcher, quick(max_pending_per_org=2, timeout=5.0))
    kept = [
        sender.spawn(receiver.url("/slow"), SECRET, {"n": n}, owner="a", droppable=True)
        for n in range(3)
    ]
    assert kept[0] is not None and kept[1] is not None and kept[2] is None
    assert sender.pending("a") == 2
    end = sender.spawn(receiver.url("/slow"), SECRET, {"end": 1}, owner="a")
    assert end is not None  # a job's end event is always sent
    other = sender.spawn(receiver.url("/hook"), SECRET, {"n": 0}, owner="b", droppable=True)
    assert other is not None and (await other).delivered
    await sender.drain(5.0)
    assert sender.pending("a") == 0
