"""Faults a target can throw at the fetcher, each ending in its documented error well within its
deadline: decompression bombs, endless and dripping bodies, redirect loops and long chains, huge
headers, broken connections and framing, binary bodies labelled HTML, unusable charset labels; and
how some of them reach clients of the Markdown endpoint.

Well-formed faults come from a Tornado origin; those that break HTTP framing from a raw asyncio
server on the same IOLoop.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gzip
import json
import random
import socket
import struct
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import brotli
import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.iostream import StreamClosedError

from app.config import Settings
from app.services import Services
from app.web import make_api_app
from browser.fetch.charset import codec_for, decode_text, looks_binary, looks_like_html
from browser.fetch.client import Fetcher, FetchError, FetchResult, FetchSettings
from browser.fetch.retry import retryable
from handlers.errors import FAILURE_KINDS, KINDS
from tests.conftest import make_settings
from tests.origin import DripHandler, Origin, closed_port, serve

MiB = 1024 * 1024
PNG = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0\x1f\xf3\xffa" + bytes(200)
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"
FAST = b"<!doctype html><title>fast</title><p>A fast page.</p>"


@functools.cache
def gzip_bomb() -> bytes:
    """50 MB of zeros, gzipped to about 48 KB (a ratio near 1000:1)."""
    return gzip.compress(bytes(50_000_000), 6)


@functools.cache
def brotli_bomb() -> bytes:
    body: bytes = brotli.compress(bytes(50_000_000), quality=5)
    return body


@functools.cache
def compressible_page() -> bytes:
    """1.5 MB of ordinary text in HTML: it gzips well, but nowhere near a bomb's ratio."""
    words = [f"word{n}" for n in range(5000)]
    pick = random.Random(7).choice
    lines = (" ".join(pick(words) for _ in range(12)) for _ in range(13_000))
    return ("<html><body>" + "".join(f"<p>{line}</p>\n" for line in lines)).encode()


class BytesHandler(tornado.web.RequestHandler):
    """Fixed bytes with a fixed Content-Type, optionally with a Content-Encoding."""

    def initialize(
        self, body: Callable[[], bytes], content_type: str, encoding: str | None = None
    ) -> None:
        self.body, self.content_type, self.encoding = body, content_type, encoding

    def get(self) -> None:
        self.set_header("Content-Type", self.content_type)
        if self.encoding:
            self.set_header("Content-Encoding", self.encoding)
        self.finish(self.body())


class EndlessHandler(tornado.web.RequestHandler):
    """A chunked body (no Content-Length) that never ends until the client hangs up."""

    async def get(self) -> None:
        self.set_header("Content-Type", "text/html")
        chunk = b"<p>" + b"x" * 65_000 + b"</p>\n"
        with contextlib.suppress(StreamClosedError):
            while True:
                self.write(chunk)
                await self.flush()


class RedirectHandler(tornado.web.RequestHandler):
    def get(self, hops: str = "") -> None:
        """/loop redirects to itself; /chain/3 to /chain/2 ... /chain/0 to /fast."""
        if not hops:
            self.redirect("/loop")
        else:
            left = int(hops)
            self.redirect(f"/chain/{left - 1}" if left else "/fast")


class HugeHeadersHandler(tornado.web.RequestHandler):
    """200 headers of 1 KB each: about 200 KB of headers before a tiny body."""

    def get(self) -> None:
        for n in range(200):
            self.set_header(f"X-Filler-{n}", "a" * 1000)
        self.finish(FAST)


def _page(body: bytes, content_type: str, encoding: str | None = None) -> Any:
    return BytesHandler, {"body": lambda: body, "content_type": content_type, "encoding": encoding}


