"""The webhook sender against a real receiver on 127.0.0.1: signed deliveries, retries with
backoff for failures worth retrying, final answers at once, no redirect followed, and refused
addresses never called."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

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
from tests.origin import Origin
from tests.services.conftest import Received

SECRET = "whsec_test_0123456789"


@pytest.fixture
def fetcher(io_loop: Any, settings: Settings, receiver: Origin) -> Iterator[Fetcher]:
    """Closed before the receiver, so no POST is left waiting on it."""
    fetcher = Fetcher(settings.fetch)
    yield fetcher
    fetcher.close()


def quick(**overrides: Any) -> WebhookSettings:
    return WebhookSettings(
        **{"attempts": 5, "backoff": 0.05, "max_backoff": 0.2, "timeout": 2.0, **overrides}
    )


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
async def test_a_hanging_receiver_holds_only_its_organizations_share_of_the_slots(
    fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    # Four slots, two per organization: twenty attempts at a receiver that takes 2 s each hold
    # two; another organization's event is delivered at once.
    sender = WebhookSender(fetcher, quick(concurrency=4, org_concurrency=2, timeout=5.0))
    body = b'{"n":1}'
    hog = [
        asyncio.ensure_future(
            sender.post(receiver.url("/slow"), SECRET, body, f"h{n}", 1, owner="hog")
        )
        for n in range(20)
    ]
    await asyncio.sleep(0.2)
    started = time.monotonic()
    result = await sender.post(receiver.url("/fast"), SECRET, body, "v1", 1, owner="victim")
    assert result.delivered and time.monotonic() - started < 1.0
    assert len(received.on("slow")) == 2
    for task in hog:
        task.cancel()
    await asyncio.gather(*hog, return_exceptions=True)


@pytest.mark.gen_test(timeout=20)
async def test_one_attempt_says_whether_another_may_help(
    fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    sender = WebhookSender(fetcher, quick())
    received.plans["flaky"] = [503, 200]
    received.plans["gone"] = [404]
    first = await sender.post(receiver.url("/flaky"), SECRET, b"{}", "e1", 1)
    assert (first.delivered, first.again, first.status) == (False, True, 503)
    second = await sender.post(receiver.url("/flaky"), SECRET, b"{}", "e1", 2)
    assert (second.delivered, second.again) == (True, False)
    gone = await sender.post(receiver.url("/gone"), SECRET, b"{}", "e2", 1)
    assert (gone.delivered, gone.again, gone.error) == (False, False, "status")
    assert [headers[ATTEMPT_HEADER] for headers, _ in received.on("flaky")] == ["1", "2"]
