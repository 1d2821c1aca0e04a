"""The screenshot endpoint end to end: real Chromium behind the egress guard, purpose-built local
pages, images checked with Pillow, links that expire, and SSRF attempts from inside the page."""

from __future__ import annotations

import asyncio
import io
import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import tornado.web
import tornado.websocket
from PIL import Image
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.httpserver import HTTPServer
from tornado.testing import bind_unused_port

from app.config import Settings
from app.services import Services
from app.web import make_api_app
from browser.farm import Farm
from convert.extract.consent import BANNERS
from tests.conftest import make_settings, running_farm
from tests.origin import Origin, closed_port, serve

RED = (255, 0, 0)

PAGES = {
    "plain": "<html><body style='margin:0;background:#fff'><h1>Plain page</h1></body></html>",
    "tall": "<html><body style='margin:0'><div style='height:3000px;background:#0a0'>tall</div>"
    "</body></html>",
    "element": "<html><body style='margin:0'><div id='box' style='position:absolute;left:10px;"
    "top:20px;width:200px;height:100px;background:#00f'></div></body></html>",
    "red": "<html><body style='margin:0;background:#fff'><div class='ad' style='width:400px;"
    "height:300px;background:#f00'></div><p>text</p></body></html>",
    "dark": "<html><head><style>body{margin:0;background:#fff}@media (prefers-color-scheme: dark)"
    "{body{background:#000}}</style></head><body><p>x</p></body></html>",
    "clear": "<html><body style='margin:0'><div style='width:100px;height:100px;background:#f00'>"
    "</div></body></html>",
    "long": "<html><body style='margin:0'>"
    + "<p style='height:900px'>page</p>" * 3
    + "</body></html>",
    "late": "<html><body><script>setTimeout(()=>{const d=document.createElement('div');"
    "d.id='late';d.textContent='late';document.body.appendChild(d)},300)</script></body></html>",
}


def banner_page(selector: str) -> str:
    """A page whose consent banner (a big red fixed box) is built with the platform's markup."""
    if selector.startswith("#"):
        attrs = f"id='{selector[1:]}'"
    elif selector.startswith("."):
        attrs = f"class='{selector[1:]}'"
    else:  # div[id^="sp_message_container_"]
        attrs = "id='sp_message_container_12345'"
    return (
        "<html><body style='margin:0;background:#fff;overflow:hidden'><p>article</p>"
        f"<div {attrs} style='position:fixed;left:0;top:0;width:100%;height:100%;"
        "background:#f00;z-index:99999'>We use cookies</div></body></html>"
    )


def locked_page(banner: bool) -> str:
    """A page scrolled down and locked there the way consent platforms lock scrolling (the body
    fixed above the viewport), its red top band out of view; with or without a banner."""
    markup = "<div id='onetrust-banner-sdk'>We use cookies</div>" if banner else ""
    return (
        "<html><body style='margin:0;position:fixed;top:-600px;left:0;width:100%'>"
        "<div style='height:500px;background:#f00'></div>"
        f"<div style='height:2000px;background:#fff'></div>{markup}</body></html>"
    )


class Page(tornado.web.RequestHandler):
    async def get(self, name: str) -> None:
        if name.startswith("banner/"):
            self.finish(banner_page(self.get_query_argument("s")))
        elif name.startswith("locked/"):
            self.finish(locked_page(banner=name == "locked/banner"))
        elif name in PAGES:
            self.finish(PAGES[name])
        elif name == "hang":
            await asyncio.sleep(30)  # never answers within any test's navigation timeout
        else:
            self.set_status(404)
            self.finish("missing")


class Secret(tornado.web.RequestHandler):
    """An address Pagecast must never reach: counts every request that gets here."""

    def initialize(self, hits: list[str]) -> None:
        self.hits = hits

    def get(self) -> None:
        self.hits.append(self.request.path)
        self.finish("secret")