def make_app() -> tornado.web.Application:
    bombs: dict[str, Any] = {"content_type": "text/html; charset=utf-8"}
    return tornado.web.Application(
        [
            (r"/fast", *_page(FAST, "text/html; charset=utf-8")),
            (r"/gzip-bomb", BytesHandler, {**bombs, "body": gzip_bomb, "encoding": "gzip"}),
            (r"/br-bomb", BytesHandler, {**bombs, "body": brotli_bomb, "encoding": "br"}),
            (
                r"/compressible",
                BytesHandler,
                {**bombs, "body": lambda: gzip.compress(compressible_page()), "encoding": "gzip"},
            ),
            (r"/endless", EndlessHandler),
            (r"/drip", DripHandler),
            (r"/loop", RedirectHandler),
            (r"/chain/(\d+)", RedirectHandler),
            (r"/huge-headers", HugeHeadersHandler),
            (r"/png-as-html", *_page(PNG, "text/html")),
            (r"/pdf-as-html", *_page(PDF, "text/html; charset=utf-8")),
            (r"/controls-as-html", *_page(bytes(range(1, 32)) * 40, "text/html")),
            (r"/pdf", *_page(PDF, "application/pdf")),
            (r"/charset/unknown", *_page("<p>Grüße</p>".encode(), "text/html; charset=x-no-such")),
            (
                r"/charset/escape",
                *_page(b"<p>\\u003cb\\u003e</p>", "text/html; charset=unicode-escape"),
            ),
            (r"/charset/utf7", *_page(b"<p>+ADw-b+AD4-</p>", "text/html; charset=utf-7")),
            (r"/charset/base64", *_page(b"<p>PGI+</p>", "text/html; charset=base64")),
            (r"/charset/empty", *_page("<p>Grüße</p>".encode(), 'text/html; charset=""')),
            (r"/charset/meta", *_page(b'<meta charset="x-bogus"><p>caf\xc3\xa9</p>', "text/html")),
        ]
    )


# -- a server that breaks HTTP framing --------------------------------------------------------

RAW_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
RAW_REPLIES = {
    "short": RAW_HEAD + b"Content-Length: 100000\r\n\r\n" + b"x" * 5000,
    "garbage": b"\x00\x01\x02 this is not HTTP at all\r\n\r\n",
    "bad-status": b"HTTP/1.1 abc OK\r\n\r\n<p>hi</p>",
    "bad-chunks": RAW_HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n<p>hi</p>\r\n0\r\n\r\n",
    "bad-gzip": RAW_HEAD + b"Content-Encoding: gzip\r\nContent-Length: 10\r\n\r\n0123456789",
    "empty": b"",
    "huge-line": RAW_HEAD + b"X-Big: " + b"a" * 200_000 + b"\r\nContent-Length: 2\r\n\r\nhi",
}


class RawServer:
    """Answers ``/<case>`` with the bytes of ``RAW_REPLIES[case]``, then closes; ``/reset`` sends
    the start of a 100000-byte body and resets the connection. Counts requests per case."""

    def __init__(self) -> None:
        self.hits: dict[str, int] = {}
        self.port = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def url(self, case: str) -> str:
        return f"http://127.0.0.1:{self.port}/{case}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await reader.readuntil(b"\r\n\r\n")
            case = request.split(b" ")[1].decode().strip("/")
            self.hits[case] = self.hits.get(case, 0) + 1
            if case == "reset":
                writer.write(RAW_HEAD + b"Content-Length: 100000\r\n\r\n" + b"x" * 3000)
                await writer.drain()
                await asyncio.sleep(0.05)
                # Linger 0: closing sends a RST instead of a FIN.
                sock = writer.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                writer.transport.abort()
                return
            writer.write(RAW_REPLIES[case])
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        writer.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


# -- fixtures ---------------------------------------------------------------------------------


@pytest.fixture
def origin(io_loop: Any) -> Iterator[Origin]:
    site = serve(make_app())
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def raw(io_loop: Any) -> Iterator[RawServer]:
    server = RawServer()
    io_loop.run_sync(server.start)
    yield server
    io_loop.run_sync(server.close)


FetcherFactory = Callable[..., Fetcher]


@pytest.fixture
def make_fetcher(io_loop: Any) -> Iterator[FetcherFactory]:
    fetchers: list[Fetcher] = []

    def make(**overrides: Any) -> Fetcher:
        fetcher = Fetcher(FetchSettings(**{"allow_hosts": ["127.0.0.1"], **overrides}))
        fetchers.append(fetcher)
        return fetcher

    yield make
    for fetcher in fetchers:
        fetcher.close()


