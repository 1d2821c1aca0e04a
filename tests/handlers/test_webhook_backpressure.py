"""Jobs held back by their webhook receiver, over HTTP against a local site and receiver: while an
organization has ``webhooks.pause_pending_per_org`` events waiting (its receiver hangs), its
jobs with a webhook start no page, its jobs without one go on; once the receiver answers, the
job goes on and every page event arrives (none dropped). A receiver that never answers does not
stall the job for ever: events given up make room."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient

from app.config import Settings
from app.services import Services
from tests.conftest import make_settings, serve_with_jobs
from tests.origin import Origin, serve

PAGE_SECONDS = 0.05
PAUSE_AT = 3


@dataclass
class Site:
    """Pages that answer after ``PAGE_SECONDS``, and a webhook receiver (``/hook``) that holds
    every POST until ``answer`` is set (then answers 200), noting each event it was sent."""

    origin: Origin
    events: list[dict[str, Any]] = field(default_factory=list)
    answer: asyncio.Event = field(default_factory=asyncio.Event)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    async def until(self, check: Callable[[list[dict[str, Any]]], bool], seconds: float) -> None:
        """Wait until ``check(events)`` holds, at most ``seconds``."""
        async with asyncio.timeout(seconds):
            while not check(self.events):
                self.arrived.clear()
                await self.arrived.wait()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.jobs.workers = 1
    settings.jobs.poll_interval = 0.05
    settings.cache.enabled = False
    settings.webhooks.backoff = 0.05
    settings.webhooks.pause_pending_per_org = PAUSE_AT
    return settings


@pytest.fixture
def app(io_loop: Any, services: Services) -> Iterator[tornado.web.Application]:
    yield from serve_with_jobs(io_loop, services)


@pytest.fixture
def site(io_loop: Any) -> Iterator[Site]:
    made = Site(Origin(None, 0))  # type: ignore[arg-type]

    class Page(tornado.web.RequestHandler):
        async def get(self, name: str) -> None:
            await asyncio.sleep(PAGE_SECONDS)
            self.write(f"<html><body><article><h1>{name}</h1><p>{'Words. ' * 30}</p>")

    class Hook(tornado.web.RequestHandler):
        async def post(self) -> None:
            made.events.append(json.loads(self.request.body))
            made.arrived.set()
            await made.answer.wait()

    made.origin = serve(tornado.web.Application([(r"/page/(\w+)", Page), (r"/hook", Hook)]))
    yield made
    made.answer.set()
    io_loop.run_sync(made.origin.close)


async def _call(client: AsyncHTTPClient, url: str, key: str, body: Any = None) -> dict[str, Any]:
    response = await client.fetch(
        url,
        method="GET" if body is None else "POST",
        body=None if body is None else json.dumps(body),
        headers={"X-API-Key": key, "Content-Type": "application/json"},
    )
    answer: dict[str, Any] = json.loads(response.body)
    return answer


async def _batch(
    client: AsyncHTTPClient, base_url: str, key: str, site: Site, name: str, pages: int, hook: bool
) -> str:
    body: dict[str, Any] = {"urls": [site.origin.url(f"/page/{name}{i}") for i in range(pages)]}
    if hook:
        body["webhook_url"] = site.origin.url("/hook")
    return str((await _call(client, f"{base_url}/api/3.0/batch", key, body))["id"])


async def _job(client: AsyncHTTPClient, base_url: str, key: str, job_id: str) -> dict[str, Any]:
    return await _call(client, f"{base_url}/api/3.0/jobs/{job_id}?limit=0", key)


async def _until_ended(
    client: AsyncHTTPClient, base_url: str, key: str, job_id: str, seconds: float
) -> dict[str, Any]:
    async with asyncio.timeout(seconds):
        while True:
            job = await _job(client, base_url, key, job_id)
            if job["status"] not in ("queued", "running"):
                return job
            await asyncio.sleep(0.05)


@pytest.mark.gen_test(timeout=60)
@pytest.mark.parametrize("pause", [PAUSE_AT, 0])
async def test_a_hanging_receiver_holds_its_jobs_back_and_loses_no_event(
    http_client: AsyncHTTPClient,
    base_url: str,
    services: Services,
    settings: Settings,
    site: Site,
    pause: int,
) -> None:
    settings.webhooks.pause_pending_per_org = pause
    key = services.store.create_key("acme", "pro").key
    pages = 30
    job_id = await _batch(http_client, base_url, key, site, "hooked", pages, hook=True)
    await site.until(lambda events: len(events) >= PAUSE_AT, 20)  # the receiver holds them
    await asyncio.sleep(1.5)  # long enough for the whole batch, were it not held back
    done = (await _job(http_client, base_url, key, job_id))["progress"]["done"]
    if not pause:
        assert done == pages
        return
    # Held back: the events waiting, the pages started in the half second the count is trusted.
    assert done < pages // 2, done
    # A job of the same organization without a webhook goes on.
    plain = await _batch(http_client, base_url, key, site, "plain", 3, hook=False)
    assert (await _until_ended(http_client, base_url, key, plain, 10))["status"] == "completed"
    assert (await _job(http_client, base_url, key, job_id))["progress"]["done"] < pages // 2
    # The receiver answers: the job goes on, and every page's event arrives.
    site.answer.set()
    ended = await _until_ended(http_client, base_url, key, job_id, 30)
    assert ended["status"] == "completed"
    await site.until(lambda events: any(event["event"] == "job" for event in events), 10)
    seqs = sorted({event["seq"] for event in site.events if event["event"] == "page"})
    assert seqs == list(range(1, pages + 1))


@pytest.mark.gen_test(timeout=60)
async def test_events_given_up_let_a_held_job_go_on_to_its_end(
    http_client: AsyncHTTPClient,
    base_url: str,
    services: Services,
    settings: Settings,
    site: Site,
) -> None:
    settings.webhooks.timeout = 0.3  # each POST to the receiver that never answers: one try
    settings.webhooks.attempts = 1
    key = services.store.create_key("acme", "pro").key
    job_id = await _batch(http_client, base_url, key, site, "given", 12, hook=True)
    ended = await _until_ended(http_client, base_url, key, job_id, 30)
    assert ended["status"] == "completed"
    assert ended["progress"]["done"] == 12
