"""No parameter does nothing in silence: every rule of every endpoint's table of inert
parameters, broken over HTTP against a real server (a local page converted, captured in
Chromium, embedded as a hosted frame), answers 200 with the parameter named in
X-Pagecast-Warnings (and in a JSON answer's warnings), and the same answer as the request
without it. Where the parameter applies, or is sent at its default, nothing is said."""

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
from app.web import make_api_app, make_frame_app
from handlers.params.markdown import MARKDOWN_PARAMS
from handlers.params.oembed import OEMBED_PARAMS
from handlers.params.screenshot import SCREENSHOT_PARAMS
from handlers.params.table import ParamTable
from tests.conftest import make_settings
from tests.origin import Origin, serve

ARTICLE = """<!doctype html><html lang="en"><head><title>Canal locks</title>
<meta property="og:title" content="Canal locks">
<meta property="og:description" content="How a lock lifts a boat.">
</head><body><main><h1>Canal locks</h1>
<p>A lock is a chamber with gates at both ends. Water lets a boat rise or fall between two
reaches of a canal, one gate at a time, without pumps.</p>
<h2>Filling the chamber</h2>
<p>Paddles in the upper gate open first; the chamber fills until the levels match and the gate
swings open. Keepers tell boaters to hold their ropes loosely while the water rises.</p>
</main></body></html>"""

MARKDOWN_CASES: dict[str, dict[str, str]] = {
    "chunking": {"chunking": "true"},
    "include_markdown": {"include_markdown": "false"},
    "include_metadata": {"include_metadata": "false"},
    "include_chunks": {"format": "json", "include_chunks": "false"},
    "include_ai_safety": {"format": "json", "include_ai_safety": "false"},
    "include_headings": {"include_headings": "true"},
    "include_links": {"include_links": "true"},
    "include_images": {"include_images": "true"},
    "chunk_size": {"format": "json", "chunk_size": "500"},
    "chunk_overlap": {"format": "json", "chunk_overlap": "50"},
    "heading_aware": {"format": "json", "heading_aware": "false"},
    "heading_aware_level": {"format": "json", "chunking": "true", "heading_aware": "false",
                            "heading_aware_level": "3"},
    "max_chunks": {"format": "json", "max_chunks": "3"},
    "query_top_k": {"format": "json", "chunking": "true", "query_top_k": "2"},
    "max_retries": {"format": "json", "retry": "false", "max_retries": "2"},
    "retry_escalate": {"format": "json", "retry": "false", "retry_escalate": "false"},
    "proxy_country": {"format": "json", "proxy_country": "de"},
    "max_cache_age": {"format": "json", "cache_ok": "false", "max_cache_age": "60000"},
    "ai_sanitize_mode": {"format": "json", "ai_sanitize_mode": "warn"},
    "screenshot_format": {"format": "json", "screenshot_format": "png"},
    "screenshot_full_page": {"format": "json", "screenshot_full_page": "true"},
    "screenshot_dimensions": {"format": "json", "screenshot_dimensions": "xs"},
    "screenshot_dark_mode": {"format": "json", "screenshot_dark_mode": "true"},
    "screenshot_quality": {"format": "json", "screenshot_quality": "30"},
}  # fmt: skip
"""Per rule, a request in which its parameter has no effect."""
SCREENSHOT_CASES: dict[str, dict[str, str]] = {
    "quality": {"format": "png", "quality": "30"},
    "paper": {"paper": "letter"},
    "webhook_url": {"webhook_url": "https://example.com/hooks/pagecast"},
    "include_markdown": {"response_type": "image", "include_markdown": "true"},
    "include_metadata": {"response_type": "image", "include_metadata": "true"},
}
OEMBED_CASES: dict[str, dict[str, str]] = {
    "orientation": {"template": "compact", "orientation": "horizontal"},
    "max_cache_age": {"cache_ok": "false", "max_cache_age": "60000"},
    "proxy_country": {"proxy_country": "de"},
}
DOC = Path(__file__).resolve().parent.parent.parent / "docs" / "warnings.md"
VARYING = frozenset(
    {"warnings", "request_id", "debug", "screenshotUrl", "expiresAt", "timing", "cached"}
)
"""Fields that differ between two answers to the same request."""