def failed(result: FetchResult, error: FetchError, within: float) -> FetchResult:
    """Check that ``result`` failed with ``error`` in less than ``within`` seconds."""
    assert result.error is error, (result.error, result.message)
    assert not result.ok and result.message
    assert result.elapsed < within, result.elapsed
    return result


# -- body size, compression and speed ---------------------------------------------------------


@pytest.mark.gen_test
async def test_fast_page(origin: Origin, make_fetcher: FetcherFactory) -> None:
    result = await make_fetcher().fetch(origin.url("/fast"))
    assert result.ok and result.is_html and result.text == FAST.decode()
    assert result.elapsed < 1


@pytest.mark.gen_test(timeout=10)
async def test_gzip_bomb_is_stopped_by_the_ratio(
    origin: Origin, make_fetcher: FetcherFactory
) -> None:
    result = failed(await make_fetcher().fetch(origin.url("/gzip-bomb")), FetchError.too_large, 3)
    assert "compression ratio was too high" in result.message
    assert "100:1" in result.message
    assert result.body == b""


@pytest.mark.gen_test(timeout=10)
async def test_brotli_bomb_is_stopped_by_the_ratio(
    origin: Origin, make_fetcher: FetcherFactory
) -> None:
    brotli_bomb()  # skips this test when no brotli body can be built
    result = failed(await make_fetcher().fetch(origin.url("/br-bomb")), FetchError.too_large, 3)
    assert "compression ratio was too high" in result.message


@pytest.mark.gen_test(timeout=10)
async def test_bomb_under_a_lax_ratio_still_meets_the_body_cap(
    origin: Origin, make_fetcher: FetcherFactory
) -> None:
    fetcher = make_fetcher(max_decompression_ratio=100_000, max_body_bytes=4 * MiB)
    result = failed(await fetcher.fetch(origin.url("/gzip-bomb")), FetchError.too_large, 3)
    assert result.message == f"the target's response is larger than {4 * MiB} bytes"


@pytest.mark.gen_test(timeout=10)
async def test_ordinary_compression_passes(origin: Origin, make_fetcher: FetcherFactory) -> None:
    result = await make_fetcher().fetch(origin.url("/compressible"))
    assert result.ok, result.message
    assert result.body == compressible_page()
    assert result.is_html


@pytest.mark.gen_test(timeout=10)
async def test_endless_body_ends_at_the_cap(origin: Origin, make_fetcher: FetcherFactory) -> None:
    result = failed(await make_fetcher().fetch(origin.url("/endless")), FetchError.too_large, 3)
    assert result.message == f"the target's response is larger than {10 * MiB} bytes"


@pytest.mark.gen_test(timeout=10)
async def test_slow_drip_fails_the_low_speed_check(
    origin: Origin, make_fetcher: FetcherFactory
) -> None:
    fetcher = make_fetcher(low_speed_limit=100, low_speed_time=1, total_timeout=8)
    result = failed(await fetcher.fetch(origin.url("/drip")), FetchError.timeout, 3)
    assert result.message == "the target sent data too slowly (under 100 bytes/s for 1 s)"
    assert result.elapsed >= 0.9


@pytest.mark.gen_test(timeout=10)
async def test_slow_drip_without_the_check_meets_the_deadline(
    origin: Origin, make_fetcher: FetcherFactory
) -> None:
    fetcher = make_fetcher(low_speed_limit=0, total_timeout=1.5)
    result = failed(await fetcher.fetch(origin.url("/drip")), FetchError.timeout, 2.5)
    assert result.message == "the target did not answer in time"
    assert result.elapsed >= 1.4


# -- redirects --------------------------------------------------------------------------------


@pytest.mark.gen_test
async def test_redirect_loop(origin: Origin, make_fetcher: FetcherFactory) -> None:
    result = failed(
        await make_fetcher().fetch(origin.url("/loop")), FetchError.too_many_redirects, 2
    )
    assert result.message == "more than 5 redirects"
    assert result.redirects == [origin.url("/loop")] * 5


@pytest.mark.gen_test
async def test_chain_longer_than_the_limit(origin: Origin, make_fetcher: FetcherFactory) -> None:
    fetcher = make_fetcher(max_redirects=5)
    result = failed(await fetcher.fetch(origin.url("/chain/5")), FetchError.too_many_redirects, 2)
    assert len(result.redirects) == 5
    # One hop fewer fits.
    assert (await fetcher.fetch(origin.url("/chain/4"))).ok


