"""The operator's deny list (``fetch.deny_networks``, ``fetch.deny_ports``) over real HTTP: three
loopback origins, all of them in ``allow_hosts``; one is denied by its port, one by its address
(127.0.0.2). Target pages, redirects, oEmbed providers, webhooks and the browser's own requests
never reach the denied ones, and a refused target gets the documented refusal (400, -3006 or
``invalid_request``) as any other refused target."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.httpserver import HTTPServer
from tornado.testing import bind_unused_port

from app.config import Settings
from app.services import Services
from tests.conftest import make_settings, serve_with_jobs
from tests.handlers.test_api import assert_markdown_error, markdown_url
from tests.origin import Origin


class Counted(tornado.web.RequestHandler):
    """Every page of an origin; ``hits`` counts the requests that reached it."""

    def initialize(self, hits: list[str], others: dict[str, Origin]) -> None:
        self.hits = hits
        self.others = others

    def get(self, name: str) -> None:
        self.hits.append(self.request.path)
        denied = self.others["denied_port"]
        if name == "to-denied":
            self.redirect(denied.url("/page"))
        elif name == "discover":
            provider = denied.url(f"/oembed?url={quote(self.request.full_url(), safe='')}")
            self.finish(
                '<html><head><title>Harbour</title><meta property="og:title" content="Harbour">'
                f'<link rel="alternate" type="application/json+oembed" href="{provider}">'
                "</head><body><h1>Harbour</h1></body></html>"
            )
        elif name == "oembed":
            self.finish({"type": "rich", "version": "1.0", "html": "<b>provider</b>"})
        elif name == "with-image":
            image = denied.url("/pixel.png")
            self.finish(f"<html><body><h1>Image</h1><img src='{image}'></body></html>")
        else:
            self.finish("<html><head><title>Page</title></head><body><h1>Page</h1></body></html>")


def serve_at(address: str, hits: list[str], others: dict[str, Origin]) -> Origin:
    sock, port = bind_unused_port(address=address)
    server = HTTPServer(
        tornado.web.Application([(r"/(.*)", Counted, {"hits": hits, "others": others})])
    )
    server.add_sockets([sock])
    return Origin(server, port, host=address)


@pytest.fixture
def origins(io_loop: Any) -> Iterator[tuple[dict[str, Origin], dict[str, list[str]]]]:
    found: dict[str, Origin] = {}
    hits: dict[str, list[str]] = {"allowed": [], "denied_port": [], "denied_address": []}
    found["allowed"] = serve_at("127.0.0.1", hits["allowed"], found)
    found["denied_port"] = serve_at("127.0.0.1", hits["denied_port"], found)
    found["denied_address"] = serve_at("127.0.0.2", hits["denied_address"], found)
    yield found, hits
    for origin in found.values():
        io_loop.run_sync(origin.close)


@pytest.fixture
def settings(tmp_path: Path, origins: tuple[dict[str, Origin], Any]) -> Settings:
    settings = make_settings(tmp_path)
    settings.fetch.allow_hosts = ["127.0.0.1", "127.0.0.2"]
    denied_port = origins[0]["denied_port"].port
    settings.fetch.deny_ports = ["1-2", f"{denied_port}-{denied_port}", "6000-6063"]
    settings.fetch.deny_networks = ["127.0.0.2/32", "2001:db8::/32"]
    settings.oembed.provider_timeout = 1.0
    settings.webhooks.attempts = 1
    settings.farm.warm_contexts = 0
    return settings


@pytest.fixture
def app(io_loop: Any, services: Services) -> Iterator[tornado.web.Application]:
    yield from serve_with_jobs(io_loop, services)


@pytest.fixture
def key(services: Services) -> str:
    return services.store.create_key("acme", "pro").key


async def get(http_client: AsyncHTTPClient, url: str) -> HTTPResponse:
    return await http_client.fetch(url, raise_error=False, request_timeout=60)


@pytest.mark.gen_test(timeout=60)
async def test_pages_and_redirects_to_denied_targets_are_refused(
    http_client, base_url, origins, key
) -> None:
    found, hits = origins
    allowed = await get(
        http_client, markdown_url(base_url, found["allowed"].url("/page"), app_id=key)
    )
    assert allowed.code == 200 and allowed.body.startswith(b"# Page")
    for name in ("denied_port", "denied_address"):
        refused = await get(
            http_client, markdown_url(base_url, found[name].url("/page"), app_id=key)
        )
        body = assert_markdown_error(refused, 400, -3006)
        assert "deny list" in body["error"]["message"], body
    redirected = await get(
        http_client, markdown_url(base_url, found["allowed"].url("/to-denied"), app_id=key)
    )
    assert_markdown_error(redirected, 400, -3006)
    # An IPv4-mapped spelling of the denied address is the denied address.
    mapped = f"http://[::ffff:127.0.0.2]:{found['denied_address'].port}/page"
    assert_markdown_error(
        await get(http_client, markdown_url(base_url, mapped, app_id=key)), 400, -3006
    )
    assert hits["denied_port"] == [] and hits["denied_address"] == []
    assert hits["allowed"] == ["/page", "/to-denied"]


@pytest.mark.gen_test(timeout=60)
async def test_an_oembed_provider_on_a_denied_port_is_never_called(
    http_client, base_url, origins, key
) -> None:
    found, hits = origins
    target = quote(found["allowed"].url("/discover"), safe="")
    response = await get(http_client, f"{base_url}/api/3.0/oembed/{target}?app_id={key}")
    body = json.loads(response.body)
    assert response.code == 200, body
    assert body["source"] != "discovery"  # the provider was refused: Pagecast's own card
    assert hits["denied_port"] == []
    # The denied origin as the target itself: the oEmbed shape's refusal.
    target = quote(found["denied_port"].url("/page"), safe="")
    refused = await get(http_client, f"{base_url}/api/3.0/oembed/{target}?app_id={key}")
    error = json.loads(refused.body)["error"]
    assert refused.code == 400 and error["code"] == "invalid_request", error
    assert hits["denied_port"] == []


@pytest.mark.gen_test(timeout=60)
async def test_a_webhook_on_a_denied_port_is_refused_with_its_job(
    http_client, base_url, origins, key
) -> None:
    found, hits = origins
    body = {
        "urls": [found["allowed"].url("/page")],
        "webhook_url": found["denied_port"].url("/hook"),
    }
    response = await http_client.fetch(
        f"{base_url}/api/3.0/batch",
        method="POST",
        body=json.dumps(body),
        headers={"X-API-Key": key, "Content-Type": "application/json"},
        raise_error=False,
    )
    assert_markdown_error(response, 400, -3006)
    assert hits["denied_port"] == []


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_the_browser_reaches_no_denied_target(http_client, base_url, origins, key) -> None:
    found, hits = origins
    shot = f"{base_url}/api/1.1/screenshot/{{}}?app_id={key}&format=png"
    refused = await get(
        http_client, shot.format(quote(found["denied_address"].url("/page"), safe=""))
    )
    error = json.loads(refused.body)["error"]
    assert refused.code == 400 and error["code"] == "invalid_request", error
    # A page of an allowed origin renders; its image on the denied port is never fetched.
    page = await get(http_client, shot.format(quote(found["allowed"].url("/with-image"), safe="")))
    assert page.code == 200, page.body
    assert hits["denied_port"] == [] and hits["denied_address"] == []
    assert "/with-image" in hits["allowed"]
