"""The webhook outbox against a real receiver on 127.0.0.1 and a real store (SQLite and
Postgres): events kept in the store until delivered, retried after a failed attempt, given up
when out of attempts, bounded per organization in count and bytes, sent fairly between
organizations, and delivered after a restart by whoever runs next."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from app.config import Settings
from browser.fetch.client import Fetcher
from services.webhook_outbox import WebhookOutbox
from services.webhooks import EVENT_ID_HEADER, WebhookSender
from store import webhook_events
from store.db import StoreSettings
from store.store import Store
from tests.origin import Origin
from tests.services.conftest import Received
from tests.services.test_webhooks import SECRET, quick


@pytest.fixture
def store(database_url: str, tmp_path: Path) -> Iterator[Store]:
    store = Store(StoreSettings(database_url=database_url, data_dir=str(tmp_path / "data")))
    store.open()
    for org in ("acme", "hog", "victim"):
        store.create_key(org, "free")
    yield store
    store.close_sync()


@pytest.fixture
def fetcher(io_loop: Any, settings: Settings, receiver: Origin) -> Iterator[Fetcher]:
    fetcher = Fetcher(settings.fetch)
    yield fetcher
    fetcher.close()


async def waiting(store: Store, org: str) -> tuple[int, int]:
    return await store.run(partial(webhook_events.pending_events, org=org), "test")


async def until(check: Any, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not await check():
        assert time.monotonic() < deadline, "not within the time"
        await asyncio.sleep(0.05)


def page(n: int) -> dict[str, Any]:
    return {"event": "page", "event_id": f"job1-{n}", "job_id": "job1", "seq": n}


@pytest.mark.gen_test(timeout=30)
async def test_events_wait_in_the_store_until_delivered_and_are_retried(
    store: Store, fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    received.plans["hook"] = [500, 200]
    settings = quick()
    outbox = WebhookOutbox(store, WebhookSender(fetcher, settings), settings)
    for n in range(3):
        assert await outbox.put("acme", "job1", receiver.url("/hook"), SECRET, page(n))
    assert (await waiting(store, "acme"))[0] == 3  # stored; nothing sent before the loop runs
    outbox.start()
    try:
        await until(lambda: _none_waiting(store, "acme"))
    finally:
        await outbox.close(0.5)
    ids = [headers[EVENT_ID_HEADER] for headers, _ in received.on("hook")]
    assert sorted(set(ids)) == ["job1-0", "job1-1", "job1-2"]
    assert len(ids) == 4  # the first attempt answered 500, tried again
    assert json.loads(received.on("hook")[-1][1])["job_id"] == "job1"


async def _none_waiting(store: Store, org: str) -> bool:
    return (await waiting(store, org))[0] == 0


@pytest.mark.gen_test(timeout=30)
async def test_an_event_out_of_attempts_is_given_up(
    store: Store, fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    received.plans["down"] = [503]
    settings = quick(attempts=3)
    outbox = WebhookOutbox(store, WebhookSender(fetcher, settings), settings)
    assert await outbox.put("acme", "job1", receiver.url("/down"), SECRET, page(1))
    outbox.start()
    try:
        await until(lambda: _none_waiting(store, "acme"))
    finally:
        await outbox.close(0.5)
    assert len(received.on("down")) == 3


@pytest.mark.gen_test(timeout=30)
async def test_page_events_beyond_the_bound_are_dropped_and_the_end_kept(
    store: Store, fetcher: Fetcher, receiver: Origin
) -> None:
    settings = quick(max_pending_per_org=2, max_pending_bytes_per_org=1_000)
    outbox = WebhookOutbox(store, WebhookSender(fetcher, settings), settings)
    url = receiver.url("/hook")
    assert [await outbox.put("acme", "job1", url, SECRET, page(n)) for n in range(3)] == [
        True,
        True,
        False,
    ]
    end = {"event": "job", "event_id": "job1-end", "job_id": "job1", "status": "completed"}
    assert await outbox.put("acme", "job1", url, SECRET, end)  # always kept
    assert await outbox.put("victim", "job2", url, SECRET, page(1))  # another's bound
    big = {**page(9), "markdown": "x" * 2_000}
    assert not await outbox.put("hog", "job3", url, SECRET, big)  # over the bytes
    assert (await waiting(store, "acme"))[0] == 3


@pytest.mark.gen_test(timeout=30)
async def test_a_hanging_receiver_does_not_hold_back_another_organization(
    store: Store, fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    settings = quick(concurrency=4, org_concurrency=2, timeout=5.0)
    outbox = WebhookOutbox(store, WebhookSender(fetcher, settings), settings)
    for n in range(20):
        await outbox.put("hog", "job1", receiver.url("/slow"), SECRET, page(n))
    outbox.start()
    try:
        await asyncio.sleep(0.5)
        started = time.monotonic()
        await outbox.put("victim", "job2", receiver.url("/fast"), SECRET, page(1))
        await until(lambda: _none_waiting(store, "victim"), 5.0)
        assert time.monotonic() - started < 1.5
        assert len(received.on("slow")) <= 4  # two at a time, 2 s each
    finally:
        await outbox.close(0.1)
    assert (await waiting(store, "hog"))[0] > 10  # given back to the store, not lost


@pytest.mark.gen_test(timeout=30)
async def test_a_jobs_end_event_is_sent_after_its_page_events(
    store: Store, fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    received.plans["hook"] = [503, 503, 200]  # the first page events need three attempts
    settings = quick(concurrency=8, org_concurrency=8)
    outbox = WebhookOutbox(store, WebhookSender(fetcher, settings), settings)
    url = receiver.url("/hook")
    for n in range(3):
        assert await outbox.put("acme", "job1", url, SECRET, page(n))
    end = {"event": "job", "event_id": "job1-end", "job_id": "job1", "status": "completed"}
    assert await outbox.put("acme", "job1", url, SECRET, end)
    outbox.start()
    try:
        await until(lambda: _none_waiting(store, "acme"))
    finally:
        await outbox.close(0.5)
    delivered = [json.loads(body)["event"] for _, body in received.on("hook")]
    assert delivered[-1] == "job" and delivered.count("job") == 1


@pytest.mark.gen_test(timeout=30)
async def test_events_being_sent_at_a_stop_go_back_to_the_store_for_the_next_start(
    store: Store, fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    settings = quick(timeout=5.0)
    first = WebhookOutbox(store, WebhookSender(fetcher, settings), settings)
    for n in range(3):
        await first.put("acme", "job1", receiver.url("/slow"), SECRET, page(n))
    first.start()
    await until(lambda: _slow_calls(received, 3))
    await first.close(0.1)  # the three POSTs are cut off; their events stay, unleased
    claimable = await store.run(webhook_events.due_orgs, "test")
    assert claimable == {"acme": 3}
    received.plans["slow"] = [200]
    second = WebhookOutbox(store, WebhookSender(fetcher, settings), settings)
    second.start()
    try:
        await until(lambda: _none_waiting(store, "acme"))
    finally:
        await second.close(0.5)


async def _slow_calls(received: Received, count: int) -> bool:
    return len(received.on("slow")) >= count


@pytest.mark.gen_test(timeout=30)
async def test_hanging_receivers_of_several_organizations_leave_a_slot_for_another(
    store: Store, fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    # Four slots, two per organization, one kept for an organization sending nothing: two
    # organizations whose receivers hang cannot hold every slot between them.
    settings = quick(concurrency=4, org_concurrency=2, timeout=5.0)
    outbox = WebhookOutbox(store, WebhookSender(fetcher, settings), settings)
    for org in ("hog", "acme"):
        for n in range(10):
            await outbox.put(org, f"job-{org}", receiver.url("/slow"), SECRET, page(n))
    outbox.start()
    try:
        await asyncio.sleep(0.5)
        started = time.monotonic()
        await outbox.put("victim", "job2", receiver.url("/fast"), SECRET, page(1))
        await until(lambda: _none_waiting(store, "victim"), 5.0)
        assert time.monotonic() - started < 1.5
    finally:
        await outbox.close(0.1)
