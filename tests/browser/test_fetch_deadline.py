"""One deadline per request across its retries: a page that drips or stalls is not fetched again
through the same tier (only escalation to another tier retries it), every attempt gets what is
left of the request's deadline, and the Markdown error says how many attempts were made. Fast
failures (a refused connection, a 503) are still retried as before."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient

from app.config import Settings
from app.services import Services
from app.web import make_api_app
from browser.fetch.client import Fetcher, FetchError, FetchSettings
from browser.proxies import ProxySettings
from services.fetch_policy import PageFetcher, PageRequest
from tests.conftest import make_settings
from tests.origin import DripHandler, Origin, closed_port, serve
from tests.proxies import TIER_HEADER, ProxyStats, proxy_url, start_proxy

TOTAL_TIMEOUT = 4.0
ALL_TIERS = frozenset({"standard", "premium", "superior"})


class Unavailable(tornado.web.RequestHandler):
    """503, after ``delay`` seconds."""

    def initialize(self, hits: Counter[str], delay: float) -> None:
        self.hits, self.delay = hits, delay

    async def get(self) -> None:
        self.hits[self.request.path] += 1
        await asyncio.sleep(self.delay)
        self.set_status(503)
        self.finish("<html><body>try later</body></html>")


@pytest.fixture
def hits() -> Counter[str]:
    return Counter()


@pytest.fixture
def origin(io_loop: Any, hits: Counter[str]) -> Iterator[Origin]:
    site = serve(
        tornado.web.Application(
            [
                (r"/drip", DripHandler, {"hits": hits, "label_header": TIER_HEADER}),
                (r"/busy", Unavailable, {"hits": hits, "delay": 0}),
                (r"/late-busy", Unavailable, {"hits": hits, "delay": 1.5}),
            ]
        )
    )
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """A small total timeout; the low-speed check off, so a dripping body meets the deadline."""
    settings = make_settings(tmp_path)
    settings.fetch.total_timeout = TOTAL_TIMEOUT
    settings.fetch.low_speed_limit = 0
    return settings


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


def page_fetcher(
    services: Services,
    *,
    request_deadline: float = 10.0,
    proxies: ProxySettings | None = None,
    **fetch: Any,
) -> PageFetcher:
    fetcher = Fetcher(FetchSettings(allow_hosts=["127.0.0.1"], **fetch))
    return PageFetcher(
        fetcher, proxies or ProxySettings(), services.store, request_deadline=request_deadline
    )


async def markdown_error(
    http_client: AsyncHTTPClient, base_url: str, target: str, key: str
) -> tuple[int, dict[str, Any], float]:
    url = f"{base_url}/api/3.0/markdown/{quote(target, safe='')}?app_id={key}&format=json"
    started = time.monotonic()
    response = await http_client.fetch(url, raise_error=False, request_timeout=30)
    return response.code, json.loads(response.body), time.monotonic() - started


@pytest.mark.gen_test(timeout=30)
async def test_a_dripping_page_fails_once_within_the_deadline(
    http_client: AsyncHTTPClient, base_url: str, origin: Origin, key: str, hits: Counter[str]
) -> None:
    status, body, took = await markdown_error(http_client, base_url, origin.url("/drip"), key)
    assert status == 400 and body["error"]["code"] == -3002, body
    assert body["error"]["message"] == "the target did not answer in time (after 1 attempt)"
    assert hits == Counter({"drip:direct": 1}), "a slow answer is not asked for again"
    assert TOTAL_TIMEOUT - 0.5 < took < TOTAL_TIMEOUT + 3


@pytest.mark.gen_test(timeout=30)
async def test_a_low_speed_abort_is_not_retried_on_the_same_tier(
    origin: Origin, services: Services, hits: Counter[str]
) -> None:
    pages = page_fetcher(services, total_timeout=8, low_speed_limit=100, low_speed_time=1)
    started = time.monotonic()
    try:
        got = await pages.get(PageRequest(origin.url("/drip"), cache_ok=False))
    finally:
        pages.fetcher.close()
    assert time.monotonic() - started < 4
    assert got.fetch.error is FetchError.timeout and got.fetch.slow
    assert "too slowly" in got.fetch.message
    assert (got.attempts, got.tiers_tried) == (1, ["direct"])
    assert hits == Counter({"drip:direct": 1})


@pytest.mark.gen_test(timeout=30)
async def test_a_slow_page_is_retried_only_by_escalating(
    io_loop: Any, origin: Origin, services: Services, hits: Counter[str]
) -> None:
    """Each tier once (the test proxies hold the answer back until the origin is done, so through
    them the page stalls); never the same tier twice."""
    started = {name: start_proxy(name) for name in ("standard", "premium")}
    proxies = ProxySettings()
    proxies.standard = [proxy_url(*started["standard"])]
    proxies.premium = [proxy_url(*started["premium"])]
    pages = page_fetcher(services, proxies=proxies, low_speed_limit=100, low_speed_time=1)
    try:
        got = await pages.get(
            PageRequest(origin.url("/drip"), allowed_tiers=ALL_TIERS, cache_ok=False)
        )
    finally:
        pages.fetcher.close()
        for site, _ in started.values():
            await site.close()
    assert got.fetch.error is FetchError.timeout
    assert (got.attempts, got.tiers_tried) == (3, ["direct", "standard", "premium"])
    assert hits == Counter({"drip:direct": 1, "drip:standard": 1, "drip:premium": 1})
    stats: list[ProxyStats] = [stats for _, stats in started.values()]
    assert [len(stat.requests) for stat in stats] == [1, 1]


@pytest.mark.gen_test(timeout=30)
async def test_every_attempt_gets_what_is_left_of_one_deadline(
    origin: Origin, services: Services, hits: Counter[str]
) -> None:
    """503 after 1.5 s: retried, but the third attempt only has the last second of the 4 s
    deadline (a fresh total_timeout would let it finish)."""
    pages = page_fetcher(services, request_deadline=4.0, total_timeout=10)
    started = time.monotonic()
    try:
        got = await pages.get(PageRequest(origin.url("/late-busy"), cache_ok=False))
    finally:
        pages.fetcher.close()
    took = time.monotonic() - started
    assert got.fetch.error is FetchError.timeout
    assert got.attempts == 3 and hits["/late-busy"] == 3
    assert 3.5 < took < 4 + 2


@pytest.mark.gen_test(timeout=30)
async def test_refused_connections_and_503_are_still_retried(
    http_client: AsyncHTTPClient, base_url: str, origin: Origin, key: str, hits: Counter[str]
) -> None:
    status, body, took = await markdown_error(
        http_client, base_url, f"http://127.0.0.1:{closed_port()}/", key
    )
    assert status == 400 and body["error"]["code"] == -3001, body
    assert body["error"]["message"].endswith("(after 4 attempts)")
    assert took < TOTAL_TIMEOUT

    status, body, took = await markdown_error(http_client, base_url, origin.url("/busy"), key)
    assert status == 400 and body["error"]["code"] == -3008, body
    assert body["error"]["message"] == "the target answered 503 (after 4 attempts)"
    assert hits["/busy"] == 4
    assert took < TOTAL_TIMEOUT
