"""Screenshot links over HTTP, GET and HEAD side by side: a live link, an expired one, an unknown
one, one whose image is gone. The captures are stored through the screenshot store as the
endpoint stores them (no browser needed: the link serves whatever bytes were stored)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from app.config import Settings
from app.services import Services
from app.web import make_api_app
from store.screenshots import ScreenshotRecord
from tests.conftest import make_settings

# Headers a HEAD must answer exactly as GET does (the request id and the date differ by nature).
SAME_HEADERS = (
    "Content-Type",
    "Content-Length",
    "Cache-Control",
    "Expires",
    "Last-Modified",
    "X-BILLING-REQUESTS",
)
IMAGE = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


@pytest.fixture
def settings(tmp_path: Path, base_url: str) -> Settings:
    settings = make_settings(tmp_path)
    settings.server.base_url = base_url
    return settings


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    services.store.create_key("shots", "pro")  # organization 1, whose captures these are
    return make_api_app(services)


async def stored(
    services: Services, image: bytes, extension: str, age: timedelta
) -> ScreenshotRecord:
    return await services.screenshots.save(
        image,
        org_id=1,
        request_hash=f"{extension}{age.total_seconds():.0f}".ljust(64, "x"),
        extension=extension,
        width=3,
        height=2,
        host="example.com",
        response_code=200,
        now=datetime.now(UTC) - age,
    )


async def both(http_client: AsyncHTTPClient, link: str) -> tuple[HTTPResponse, HTTPResponse]:
    """The link fetched with GET, then with HEAD."""
    get = await http_client.fetch(link, raise_error=False, decompress_response=False)
    head = await http_client.fetch(
        link, method="HEAD", raise_error=False, decompress_response=False
    )
    return get, head


def assert_same_answer(get: HTTPResponse, head: HTTPResponse) -> None:
    assert head.code == get.code
    for name in SAME_HEADERS:
        assert head.headers.get(name) == get.headers.get(name), name
    assert head.body == b""


@pytest.mark.gen_test(timeout=30)
async def test_head_of_a_live_link_answers_as_get(http_client, base_url, services) -> None:
    for extension, image in (("png", IMAGE), ("webp", b"RIFF....WEBPVP8 tiny")):
        record = await stored(services, image, extension, timedelta(hours=2))
        get, head = await both(http_client, f"{base_url}/screenshots/{record.filename}")
        assert get.code == 200 and get.body == image
        assert get.headers["Content-Type"] == f"image/{extension}"
        assert get.headers["Content-Length"] == str(len(image))
        # 22 hours left, in whole seconds; the same for both unless a second ticked between.
        max_age = int(get.headers["Cache-Control"].split("max-age=")[1].split(",")[0])
        assert 22 * 3600 - 5 <= max_age <= 22 * 3600
        if head.headers["Cache-Control"] != get.headers["Cache-Control"]:
            get, head = await both(http_client, f"{base_url}/screenshots/{record.filename}")
        assert_same_answer(get, head)


@pytest.mark.gen_test(timeout=30)
async def test_head_of_dead_links_answers_as_get(http_client, base_url, services) -> None:
    expired = await stored(services, IMAGE, "jpeg", timedelta(hours=25))
    vanished = await stored(services, IMAGE, "png", timedelta(hours=1))
    (Path(services.settings.store.data_dir) / "screenshots" / vanished.filename).unlink()
    cases = {
        f"{expired.filename}": (410, "gone"),
        f"{vanished.filename}": (410, "gone"),  # the row lives on but its image is gone
        f"{'0' * 32}.png": (404, "not_found"),  # no such token
        f"{expired.token}.png": (404, "not_found"),  # a real token with another extension
    }
    for name, (status, code) in cases.items():
        get, head = await both(http_client, f"{base_url}/screenshots/{name}")
        assert get.code == status, name
        body: dict[str, Any] = json.loads(get.body)
        assert body["success"] is False and body["error"]["code"] == code
        assert get.headers["Cache-Control"] == "no-store"
        assert_same_answer(get, head)
    assert await services.screenshots.sweep() == 1
    get, head = await both(http_client, f"{base_url}/screenshots/{expired.filename}")
    assert get.code == 404
    assert_same_answer(get, head)


@pytest.mark.gen_test(timeout=30)
async def test_other_methods_are_still_refused(http_client, base_url, services) -> None:
    record = await stored(services, IMAGE, "png", timedelta(0))
    response = await http_client.fetch(
        f"{base_url}/screenshots/{record.filename}", method="DELETE", raise_error=False
    )
    assert response.code == 405
    assert json.loads(response.body)["error"]["code"] == "method_not_allowed"