class SecretSocket(tornado.websocket.WebSocketHandler):
    def initialize(self, hits: list[str]) -> None:
        self.hits = hits

    def open(self) -> None:
        self.hits.append("websocket")


@pytest.fixture
def origin(io_loop: Any) -> Iterator[Origin]:
    site = serve(tornado.web.Application([(r"/(.*)", Page)]))
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def secret(io_loop: Any) -> Iterator[tuple[str, list[str]]]:
    """A server on 127.0.0.2, which the test settings do not allow."""
    hits: list[str] = []
    app = tornado.web.Application(
        [(r"/ws", SecretSocket, {"hits": hits}), (r"/.*", Secret, {"hits": hits})]
    )
    sock, port = bind_unused_port(address="127.0.0.2")
    server = HTTPServer(app)
    server.add_sockets([sock])
    yield f"127.0.0.2:{port}", hits
    server.stop()


@pytest.fixture
def settings(tmp_path: Path, base_url: str) -> Settings:
    settings = make_settings(tmp_path)
    settings.server.base_url = base_url  # links point at the test server
    settings.farm.warm_contexts = 1
    return settings


@pytest.fixture
def farm(io_loop: Any, settings: Settings) -> Iterator[Farm]:
    with running_farm(io_loop, settings) as started:
        yield started


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


@pytest.fixture
def key(services: Services) -> str:
    return services.store.create_key("shots", "pro").key


async def shot(
    http_client: AsyncHTTPClient, base_url: str, target: str, key: str | None, **params: str
) -> tuple[HTTPResponse, Any]:
    query = "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items())
    auth = f"app_id={key}&" if key else ""
    url = f"{base_url}/api/1.1/screenshot/{quote(target, safe='')}?{auth}{query}"
    response = await http_client.fetch(url, raise_error=False, request_timeout=60)
    is_json = response.headers.get("Content-Type", "").startswith("application/json")
    return response, json.loads(response.body) if is_json else response.body


async def image_of(http_client: AsyncHTTPClient, body: dict[str, Any]) -> Image.Image:
    response = await http_client.fetch(body["screenshotUrl"], request_timeout=30)
    return Image.open(io.BytesIO(response.body))


def has_red(image: Image.Image) -> bool:
    rgb = image.convert("RGB").resize((64, 64))
    return any(r > 200 and g < 60 and b < 60 for r, g, b in rgb.get_flattened_data())


