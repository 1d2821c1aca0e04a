"""A target on a port browsers refuse (:mod:`browser.unsafe_ports`) is a validation error on
every endpoint, in its documented error shape and naming the port, before anything is fetched:
a page served on such a port is never asked for, though the HTTP client could reach it; a batch,
a crawl or a map naming one is refused before anything is queued."""

from __future__ import annotations

import errno
import json
import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.httpserver import HTTPServer

from app.services import Services
from browser.unsafe_ports import UNSAFE_PORTS
from store.models import Job
from tests.conftest import serve_with_jobs
from tests.origin import Origin, serve

PAGE = "<html><head><title>Harbour</title></head><body><h1>Harbour</h1><p>Boats.</p></body></html>"


class Page(tornado.web.RequestHandler):
    def initialize(self, hits: list[str]) -> None:
        self.hits = hits

    def get(self) -> None:
        self.hits.append(self.request.path)
        self.finish(PAGE)


@pytest.fixture
def hits() -> list[str]:
    return []


@pytest.fixture
def unsafe_origin(io_loop: Any, hits: list[str]) -> Iterator[int]:
    """A page served on the first free port of the list (10080, 6666... as free as they come).
    With none free (another process holds them all), the first is named unserved: the refusal is
    still checked, only the page's own count of requests cannot say more."""
    app = tornado.web.Application([(r"/.*", Page, {"hits": hits})])
    for port in (10080, 6666, 6667, 6668, 6669, 6000):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            sock.close()
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                continue
            raise
        sock.listen(16)
        sock.setblocking(False)
        server = HTTPServer(app)
        server.add_sockets([sock])
        yield port
        server.stop()
        return
    yield 10080


@pytest.fixture
def safe_origin(io_loop: Any, hits: list[str]) -> Iterator[Origin]:
    site = serve(tornado.web.Application([(r"/.*", Page, {"hits": hits})]))
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def app(io_loop: Any, services: Services) -> Iterator[tornado.web.Application]:
    yield from serve_with_jobs(io_loop, services)  # batch, crawl and map are served too


@pytest.fixture
def key(services: Services) -> str:
    return str(services.store.create_key("acme", "pro").key)


async def get(http_client: AsyncHTTPClient, url: str) -> tuple[HTTPResponse, dict[str, Any]]:
    response = await http_client.fetch(url, raise_error=False)
    return response, json.loads(response.body)


def endpoints(base_url: str, target: str, key: str) -> dict[str, str]:
    encoded = quote(target, safe="")
    return {
        "markdown": f"{base_url}/api/3.0/markdown/{encoded}?app_id={key}",
        "markdown_query": f"{base_url}/api/3.0/markdown?url={encoded}&app_id={key}",
        "screenshot": f"{base_url}/api/1.1/screenshot/{encoded}?app_id={key}",
        "oembed": f"{base_url}/api/3.0/oembed/{encoded}?app_id={key}",
        "oembed_1_1": f"{base_url}/api/1.1/oembed?url={encoded}&app_id={key}",
    }


def assert_port_refused(name: str, response: HTTPResponse, body: dict[str, Any], port: int):
    service = UNSAFE_PORTS[port]
    words = f"port {port} ({service}) is one browsers refuse to load"
    assert response.code == 400, (name, body)
    assert response.headers["X-BILLING-REQUESTS"] == "0"
    if name.startswith("markdown"):
        assert set(body) == {"error", "request_id"}
        assert body["error"]["code"] == -2204 and words in body["error"]["message"]
    else:
        assert body["success"] is False
        error = body["error"]
        assert error["code"] == "invalid_request" and error["stage"] == "validation"
        assert words in error["message"]
        assert error["details"] == {"parameter": "url", "port": port}


@pytest.mark.gen_test(timeout=30)
async def test_a_page_on_an_unsafe_port_is_never_fetched(
    http_client, base_url, key, unsafe_origin, safe_origin, hits
) -> None:
    target = f"http://127.0.0.1:{unsafe_origin}/harbour"
    for name, url in endpoints(base_url, target, key).items():
        response, body = await get(http_client, url)
        assert_port_refused(name, response, body, unsafe_origin)
    assert hits == [], "nothing was asked of the page"
    # The same page on an ordinary port is fetched and converted.
    safe = endpoints(base_url, safe_origin.url("/harbour"), key)["markdown"]
    response = await http_client.fetch(safe, raise_error=False)
    assert response.code == 200 and b"# Harbour" in response.body
    assert hits == ["/harbour"]


@pytest.mark.parametrize("port", [25, 6000, 6665, 6669, 10080])
@pytest.mark.gen_test(timeout=30)
async def test_unsafe_ports_on_any_host_and_scheme(http_client, base_url, key, port) -> None:
    for target in (f"http://example.com:{port}/", f"https://[2001:db8::1]:{port}/a?b=c"):
        for name, url in endpoints(base_url, target, key).items():
            response, body = await get(http_client, url)
            assert_port_refused(name, response, body, port)


@pytest.mark.gen_test(timeout=30)
async def test_the_default_ports_and_neighbours_are_not_refused(http_client, base_url, key) -> None:
    # example.invalid never resolves: these fail at the fetch, not at the port.
    for target in ("http://example.invalid/", "http://example.invalid:6001/",
                   "https://example.invalid:443/", "http://example.invalid:10081/"):  # fmt: skip
        response, body = await get(http_client, endpoints(base_url, target, key)["markdown"])
        assert response.code == 400 and body["error"]["code"] == -3000, (target, body)
        assert "refuse" not in body["error"]["message"]


async def post(http_client: AsyncHTTPClient, url: str, key: str, body: Any) -> tuple[int, Any]:
    response = await http_client.fetch(
        url,
        method="POST",
        body=json.dumps(body),
        headers={"X-API-Key": key, "Content-Type": "application/json"},
        raise_error=False,
    )
    return response.code, json.loads(response.body)


@pytest.mark.gen_test(timeout=30)
async def test_jobs_and_maps_refuse_the_port_before_anything_is_queued_or_fetched(
    http_client, base_url, services, key, unsafe_origin, safe_origin, hits
) -> None:
    unsafe = f"http://127.0.0.1:{unsafe_origin}/harbour"
    words = f"port {unsafe_origin} ({UNSAFE_PORTS[unsafe_origin]}) is one browsers refuse"
    safe = safe_origin.url("/harbour")
    code, body = await post(
        http_client, f"{base_url}/api/3.0/batch", key, {"urls": [safe, unsafe, safe, unsafe]}
    )
    assert code == 400, body
    assert "items 1, 3 are on ports browsers refuse" in body["error"]["message"]
    code, body = await post(http_client, f"{base_url}/api/3.0/crawl", key, {"url": unsafe})
    assert code == 400 and words in body["error"]["message"], body
    code, body = await post(http_client, f"{base_url}/api/3.0/map", key, {"url": unsafe})
    assert code == 400 and words in body["error"]["message"], body
    assert hits == [], "nothing was asked of either page"
    stored = await services.store.run(lambda db: Job.select().count(db), "test")
    assert stored == 0, "no job was stored"
