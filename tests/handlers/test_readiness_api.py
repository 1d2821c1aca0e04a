"""Pages that build themselves with JavaScript, through the API with default parameters: the
Markdown endpoint (auto_render of the app shell) gives their whole text and the screenshot shows
it, with no wait asked for; a render that yields nothing is answered honestly (not billed as a
render, and said in ``debug``)."""

from __future__ import annotations

import io
import json
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
from tests.handlers.test_api import markdown_url
from tests.spa_site import ARTICLE_WORDS

pytestmark = pytest.mark.chromium

APPS = ("timer300", "timer2s", "fetch", "route", "polling", "socket")
GREEN = (0, 170, 0)


@pytest.fixture
def settings(tmp_path: Path, base_url: str) -> Settings:
    settings = make_settings(tmp_path)
    settings.server.base_url = base_url  # links point at the test server
    settings.farm.warm_contexts = 0
    settings.farm.ready_timeout = 3.0
    return settings


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
) -> tuple[HTTPResponse, dict[str, Any], Image.Image]:
    url = f"{base_url}/api/1.1/screenshot/{quote(target, safe='')}?app_id={key}&format=png"
    response = await http_client.fetch(url, raise_error=False, request_timeout=60)
    body = json.loads(response.body)
    link = await http_client.fetch(body["screenshotUrl"], request_timeout=30)
    return response, body, Image.open(io.BytesIO(link.body)).convert("RGB")


@pytest.mark.gen_test(timeout=180)
async def test_app_pages_give_their_text_and_show_it(http_client, base_url, spa_site, key) -> None:
    for name in APPS:
        target = spa_site.url(f"/app/{name}")
        response, body = await markdown(http_client, base_url, target, app_id=key)
        assert response.code == 200, (name, body)
        assert f"# Ready page {name}" in body["markdown"], (name, body)
        assert ARTICLE_WORDS in body["markdown"], name
        assert body["debug"]["auto_render_triggered"] is True, name
        assert body["debug"]["render"]["ready"] == "settled", name
        assert body["debug"]["render_note"] is None
        assert response.headers["X-BILLING-REQUESTS"] == "1"  # auto_render is not billed
        response, body, image = await screenshot(http_client, base_url, target, key)
        assert response.code == 200, (name, body)
        assert body["timing"]["ready"] == "settled", name
        assert image.getpixel((1300, 200)) == GREEN, name


@pytest.mark.gen_test(timeout=60)
async def test_a_render_that_yields_nothing_is_not_billed(
    http_client, base_url, spa_site, key
) -> None:
    response, body = await markdown(
        http_client, base_url, spa_site.url("/app/blank"), app_id=key, full_render="true"
    )
    assert response.code == 200, body
    assert body["markdown"].strip() == "# Harbour app blank"  # the title: the page has no text
    debug = body["debug"]
    assert debug["full_render_used"] is True
    assert debug["render"]["ready"] == "blank"
    assert "yielded no text" in debug["render_note"] and "not billed" in debug["render_note"]
    assert response.headers["X-BILLING-REQUESTS"] == "1"
    # The same request on a page that renders its text is billed the render add-on.
    response, body = await markdown(
        http_client, base_url, spa_site.url("/app/fetch"), app_id=key, full_render="true"
    )
    assert ARTICLE_WORDS in body["markdown"]
    assert response.headers["X-BILLING-REQUESTS"] == "6"


@pytest.mark.gen_test(timeout=60)
async def test_an_app_that_never_mounts_is_answered_as_fetched(
    http_client, base_url, spa_site, key
) -> None:
    response, body = await markdown(http_client, base_url, spa_site.url("/app/blank"), app_id=key)
    assert response.code == 200, body
    debug = body["debug"]
    assert debug["auto_render_triggered"] is False
    assert debug["render"]["ready"] == "blank"
    assert "yielded no text" in debug["render_note"]
    assert response.headers["X-Render-Timing"].startswith("ready=blank; ")
    assert response.headers["X-BILLING-REQUESTS"] == "1"


@pytest.mark.gen_test(timeout=60)
async def test_a_page_that_never_settles_answers_within_its_bound(
    http_client, base_url, spa_site, key
) -> None:
    response, body, image = await screenshot(
        http_client, base_url, spa_site.url("/app/restless"), key
    )
    assert response.code == 200, body
    assert body["timing"]["ready"] == "timeout"
    assert 3000 <= body["timing"]["ready_ms"] < 5000  # the bound, and one last look
    assert image.getpixel((1300, 200)) == GREEN
