"""The Server-Timing header of screenshot and Markdown answers, over HTTP against a local origin:
it parses as the W3C syntax, names the phases that happened (and none that did not), and its
numbers are the ones the JSON answers report."""

from __future__ import annotations

import json
import re
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
from browser.timing import Timings
from tests.conftest import make_settings
from tests.handlers.test_api import markdown_url
from tests.origin import Origin, closed_port, serve

ARTICLE = (
    "<!doctype html><html><head><title>Lock keepers</title></head><body><main>"
    "<h1>Lock keepers</h1>"
    + "<p>The keeper opens the paddles and the chamber fills with water from upstream.</p>" * 6
    + "</main></body></html>"
)

# The Server-Timing grammar: metric *( OWS "," OWS metric ), each metric a token and its
# parameters (token OWS [ "=" OWS ( token / quoted-string ) ]) after semicolons.
TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
QUOTED = r'"(?:[^"\\]|\\.)*"'
PARAM = rf"\s*;\s*({TOKEN})\s*(?:=\s*({TOKEN}|{QUOTED}))?"
METRIC = re.compile(rf"\s*({TOKEN})((?:{PARAM})*)\s*(?:,|$)")


def parse(header: str) -> list[tuple[str, dict[str, str]]]:
    """The metrics of a Server-Timing value in order, each with its parameters; fails on
    anything the grammar does not allow."""
    metrics: list[tuple[str, dict[str, str]]] = []
    position = 0
    while position < len(header):
        match = METRIC.match(header, position)
        assert match is not None and match.end() > position, f"not Server-Timing: {header!r}"
        params = {
            name: value[1:-1] if value.startswith('"') else value
            for name, value in re.findall(PARAM, match.group(2))
        }
        metrics.append((match.group(1), params))
        position = match.end()
    return metrics


def phases(response: HTTPResponse) -> dict[str, float]:
    """The header's phases with their durations, checked: each has a non-negative duration,
    ``total`` comes last and is at least every phase."""
    metrics = parse(response.headers["Server-Timing"])
    durations = {name: float(params["dur"]) for name, params in metrics}
    assert len(durations) == len(metrics), "a phase named twice"
    assert metrics[-1][0] == "total"
    assert all(value >= 0 for value in durations.values()), durations
    assert all(durations["total"] >= value for value in durations.values()), durations
    return durations


def described(response: HTTPResponse, phase: str) -> str | None:
    return dict(parse(response.headers["Server-Timing"]))[phase].get("desc")


@pytest.fixture
def settings(tmp_path: Path, base_url: str) -> Settings:
    settings = make_settings(tmp_path)
    settings.server.base_url = base_url  # screenshot links point at the test server
    settings.farm.warm_contexts = 0
    return settings


@pytest.fixture
def origin(io_loop: Any) -> Iterator[Origin]:
    class Page(tornado.web.RequestHandler):
        def get(self) -> None:
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(ARTICLE)

    site = serve(tornado.web.Application([(r"/.*", Page)]))
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


async def markdown(
    http_client: AsyncHTTPClient, base_url: str, target: str, **params: str
) -> tuple[HTTPResponse, dict[str, Any]]:
    response = await http_client.fetch(
        markdown_url(base_url, target, format="json", **params),
        raise_error=False,
        request_timeout=60,
    )
    return response, json.loads(response.body)


async def screenshot(
    http_client: AsyncHTTPClient, base_url: str, target: str, key: str
) -> tuple[HTTPResponse, dict[str, Any]]:
    url = f"{base_url}/api/1.1/screenshot/{quote(target, safe='')}?app_id={key}"
    response = await http_client.fetch(url, raise_error=False, request_timeout=60)
    return response, json.loads(response.body)


