"""Kept Markdown answers over HTTP: a repeated request answered from the first one's body and
headers (X-Cache, debug.cache), the parameters that do and do not change the key, cache_ok=false
and max_cache_age, a render-first request reused instead of rendered again (Chromium), the
credits of a reused answer, another host reading the answer from the store, and the memory
level's byte bound."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from app.config import Settings
from app.services import Services
from app.web import make_api_app
from services.markdown.answers import AnswerCache
from store.cache import cache_key
from store.results import StoredAnswer
from tests.conftest import make_settings
from tests.handlers.test_api import markdown_url
from tests.origin import Origin, serve

PARAGRAPH = (
    "Salt marshes trap silt on every tide, and samphire grows where the water lingers longest "
    "between the creeks. "
)


def article(title: str) -> str:
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title></head><body>"
        "<nav><a href='/'>Home</a> <a href='/news'>News</a></nav>"
        f"<main><article><h1>{title}</h1><p>{PARAGRAPH * 3}</p>"
        f"<h2>Creeks</h2><p>See <a href='/creeks'>the creek map</a>. {PARAGRAPH}</p>"
        "</article></main><footer>Copyright Marsh Trust</footer></body></html>"
    )


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.farm.warm_contexts = 0
    return settings


@pytest.fixture
def pages() -> dict[str, str]:
    return {"/marsh": article("Salt marsh"), "/other": article("Other marsh")}


@pytest.fixture
def hits() -> Counter[str]:
    return Counter()


@pytest.fixture
def origin(io_loop: Any, pages: dict[str, str], hits: Counter[str]) -> Iterator[Origin]:
    class Page(tornado.web.RequestHandler):
        def get(self) -> None:
            hits[self.request.path] += 1
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(pages[self.request.path])

    site = serve(tornado.web.Application([(r"/.*", Page)]))
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


async def get(
    http_client: AsyncHTTPClient, base_url: str, target: str, **params: str
) -> HTTPResponse:
    response = await http_client.fetch(markdown_url(base_url, target, **params), raise_error=False)
    assert response.code == 200, response.body
    return response


def without_request_fields(response: HTTPResponse) -> dict[str, Any]:
    """The envelope less the fields that belong to one request (request_id, debug.cache)."""
    body = json.loads(response.body)
    assert body["request_id"] == response.headers["X-Request-Id"]
    body["request_id"] = "-"
    body["debug"]["cache"] = "-"
    return body


@pytest.mark.gen_test(timeout=30)
async def test_miss_then_hit_gives_the_same_answer(
    http_client, base_url, origin, key, hits
) -> None:
    target = origin.url("/marsh")
    first = await get(http_client, base_url, target, app_id=key, format="json")
    second = await get(http_client, base_url, target, app_id=key, format="json")
    assert (first.headers["X-Cache"], second.headers["X-Cache"]) == ("miss", "hit")
    one, two = json.loads(first.body), json.loads(second.body)
    assert (one["debug"]["cache"], two["debug"]["cache"]) == ("miss", "hit")
    assert one["request_id"] != two["request_id"]
    assert two["debug"]["cache_hit"] is False, "the hit is the first answer, page fetched"
    assert without_request_fields(first) == without_request_fields(second)
    # Byte for byte, once the two per-request values are put back the way the miss had them.
    rebuilt = second.body.decode().replace(two["request_id"], one["request_id"])
    assert rebuilt.replace('"cache":"hit"', '"cache":"miss"') == first.body.decode()
    assert second.headers["Content-Type"] == "application/json; charset=utf-8"
    assert hits["/marsh"] == 1

    text = await get(http_client, base_url, target, app_id=key)
    again = await get(http_client, base_url, target, app_id=key)
    assert (text.headers["X-Cache"], again.headers["X-Cache"]) == ("miss", "hit")
    assert again.body == text.body and again.body.decode().startswith("# Salt marsh")
    for name in ("Content-Type", "X-Markdown-Character-Count"):
        assert again.headers[name] == text.headers[name]
    assert hits["/marsh"] == 1, "the Markdown format's miss read the cached page"


@pytest.mark.gen_test(timeout=30)
async def test_options_that_shape_the_answer_make_a_new_one(
    http_client, base_url, origin, key, hits
) -> None:
    target = origin.url("/marsh")
    first = await get(http_client, base_url, target, app_id=key, format="json")
    links = await get(
        http_client, base_url, target, app_id=key, format="json", include_links="true"
    )
    assert links.headers["X-Cache"] == "miss" and "links" in json.loads(links.body)
    whole = await get(
        http_client, base_url, target, app_id=key, format="json", only_main_content="false"
    )
    assert whole.headers["X-Cache"] == "miss"
    assert "Copyright Marsh Trust" in json.loads(whole.body)["markdown"]
    assert hits["/marsh"] == 1, "new answers of one cached page"
    other = await get(http_client, base_url, origin.url("/other"), app_id=key, format="json")
    assert other.headers["X-Cache"] == "miss"

    # The key, the target's spelling and the cache's own controls do not shape the answer.
    same = await http_client.fetch(
        f"{base_url}/api/3.0/markdown/?format=json&max_cache_age=600000&url={target}&app_id={key}",
    )
    assert same.headers["X-Cache"] == "hit"
    assert without_request_fields(same) == without_request_fields(first)


@pytest.mark.gen_test(timeout=30)
async def test_cache_ok_false_fetches_again_and_refreshes(
    http_client, base_url, origin, key, hits, pages
) -> None:
    target = origin.url("/marsh")
    first = await get(http_client, base_url, target, app_id=key)
    assert first.body.decode().startswith("# Salt marsh")
    pages["/marsh"] = article("Renamed marsh")
    kept = await get(http_client, base_url, target, app_id=key)
    assert kept.headers["X-Cache"] == "hit" and kept.body == first.body
    fresh = await get(http_client, base_url, target, app_id=key, cache_ok="false")
    assert fresh.headers["X-Cache"] == "miss"
    assert fresh.body.decode().startswith("# Renamed marsh")
    assert hits["/marsh"] == 2
    after = await get(http_client, base_url, target, app_id=key)
    assert after.headers["X-Cache"] == "hit" and after.body == fresh.body, "refreshed"
    assert hits["/marsh"] == 2


@pytest.mark.gen_test(timeout=30)
async def test_max_cache_age_refuses_an_older_answer(
    http_client, base_url, origin, key, hits, pages
) -> None:
    target = origin.url("/marsh")
    await get(http_client, base_url, target, app_id=key)
    pages["/marsh"] = article("Renamed marsh")
    await asyncio.sleep(1.2)
    young_enough = await get(http_client, base_url, target, app_id=key, max_cache_age="60000")
    assert young_enough.headers["X-Cache"] == "hit"
    assert young_enough.body.decode().startswith("# Salt marsh")
    too_old = await get(http_client, base_url, target, app_id=key, max_cache_age="1000")
    assert too_old.headers["X-Cache"] == "miss"
    assert too_old.body.decode().startswith("# Renamed marsh")
    assert hits["/marsh"] == 2


@pytest.mark.gen_test(timeout=30)
async def test_credits_of_a_reused_answer(http_client, base_url, origin, key, services) -> None:
    credits = services.settings.credits
    target = origin.url("/marsh")
    first = await get(http_client, base_url, target, app_id=key)
    hit = await get(http_client, base_url, target, app_id=key)
    assert first.headers["X-BILLING-REQUESTS"] == hit.headers["X-BILLING-REQUESTS"]
    assert hit.headers["X-BILLING-REQUESTS"] == str(credits.markdown)
    scanned = await get(http_client, base_url, target, app_id=key, ai_sanitize="true")
    scanned_hit = await get(http_client, base_url, target, app_id=key, ai_sanitize="true")
    assert scanned_hit.headers["X-Cache"] == "hit"
    assert scanned_hit.headers["X-AI-Safety-Level"] == scanned.headers["X-AI-Safety-Level"]
    expected = str(credits.markdown + credits.ai_sanitize)
    assert scanned.headers["X-BILLING-REQUESTS"] == scanned_hit.headers["X-BILLING-REQUESTS"]
    assert scanned_hit.headers["X-BILLING-REQUESTS"] == expected


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=60)
async def test_a_render_first_answer_is_reused_not_rendered_again(
    http_client, base_url, origin, key, hits, services
) -> None:
    credits = services.settings.credits
    target = origin.url("/marsh")
    rendered = await get(http_client, base_url, target, app_id=key, full_render="true")
    assert rendered.headers["X-Cache"] == "miss"
    assert rendered.headers["X-BILLING-REQUESTS"] == str(credits.markdown + credits.full_render)
    assert "X-Render-Timing" in rendered.headers
    assert hits["/marsh"] == 1
    reused = await get(http_client, base_url, target, app_id=key, full_render="true")
    assert reused.headers["X-Cache"] == "hit" and reused.body == rendered.body
    assert reused.headers["X-Render-Timing"] == rendered.headers["X-Render-Timing"]
    assert reused.headers["X-BILLING-REQUESTS"] == str(credits.markdown), "no render, no add-on"
    assert hits["/marsh"] == 1, "the browser did not load the page again"
    fetched = await get(http_client, base_url, target, app_id=key)
    assert fetched.headers["X-Cache"] == "miss", "a rendered answer is not a fetched one"


@pytest.mark.gen_test(timeout=30)
async def test_another_host_reads_the_answer_from_the_store(
    http_client, base_url, origin, key, hits, services
) -> None:
    target = origin.url("/marsh")
    first = await get(http_client, base_url, target, app_id=key, format="json")
    assert services.answers is not None
    await services.answers.drain()
    # A second process: its own memory, empty; the same database.
    services.answers = AnswerCache(services.store, lambda: services.store.cache_settings)
    second = await get(http_client, base_url, target, app_id=key, format="json")
    assert second.headers["X-Cache"] == "hit"
    assert without_request_fields(second) == without_request_fields(first)
    assert services.answers.memory_bytes > 0, "kept in this process's memory from now on"
    assert hits["/marsh"] == 1


@pytest.mark.gen_test(timeout=30)
async def test_memory_holds_at_most_its_bytes_least_recently_used_out(services) -> None:
    settings = services.store.cache_settings
    settings.result_memory_bytes = 50_000
    answers = AnswerCache(services.store, lambda: settings)
    kept = [
        StoredAnswer(cache_key(f"https://example.com/{n}", {}), "x" * 20_000, {}, "fetched")
        for n in range(3)
    ]
    answers.keep(kept[0])
    answers.keep(kept[1])
    assert await answers.get(kept[0].key, None) is kept[0]  # now the most recently used
    answers.keep(kept[2])
    assert 40_000 < answers.memory_bytes <= 50_000
    await answers.drain()
    assert await answers.get(kept[0].key, None) is kept[0]
    from_store = await answers.get(kept[1].key, None)  # out of memory: read from the store
    assert from_store is not None and from_store is not kept[1]
    assert from_store.body == kept[1].body
    assert answers.memory_bytes <= 50_000


@pytest.mark.gen_test(timeout=30)
async def test_a_refreshed_page_supersedes_every_format_s_kept_answer(
    http_client, base_url, origin, key, hits, pages, services
) -> None:
    target = origin.url("/marsh")
    pages["/marsh"] = article("Price 10 EUR")
    old_json = await get(http_client, base_url, target, app_id=key, format="json")
    assert "10 EUR" in json.loads(old_json.body)["markdown"]
    old_links = await get(
        http_client, base_url, target, app_id=key, format="json", include_links="true"
    )
    assert old_links.headers["X-Cache"] == "miss" and "10 EUR" in old_links.body.decode()
    pages["/marsh"] = article("Price 99 EUR")
    fresh = await get(http_client, base_url, target, app_id=key, cache_ok="false")
    assert fresh.body.decode().startswith("# Price 99 EUR")
    assert services.answers is not None
    await services.answers.drain()
    await services.pages.drain()
    again = await get(http_client, base_url, target, app_id=key, format="json")
    assert again.headers["X-Cache"] == "miss", "the older page version's answer is not reused"
    assert "99 EUR" in json.loads(again.body)["markdown"]
    assert hits["/marsh"] == 2, "the refreshed page was read from the page cache"
    # Another process (its memory empty, the same database) finds no older answer either.
    services.answers = AnswerCache(services.store, lambda: services.store.cache_settings)
    links = await get(
        http_client, base_url, target, app_id=key, format="json", include_links="true"
    )
    assert "99 EUR" in links.body.decode() and links.headers["X-Cache"] == "miss"
    kept = await get(http_client, base_url, target, app_id=key, format="json")
    assert kept.headers["X-Cache"] == "hit" and "99 EUR" in json.loads(kept.body)["markdown"]
