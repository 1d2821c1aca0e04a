"""Waits for the elements a request names, over HTTP with real Chromium: a screenshot's
``selector`` that matches nothing fails soon after the page is ready (not at the end of its
navigation budget), ``wait_for_selector`` waits ``wait_timeout`` for a late element on the
screenshot and Markdown endpoints and in a batch, and ``wait_timeout`` is validated on every
endpoint that takes it."""

from __future__ import annotations

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
from tests.handlers.test_api import assert_markdown_error, markdown_url
from tests.handlers.test_jobs_api import all_results, post, wait_ended
from tests.handlers.test_screenshot import assert_error, shot
from tests.origin import Origin, serve

PROSE = (
    "The ferry leaves the north quay at seven and crosses the sound in forty minutes, "
    "calling at the island pier when the tide allows. "
)
PAGES = {
    "/box": "<!doctype html><html><body style='margin:0'><div id='box' style='width:200px;"
    "height:100px;background:#00f'></div></body></html>",
    # The element arrives half a second after the page's load.
    "/late": f"""<!doctype html><html><head><title>Timetable</title></head><body><main>
<h1>Ferry timetable</h1><p>{PROSE * 2}</p></main>
<script>
addEventListener('load', () => setTimeout(() => {{
  const p = document.createElement('p');
  p.id = 'late';
  p.textContent = 'The winter timetable arrived half a second after the page loaded.';
  document.querySelector('main').appendChild(p);
}}, 500));
</script></body></html>""",
}
LATE_TEXT = "winter timetable arrived half a second"
FAST = 10.0
"""Seconds within which an element that is not there is answered (the old wait took the whole
navigation budget, over 30 s): generous, for a loaded machine."""


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.farm.warm_contexts = 0
    settings.jobs.poll_interval = 0.05
    settings.cache.enabled = False
    return settings


@pytest.fixture
def app(io_loop: Any, services: Services) -> Iterator[tornado.web.Application]:
    yield from serve_with_jobs(io_loop, services)


@pytest.fixture
def key(services: Services) -> str:
    return services.store.create_key("waits", "pro").key


@pytest.fixture
def origin(io_loop: Any) -> Iterator[Origin]:
    class Page(tornado.web.RequestHandler):
        def get(self) -> None:
            body = PAGES.get(self.request.path)
            if body is None:
                self.set_status(404)
                body = "<html><body>no such page</body></html>"
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(body)

    site = serve(tornado.web.Application([(r"/.*", Page)]))
    yield site
    io_loop.run_sync(site.close)