# -- headers, broken connections and framing --------------------------------------------------


@pytest.mark.gen_test
async def test_huge_headers(origin: Origin, make_fetcher: FetcherFactory) -> None:
    result = failed(
        await make_fetcher().fetch(origin.url("/huge-headers")), FetchError.invalid_response, 2
    )
    assert result.message == "the target's response headers are larger than 65536 bytes"
    roomy = await make_fetcher(max_header_bytes=512 * 1024).fetch(origin.url("/huge-headers"))
    assert roomy.ok and roomy.headers["x-filler-199"] == "a" * 1000


@pytest.mark.gen_test
@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("reset", "the connection to the target broke off mid-response"),
        ("short", "the connection to the target broke off mid-response"),
        ("garbage", "the target sent a malformed response"),
        ("bad-status", "the target sent a malformed response"),
        ("bad-chunks", "the connection to the target broke off mid-response"),
        ("bad-gzip", "the target sent a malformed response"),
        ("empty", "the target closed the connection unanswered"),
        ("huge-line", "the target sent an oversized header"),
    ],
)
async def test_broken_responses(
    raw: RawServer, make_fetcher: FetcherFactory, case: str, message: str
) -> None:
    result = failed(await make_fetcher().fetch(raw.url(case)), FetchError.invalid_response, 2)
    assert result.message == message
    assert result.body == b"" and result.status is None
    assert retryable(result)


@pytest.mark.gen_test
async def test_refused_connection_is_still_connect(make_fetcher: FetcherFactory) -> None:
    result = failed(
        await make_fetcher().fetch(f"http://127.0.0.1:{closed_port()}/"), FetchError.connect, 2
    )
    assert result.message == "could not connect to the target"


# -- what the body is -------------------------------------------------------------------------


@pytest.mark.gen_test
@pytest.mark.parametrize("path", ["/png-as-html", "/pdf-as-html", "/controls-as-html", "/pdf"])
async def test_binary_bodies_are_not_html(
    origin: Origin, make_fetcher: FetcherFactory, path: str
) -> None:
    result = await make_fetcher().fetch(origin.url(path))
    assert result.ok and result.elapsed < 1
    assert not result.is_html
    assert result.text is None


@pytest.mark.gen_test
@pytest.mark.parametrize(
    ("path", "text", "charset"),
    [
        ("/charset/unknown", "<p>Grüße</p>", "utf-8"),
        ("/charset/escape", "<p>\\u003cb\\u003e</p>", "utf-8"),
        ("/charset/utf7", "<p>+ADw-b+AD4-</p>", "utf-8"),
        ("/charset/base64", "<p>PGI+</p>", "utf-8"),
        ("/charset/empty", "<p>Grüße</p>", "utf-8"),
        ("/charset/meta", '<meta charset="x-bogus"><p>café</p>', "utf-8"),
    ],
)
async def test_unusable_charset_labels_fall_back(
    origin: Origin, make_fetcher: FetcherFactory, path: str, text: str, charset: str
) -> None:
    result = await make_fetcher().fetch(origin.url(path))
    assert result.ok and result.is_html
    assert result.text == text
    assert result.charset == charset


@pytest.mark.parametrize(
    "label", ["utf-8\0", "\0", "x" * 5000, "é", "rot13", "hex", "zlib", "raw-unicode-escape", " "]
)
def test_charset_labels_never_raise(label: str) -> None:
    assert codec_for(label) is None
    assert decode_text(b"<p>caf\xc3\xa9</p>", label) == ("<p>café</p>", "utf-8")


