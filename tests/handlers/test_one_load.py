"""One page load for several outputs, over HTTP with real Chromium: the Markdown endpoint with
screenshot=true and the screenshot endpoint with include_markdown / include_metadata load the
origin's page once (its hits are counted), answer both outputs, bill the screenshot plus the
Markdown base, and leave the answers of requests without the new parameters as they were."""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import tornado.web
from PIL import Image
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from app.config import Settings
from app.services import Services
from app.web import make_api_app
from tests.conftest import make_settings
from tests.handlers.test_api import assert_markdown_error, markdown_url
from tests.origin import Origin, serve

PARAGRAPH = (
    "Salt marshes trap silt on every tide and build up, a few millimetres a year, until the "
    "grass holds the ground against the sea. "
)
ARTICLE = f"""<!doctype html><html lang="en"><head><title>Salt marsh walks</title>
<meta name="description" content="Where the marsh meets the sea."></head><body>
<nav><a href="/">Home</a> <a href="/walks">Walks</a></nav>
<main><article><h1>Salt marsh walks</h1><p>{PARAGRAPH * 3}</p>
<img src="/pixel.png" alt="The marsh at dusk">
<h2>Creeks</h2><p id="late-holder">{PARAGRAPH * 2}</p></article></main>
<script>setTimeout(() => {{ const p = document.createElement('p'); p.className = 'late';
p.textContent = 'Written by the page script after load: the creeks fill from the bottom up, '
  + 'so a walker on the marsh at high water finds the paths cut off from behind long before '
  + 'the grass itself is wet.';
document.querySelector('h2').before(p); }}, 100);</script>
</body></html>"""
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c6360f8cfc0f01f0005000201a5e0e2ea0000000049454e44ae426082"
)
MORE = "<html><body><main><p>one</p><button id='more'>more</button></main></body></html>"


@pytest.fixture
def settings(tmp_path: Path, base_url: str) -> Settings:
    settings = make_settings(tmp_path)
    settings.server.base_url = base_url  # links point at the test server
    settings.farm.warm_contexts = 1
    return settings


@pytest.fixture
def hits() -> Counter[str]:
    return Counter()


@pytest.fixture
def origin(io_loop: Any, hits: Counter[str]) -> Iterator[Origin]:
    pages = {"/article": ("text/html; charset=utf-8", ARTICLE.encode())}
    pages["/pixel.png"] = ("image/png", PIXEL)
    pages["/more"] = ("text/html", MORE.encode())

    class Page(tornado.web.RequestHandler):
        def get(self) -> None:
            hits[self.request.path] += 1
            found = pages.get(self.request.path)
            if found is None:
                self.set_status(404)
                self.finish("<html><body>no such page</body></html>")
                return
            self.set_header("Content-Type", found[0])
            self.finish(found[1])

    site = serve(tornado.web.Application([(r"/.*", Page)]))
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


async def get(http_client: AsyncHTTPClient, url: str) -> HTTPResponse:
    return await http_client.fetch(url, raise_error=False, request_timeout=60)


def screenshot_url(base_url: str, target: str, **params: str) -> str:
    query = "&".join(f"{name}={quote(value, safe='')}" for name, value in params.items())
    return f"{base_url}/api/1.1/screenshot/{quote(target, safe='')}?{query}"


