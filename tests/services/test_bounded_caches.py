"""Memory bounds: the shared bounded cache (bytes, entries, expiry, sweeps), the caches built on
it, metadata capped where a page is read, and the server's memory under oEmbed requests for pages
with a 5 MB title at distinct URLs (a real origin on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import tornado.web

from app.allocator import release_large_blocks
from app.config import Settings
from app.services import Services
from app.web import make_api_app, make_frame_app
from convert.embed.oembed import embed_fields, read_embed_page
from convert.metadata.fields import TEXT_LIMITS, URL_LIMIT, cap_text
from services.embeds import AnswerCache
from services.fetch_policy import StrategyMemo
from services.memcache import BoundedCache, approx_size
from tests.conftest import make_settings
from tests.origin import Origin, serve


class Clock:
    """A hand-driven monotonic clock."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_cache_evicts_by_bytes_least_recently_used_first() -> None:
    clock = Clock()
    cache: BoundedCache[str, str] = BoundedCache(10_000, 60, clock=clock)
    for name in "abcd":
        assert cache.put(name, name * 3000)
    assert cache.bytes <= 10_000
    assert cache.get("a") is None, "the oldest went first"
    assert cache.get("b") == "b" * 3000  # now the most recently used
    cache.put("e", "e" * 3000)
    assert cache.get("b") is not None and cache.get("c") is None
    assert cache.bytes <= 10_000
    assert not cache.put("huge", "x" * 20_000), "a value larger than the whole limit is not kept"
    assert cache.get("huge") is None and cache.get("b") is not None
    cache.put("b", "small")
    assert cache.bytes == sum(
        approx_size(k) + approx_size(cache.get(k)) + 200 for k in list(cache.keys())
    )


def test_the_cache_drops_expired_entries_on_access_and_by_a_sweep() -> None:
    clock = Clock()
    cache: BoundedCache[str, str] = BoundedCache(1_000_000, 60, clock=clock, sweep_interval=30)
    for number in range(50):
        cache.put(f"old{number}", "x" * 1000)
    held = cache.bytes
    clock.now += 61
    assert cache.get("old0") is None
    assert len(cache) == 49 and cache.bytes < held, "the expired entry looked up is dropped"
    cache.put("new", "y")  # a write after the sweep interval walks the whole cache
    assert list(cache.keys()) == ["new"]
    assert cache.bytes == approx_size("new") + approx_size("y") + 200
    assert cache.get("new", max_age=10) == "y"
    clock.now += 11
    assert cache.get("new", max_age=10) is None and cache.get("new") == "y"
    assert cache.put("short", "z", seconds=1)
    clock.now += 1
    assert cache.get("short") is None


def test_the_cache_bounds_entries_and_can_be_off() -> None:
    cache: BoundedCache[int, int] = BoundedCache(1 << 20, 60, max_entries=3)
    for number in range(10):
        cache.put(number, number)
    assert list(cache.keys()) == [7, 8, 9]
    assert cache.drop_where(lambda key, _: key % 2 == 1) == 2 and list(cache.keys()) == [8]
    for off in (BoundedCache(0, 60), BoundedCache(1 << 20, 0)):
        assert not off.put("a", "b") and off.get("a") is None and off.bytes == 0


def test_sizes_follow_the_strings_inside() -> None:
    small = approx_size({"title": "t", "html": "<p>"})
    big = approx_size({"title": "t" * 100_000, "html": "<p>"})
    assert 99_990 < big - small < 100_100
    assert approx_size(("k", 1, None, b"x" * 500)) > 500


def test_answer_cache_is_bounded_in_bytes_and_forgets_a_frame() -> None:
    answers = AnswerCache(60, 50_000)
    for number in range(200):
        answers.put((1, f"https://e.example/{number}"), {"html": "h" * 1000, "embed_id": "x"})
    assert answers.cache.bytes <= 50_000 and 0 < len(answers.cache) < 200
    answers.put((1, "https://e.example/keep"), {"html": "kept", "embed_id": "y"})
    answers.forget_frame("x")
    assert list(answers.cache.keys()) == [(1, "https://e.example/keep")]
    body = answers.get((1, "https://e.example/keep"), None)
    assert body is not None
    body["html"] = "changed"
    assert answers.get((1, "https://e.example/keep"), None) == {"html": "kept", "embed_id": "y"}


def test_strategy_memo_is_bounded_and_forgets_after_its_trust() -> None:
    memo = StrategyMemo(ttl=7000, max_domains=5)
    for number in range(20):
        memo.put(f"site{number}.example", "premium", written=True)
    assert memo.get("site19.example") == (True, "premium")
    assert memo.get("site0.example") == (False, None)
    assert not memo.needs_write("site19.example", "premium")
    assert memo.needs_write("site19.example", "superior")


# -- metadata caps --------------------------------------------------------------------------------


