"""The webhook outbox against a real receiver on 127.0.0.1 and a real store (SQLite and
Postgres): events kept in the store until delivered, retried after a failed attempt, given up
when out of attempts, bounded per organization in count and bytes, sent fairly between
organizations, and delivered after a restart by whoever runs next."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import peewee
import pytest
from prometheus_client import REGISTRY

from app.config import Settings
from browser.fetch.client import Fetcher
from services.jobs.work import end_writer
from services.webhook_outbox import WebhookOutbox
from services.webhooks import EVENT_ID_HEADER, WebhookSender
from store import job_stops, webhook_events
from store import jobs as job_rows
from store.db import StoreSettings, write_transaction
from store.job_types import ActiveJob, Claim, NewPage, Outcome, Recorded
from store.models import Organization, WebhookEvent
from store.store import Store
from tests.conftest import raw_database
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


async def put(outbox: WebhookOutbox, org: str, job_id: str, url: str, event: Any) -> bool:
    """Store ``event`` of the job ``job_id`` as the runner does: the outbox writes it in the
    store's write transaction that records what it tells (here nothing else), and the sender is
    woken after the commit. False when it was dropped for its organization's bound."""
    job = ActiveJob(job_id, org, "free", "batch", {}, url, SECRET)

    def work(db: peewee.Database) -> list[str]:
        with write_transaction(db):
            return outbox.write(db, job, [event])

    dropped = await outbox.store.run(work, "test events", write=True)
    outbox.wake(dropped)
    return not dropped


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
        assert await put(outbox, "acme", "job1", receiver.url("/hook"), page(n))
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
    assert await put(outbox, "acme", "job1", receiver.url("/down"), page(1))
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
    assert [await put(outbox, "acme", "job1", url, page(n)) for n in range(3)] == [
        True,
        True,
        False,
    ]
    end = {"event": "job", "event_id": "job1-end", "job_id": "job1", "status": "completed"}
    assert await put(outbox, "acme", "job1", url, end)  # always kept
    assert await put(outbox, "victim", "job2", url, page(1))  # another's bound
    big = {**page(9), "markdown": "x" * 2_000}
    assert not await put(outbox, "hog", "job3", url, big)  # over the bytes
    assert (await waiting(store, "acme"))[0] == 3


