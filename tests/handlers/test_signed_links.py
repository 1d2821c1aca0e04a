"""Signed screenshot links over HTTP: minted with the Python client's signer from the secret the
signing-secret endpoint gives, loaded as an ``<img>`` by Chromium from a page on another origin,
served from the stored capture the second time; every tampered link refused with 403 in the
screenshot endpoint's error shape, before anything is captured."""

from __future__ import annotations

import hmac
import io
import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
import tornado.web
from PIL import Image
from playwright.async_api import Response, async_playwright
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from app.config import Settings
from app.services import Services
from app.web import make_api_app
from browser.farm.flags import LAUNCH_ARGS
from pagecast_client import sign_screenshot_url
from tests.conftest import make_settings
from tests.origin import Origin, serve

CHROMIUM = os.environ.get("PAGECAST_TEST_CHROMIUM", "/usr/bin/chromium")
TARGET = "<html><body style='margin:0;background:#0a0'><h1>Signed</h1></body></html>"


class Pages(tornado.web.RequestHandler):
    """The target page (its visits counted) and the page that embeds the signed link."""

    def initialize(self, hits: Counter[str], embed: dict[str, str]) -> None:
        self.hits = hits
        self.embed = embed

    def get(self, name: str) -> None:
        self.hits[name] += 1
        if name == "embed":
            self.finish(f"<html><body><img id='shot' src='{self.embed['src']}'></body></html>")
        else:
            self.finish(TARGET)


@pytest.fixture
def hits() -> Counter[str]:
    return Counter()


@pytest.fixture
def embed() -> dict[str, str]:
    return {"src": ""}


@pytest.fixture
def origin(io_loop: Any, hits: Counter[str], embed: dict[str, str]) -> Iterator[Origin]:
    site = serve(tornado.web.Application([(r"/(\w+)", Pages, {"hits": hits, "embed": embed})]))
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def settings(tmp_path: Path, base_url: str) -> Settings:
    settings = make_settings(tmp_path)
    settings.server.base_url = base_url
    settings.farm.warm_contexts = 1
    return settings


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


@pytest.fixture
def key(services: Services) -> str:
    return services.store.create_key("acme", "pro").key


async def signing_secret(http_client: AsyncHTTPClient, base_url: str, key: str) -> str:
    response = await http_client.fetch(
        f"{base_url}/api/1.1/signing-secret", headers={"X-API-Key": key}
    )
    assert response.headers["X-BILLING-REQUESTS"] == "0"
    body = json.loads(response.body)
    assert body["key_id"] == key[:11]
    secret: str = body["signing_secret"]
    return secret


async def fetch(http_client: AsyncHTTPClient, url: str) -> HTTPResponse:
    return await http_client.fetch(url, raise_error=False)


def assert_refused(response: HTTPResponse, words: str = "this signed link is not valid") -> None:
    assert response.code == 403, response.body
    assert response.headers["X-BILLING-REQUESTS"] == "0"
    body = json.loads(response.body)
    assert body["success"] is False
    assert body["error"]["code"] == "forbidden"
    assert body["error"]["message"] == words
    assert body["error"]["details"] is None


def with_query(link: str, **changes: str) -> str:
    """``link`` with query parameters replaced or added, its signature kept."""
    path, _, query = link.partition("?")
    pairs = dict(pair.split("=", 1) for pair in query.split("&"))
    pairs.update({name: quote(value, safe="") for name, value in changes.items()})
    return f"{path}?{'&'.join(f'{name}={value}' for name, value in pairs.items())}"


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_an_img_on_another_origin_loads_the_signed_link_once_captured(
    http_client, base_url, services, key, origin, hits, embed
) -> None:
    secret = await signing_secret(http_client, base_url, key)
    link = sign_screenshot_url(
        base_url, key[:11], secret, origin.url("/target"), format="png", dimensions="sm"
    )
    embed["src"] = link
    answers: list[Response] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=list(LAUNCH_ARGS), timeout=30_000
        )
        try:
            page = await browser.new_page()
            page.on("response", lambda answer: answers.append(answer))  # noqa: PLW0108
            await page.goto(origin.url("/embed"), timeout=15_000)
            await page.wait_for_function(
                "() => { const i = document.getElementById('shot');"
                " return i.complete && i.naturalWidth > 0; }",
                timeout=45_000,
            )
            assert await page.eval_on_selector("#shot", "i => i.naturalWidth") == 1024
            image = next(answer for answer in answers if answer.url == link)
            assert image.status == 200
            first = await image.all_headers()
        finally:
            await browser.close()
    assert first["content-type"] == "image/png"
    assert first["x-screenshot-cached"] == "false"
    assert first["x-billing-requests"] == "1"
    assert first["cache-control"].startswith("public, max-age=")

    again = await fetch(http_client, link)
    assert again.code == 200
    assert again.headers["X-Screenshot-Cached"] == "true"
    # A link on a public page is fetched by every visitor: the key pays for the capture once.
    assert again.headers["X-BILLING-REQUESTS"] == "0", "the stored capture is served free"
    with Image.open(io.BytesIO(again.body)) as shot:
        assert shot.size == (1024, 768)
        assert shot.getpixel((5, 700))[:3] == (0, 170, 0)
    assert hits["target"] == 1, "the page was captured once"
    await services.store.flush_usage()
    usage = [row for row in services.store.usage("acme") if row.endpoint == "screenshot_signed"]
    assert [(row.requests, row.credits) for row in usage] == [(2, 1)]


