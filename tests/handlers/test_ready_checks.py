"""``/readyz`` over real HTTP: ready with the defaults, and 503 naming the check and its reason
when the data disk is short of space, memory is short, the farm is saturated (every page slot busy
and a queue longer than ``readiness.max_farm_queue``), or the server is draining; ``/healthz``
answers either way. Disk and memory are measured on this machine, against limits set out of its
reach."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from app.config import Settings
from app.services import Services
from app.web import make_api_app
from services.health import HealthService
from tests.conftest import make_settings
from tests.origin import Origin, serve

HUGE = 2**62


class SlowPage(tornado.web.RequestHandler):
    """A page that takes its time, so that a capture of it holds a page slot meanwhile."""

    async def get(self) -> None:
        await asyncio.sleep(float(self.get_argument("s", "2")))
        self.finish("<html><body><h1>Slow</h1></body></html>")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.farm.warm_contexts = 0
    settings.farm.max_pages = 1  # one slow capture takes every page slot
    settings.server.public_readiness_details = True  # the reasons and resources, on the API
    return settings


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


@pytest.fixture
def site(io_loop: Any) -> Iterator[Origin]:
    origin = serve(tornado.web.Application([(r"/slow", SlowPage)]))
    yield origin
    io_loop.run_sync(origin.close)


async def ready(http_client: AsyncHTTPClient, base_url: str) -> tuple[int, dict[str, Any]]:
    response = await http_client.fetch(f"{base_url}/readyz", raise_error=False)
    return response.code, json.loads(response.body)


async def alive(http_client: AsyncHTTPClient, base_url: str) -> bool:
    response = await http_client.fetch(f"{base_url}/healthz", raise_error=False)
    return response.code == 200


# -- without a browser: the farm check fails, the host's checks are told apart ----------------


@pytest.mark.gen_test(timeout=30)
async def test_the_host_checks_pass_with_the_defaults(http_client, base_url, tmp_path) -> None:
    status, body = await ready(http_client, base_url)
    assert status == 503 and body["failed"] == ["farm"]  # the farm is not started here
    assert body["reasons"] == {"farm": "the browser farm is not running"}
    checks = body["checks"]
    assert checks["disk"] and checks["memory"] and checks["farm_capacity"] and checks["database"]
    assert checks["draining"] is False
    found = os.statvfs(tmp_path)
    free = body["resources"]["disk"]["free_bytes"]
    assert abs(free - found.f_bavail * found.f_frsize) < 2**30  # the same disk, give or take
    memory = body["resources"]["memory"]
    assert memory["rss_bytes"] > 10 * 2**20 and memory["available_bytes"] > 0


@pytest.mark.gen_test(timeout=30)
async def test_a_data_disk_short_of_space_is_named(http_client, base_url, services) -> None:
    services.settings.readiness.min_free_disk_bytes = HUGE
    status, body = await ready(http_client, base_url)
    assert status == 503 and "disk" in body["failed"] and body["checks"]["disk"] is False
    reason = body["reasons"]["disk"]
    assert "the data disk has" in reason and "readiness.min_free_disk_bytes" in reason
    services.settings.readiness.min_free_disk_bytes = 0
    services.settings.readiness.min_free_disk_percent = 100.0
    status, body = await ready(http_client, base_url)
    assert status == 503 and "readiness.min_free_disk_percent" in body["reasons"]["disk"]
    # Both limits off: not measured at all.
    services.settings.readiness.min_free_disk_percent = 0.0
    status, body = await ready(http_client, base_url)
    assert "disk" not in body["failed"] and body["resources"]["disk"] == {}
    assert await alive(http_client, base_url)


@pytest.mark.gen_test(timeout=30)
async def test_memory_pressure_is_named(http_client, base_url, services) -> None:
    services.settings.readiness.max_rss_bytes = 1
    status, body = await ready(http_client, base_url)
    assert status == 503 and "memory" in body["failed"]
    assert "this process uses" in body["reasons"]["memory"]
    assert "readiness.max_rss_bytes" in body["reasons"]["memory"]
    services.settings.readiness.max_rss_bytes = 0
    services.settings.readiness.min_available_memory_bytes = HUGE
    status, body = await ready(http_client, base_url)
    assert status == 503 and "readiness.min_available_memory_bytes" in body["reasons"]["memory"]
    assert await alive(http_client, base_url)


@pytest.mark.gen_test(timeout=30)
async def test_a_check_that_outlives_its_time_fails_and_is_not_started_again(
    services: Services,
) -> None:
    health = HealthService(services.store, services.farm, lambda: False)
    with pytest.raises(TimeoutError):
        await health._bounded("disk", 0.1, lambda: time.sleep(0.6))
    started = time.monotonic()
    with pytest.raises(TimeoutError):  # the first is still running: no second thread
        await health._bounded("disk", 5.0, lambda: 1)
    assert time.monotonic() - started < 0.1
    await asyncio.sleep(0.7)
    assert await health._bounded("disk", 1.0, lambda: 2) == 2


# -- with the browser: ready, then saturated, then draining --------------------------------------


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_ready_then_saturated_then_ready_again(http_client, base_url, site, services) -> None:
    status, body = await ready(http_client, base_url)
    assert status == 200, body
    assert body["status"] == "ready" and body["failed"] == [] and body["reasons"] == {}
    assert body["farm"]["slots_full"] is False
    keys = [services.store.create_key(f"org-{n}", "pro").key for n in range(2)]
    services.settings.readiness.max_farm_queue = 0
    target = quote(site.url("/slow?s=3"), safe="")

    async def capture(key: str) -> HTTPResponse:
        url = f"{base_url}/api/1.1/screenshot/{target}?app_id={key}&navigationTimeout=20000"
        return await http_client.fetch(url, raise_error=False, request_timeout=60)

    # One organization's capture takes the only page slot; another's waits in the farm's queue
    # (two organizations: one organization's second capture would wait in its own queue).
    captures = [asyncio.ensure_future(capture(key)) for key in keys]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        status, body = await ready(http_client, base_url)
        if "farm_capacity" in body["failed"]:
            break
        await asyncio.sleep(0.1)
    assert status == 503 and body["failed"] == ["farm_capacity"], body
    assert "readiness.max_farm_queue" in body["reasons"]["farm_capacity"]
    assert body["farm"]["slots_full"] is True and body["farm"]["queue_length"] >= 1
    assert await alive(http_client, base_url)
    answers = await asyncio.gather(*captures)
    assert [answer.code for answer in answers] == [200] * len(answers)
    await asyncio.sleep(0.5)  # background work on the pages gives their slots back
    status, body = await ready(http_client, base_url)
    assert status == 200, body
    services.draining = True
    status, body = await ready(http_client, base_url)
    assert status == 503 and body["failed"] == ["draining"] and body["checks"]["draining"] is True
    assert body["reasons"]["draining"] == "the server is shutting down"
    services.draining = False