def assert_error(response: HTTPResponse, body: Any, status: int, code: str) -> None:
    assert response.code == status, body
    assert body["success"] is False and body["error"]["code"] == code
    assert set(body["error"]) == {"code", "message", "stage", "details"}
    assert response.headers["X-BILLING-REQUESTS"] == "0"


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_jpeg_result_shape_link_and_credits(http_client, base_url, origin, key) -> None:
    response, body = await shot(http_client, base_url, origin.url("/plain"), key)
    assert response.code == 200, body
    # The SPEC's fields; beyond them the link's expiry, whether it was reused, and how the page
    # was waited for (a fresh capture).
    assert set(body) == {
        "screenshotUrl",
        "dimensions",
        "requestInfo",
        "expiresAt",
        "cached",
        "timing",
    }
    assert body["dimensions"] == {"width": 1366, "height": 768}
    assert body["requestInfo"] == {"host": "127.0.0.1", "responseCode": 200}
    assert body["timing"]["ready"] == "settled"
    assert response.headers["X-Render-Timing"].startswith("ready=settled; ready_ms=")
    assert response.headers["X-BILLING-REQUESTS"] == "1"
    link = await http_client.fetch(body["screenshotUrl"])
    assert link.headers["Content-Type"] == "image/jpeg"
    assert "max-age=" in link.headers["Cache-Control"]
    assert Image.open(io.BytesIO(link.body)).size == (1366, 768)


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_formats_presets_and_scale(http_client, base_url, origin, key) -> None:
    for fmt, kind in (("png", "PNG"), ("webp", "WEBP")):
        _response, body = await shot(
            http_client, base_url, origin.url("/plain"), key, format=fmt, quality="44"
        )
        image = await image_of(http_client, body)
        assert image.format == kind and image.size == (1366, 768)
    for preset, size in (("xs", (375, 812)), ("sm", (1024, 768)), ("lg", (1920, 1080))):
        _, body = await shot(http_client, base_url, origin.url("/plain"), key, dimensions=preset)
        assert body["dimensions"] == {"width": size[0], "height": size[1]}
    _, body = await shot(
        http_client, base_url, origin.url("/plain"), key, dimensions="sm", device_scale_factor="2"
    )
    assert body["dimensions"] == {"width": 2048, "height": 1536}


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_full_page_selector_and_exclusions(http_client, base_url, origin, key) -> None:
    response, body = await shot(http_client, base_url, origin.url("/tall"), key, full_page="true")
    assert body["dimensions"]["height"] == 3000
    response, body = await shot(http_client, base_url, origin.url("/element"), key, selector="#box")
    assert body["dimensions"] == {"width": 200, "height": 100}
    # A selector that never matches fails about a second after the page is ready.
    response, body = await shot(
        http_client, base_url, origin.url("/element"), key, selector="#nope"
    )
    assert_error(response, body, 422, "selector_not_found")
    response, body = await shot(http_client, base_url, origin.url("/red"), key, format="png")
    assert has_red(await image_of(http_client, body))
    response, body = await shot(
        http_client, base_url, origin.url("/red"), key, format="png", exclude_selectors=".ad"
    )
    assert not has_red(await image_of(http_client, body))


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_dark_mode_and_wait_for_selector(http_client, base_url, origin, key) -> None:
    _, light = await shot(http_client, base_url, origin.url("/dark"), key, format="png")
    _, dark = await shot(
        http_client, base_url, origin.url("/dark"), key, format="png", dark_mode="1"
    )
    assert (await image_of(http_client, light)).convert("RGB").getpixel((600, 600)) == (
        255,
        255,
        255,
    )
    assert (await image_of(http_client, dark)).convert("RGB").getpixel((600, 600)) == (0, 0, 0)
    response, _ = await shot(
        http_client, base_url, origin.url("/late"), key, wait_for_selector="#late"
    )
    assert response.code == 200


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=180)
async def test_every_listed_cookie_banner_is_hidden(http_client, base_url, origin, key) -> None:
    selectors = [group[0] for group in BANNERS.values()]
    for selector in selectors:
        target = origin.url(f"/banner/x?s={quote(selector)}")
        _, shown = await shot(
            http_client, base_url, target, key, format="png", block_cookie_banner="false"
        )
        assert has_red(await image_of(http_client, shown)), selector
        _, hidden = await shot(http_client, base_url, target, key, format="png")
        assert not has_red(await image_of(http_client, hidden)), selector


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_scroll_lock_undone_only_on_pages_with_a_banner(
    http_client, base_url, origin, key
) -> None:
    async def top_is_red(name: str, **params: str) -> bool:
        _, body = await shot(http_client, base_url, origin.url(name), key, format="png", **params)
        return has_red(await image_of(http_client, body))

    assert await top_is_red("/locked/banner")  # the banner's lock undone: the top shows
    assert not await top_is_red("/locked/banner", block_cookie_banner="false")
    assert not await top_is_red("/locked/plain")  # no banner: the page's own layout is kept


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_reuse_response_type_and_expiry(http_client, base_url, origin, key, services) -> None:
    _, first = await shot(http_client, base_url, origin.url("/plain"), key)
    _, again = await shot(http_client, base_url, origin.url("/plain"), key)
    assert again["screenshotUrl"] == first["screenshotUrl"]
    assert first["cached"] is False and again["cached"] is True
    assert again["expiresAt"] == first["expiresAt"]
    expires = datetime.fromisoformat(first["expiresAt"].replace("Z", "+00:00"))
    assert timedelta(hours=23, minutes=59) < expires - datetime.now(UTC) <= timedelta(hours=24)
    assert "timing" in first and "timing" not in again  # only a fresh capture waited
    _, fresh = await shot(http_client, base_url, origin.url("/plain"), key, cache_ok="false")
    assert fresh["screenshotUrl"] != first["screenshotUrl"]
    response, raw = await shot(
        http_client, base_url, origin.url("/plain"), key, response_type="image"
    )
    assert response.headers["Content-Type"] == "image/jpeg" and raw[:2] == b"\xff\xd8"
    # A capture made 25 hours ago: its link is gone, and the janitor removes file and row.
    old = await services.screenshots.save(
        b"\xff\xd8old",
        org_id=1,
        request_hash="x" * 64,
        extension="jpeg",
        width=1,
        height=1,
        host="example.com",
        response_code=200,
        now=datetime.now(UTC) - timedelta(hours=25),
    )
    link = f"{base_url}/screenshots/{old.filename}"
    response = await http_client.fetch(link, raise_error=False)
    assert response.code == 410 and json.loads(response.body)["error"]["code"] == "gone"
    assert await services.screenshots.sweep() == 1
    response = await http_client.fetch(link, raise_error=False)
    assert response.code == 404
    response = await http_client.fetch(first["screenshotUrl"])
    assert response.code == 200  # the live link is untouched


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_ssrf_from_inside_the_page_is_blocked(
    http_client, base_url, origin, secret, key
) -> None:
    address, hits = secret
    page = (
        f"<html><body><img src='http://{address}/img'><iframe src='http://{address}/frame'></iframe>"
        f"<script>fetch('http://{address}/fetch').catch(()=>{{}});"
        f"try{{new WebSocket('ws://{address}/ws')}}catch(e){{}}</script></body></html>"
    )

    class Hostile(tornado.web.RequestHandler):
        def get(self) -> None:
            if self.request.path == "/redirect":
                self.redirect(f"http://{address}/redirected")
            else:
                self.finish(page)

    hostile = serve(tornado.web.Application([(r"/.*", Hostile)]))
    try:
        response, body = await shot(
            http_client, base_url, hostile.url("/"), key, capture_delay="500"
        )
        assert response.code == 200
        response, body = await shot(http_client, base_url, hostile.url("/redirect"), key)
        assert response.code in (400, 502), body
        response, body = await shot(http_client, base_url, f"http://{address}/direct", key)
        assert_error(response, body, 400, "invalid_request")
        await asyncio.sleep(0.5)
        assert hits == []
    finally:
        await hostile.close()


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_errors(http_client, base_url, origin, key) -> None:
    response, body = await shot(http_client, base_url, origin.url("/plain"), None)
    assert_error(response, body, 401, "unauthorized")
    response, body = await shot(
        http_client, base_url, origin.url("/plain"), key, format="gif", quality="5", dimensions="xl"
    )
    assert_error(response, body, 400, "invalid_request")
    assert {d["parameter"] for d in body["error"]["details"]} == {"format", "quality", "dimensions"}
    response, body = await shot(http_client, base_url, f"http://127.0.0.1:{closed_port()}/", key)
    assert_error(response, body, 502, "target_unreachable")
    response, body = await shot(
        http_client, base_url, origin.url("/hang"), key, navigationTimeout="1000"
    )
    assert_error(response, body, 504, "navigation_timeout")
    response, body = await shot(http_client, base_url, origin.url("/plain"), key, use_proxy="true")
    assert_error(response, body, 400, "invalid_request")
    assert "proxy" in body["error"]["message"]


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_pdf_viewport_and_transparent_background(http_client, base_url, origin, key) -> None:
    response, body = await shot(http_client, base_url, origin.url("/long"), key, format="pdf")
    assert response.code == 200, body
    assert body["dimensions"] == {"width": 794, "height": 1122} and body["pages"] == 3
    assert body["screenshotUrl"].endswith(".pdf")
    link = await http_client.fetch(body["screenshotUrl"])
    assert link.headers["Content-Type"] == "application/pdf" and link.body[:5] == b"%PDF-"
    _, letter = await shot(
        http_client, base_url, origin.url("/long"), key, format="pdf", paper="letter"
    )
    assert letter["dimensions"] == {"width": 816, "height": 1056}
    _, body = await shot(
        http_client,
        base_url,
        origin.url("/plain"),
        key,
        viewport_width="800",
        viewport_height="600",
    )
    assert body["dimensions"] == {"width": 800, "height": 600}
    _, body = await shot(http_client, base_url, origin.url("/plain"), key, viewport_width="500")
    assert body["dimensions"] == {"width": 500, "height": 768}
    for fmt in ("png", "webp"):
        _, body = await shot(
            http_client, base_url, origin.url("/clear"), key, format=fmt, omit_background="true"
        )
        image = (await image_of(http_client, body)).convert("RGBA")
        assert image.getpixel((300, 300))[3] == 0, fmt  # transparent where nothing is painted
        red, green, blue, alpha = image.getpixel((50, 50))
        assert red > 240 and green < 16 and blue < 16 and alpha == 255, fmt  # webp is lossy
    _, body = await shot(http_client, base_url, origin.url("/clear"), key, format="png")
    assert (await image_of(http_client, body)).convert("RGBA").getpixel((300, 300))[3] == 255


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=60)
async def test_format_rules(http_client, base_url, origin, key) -> None:
    response, body = await shot(
        http_client, base_url, origin.url("/plain"), key, omit_background="true"
    )
    assert_error(response, body, 400, "invalid_request")
    assert body["error"]["details"][0]["parameter"] == "omit_background"
    response, body = await shot(
        http_client, base_url, origin.url("/plain"), key, format="pdf", selector="h1"
    )
    assert_error(response, body, 400, "invalid_request")
    response, body = await shot(
        http_client, base_url, origin.url("/plain"), key, viewport_width="50", paper="a3"
    )
    assert_error(response, body, 400, "invalid_request")
    assert {d["parameter"] for d in body["error"]["details"]} == {"viewport_width", "paper"}
    response, body = await shot(
        http_client,
        base_url,
        origin.url("/plain"),
        key,
        viewport_width="3840",
        viewport_height="4320",
        device_scale_factor="3",
    )
    assert_error(response, body, 400, "invalid_request")
    assert "device pixels" in body["error"]["message"]


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_a_navigation_timeout_above_the_cap_is_lowered_and_said(
    http_client, base_url, origin, key, services
) -> None:
    services.settings.farm.max_navigation_timeout = 2.0
    # Asked for 50 s: captured within 2 s, and told so (the header and the JSON's warnings).
    response, body = await shot(
        http_client, base_url, origin.url("/plain"), key, navigationTimeout="50000"
    )
    assert response.code == 200, body
    header = response.headers["X-Pagecast-Warnings"]
    assert "navigationTimeout: 50000 ms is more than this server allows; 2000 ms is used" in header
    assert body["warnings"] == [header]
    # A page that never loads fails after the cap, not after the 60 s asked for; the error says
    # why too.
    started = time.monotonic()
    response, body = await shot(
        http_client, base_url, origin.url("/hang"), key, navigationTimeout="60000"
    )
    assert_error(response, body, 504, "navigation_timeout")
    assert time.monotonic() - started < 15
    assert "2000 ms is used" in response.headers["X-Pagecast-Warnings"]
    # Within the cap, and the default left unsent (30 s, lowered without a word): no warning.
    for params in ({"navigationTimeout": "1500"}, {}):
        response, body = await shot(
            http_client, base_url, origin.url("/plain"), key, cache_ok="false", **params
        )
        assert response.code == 200, body
        assert "X-Pagecast-Warnings" not in response.headers and "warnings" not in body
    # Out of the parameter's own range is still a validation error, whatever the cap.
    response, body = await shot(
        http_client, base_url, origin.url("/plain"), key, navigationTimeout="90000"
    )
    assert_error(response, body, 400, "invalid_request")