@pytest.mark.gen_test(timeout=30)
async def test_a_hanging_receiver_does_not_hold_back_another_organization(
    store: Store, fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    settings = quick(concurrency=4, org_concurrency=2, timeout=5.0)
    outbox = WebhookOutbox(store, WebhookSender(fetcher, settings), settings)
    for n in range(20):
        await put(outbox, "hog", "job1", receiver.url("/slow"), page(n))
    outbox.start()
    try:
        await asyncio.sleep(0.5)
        started = time.monotonic()
        await put(outbox, "victim", "job2", receiver.url("/fast"), page(1))
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
        assert await put(outbox, "acme", "job1", url, page(n))
    end = {"event": "job", "event_id": "job1-end", "job_id": "job1", "status": "completed"}
    assert await put(outbox, "acme", "job1", url, end)
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
        await put(first, "acme", "job1", receiver.url("/slow"), page(n))
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
            await put(outbox, org, f"job-{org}", receiver.url("/slow"), page(n))
    outbox.start()
    try:
        await asyncio.sleep(0.5)
        started = time.monotonic()
        await put(outbox, "victim", "job2", receiver.url("/fast"), page(1))
        await until(lambda: _none_waiting(store, "victim"), 5.0)
        assert time.monotonic() - started < 1.5
    finally:
        await outbox.close(0.1)


def _job(db: peewee.Database, paths: list[str]) -> tuple[str, ActiveJob]:
    """A batch of ``acme`` with a webhook, stored directly."""
    org_id = Organization.select(Organization.id).where(Organization.name == "acme").scalar(db)
    job_id = job_rows.new_job_id()
    pages = [NewPage(path, f"http://127.0.0.1:1/{path}", "127.0.0.1:1") for path in paths]
    job_rows.create_job(
        db,
        job_id=job_id,
        org_id=org_id,
        plan="free",
        kind="batch",
        options={"max_pages": len(paths)},
        pages=pages,
        webhook_url="http://127.0.0.1:1/hook",
        webhook_secret=SECRET,
    )
    return job_id, ActiveJob(job_id, "acme", "free", "batch", {}, "http://127.0.0.1:1/hook", SECRET)


def test_an_end_event_stored_before_a_page_in_flight_waits_for_its_event(
    store: Store, fetcher: Fetcher, database_url: str, tmp_path: Path
) -> None:
    """A job stopped while a page is worked on stores its end first and the page's event after
    it: the end is not claimable while the page's lease is live, nor while its event waits; a
    page whose worker died (lease expired) holds it back no more."""
    settings = quick()
    outbox = WebhookOutbox(store, WebhookSender(fetcher, settings), settings)
    with raw_database(database_url, tmp_path) as db:
        job_id, job = _job(db, ["a", "b"])
        claim = job_rows.claim_page(db, job_id=job_id, owner="w", lease_seconds=60)
        assert isinstance(claim, Claim)
        end = end_writer(outbox, job, "cancelled")
        assert job_stops.stop_job(db, job_id=job_id, status="cancelled", then=end)
        assert webhook_events.due_orgs(db) == {}  # the page is in flight

        def page_event(db: peewee.Database, recorded: Recorded) -> None:
            outbox.write(db, job, [page(recorded.seq)])

        recorded = job_rows.record_page(
            db,
            job_id=job_id,
            page_id=claim.id,
            owner="w",
            outcome=Outcome(True, {"markdown": "a"}),
            then=page_event,
        )
        assert recorded is not None
        claimed = webhook_events.claim_events(db, org="acme", owner="o", lease_seconds=60, limit=10)
        assert [event.kind for event in claimed] == ["page"]  # the page's event only
        webhook_events.delete_event(db, event_id=claimed[0].id)
        assert webhook_events.due_orgs(db) == {"acme": 1}  # now the end
        # A page whose worker died does not hold an end back past its lease.
        other, other_job = _job(db, ["c"])
        job_rows.claim_page(db, job_id=other, owner="dead", lease_seconds=-1)
        ended = end_writer(outbox, other_job, "cancelled")
        assert job_stops.stop_job(db, job_id=other, status="cancelled", then=ended)
        assert webhook_events.due_orgs(db) == {"acme": 2}


def _dropped() -> float:
    value = REGISTRY.get_sample_value("pagecast_webhook_deliveries_total", {"outcome": "dropped"})
    return value or 0.0


def test_a_dropped_event_is_counted_after_the_commit_only(
    store: Store, fetcher: Fetcher, database_url: str, tmp_path: Path
) -> None:
    settings = quick(max_pending_per_org=1)
    outbox = WebhookOutbox(store, WebhookSender(fetcher, settings), settings)
    before = _dropped()
    with raw_database(database_url, tmp_path) as db:
        _, job = _job(db, ["a"])
        with pytest.raises(RuntimeError), write_transaction(db):
            assert outbox.write(db, job, [page(1), page(2)]) == ["job1-2"]
            raise RuntimeError("the transaction fails after the events were written")
        assert _dropped() == before  # nothing counted: in the end nothing was dropped
        with write_transaction(db):
            dropped = outbox.write(db, job, [page(1), page(2), page(3)])
        assert dropped == ["job1-2", "job1-3"] and _dropped() == before
        outbox.wake(dropped)  # after the commit
        assert _dropped() == before + 2


@pytest.mark.gen_test(timeout=30)
async def test_an_end_event_that_waited_behind_its_pages_still_gets_its_retries(
    store: Store, fetcher: Fetcher, receiver: Origin, received: Received
) -> None:
    # The page event fails until it is given up at max_seconds; only then may the end go, older
    # than max_seconds by then: its first attempt fails, and it is tried again all the same.
    received.plans["pages"] = [503]
    received.plans["end"] = [503, 200]
    settings = quick(attempts=20, max_seconds=1.5)
    outbox = WebhookOutbox(store, WebhookSender(fetcher, settings), settings)
    assert await put(outbox, "acme", "job1", receiver.url("/pages"), page(1))
    end = {"event": "job", "event_id": "job1-end", "job_id": "job1", "status": "completed"}
    assert await put(outbox, "acme", "job1", receiver.url("/end"), end)
    outbox.start()
    try:
        await until(lambda: _none_waiting(store, "acme"), 15.0)
    finally:
        await outbox.close(0.5)
    assert len(received.on("pages")) >= 3
    assert len(received.on("end")) == 2  # the 503, then the delivery


def test_concurrent_writers_keep_an_organizations_bound(
    store: Store, fetcher: Fetcher, database_url: str, tmp_path: Path
) -> None:
    """Several processes record pages of one organization at once, each storing the page's event
    in its transaction: however their transactions interleave, the organization never has more
    events waiting than its bound. Each transaction goes on a little after its event, as the
    record it belongs to does, so that two checks of the bound not serialized by the database
    would both pass."""
    settings = quick(max_pending_per_org=8)
    outbox = WebhookOutbox(store, WebhookSender(fetcher, settings), settings)
    dropped: list[str] = []
    problems: list[BaseException] = []

    def writer(number: int) -> None:
        try:
            with raw_database(database_url, tmp_path) as db:
                job = ActiveJob(f"job{number}", "acme", "free", "batch", {}, "http://h/", SECRET)
                for n in range(5):
                    with write_transaction(db):
                        event = {"event": "page", "event_id": f"job{number}-{n}", "seq": n}
                        dropped.extend(outbox.write(db, job, [event]))
                        time.sleep(0.02)
        except BaseException as exc:
            problems.append(exc)

    threads = [threading.Thread(target=writer, args=(number,)) for number in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not problems
    with raw_database(database_url, tmp_path) as db:
        count, _ = webhook_events.pending_events(db, org="acme")
    assert count == 8 and len(dropped) == 30 - 8


@pytest.mark.gen_test(timeout=30)
async def test_an_event_stored_under_a_just_deleted_events_id_is_sent_at_once(
    store: Store,
    fetcher: Fetcher,
    receiver: Origin,
    received: Received,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SQLite gives a deleted row's id to the next row: an event stored and claimed while the
    one delivered before it under that id is still ending here is sent, not taken for it (and
    left to its lease, many seconds)."""
    settings = quick(timeout=10.0)
    outbox = WebhookOutbox(store, WebhookSender(fetcher, settings), settings)
    url = receiver.url("/hook")
    real_run = store.run
    rows: list[list[tuple[int, str]]] = []

    async def event_rows() -> list[tuple[int, str]]:
        query = WebhookEvent.select(WebhookEvent.id, WebhookEvent.event_id)
        return await real_run(lambda db: list(query.tuples().execute(db)), "test")

    async def run(work: Any, what: str, *, write: bool = False) -> Any:
        answer = await real_run(work, what, write=write)
        if what == "webhook done" and not rows:
            # Before the send that deleted the first event ends: the next event is stored and
            # the sender loop, woken, claims it.
            rows.append(await event_rows())
            await put(outbox, "acme", "job1", url, page(2))
            rows.append(await event_rows())
            await until(lambda: _claimed(store, real_run), 2.0)
        return answer

    monkeypatch.setattr(store, "run", run)
    assert await put(outbox, "acme", "job1", url, page(1))
    first = await event_rows()
    outbox.start()
    try:
        await until(lambda: _delivered(received, 2), 5.0)
    finally:
        await outbox.close(0.5)
    assert rows[0] == []  # the first event was deleted
    if store.settings.database_url.startswith("sqlite"):
        assert rows[1] == [(first[0][0], "job1-2")]  # under the first one's id
    assert [headers[EVENT_ID_HEADER] for headers, _ in received.on("hook")] == ["job1-1", "job1-2"]


async def _claimed(store: Store, run: Any) -> bool:
    query = WebhookEvent.select().where(WebhookEvent.lease_owner.is_null(False))
    return bool(await run(query.count, "test"))


async def _delivered(received: Received, count: int) -> bool:
    return len(received.on("hook")) >= count


@pytest.mark.gen_test(timeout=30)
async def test_an_organization_is_behind_from_its_number_of_events_waiting(
    store: Store, fetcher: Fetcher, receiver: Origin
) -> None:
    settings = quick(pause_pending_per_org=3)
    outbox = WebhookOutbox(store, WebhookSender(fetcher, settings), settings)
    url = receiver.url("/hook")
    for n in range(2):
        assert await put(outbox, "acme", "job1", url, page(n))
    assert await outbox.behind() == frozenset()
    end = {"event": "job", "event_id": "job1-end", "job_id": "job1", "status": "completed"}
    assert await put(outbox, "acme", "job1", url, end)  # every event waiting counts
    assert await put(outbox, "victim", "job2", url, page(1))
    assert await outbox.behind() == frozenset()  # counted at most every half second
    await asyncio.sleep(0.6)
    assert await outbox.behind() == frozenset({"acme"})
    settings.pause_pending_per_org = 0
    assert await outbox.behind() == frozenset()