@pytest.fixture
def settings(tmp_path: Path, base_url: str) -> Settings:
    settings = make_settings(tmp_path)
    settings.server.base_url = base_url
    settings.farm.warm_contexts = 1
    for plan in settings.plans.values():  # many requests in one test; rate limits are apart
        plan.requests_per_second, plan.burst = 1000.0, 1000
    return settings


@pytest.fixture
def origin(io_loop: Any) -> Iterator[Origin]:
    class Page(tornado.web.RequestHandler):
        def get(self) -> None:
            self.finish(ARTICLE)

    site = serve(tornado.web.Application([(r"/.*", Page)]))
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def frame_host(io_loop: Any, services: Services) -> Iterator[Origin]:
    host = serve(make_frame_app(services))
    services.settings.server.frame_host = host.base_url
    yield host
    io_loop.run_sync(host.close)


@pytest.fixture
def app(services: Services, frame_host: Origin) -> tornado.web.Application:
    return make_api_app(services)


@pytest.fixture
def key(services: Services) -> str:
    return str(services.store.create_key("acme", "pro").key)


def warning_of(table: ParamTable[Any], name: str) -> str:
    """The warning the rule for ``name`` gives, in the words the docs use."""
    rule = next(rule for rule in table.inert if rule.name == name)
    return f"{name} ignored: it {rule.words()}"


async def call(
    http_client: AsyncHTTPClient, url: str, key: str, params: dict[str, str]
) -> tuple[HTTPResponse, Any]:
    query = "&".join(f"{name}={quote(value, safe='')}" for name, value in params.items())
    response = await http_client.fetch(
        f"{url}?{query}", headers={"X-API-Key": key}, raise_error=False, request_timeout=60
    )
    if response.headers.get("Content-Type", "").startswith("application/json"):
        return response, json.loads(response.body)
    return response, response.body


def same_answer(body: Any, baseline: Any) -> None:
    if isinstance(body, dict):
        assert {k: v for k, v in body.items() if k not in VARYING} == {
            k: v for k, v in baseline.items() if k not in VARYING
        }
    else:
        assert body == baseline


async def assert_ignored(
    http_client: AsyncHTTPClient,
    url: str,
    key: str,
    table: ParamTable[Any],
    name: str,
    params: dict[str, str],
) -> Any:
    """The request without ``name`` first, then with it: the same answer, and one warning."""
    baseline_response, baseline = await call(
        http_client, url, key, {k: v for k, v in params.items() if k != name}
    )
    assert baseline_response.code == 200, baseline
    assert "X-Pagecast-Warnings" not in baseline_response.headers, name
    response, body = await call(http_client, url, key, params)
    assert response.code == 200, body
    warning = warning_of(table, name)
    assert response.headers["X-Pagecast-Warnings"] == warning
    if isinstance(body, dict):
        assert body["warnings"] == [warning]
    same_answer(body, baseline)
    return body


def test_every_rule_has_a_case() -> None:
    for table, cases in (
        (MARKDOWN_PARAMS, MARKDOWN_CASES),
        (SCREENSHOT_PARAMS, SCREENSHOT_CASES),
        (OEMBED_PARAMS, OEMBED_CASES),
    ):
        assert [rule.name for rule in table.inert] == list(cases)
        for name, params in cases.items():
            # The parameter is sent, at a valid value that is not its default.
            value = table.by_name[name]
            assert params[name] != str(value.default).lower(), name