@pytest.mark.gen_test(timeout=30)
async def test_markdown_fetch_then_cache_hit(http_client, base_url, origin, key, services) -> None:
    response, body = await markdown(http_client, base_url, origin.url("/article"), app_id=key)
    assert response.code == 200, body
    assert body["debug"]["cache_hit"] is False
    assert list(phases(response)) == ["queue", "fetch", "conversion", "total"]
    await services.pages.drain()  # the page is in the cache
    # The same request again: its kept answer, nothing fetched or converted.
    response, body = await markdown(http_client, base_url, origin.url("/article"), app_id=key)
    assert response.code == 200 and response.headers["X-Cache"] == "hit", body
    assert list(phases(response)) == ["total"]
    # Other options: the cached page converted again, without a fetch.
    response, body = await markdown(
        http_client, base_url, origin.url("/article"), app_id=key, max_chars="5000"
    )
    assert response.code == 200 and body["debug"]["cache_hit"] is True
    assert list(phases(response)) == ["queue", "conversion", "total"]  # no fetch


@pytest.mark.gen_test(timeout=30)
async def test_markdown_error_answers(http_client, base_url, key) -> None:
    unreachable = f"http://127.0.0.1:{closed_port()}/"
    response, body = await markdown(http_client, base_url, unreachable, app_id=key)
    assert response.code == 400 and body["error"]["code"] == -3001, body  # could not connect
    assert list(phases(response)) == ["fetch", "total"]  # every attempt's fetch, summed
    # Refused before any work: the total alone.
    response, body = await markdown(http_client, base_url, unreachable, app_id="no-such-key")
    assert response.code == 401, body
    assert list(phases(response)) == ["total"]


@pytest.mark.gen_test(timeout=30)
async def test_other_endpoints_carry_no_server_timing(http_client, base_url, origin, key) -> None:
    url = f"{base_url}/api/3.0/oembed/{quote(origin.url('/article'), safe='')}?app_id={key}"
    response = await http_client.fetch(url, raise_error=False)
    assert "Server-Timing" not in response.headers
    assert "Timing-Allow-Origin" not in response.headers  # the API answers no CORS


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_markdown_full_render(http_client, base_url, origin, key) -> None:
    response, body = await markdown(
        http_client, base_url, origin.url("/article"), app_id=key, full_render="true"
    )
    assert response.code == 200, body
    assert body["debug"]["full_render_used"] is True
    durations = phases(response)
    assert list(durations) == ["queue", "navigation", "ready", "conversion", "total"]
    # The readiness numbers the answer reports, not a second measurement.
    render = body["debug"]["render"]
    assert durations["navigation"] == render["load_ms"]
    assert durations["ready"] == render["ready_ms"]
    assert described(response, "ready") == render["ready"]


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_screenshot_fresh_reused_and_failed(http_client, base_url, origin, key) -> None:
    response, body = await screenshot(http_client, base_url, origin.url("/article"), key)
    assert response.code == 200, body
    durations = phases(response)
    assert list(durations) == ["queue", "navigation", "ready", "capture", "total"]
    assert durations["navigation"] == body["timing"]["load_ms"]
    assert durations["ready"] == body["timing"]["ready_ms"]
    assert described(response, "ready") == body["timing"]["ready"]
    # The same capture again is reused: nothing was queued, loaded or captured.
    response, body = await screenshot(http_client, base_url, origin.url("/article"), key)
    assert response.code == 200 and body["cached"] is True, body
    assert list(phases(response)) == ["total"]
    # A target nothing listens on: the wait for a page and the failed navigation.
    unreachable = f"http://127.0.0.1:{closed_port()}/"
    response, body = await screenshot(http_client, base_url, unreachable, key)
    assert response.code == 502 and body["success"] is False, body
    assert list(phases(response)) == ["queue", "navigation", "total"]


def test_phases_add_up_in_order_and_descriptions_are_quoted_safely() -> None:
    timings = Timings()
    timings.add("conversion", 2.0)
    timings.add("fetch", 10.26)
    timings.add("conversion", 3.0)
    timings.add("ready", 4.0, 'settled"\\\n\U0001f600')
    header = timings.header(30.0)
    assert header == (
        'fetch;dur=10.3, ready;dur=4.0;desc="settled", conversion;dur=5.0, total;dur=30.0'
    )
    assert [name for name, _ in parse(header)] == ["fetch", "ready", "conversion", "total"]
    with pytest.raises(ValueError):
        timings.add("lunch", 1.0)