async def image_at(http_client: AsyncHTTPClient, url: str) -> Image.Image:
    response = await http_client.fetch(url, request_timeout=30)
    return Image.open(io.BytesIO(response.body))


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_markdown_with_a_screenshot_loads_the_page_once(
    http_client, base_url, origin, key, hits, services
) -> None:
    credits = services.settings.credits
    url = markdown_url(
        base_url,
        origin.url("/article"),
        app_id=key,
        format="json",
        screenshot="true",
        screenshot_format="png",
        screenshot_dimensions="xs",
    )
    response = await get(http_client, url)
    assert response.code == 200, response.body
    body = json.loads(response.body)
    assert hits["/article"] == 1, "one navigation of the page for both outputs"
    assert body["markdown"].startswith("# Salt marsh walks")
    assert "Written by the page script after load:" in body["markdown"], "the rendered DOM"
    assert "Walks" not in body["markdown"]
    assert body["metadata"]["title"] == "Salt marsh walks"
    assert body["debug"]["full_render_used"] is True
    assert body["screenshot"]["dimensions"] == {"width": 375, "height": 812}
    assert body["screenshotUrl"].startswith(f"{base_url}/screenshots/")
    assert body["screenshotUrl"].endswith(".png") and "expiresAt" in body["screenshot"]
    image = await image_at(http_client, body["screenshotUrl"])
    assert image.format == "PNG" and image.size == (375, 812)
    assert response.headers["X-BILLING-REQUESTS"] == str(credits.screenshot + credits.markdown)
    assert response.headers["X-Cache"] == "miss"

    # format=markdown: the same body as without a screenshot, the link in a header.
    response = await get(
        http_client, markdown_url(base_url, origin.url("/article"), app_id=key, screenshot="true")
    )
    assert response.code == 200, response.body
    assert hits["/article"] == 2
    assert response.headers["Content-Type"].startswith("text/markdown")
    assert response.body.decode().startswith("# Salt marsh walks")
    image = await image_at(http_client, response.headers["X-Screenshot-Url"])
    assert image.format == "JPEG" and image.size == (1366, 768)
    assert response.headers["X-BILLING-REQUESTS"] == str(credits.screenshot + credits.markdown)


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_a_kept_answer_never_answers_a_screenshot_request(
    http_client, base_url, origin, key, hits
) -> None:
    target = origin.url("/article")
    plain = await get(http_client, markdown_url(base_url, target, app_id=key, format="json"))
    assert plain.code == 200 and "screenshotUrl" not in json.loads(plain.body)
    again = await get(http_client, markdown_url(base_url, target, app_id=key, format="json"))
    assert again.headers["X-Cache"] == "hit"
    fetched = hits["/article"]
    shot = await get(
        http_client, markdown_url(base_url, target, app_id=key, format="json", screenshot="true")
    )
    assert shot.code == 200, shot.body
    assert shot.headers["X-Cache"] == "miss" and "screenshotUrl" in json.loads(shot.body)
    assert hits["/article"] == fetched + 1
    # ... and a screenshot request's answer is not kept for the plain request either.
    after = await get(http_client, markdown_url(base_url, target, app_id=key, format="json"))
    assert after.headers["X-Cache"] == "hit" and "screenshotUrl" not in json.loads(after.body)


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_screenshot_with_markdown_and_metadata_loads_the_page_once(
    http_client, base_url, origin, key, hits, services
) -> None:
    credits = services.settings.credits
    target = origin.url("/article")
    url = screenshot_url(
        base_url, target, app_id=key, include_markdown="true", include_metadata="true"
    )
    response = await get(http_client, url)
    assert response.code == 200, response.body
    body = json.loads(response.body)
    assert hits["/article"] == 1
    assert body["markdown"].startswith("# Salt marsh walks")
    assert "Written by the page script after load:" in body["markdown"]
    assert body["metadata"]["title"] == "Salt marsh walks"
    assert body["metadata"]["description"] == "Where the marsh meets the sea."
    assert body["dimensions"] == {"width": 1366, "height": 768} and body["cached"] is False
    assert response.headers["X-BILLING-REQUESTS"] == str(credits.screenshot + credits.markdown)

    # Metadata alone; and a stored identical capture is not reused, as it kept no HTML.
    response = await get(http_client, screenshot_url(base_url, target, app_id=key))
    assert json.loads(response.body)["cached"] is True
    response = await get(
        http_client, screenshot_url(base_url, target, app_id=key, include_metadata="true")
    )
    body = json.loads(response.body)
    assert hits["/article"] == 2
    assert "markdown" not in body and body["metadata"]["title"] == "Salt marsh walks"
    assert body["cached"] is False


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_requests_without_the_new_parameters_answer_as_before(
    http_client, base_url, origin, key, services
) -> None:
    target = origin.url("/article")
    response = await get(http_client, screenshot_url(base_url, target, app_id=key))
    body = json.loads(response.body)
    assert set(body) == {
        "screenshotUrl",
        "dimensions",
        "requestInfo",
        "expiresAt",
        "cached",
        "timing",
    }
    assert response.headers["X-BILLING-REQUESTS"] == str(services.settings.credits.screenshot)
    response = await get(http_client, markdown_url(base_url, target, app_id=key, format="json"))
    body = json.loads(response.body)
    assert "screenshotUrl" not in body and "screenshot" not in body
    assert body["debug"]["full_render_used"] is False
    assert response.headers["X-BILLING-REQUESTS"] == str(services.settings.credits.markdown)
    assert "X-Screenshot-Url" not in response.headers


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_bad_and_idle_combinations(http_client, base_url, origin, key, hits) -> None:
    target = origin.url("/article")
    # A capture clicks nothing: load_more_selector with screenshot=true is refused before any load.
    response = await get(
        http_client,
        markdown_url(
            base_url, origin.url("/more"), app_id=key, screenshot="true", load_more_selector="#more"
        ),
    )
    body = assert_markdown_error(response, 400, -2203)
    assert "load_more_selector" in body["error"]["message"] and hits["/more"] == 0
    # A browser goes direct or through the standard tier, as for full_render.
    response = await get(
        http_client,
        markdown_url(base_url, target, app_id=key, screenshot="true", use_premium="true"),
    )
    body = assert_markdown_error(response, 400, -2203)
    assert "premium" in body["error"]["message"] and hits["/article"] == 0
    # The screenshot's own parameters do nothing without screenshot=true: warned, not refused.
    response = await get(
        http_client, markdown_url(base_url, target, app_id=key, screenshot_format="png")
    )
    assert response.code == 200
    assert "screenshot_format ignored" in response.headers["X-Pagecast-Warnings"]
    assert "X-Screenshot-Url" not in response.headers
    # An image answer has no room for the page's text: include_markdown is warned about.
    response = await get(
        http_client,
        screenshot_url(
            base_url, target, app_id=key, response_type="image", include_markdown="true"
        ),
    )
    assert response.code == 200 and response.headers["Content-Type"] == "image/jpeg"
    assert "include_markdown ignored" in response.headers["X-Pagecast-Warnings"]
    # An invalid choice of the screenshot's format is refused in the Markdown error shape.
    response = await get(
        http_client,
        markdown_url(base_url, target, app_id=key, screenshot="true", screenshot_format="gif"),
    )
    assert_markdown_error(response, 400, -2203)