def documented_rules(title: str) -> list[tuple[str, str]]:
    """(parameter, condition) rows of the docs' table that follows the line ``title``."""
    lines = DOC.read_text(encoding="utf-8").split(title + "\n", 1)[1].splitlines()
    table = [line for line in lines[1 : lines.index("", 2)] if line.startswith("| `")]
    return [re.fullmatch(r"\| `(\w+)` \| (.+) \|", line).groups() for line in table]  # type: ignore[union-attr]


def test_the_docs_list_every_rule_in_its_words() -> None:
    for title, table in (
        ("Markdown (`/api/3.0/markdown`):", MARKDOWN_PARAMS),
        ("Screenshot (`/api/1.1/screenshot`):", SCREENSHOT_PARAMS),
        ("oEmbed (`/api/{1.1,3.0}/oembed`):", OEMBED_PARAMS),
    ):
        rules = [(rule.name, rule.unless.words()) for rule in table.inert]
        assert documented_rules(title) == rules, title


@pytest.mark.parametrize("name", list(MARKDOWN_CASES))
@pytest.mark.gen_test(timeout=30)
async def test_markdown_inert_parameters(http_client, base_url, origin, key, name) -> None:
    url = f"{base_url}/api/3.0/markdown/{quote(origin.url('/locks'), safe='')}"
    await assert_ignored(http_client, url, key, MARKDOWN_PARAMS, name, MARKDOWN_CASES[name])


@pytest.mark.gen_test(timeout=30)
async def test_markdown_parameters_that_apply_are_used_silently(
    http_client, base_url, origin, key
) -> None:
    url = f"{base_url}/api/3.0/markdown/{quote(origin.url('/locks'), safe='')}"
    for params, used in (
        ({"format": "json", "include_headings": "true"}, lambda body: body["headings"]),
        (
            {"format": "json", "chunking": "true", "chunk_size": "200", "chunk_overlap": "40"},
            lambda body: body["chunks"][1]["overlap_character_count"] > 0,
        ),
        ({"format": "json", "use_proxy": "false", "include_headings": "false"}, bool),
        ({"query": "gate paddles", "query_top_k": "1"}, lambda body: b"Passage 1 " in body),
    ):
        response, body = await call(http_client, url, key, params)
        assert response.code == 200, body
        assert "X-Pagecast-Warnings" not in response.headers, params
        assert used(body), params


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_screenshot_inert_parameters(http_client, base_url, origin, key) -> None:
    url = f"{base_url}/api/1.1/screenshot/{quote(origin.url('/locks'), safe='')}"
    for name, params in SCREENSHOT_CASES.items():
        body = await assert_ignored(http_client, url, key, SCREENSHOT_PARAMS, name, params)
        # The parameter changed nothing: the capture made without it is reused (an image answer
        # is the same bytes).
        assert not isinstance(body, dict) or body["cached"] is True, name
    # Where quality applies it is used, without a word: a new capture.
    response, body = await call(http_client, url, key, {"format": "webp", "quality": "30"})
    assert response.code == 200 and body["cached"] is False
    assert "X-Pagecast-Warnings" not in response.headers


@pytest.mark.gen_test(timeout=30)
async def test_oembed_inert_parameters(http_client, base_url, origin, key) -> None:
    url = f"{base_url}/api/3.0/oembed/{quote(origin.url('/locks'), safe='')}"
    for name, params in OEMBED_CASES.items():
        if name == "orientation":
            continue  # kept for the frame's id: its own test below
        body = await assert_ignored(http_client, url, key, OEMBED_PARAMS, name, params)
        assert body["source"] == "og_frame"
    # orientation beside a template is said to do nothing, and does nothing to the size; its
    # value is kept, so a frame keeps the id it was made with.
    params = OEMBED_CASES["orientation"]
    response, body = await call(http_client, url, key, params)
    assert response.code == 200, body
    assert response.headers["X-Pagecast-Warnings"] == warning_of(OEMBED_PARAMS, "orientation")
    _, compact = await call(http_client, url, key, {"template": "compact"})
    assert (body["width"], body["height"]) == (compact["width"], compact["height"]) == (400, 300)