async def markdown(
    http_client: AsyncHTTPClient, base_url: str, target: str, **params: str
) -> tuple[int, dict[str, Any], float]:
    started = time.monotonic()
    response = await http_client.fetch(
        markdown_url(base_url, target, format="json", **params),
        raise_error=False,
        request_timeout=60,
    )
    return response.code, json.loads(response.body), time.monotonic() - started


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_a_selector_that_matches_nothing_fails_soon_after_the_page_is_ready(
    http_client, base_url, origin, key
) -> None:
    response, body = await shot(http_client, base_url, origin.url("/box"), key, selector="#box")
    assert response.code == 200, body
    assert body["dimensions"] == {"width": 200, "height": 100}
    # The default navigationTimeout (30 s) no longer bounds the wait: the ready page is given a
    # second for the element.
    started = time.monotonic()
    response, body = await shot(http_client, base_url, origin.url("/box"), key, selector="#nope")
    elapsed = time.monotonic() - started
    assert_error(response, body, 422, "selector_not_found")
    message = body["error"]["message"]
    assert "selector '#nope'" in message and "within 1000 ms" in message, message
    assert "once the page was ready" in message
    assert body["error"]["details"] == [
        {"parameter": "selector", "message": message.split(": ", 1)[1]}
    ]
    assert elapsed < FAST, elapsed
    # A wait_timeout below the grace shortens it.
    response, body = await shot(
        http_client, base_url, origin.url("/box"), key, selector="#nope", wait_timeout="300"
    )
    assert_error(response, body, 422, "selector_not_found")
    assert "within 300 ms" in body["error"]["message"]


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_a_screenshot_waits_wait_timeout_for_its_element(
    http_client, base_url, origin, key
) -> None:
    response, body = await shot(
        http_client, base_url, origin.url("/late"), key, wait_for_selector="#late"
    )
    assert response.code == 200, body
    assert body["timing"]["ready"] == "selector"
    # The element to capture, once the awaited one is there, is found at once.
    response, body = await shot(
        http_client,
        base_url,
        origin.url("/late"),
        key,
        wait_for_selector="#late",
        selector="#late",
        format="png",
    )
    assert response.code == 200, body
    started = time.monotonic()
    response, body = await shot(
        http_client,
        base_url,
        origin.url("/late"),
        key,
        wait_for_selector="#never",
        wait_timeout="1500",
    )
    elapsed = time.monotonic() - started
    assert_error(response, body, 422, "selector_not_found")
    message = body["error"]["message"]
    assert "wait_for_selector '#never'" in message, message
    assert "within 1500 ms (wait_timeout)" in message, message
    assert body["error"]["details"][0]["parameter"] == "wait_for_selector"
    assert 1.5 <= elapsed < FAST, elapsed


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_markdown_waits_wait_timeout_for_its_element(
    http_client, base_url, origin, key
) -> None:
    code, body, _ = await markdown(
        http_client, base_url, origin.url("/late"), app_id=key, wait_for_selector="#late"
    )
    assert code == 200, body
    assert LATE_TEXT in body["markdown"]
    code, body, elapsed = await markdown(
        http_client,
        base_url,
        origin.url("/late"),
        app_id=key,
        wait_for_selector="main > #never",
        wait_timeout="1200",
    )
    assert code == 422, body
    assert body["error"]["code"] == -4003
    message = body["error"]["message"]
    assert "wait_for_selector 'main > #never'" in message, message
    assert "within 1200 ms (wait_timeout)" in message, message
    assert 1.2 <= elapsed < FAST, elapsed
    # A load-more button the ready page does not have: nothing more to load, answered soon.
    code, body, elapsed = await markdown(
        http_client, base_url, origin.url("/late"), app_id=key, load_more_selector="#more"
    )
    assert code == 200, body
    assert "Ferry timetable" in body["markdown"]
    assert elapsed < FAST, elapsed


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_a_batch_page_whose_element_never_comes_says_what_was_waited_for(
    http_client, base_url, origin, key
) -> None:
    options = {"wait_for_selector": "#never", "wait_timeout": 1000}
    code, accepted = await post(
        http_client,
        base_url,
        "/api/3.0/batch",
        key,
        {"urls": [origin.url("/late")], "options": options},
    )
    assert code == 202, accepted
    ended = await wait_ended(http_client, base_url, accepted["id"], key)
    assert ended["status"] == "failed", ended  # its one page could not be done
    [result] = await all_results(http_client, base_url, accepted["id"], key)
    assert result["error"]["code"] == -4003, result
    assert "wait_for_selector '#never'" in result["error"]["message"]
    assert "within 1000 ms" in result["error"]["message"]


@pytest.mark.gen_test(timeout=30)
async def test_wait_timeout_is_validated_on_every_endpoint(
    http_client, base_url, origin, key
) -> None:
    for wrong in ("99", "60001", "soon", "1.5"):
        response, body = await shot(
            http_client, base_url, origin.url("/box"), key, wait_timeout=wrong
        )
        assert_error(response, body, 400, "invalid_request")
        assert "wait_timeout" in body["error"]["message"], body
        assert [d["parameter"] for d in body["error"]["details"]] == ["wait_timeout"], body

        response = await http_client.fetch(
            markdown_url(base_url, origin.url("/late"), app_id=key, wait_timeout=wrong),
            raise_error=False,
        )
        answer = assert_markdown_error(response, 400, -2203)
        assert "wait_timeout" in answer["error"]["message"]

    code, refused = await post(
        http_client,
        base_url,
        "/api/3.0/batch",
        key,
        {"urls": [origin.url("/late")], "options": {"wait_timeout": 50}},
    )
    assert code == 400 and refused["error"]["code"] == -2203, refused
    assert "options.wait_timeout" in refused["error"]["message"]

    spec = json.loads((await http_client.fetch(f"{base_url}/openapi.json")).body)
    found = {}
    for path, item in spec["paths"].items():
        for parameter in item.get("get", {}).get("parameters", []):
            if parameter["name"] == "wait_timeout":
                found[path] = parameter["schema"]
    assert any("/screenshot/" in path for path in found), found
    assert any("/markdown/" in path for path in found), found
    for schema in found.values():
        assert (schema["minimum"], schema["maximum"], schema["default"]) == (100, 60000, 10000)
    for job in ("/api/3.0/batch", "/api/3.0/crawl"):
        body_schema = spec["paths"][job]["post"]["requestBody"]["content"]["application/json"]
        option = body_schema["schema"]["properties"]["options"]["properties"]["wait_timeout"]
        assert (option["minimum"], option["maximum"], option["default"]) == (100, 60000, 10000)