def test_metadata_is_capped_where_the_page_is_read() -> None:
    huge = "T" * 2_000_000
    long_url = "https://img.example/" + "a" * URL_LIMIT
    page = (
        f"<html lang='{'x' * 500}'><head><title>{huge}</title>"
        f"<meta name='description' content='{'D ' * 100_000}'>"
        f"<meta property='og:site_name' content='{'S' * 10_000}'>"
        f"<meta property='og:image' content='{long_url}'>"
        f"<link rel='canonical' href='{long_url}'>"
        f"<link rel='icon' href='{long_url}'>"
        + "<link rel='alternate' type='application/json+oembed' href='/o'>" * 50
        + "</head><body></body></html>"
    )
    read = read_embed_page(page, "https://site.example/page")
    meta = read.metadata
    assert len(meta["title"]) == TEXT_LIMITS["title"] and meta["title"].endswith("\u2026")
    assert len(meta["description"]) == TEXT_LIMITS["description"]
    assert meta["site_name"] == "site.example", "a 10,000-character site name is junk"
    assert len(meta["language"]) <= TEXT_LIMITS["language"]
    assert meta["image"] == "", "a URL over the cap is dropped, not cut"
    assert meta["canonical_url"] == "https://site.example/page"
    assert meta["favicon"] == "https://site.example/favicon.ico"
    assert len(read.discovery) <= 4
    assert sum(len(value) for value in meta.values()) < 3000


def test_short_metadata_is_kept_as_it_is() -> None:
    assert cap_text("  A   short\ttitle ", 300) == "A short title"
    page = (
        "<html><head><title>Short</title><meta property='og:image' content='/i.png'></head></html>"
    )
    meta = read_embed_page(page, "https://site.example/").metadata
    assert meta["title"] == "Short" and meta["image"] == "https://site.example/i.png"


def test_provider_answer_texts_are_capped() -> None:
    fields = embed_fields(
        {"type": "link", "version": "1.0", "title": "t" * 100_000, "provider_name": "p" * 9999},
        "https://site.example/",
    )
    assert len(fields["title"]) == TEXT_LIMITS["title"]
    assert len(fields["provider_name"]) == TEXT_LIMITS["site_name"]
    assert len(fields["html"]) < 1000


# -- the server under big-title pages -------------------------------------------------------------

TITLE_BYTES = 5 * 1024 * 1024
REQUESTS = 120
CONCURRENCY = 4
RSS_BOUND_MB = 50.0
ANSWER_CACHE_BYTES = 32 * 1024
"""Small enough that the answers of this test's requests do not all fit (eviction runs)."""


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.fetch.total_timeout = 30.0
    settings.oembed.answer_cache_bytes = ANSWER_CACHE_BYTES
    settings.oembed.frame_page_cache_bytes = ANSWER_CACHE_BYTES
    for plan in settings.plans.values():
        plan.requests_per_second, plan.burst = 1000.0, 1000
    return settings


@pytest.fixture
def big_title_site(io_loop: Any) -> Iterator[Origin]:
    """The same page, a 5 MB ``<title>``, under /big/<n>."""
    body = (
        "<!doctype html><html><head><meta charset='utf-8'><title>"
        + "T" * TITLE_BYTES
        + "</title></head><body><p>Big title</p></body></html>"
    ).encode()

    class Page(tornado.web.RequestHandler):
        def get(self, number: str) -> None:
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(body)

    origin = serve(tornado.web.Application([(r"/big/(\d+)", Page)]))
    yield origin
    io_loop.run_sync(origin.close)


@pytest.fixture
def frame_host(io_loop: Any, services: Services) -> Iterator[Origin]:
    host = serve(make_frame_app(services))
    services.settings.server.frame_host = host.base_url
    yield host
    io_loop.run_sync(host.close)


@pytest.fixture
def app(services: Services, frame_host: Origin) -> tornado.web.Application:
    return make_api_app(services)


def rss_mb() -> float:
    """This process's resident set, in MB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.gen_test(timeout=600)
async def test_memory_stays_flat_under_big_title_pages(
    http_client, base_url, big_title_site, key, services
) -> None:
    async def one(number: int) -> dict[str, Any]:
        target = quote(big_title_site.url(f"/big/{number}"), safe="")
        response = await http_client.fetch(
            f"{base_url}/api/3.0/oembed/{target}?app_id={key}", request_timeout=120
        )
        body: dict[str, Any] = json.loads(response.body)
        return body

    release_large_blocks()  # as the server does when it starts
    first = await one(0)  # imports, the worker, the first parse
    assert first["source"] == "og_frame"
    frame = await http_client.fetch(first["frame_url"])
    assert len(frame.body) < 20_000
    assert len(first["html"]) < 1000, "the title in the answer is capped"
    before = rss_mb()
    for start in range(1, REQUESTS + 1, CONCURRENCY):
        numbers = range(start, min(start + CONCURRENCY, REQUESTS + 1))
        for body in await asyncio.gather(*(one(n) for n in numbers)):
            assert body["source"] == "og_frame" and len(body["html"]) < 1000
            await http_client.fetch(body["frame_url"])  # the frame host's page cache fills too
    answers = services.embeds.answers.cache
    assert answers.bytes <= ANSWER_CACHE_BYTES
    assert 0 < len(answers) < REQUESTS, "the byte limit evicted answers"
    assert services.frame_service.card_pages.bytes <= ANSWER_CACHE_BYTES
    growth = rss_mb() - before
    assert growth < RSS_BOUND_MB, f"RSS grew by {growth:.1f} MB over {REQUESTS} requests"