@pytest.mark.parametrize(
    ("body", "declared", "binary"),
    [
        (PNG, None, True),
        (PDF, None, True),
        (b"\xff\xd8\xff\xe0\0\x10JFIF", None, True),
        (b"GIF89a\x01\0\x01\0", None, True),
        (b"GIF87a\x01\0\x01\0", None, True),
        (b"PK\x03\x04\x14\0\0\0", None, True),
        (gzip.compress(b"<p>hi</p>", mtime=0), None, True),
        (b"<p>a NUL\0 in the first bytes</p>", None, True),
        (bytes(range(1, 32)) * 4, None, True),
        (b"", None, False),
        (FAST, None, False),
        ("<p>\u65e5\u672c</p>".encode("iso-2022-jp"), None, False),  # escapes are text
        ("<p>hi</p>".encode("utf-16"), None, False),  # byte order mark
        ("<p>hi</p>".encode("utf-16-le"), "utf-16", False),
        (b"<p>tab\tform\x0cfeed\r\n</p>" * 10, None, False),
        (b"<p>" + b"x" * 3000 + b"\0</p>", None, False),  # a NUL past the sniffed start
    ],
)
def test_looks_binary(body: bytes, declared: str | None, binary: bool) -> None:
    assert looks_binary(body, declared) is binary


# -- through the Markdown endpoint ------------------------------------------------------------


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.fetch.low_speed_time = 1
    return settings


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


def markdown_url(base_url: str, target: str, key: str, **params: str) -> str:
    query = "".join(f"&{name}={value}" for name, value in params.items())
    return f"{base_url}/api/3.0/markdown/{quote(target, safe='')}?app_id={key}{query}"


def api_error(response: HTTPResponse, status: int, code: int) -> str:
    assert response.code == status, response.body
    body = json.loads(response.body)
    assert body["error"]["code"] == code
    assert body["request_id"] == response.headers["X-Request-Id"]
    message: str = body["error"]["message"]
    return message


async def timed(call: Awaitable[HTTPResponse]) -> tuple[HTTPResponse, float]:
    loop = asyncio.get_running_loop()
    started = loop.time()
    response = await call
    return response, loop.time() - started


@pytest.mark.gen_test(timeout=15)
async def test_markdown_endpoint_reports_faults(
    http_client: AsyncHTTPClient, base_url: str, origin: Origin, raw: RawServer, key: str
) -> None:
    def get(target: str, **params: str) -> Awaitable[HTTPResponse]:
        return http_client.fetch(
            markdown_url(base_url, target, key, **params), raise_error=False, request_timeout=10
        )

    response, took = await timed(get(origin.url("/gzip-bomb")))
    assert "compression ratio was too high" in api_error(response, 400, -3007)
    assert took < 3

    response, took = await timed(get(origin.url("/drip"), retry="false"))
    assert "too slowly" in api_error(response, 400, -3002)
    assert took < 3

    # A broken response is worth another attempt: all four are made, then -3009.
    response, took = await timed(get(raw.url("reset")))
    assert api_error(response, 400, -3009) == (
        "the connection to the target broke off mid-response (after 4 attempts)"
    )
    assert raw.hits["reset"] == 4
    assert took < 3

    response, took = await timed(get(origin.url("/huge-headers"), retry="false"))
    api_error(response, 400, -3009)
    assert took < 2

    response, took = await timed(get(origin.url("/png-as-html")))
    api_error(response, 404, -4000)
    assert took < 2

    response, took = await timed(get(origin.url("/fast")))
    assert response.code == 200 and "A fast page." in response.body.decode()
    assert took < 2


def test_every_fetch_error_has_an_api_error() -> None:
    _FETCH_ERRORS = {  # noqa: N806 (the table's fetch rows)
        kind: api for kind, api in FAILURE_KINDS.items() if isinstance(kind, FetchError)
    }
    assert set(_FETCH_ERRORS) == set(FetchError)
    assert all(kind in KINDS for kind in _FETCH_ERRORS.values())
    invalid = KINDS[_FETCH_ERRORS[FetchError.invalid_response]]
    assert (invalid.status, invalid.markdown_code, invalid.oembed_code) == (
        400,
        -3009,
        "target_unreachable",
    )


def test_html_sniffing_is_linear_on_comment_runs() -> None:
    started = time.monotonic()
    assert not looks_like_html(b"<!---->" * 140 + b"x")
    assert looks_like_html(b"  <!-- a --> <!-- b -->\n<html><body>x")
    assert not looks_like_html(b"<!-- never closed <html>")
    assert time.monotonic() - started < 0.5
