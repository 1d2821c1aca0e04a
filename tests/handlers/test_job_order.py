"""The order job pages are worked in, over HTTP, against a local origin that logs what it is
asked for and when: a short batch of one organization goes before the long batch of another that
was under way (``jobs.small_job_pages``), and while it has pages left the long one starts at most
``busy_workers`` pages at once; with that precedence off the two share the workers turn by
turn."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient

from app.config import Settings
from app.services import Services
from tests.conftest import make_settings, serve_with_jobs
from tests.origin import Origin, serve

PAGE_SECONDS = 0.15


class _LoggedPage(tornado.web.RequestHandler):
    def initialize(self, log: list[str], times: dict[str, tuple[float, float]]) -> None:
        self.log = log
        self.times = times

    async def get(self, name: str) -> None:
        self.log.append(name)
        started = time.monotonic()
        await asyncio.sleep(PAGE_SECONDS * (10 if name.startswith("slow") else 1))
        self.times[name] = (started, time.monotonic())
        self.write(f"<html><body><article><h1>{name}</h1><p>{'Words of a page. ' * 20}</p>")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.jobs.workers = 1
    settings.jobs.busy_interval = 0.0
    settings.jobs.poll_interval = 0.05
    settings.jobs.small_job_pages = 5
    settings.cache.enabled = False
    return settings


@pytest.fixture
def app(io_loop: Any, services: Services) -> Iterator[tornado.web.Application]:
    yield from serve_with_jobs(io_loop, services)


@pytest.fixture
def seen(io_loop: Any) -> Iterator[tuple[Origin, list[str]]]:
    yield from _site(io_loop, {})


@pytest.fixture
def times(io_loop: Any) -> Iterator[tuple[Origin, list[str], dict[str, tuple[float, float]]]]:
    made: dict[str, tuple[float, float]] = {}
    for origin, log in _site(io_loop, made):
        yield origin, log, made


def _site(
    io_loop: Any, times: dict[str, tuple[float, float]]
) -> Iterator[tuple[Origin, list[str]]]:
    log: list[str] = []
    handler = {"log": log, "times": times}
    origin = serve(tornado.web.Application([(r"/(\w+)", _LoggedPage, handler)]))
    yield origin, log
    io_loop.run_sync(origin.close)


async def _batch(client: AsyncHTTPClient, base_url: str, key: str, urls: list[str]) -> str:
    response = await client.fetch(
        f"{base_url}/api/3.0/batch",
        method="POST",
        body=json.dumps({"urls": urls}),
        headers={"X-API-Key": key, "Content-Type": "application/json"},
    )
    return str(json.loads(response.body)["id"])


async def _ended(client: AsyncHTTPClient, base_url: str, key: str, job_id: str) -> None:
    async with asyncio.timeout(40):
        while True:
            response = await client.fetch(
                f"{base_url}/api/3.0/jobs/{job_id}?limit=0", headers={"X-API-Key": key}
            )
            if json.loads(response.body)["status"] not in ("queued", "running"):
                return
            await asyncio.sleep(0.05)


async def _order(
    client: AsyncHTTPClient, base_url: str, services: Services, seen: tuple[Origin, list[str]]
) -> list[str]:
    """The origin's log: a 16-page batch of one organization under way, then a 3-page batch
    of another."""
    origin, log = seen[0], seen[1]
    long_key = services.store.create_key("longco", "pro").key
    short_key = services.store.create_key("shortco", "pro").key
    long_job = await _batch(
        client, base_url, long_key, [origin.url(f"/long{i}") for i in range(16)]
    )
    for _ in range(1000):  # the long batch under way: two of its pages asked for
        if len(log) >= 2:
            break
        await asyncio.sleep(0.01)
    short_job = await _batch(
        client, base_url, short_key, [origin.url(f"/short{i}") for i in range(3)]
    )
    await _ended(client, base_url, short_key, short_job)
    await _ended(client, base_url, long_key, long_job)
    return list(log)


def _long_pages_between_short_ones(log: list[str]) -> int:
    places = [place for place, name in enumerate(log) if name.startswith("short")]
    assert len(places) == 3, log
    return places[-1] - places[0] - 2


@pytest.mark.gen_test(timeout=60)
async def test_a_short_batch_goes_before_a_long_one_under_way(
    http_client: AsyncHTTPClient, base_url: str, services: Services, seen: tuple[Origin, list[str]]
) -> None:
    log = await _order(http_client, base_url, services, seen)
    assert _long_pages_between_short_ones(log) == 0, log
    assert log.index("short0") <= 4, log  # after the long job's page or two in flight
    assert len(log) == 19


@pytest.mark.gen_test(timeout=60)
async def test_without_precedence_the_two_organizations_take_turns(
    http_client: AsyncHTTPClient,
    base_url: str,
    services: Services,
    settings: Settings,
    seen: tuple[Origin, list[str]],
) -> None:
    settings.jobs.small_job_pages = 0
    log = await _order(http_client, base_url, services, seen)
    assert _long_pages_between_short_ones(log) >= 2, log


def _long_pages_started_beside_short_ones(times: dict[str, tuple[float, float]]) -> int:
    short = [span for name, span in times.items() if name.startswith("short")]
    first, last = min(start for start, _ in short), max(end for _, end in short)
    return sum(
        1 for name, (start, _) in times.items() if name.startswith("long") and first <= start < last
    )


@pytest.mark.gen_test(timeout=60)
@pytest.mark.parametrize("precedence", [True, False])
async def test_a_long_batch_yields_the_workers_while_a_short_one_has_pages_left(
    http_client: AsyncHTTPClient,
    base_url: str,
    services: Services,
    settings: Settings,
    times: tuple[Origin, list[str], dict[str, tuple[float, float]]],
    precedence: bool,
) -> None:
    settings.jobs.workers = 4
    settings.jobs.host_concurrency = 8
    settings.jobs.busy_workers = 1
    settings.jobs.small_job_pages = 5 if precedence else 0
    await _order(http_client, base_url, services, times)
    started_beside = _long_pages_started_beside_short_ones(times[2])
    if precedence:
        assert started_beside <= 1, times[2]
    else:  # the long batch keeps its share of the four workers
        assert started_beside >= 2, times[2]


@pytest.mark.gen_test(timeout=60)
@pytest.mark.parametrize("beyond", [2, 0])
async def test_a_short_batch_starts_beside_a_long_ones_page_holding_the_worker(
    http_client: AsyncHTTPClient,
    base_url: str,
    services: Services,
    settings: Settings,
    times: tuple[Origin, list[str], dict[str, tuple[float, float]]],
    beyond: int,
) -> None:
    settings.jobs.small_job_workers = beyond
    origin, log, spans = times
    long_key = services.store.create_key("longco", "pro").key
    short_key = services.store.create_key("shortco", "pro").key
    long_job = await _batch(
        http_client, base_url, long_key, [origin.url(f"/slow{i}") for i in range(8)]
    )
    for _ in range(1000):  # the long batch's first page (1.5 s) holds the one worker
        if log:
            break
        await asyncio.sleep(0.01)
    short = [origin.url(f"/short{i}") for i in range(2)]
    await _ended(
        http_client, base_url, short_key, await _batch(http_client, base_url, short_key, short)
    )
    first_slow_ended = spans["slow0"][1] if "slow0" in spans else float("inf")
    started_beside = [spans[f"short{i}"][0] < first_slow_ended for i in range(2)]
    assert started_beside == ([True, True] if beyond else [False, False]), log
    await http_client.fetch(
        f"{base_url}/api/3.0/jobs/{long_job}", method="DELETE", headers={"X-API-Key": long_key}
    )


def _most_long_pages_at_once(
    times: dict[str, tuple[float, float]], start: float, end: float
) -> int:
    long = [span for name, span in times.items() if name.startswith("long")]
    moments = [start] + [begun for begun, _ in long if start <= begun < end]
    return max(sum(1 for begun, ended in long if begun <= at < ended) for at in moments)


@pytest.mark.gen_test(timeout=60)
@pytest.mark.parametrize("yield_seconds", [1.0, 0.0])
async def test_a_long_batch_stays_yielded_between_two_short_ones(
    http_client: AsyncHTTPClient,
    base_url: str,
    services: Services,
    settings: Settings,
    times: tuple[Origin, list[str], dict[str, tuple[float, float]]],
    yield_seconds: float,
) -> None:
    settings.jobs.workers = 4
    settings.jobs.host_concurrency = 8
    settings.jobs.busy_workers = 1
    settings.jobs.yield_seconds = yield_seconds
    origin, _, spans = times
    long_key = services.store.create_key("longco", "pro").key
    short_key = services.store.create_key("shortco", "pro").key
    long_job = await _batch(
        http_client, base_url, long_key, [origin.url(f"/long{i}") for i in range(40)]
    )
    for _ in range(3000):  # the long batch under way, its conversion worker started
        if sum(1 for name in spans if name.startswith("long")) >= 8:
            break
        await asyncio.sleep(0.01)
    first = await _batch(http_client, base_url, short_key, [origin.url("/shorta0")])
    await _ended(http_client, base_url, short_key, first)
    await asyncio.sleep(0.4)  # the client's moment between two short batches
    second = await _batch(http_client, base_url, short_key, [origin.url("/shortb0")])
    await _ended(http_client, base_url, short_key, second)
    between = _most_long_pages_at_once(spans, spans["shorta0"][1], spans["shortb0"][0])
    if yield_seconds:
        assert between <= 1, spans
    else:  # the long batch takes every worker as soon as the first short one ended
        assert between >= 3, spans
    await http_client.fetch(
        f"{base_url}/api/3.0/jobs/{long_job}", method="DELETE", headers={"X-API-Key": long_key}
    )