@pytest.mark.gen_test(timeout=30)
async def test_tampered_links_are_refused(
    http_client, base_url, services, key, origin, hits
) -> None:
    secret = await signing_secret(http_client, base_url, key)
    target = origin.url("/target")
    soon = int(time.time()) + 3600
    link = sign_screenshot_url(base_url, key[:11], secret, target, format="png", expires=soon)
    path, _, query = link.partition("?")
    signature = query.rpartition("signature=")[2]
    other = sign_screenshot_url(base_url, key[:11], secret, origin.url("/other"))
    changed_target = other.partition("?")[0] + "?" + query

    assert_refused(await fetch(http_client, with_query(link, format="jpeg")))
    assert_refused(await fetch(http_client, with_query(link, full_page="true")))
    assert_refused(await fetch(http_client, with_query(link, expires=str(soon + 1))))
    assert_refused(await fetch(http_client, changed_target))
    flipped = signature[:-1] + ("0" if signature[-1] != "0" else "1")
    assert_refused(await fetch(http_client, with_query(link, signature=flipped)))
    assert_refused(await fetch(http_client, f"{path}?format=png&expires={soon}"))
    assert_refused(await fetch(http_client, with_query(link, signature=signature.upper())))
    twice = f"{link}&signature={signature}"
    assert_refused(await fetch(http_client, twice))
    # Signed with another key's secret, or named by another key's prefix.
    other_key = services.store.create_key("other", "pro").key
    assert_refused(await fetch(http_client, link.replace(key[:11], other_key[:11])))
    foreign = "0" * 64
    assert_refused(
        await fetch(http_client, sign_screenshot_url(base_url, key[:11], foreign, target))
    )
    # A key sent along changes nothing.
    refused = await http_client.fetch(
        with_query(link, format="jpeg"), headers={"X-API-Key": key}, raise_error=False
    )
    assert_refused(refused)

    past = int(time.time()) - 5
    expired = sign_screenshot_url(base_url, key[:11], secret, target, expires=past)
    assert_refused(await fetch(http_client, expired), "this signed link has expired")
    assert hits == Counter(), "nothing was captured"


@pytest.mark.gen_test(timeout=30)
async def test_a_revoked_keys_links_are_refused(http_client, base_url, services, key) -> None:
    secret = await signing_secret(http_client, base_url, key)
    # quality 5 is out of range: a link the signer got wrong is answered 400, which proves it
    # passed the signature check without capturing anything.
    link = sign_screenshot_url(base_url, key[:11], secret, "http://127.0.0.1:9/", quality=5)
    response = await fetch(http_client, link)
    assert response.code == 400
    assert json.loads(response.body)["error"]["details"] == [
        {"parameter": "quality", "message": "must be a number from 10 to 80"}
    ]
    assert services.store.revoke_key(key[:11])
    assert_refused(await fetch(http_client, link))
    missing = await http_client.fetch(
        f"{base_url}/api/1.1/signing-secret", headers={"X-API-Key": key}, raise_error=False
    )
    assert missing.code == 401


@pytest.mark.gen_test(timeout=30)
async def test_each_key_has_its_own_stable_secret(http_client, base_url, services, key) -> None:
    secret = await signing_secret(http_client, base_url, key)
    assert len(secret) == 64 and int(secret, 16) >= 0
    assert await signing_secret(http_client, base_url, key) == secret
    other = services.store.create_key("acme", "pro").key
    assert await signing_secret(http_client, base_url, other) != secret
    anonymous = await http_client.fetch(f"{base_url}/api/1.1/signing-secret", raise_error=False)
    assert anonymous.code == 401


@pytest.mark.gen_test(timeout=30)
async def test_the_documented_one_line_signer_agrees(http_client, base_url, key) -> None:
    """The signer docs/screenshots.md gives, written out by hand, makes the client's link."""
    secret = await signing_secret(http_client, base_url, key)
    key_id, url = key[:11], "https://example.com/a b?x=1&y=é"
    params = {"format": "webp", "dark_mode": "true", "expires": "1900000000"}
    signature = hmac.new(
        secret.encode(),
        urlencode(
            sorted({**params, "key_id": key_id, "url": url}.items()), quote_via=quote
        ).encode(),
        "sha256",
    ).hexdigest()
    client = sign_screenshot_url(
        base_url, key_id, secret, url, format="webp", dark_mode=True, expires=1900000000
    )
    assert client.endswith(f"&signature={signature}")
    assert client.startswith(
        f"{base_url}/api/1.1/screenshot/signed/{key_id}/{quote(url, safe='')}?"
    )
