"""What made-up keys cost the database: once a client address has spent its unknown-key bucket,
its key lookups go one at a time, a valid key from that address still gets in (a remembered one
without waiting at all), and a wait for a turn ends in 429 rather than hanging. The real lookups
run; the meter only counts them (and holds one back when a test asks it to)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

import store.store
from app.config import Settings
from app.services import Services
from app.web import make_frame_app
from services.accounts import service as account_service
from services.accounts.service import BAD_KEY_BURST, LOOKUP_RETRY_AFTER
from store import keys
from store.keys import KeyInfo
from tests.conftest import make_settings
from tests.handlers.test_hostile_clients import frame_list, listen, oembed_error
from tests.origin import Origin

# How long each metered lookup takes beyond the real query: a slow database, so lookups that may
# overlap do.
LOOKUP_PAUSE = 0.05


class LookupMeter:
    """Wraps ``keys.find_key``: the keys looked up, in order, and the most lookups in flight at
    once since :meth:`reset`. A lookup of the key given to :meth:`stall` waits for
    :meth:`release` (at most 30 s)."""

    def __init__(self, real: Callable[[Any, str], KeyInfo | None]) -> None:
        self.real = real
        self.keys: list[str] = []
        self.most = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._stalled: str | None = None
        self._stall_started = threading.Event()
        self._released = threading.Event()

    def __call__(self, db: Any, key: str) -> KeyInfo | None:
        with self._lock:
            self.keys.append(key)
            self._in_flight += 1
            self.most = max(self.most, self._in_flight)
        try:
            if key == self._stalled:
                self._stall_started.set()
                self._released.wait(30)
            else:
                time.sleep(LOOKUP_PAUSE)
            return self.real(db, key)
        finally:
            with self._lock:
                self._in_flight -= 1

    def reset(self) -> None:
        with self._lock:
            self.keys.clear()
            self.most = self._in_flight

    def stall(self, key: str) -> None:
        self._stalled = key

    async def stalled(self) -> None:
        """Return once the stalled key's lookup has started."""
        for _ in range(300):
            if self._stall_started.is_set():
                return
            await asyncio.sleep(0.05)
        raise AssertionError("the stalled key was never looked up")

    def release(self) -> None:
        self._released.set()


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Keys and misses remembered for the whole test, and an unknown-key bucket that does not
    refill while it runs: once spent, it stays empty."""
    monkeypatch.setattr(store.store, "MISS_CACHE_SECONDS", 60.0)
    monkeypatch.setattr(account_service, "BAD_KEY_RATE", 0.001)
    settings = make_settings(tmp_path)
    settings.store.auth_cache_seconds = 60.0
    assert settings.store.executor_threads > 1  # else the store alone would serialize lookups
    return settings


@pytest.fixture
def frames(io_loop: Any, services: Services) -> Iterator[Origin]:
    origin = listen(make_frame_app(services))
    yield origin
    io_loop.run_sync(origin.close)


@pytest.fixture
def meter(monkeypatch: pytest.MonkeyPatch) -> LookupMeter:
    counted = LookupMeter(keys.find_key)
    monkeypatch.setattr(keys, "find_key", counted)
    return counted


async def get(url: str, **kwargs: Any) -> HTTPResponse:
    """One request on a client of its own size, so dozens can be in flight at once."""
    client = AsyncHTTPClient(force_instance=True, max_clients=64)
    try:
        return await client.fetch(url, raise_error=False, request_timeout=60, **kwargs)
    finally:
        client.close()


async def spend_the_bucket(frames: Origin) -> None:
    """The address's burst of unknown keys, sent at once: each looked up, each 401."""
    answers = await asyncio.gather(
        *(get(frame_list(frames, keys.new_key())) for _ in range(BAD_KEY_BURST))
    )
    assert [answer.code for answer in answers] == [401] * BAD_KEY_BURST


@pytest.mark.gen_test(timeout=120)
async def test_a_flood_of_fresh_keys_costs_one_lookup_at_a_time_once_the_bucket_is_empty(
    services: Services, frames: Origin, meter: LookupMeter
) -> None:
    key = services.store.create_key("acme", "pro").key
    await spend_the_bucket(frames)
    # While the bucket lasted, lookups ran side by side: the meter sees overlap when there is.
    assert meter.most > 1

    meter.reset()
    flood = [keys.new_key() for _ in range(30)]
    # The valid key, not remembered yet, arrives in the middle of the flood and waits its turn.
    sent = [*flood[:15], key, *flood[15:]]
    answers = await asyncio.gather(*(get(frame_list(frames, app_id)) for app_id in sent))
    codes = {app_id: answer.code for app_id, answer in zip(sent, answers, strict=True)}
    assert codes.pop(key) == 200
    assert set(codes.values()) == {429}
    assert "unknown keys" in oembed_error(answers[0], 429, "rate_limited")
    assert sorted(meter.keys) == sorted(sent)
    assert meter.most == 1

    # Later floods: the valid key, now remembered, is answered 200 every time, by query or by
    # header, with no lookup, and the flood's lookups still go one at a time.
    for _ in range(3):
        meter.reset()
        flood = [keys.new_key() for _ in range(10)]
        valid = [
            get(frame_list(frames, key)),
            get(frames.url("/api/v1/frames"), headers={"api-key": key}),
        ]
        answers = await asyncio.gather(*valid, *(get(frame_list(frames, bad)) for bad in flood))
        assert [answer.code for answer in answers] == [200, 200] + [429] * len(flood)
        assert sorted(meter.keys) == sorted(flood)
        assert meter.most == 1
    assert len(services.account_service.gate) == 0


@pytest.mark.gen_test(timeout=120)
async def test_a_remembered_key_never_waits_and_a_wait_for_a_turn_ends_in_429(
    services: Services, frames: Origin, meter: LookupMeter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(account_service, "LOOKUP_TURN_SECONDS", 1.0)
    known = services.store.create_key("acme", "pro").key
    other = services.store.create_key("acme", "pro").key
    await spend_the_bucket(frames)
    assert (await get(frame_list(frames, known))).code == 200  # its turn was free; remembered

    meter.reset()
    stalled = keys.new_key()
    meter.stall(stalled)
    blocked = asyncio.ensure_future(get(frame_list(frames, stalled)))
    try:
        await meter.stalled()
        assert services.account_service.gate.users("127.0.0.1") == 1
        # The address's turn is taken by a lookup that does not end: a remembered key does not
        # need the turn...
        assert (await get(frame_list(frames, known))).code == 200
        response = await get(frames.url("/api/v1/frames"), headers={"api-key": known})
        assert response.code == 200
        # ... a key that must be looked up waits for it, and is told to retry when it does not
        # come in time, without having cost a lookup.
        response = await get(frame_list(frames, other))
        message = oembed_error(response, 429, "rate_limited")
        assert "could not be checked in time" in message
        assert response.headers["Retry-After"] == str(LOOKUP_RETRY_AFTER)
        assert not blocked.done()
        assert meter.keys == [stalled]
    finally:
        meter.release()
    oembed_error(await blocked, 429, "rate_limited")
    # The turn is free again: the valid key gets in.
    assert (await get(frame_list(frames, other))).code == 200
    assert meter.keys == [stalled, other]
    assert len(services.account_service.gate) == 0
