"""Admission over HTTP with two Pagecast processes on one database (SQLite and Postgres): one
organization's batches sent to both at once are admitted within its plan's active jobs, the
others refused with ``job_limit``, whichever process took them; the credits another process
spent and stored are seen by the next admission at once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tornado.httpclient import AsyncHTTPClient

from app.config import Settings
from app.services import Services, start_jobs, stop_jobs
from app.web import make_api_app
from browser.farm import Farm
from browser.fetch.client import Fetcher
from convert.embed.providers import ProviderRegistry
from services.accounts import PlanSettings
from services.embeds import EmbedResolver
from services.embeds.provider_files import builtin_providers
from services.fetch_policy import PageFetcher
from services.pool import ConverterPool
from store.frames import FrameStore
from store.images import ImageFiles
from store.screenshots import ScreenshotStore
from store.store import Store
from tests.conftest import make_settings
from tests.origin import Origin, serve

ACTIVE_JOBS = 2


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    settings = make_settings(tmp_path)
    settings.store.database_url = database_url
    settings.jobs.workers = 0  # nothing is worked on: the admitted jobs stay active
    settings.plans["small"] = PlanSettings(
        requests_per_second=100, burst=100, max_active_jobs=ACTIVE_JOBS, max_queued_pages=100
    )
    return settings


def _process(settings: Settings, pool: ConverterPool, farm: Farm, folder: Path) -> Services:
    """The services of one Pagecast process on the shared database, jobs started."""
    store = Store(settings.store, cache=settings.cache)
    store.open()
    fetcher = Fetcher(settings.fetch)
    pages = PageFetcher(fetcher, settings.proxies, store, request_deadline=10.0)
    embeds = EmbedResolver(
        settings.oembed,
        ProviderRegistry(builtin_providers()),
        fetcher=fetcher,
        pages=pages,
        pool=pool,
        farm=farm,
    )
    screenshots = ScreenshotStore(store, ImageFiles(folder / "screenshots"))
    services = Services(
        settings, store, fetcher, pages, pool, farm, screenshots, FrameStore(store), embeds
    )
    start_jobs(services)
    return services


@pytest.fixture
def processes(
    io_loop: Any, settings: Settings, pool: ConverterPool, farm: Farm, tmp_path: Path
) -> Iterator[list[tuple[Services, Origin]]]:
    """Two Pagecast processes' API servers on one database."""
    made: list[tuple[Services, Origin]] = []

    async def start() -> None:
        for _ in range(2):
            services = _process(settings, pool, farm, tmp_path)
            made.append((services, serve(make_api_app(services))))

    io_loop.run_sync(start)
    yield made
    for services, origin in made:
        io_loop.run_sync(origin.close)
        io_loop.run_sync(lambda services=services: stop_jobs(services, 1.0))
        if services.job_pool is not None:
            services.job_pool.close(5.0)
        services.fetcher.close()
        io_loop.run_sync(services.store.close)


async def _batch(
    client: AsyncHTTPClient, origin: Origin, key: str, n: int
) -> tuple[int, dict[str, Any]]:
    """Submit a batch of three pages (nothing is fetched: no process works on pages)."""
    urls = [f"http://127.0.0.1:{origin.port}/nothing-{n}-{k}" for k in range(3)]
    response = await client.fetch(
        origin.url("/api/3.0/batch"),
        method="POST",
        body=json.dumps({"urls": urls}),
        headers={"X-API-Key": key, "Content-Type": "application/json"},
        raise_error=False,
    )
    return response.code, json.loads(response.body)


@pytest.mark.gen_test(timeout=60)
async def test_two_processes_admit_one_organizations_jobs_within_its_plan(
    processes: list[tuple[Services, Origin]],
) -> None:
    http_client = AsyncHTTPClient()
    key = processes[0][0].store.create_key("small-org", "small").key

    calls = [_batch(http_client, processes[n % 2][1], key, n) for n in range(10)]
    answers = await asyncio.gather(*calls)
    codes = sorted(code for code, _ in answers)
    assert codes == [202] * ACTIVE_JOBS + [429] * (10 - ACTIVE_JOBS), answers
    refused = [body for code, body in answers if code == 429]
    assert all("active jobs" in body["error"]["message"] for body in refused)
    accepted = {body["id"] for code, body in answers if code == 202}
    for _, origin in processes:  # each process sees the same jobs, whoever took them
        for job_id in accepted:
            response = await http_client.fetch(
                origin.url(f"/api/3.0/jobs/{job_id}?limit=0"), headers={"X-API-Key": key}
            )
            assert json.loads(response.body)["status"] == "queued"


@pytest.mark.gen_test(timeout=60)
async def test_credits_another_process_spent_are_seen_at_once(
    processes: list[tuple[Services, Origin]],
) -> None:
    http_client = AsyncHTTPClient()
    (first, _), (_, second_api) = processes
    key = first.store.create_key("metered-org", "metered").key  # 3 credits a month
    # The second process admits a job (and so has read the month's credits), then it is
    # cancelled: its reserve is given back.
    code, accepted = await _batch(http_client, second_api, key, 1)
    assert code == 202 and accepted["pages_queued"] == 3, accepted
    response = await http_client.fetch(
        second_api.url(f"/api/3.0/jobs/{accepted['id']}"),
        method="DELETE",
        headers={"X-API-Key": key},
    )
    assert json.loads(response.body)["status"] == "cancelled"
    # The first process spends the month's credits and stores them.
    first.store.record_usage("metered-org", "markdown", 3)
    assert await first.store.flush_usage() == 1
    # The second process's next admission sees them, however lately it read the month.
    code, refused = await _batch(http_client, second_api, key, 2)
    assert code == 429 and refused["error"]["code"] == -1003, refused
    assert "no credits left" in refused["error"]["message"]
