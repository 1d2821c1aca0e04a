"""The egress guard: the browser's forward proxy, driven by real clients over 127.0.0.1."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest
import tornado.web
import tornado.websocket
from prometheus_client import REGISTRY
from tornado.curl_httpclient import CurlAsyncHTTPClient
from tornado.httpclient import HTTPRequest, HTTPResponse
from tornado.httpserver import HTTPServer
from tornado.httputil import HTTPHeaders
from tornado.iostream import IOStream, StreamClosedError
from tornado.netutil import bind_sockets
from tornado.tcpclient import TCPClient
from tornado.tcpserver import TCPServer
from tornado.testing import bind_unused_port

from browser.egress.guard import MAX_HEAD_BYTES, EgressGuard
from browser.proxies import ProxyRoute
from browser.resolver import Resolver, static_resolver
from browser.ssrf import AddressPolicy
from tests.origin import Origin, closed_port, serve

# -- origins ------------------------------------------------------------------------------------


class EchoHandler(tornado.web.RequestHandler):
    """Answers what it received, and on which of its own addresses the connection arrived."""

    def initialize(self, seen: list[dict[str, Any]]) -> None:
        self.seen = seen

    def _echo(self) -> None:
        stream = self.request.connection.stream  # type: ignore[union-attr]
        info = {
            "method": self.request.method,
            "uri": self.request.uri,
            "headers": {name.lower(): value for name, value in self.request.headers.get_all()},
            "body_length": len(self.request.body),
            "body_sha256": hashlib.sha256(self.request.body).hexdigest(),
            "local_address": stream.socket.getsockname()[0],
        }
        self.seen.append(info)
        self.set_status(int(self.get_argument("status", "200")))
        self.set_header("X-Origin", "reached")
        self.finish(json.dumps(info))

    get = post = _echo


class EchoSocket(tornado.websocket.WebSocketHandler):
    def on_message(self, message: str | bytes) -> None:
        self.write_message("echo: " + str(message))


def origin_app(seen: list[dict[str, Any]]) -> tornado.web.Application:
    return tornado.web.Application([(r"/echo", EchoHandler, {"seen": seen}), (r"/ws", EchoSocket)])


@pytest.fixture
def seen() -> list[dict[str, Any]]:
    return []


@pytest.fixture
def origin(io_loop: Any, seen: list[dict[str, Any]]) -> Iterator[Origin]:
    site = serve(origin_app(seen))
    yield site
    io_loop.run_sync(site.close)


class EchoServer(TCPServer):
    """A TCP echo server: what a CONNECT tunnel carries is opaque bytes."""

    def __init__(self) -> None:
        super().__init__()
        self.accepted = 0
        self.open: set[IOStream] = set()

    async def handle_stream(self, stream: IOStream, address: Any) -> None:
        self.accepted += 1
        self.open.add(stream)
        try:
            while True:
                await stream.write(await stream.read_bytes(65536, partial=True))
        except StreamClosedError:
            pass
        finally:
            stream.close()
            self.open.discard(stream)


async def _settle(streams: set[IOStream]) -> None:
    for stream in list(streams):
        stream.close()
    await asyncio.sleep(0.01)


@pytest.fixture
def echo(io_loop: Any) -> Iterator[tuple[EchoServer, int]]:
    server = EchoServer()
    sockets = bind_sockets(0, "127.0.0.1", backlog=1024)
    server.add_sockets(sockets)
    yield server, sockets[0].getsockname()[1]
    server.stop()
    io_loop.run_sync(lambda: _settle(server.open))


class TunnelProxy(TCPServer):
    """An upstream proxy for chaining tests: CONNECT only, Basic credentials checked, tunnels
    counted."""

    def __init__(self, user: str, password: str) -> None:
        super().__init__()
        self.expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        self.tunnels: list[str] = []
        self.refused = 0
        self.open: set[IOStream] = set()

    async def handle_stream(self, stream: IOStream, address: Any) -> None:
        self.open.add(stream)
        target: IOStream | None = None
        try:
            head = (await stream.read_until(b"\r\n\r\n", max_bytes=65536)).decode("latin-1")
            request_line, _, rest = head.partition("\r\n")
            method, authority, _ = request_line.split(" ")
            headers = HTTPHeaders.parse(rest)
            if method != "CONNECT":
                await stream.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                return
            if headers.get("Proxy-Authorization") != self.expected:
                self.refused += 1
                await stream.write(b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n")
                return
            host, _, port = authority.rpartition(":")
            target = await TCPClient().connect(host.strip("[]"), int(port))
            self.open.add(target)
            self.tunnels.append(authority)
            await stream.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await asyncio.gather(_pipe(stream, target), _pipe(target, stream))
        except (StreamClosedError, OSError):
            pass
        finally:
            for each in (stream, target):
                if each is not None:
                    each.close()
                    self.open.discard(each)


async def _pipe(source: IOStream, sink: IOStream) -> None:
    try:
        while True:
            await sink.write(await source.read_bytes(65536, partial=True))
    except StreamClosedError:
        pass
    finally:
        sink.close()


@pytest.fixture
def upstream(io_loop: Any) -> Iterator[tuple[TunnelProxy, int]]:
    proxy = TunnelProxy("user", "s3cret:pw")
    sock, port = bind_unused_port()
    proxy.add_sockets([sock])
    yield proxy, port
    proxy.stop()
    io_loop.run_sync(lambda: _settle(proxy.open))


# -- the guard and its clients ------------------------------------------------------------------

GuardFactory = Callable[..., Awaitable[EgressGuard]]


@pytest.fixture
def make_guard(io_loop: Any) -> Iterator[GuardFactory]:
    guards: list[EgressGuard] = []

    async def make(
        allow_hosts: list[str] | None = None, resolver: Resolver | None = None, **kwargs: Any
    ) -> EgressGuard:
        policy = AddressPolicy(["127.0.0.1"] if allow_hosts is None else allow_hosts)
        guard = EgressGuard(policy, resolver or static_resolver({}), **kwargs)
        guards.append(guard)
        await guard.start()
        return guard

    yield make
    for guard in guards:
        io_loop.run_sync(guard.close)


@contextlib.asynccontextmanager
async def client(guard: EgressGuard) -> AsyncIterator[tuple[asyncio.StreamReader, Any]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", guard.port)
    try:
        yield reader, writer
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def exchange(guard: EgressGuard, data: bytes) -> bytes:
    """Send ``data`` on a fresh connection and read until the guard closes it."""
    async with client(guard) as (reader, writer):
        writer.write(data)
        async with asyncio.timeout(5):
            return await reader.read()


def status_of(response: bytes) -> int:
    return int(response.split(b" ", 2)[1])


@contextlib.asynccontextmanager
async def tunnel(
    guard: EgressGuard, authority: str
) -> AsyncIterator[tuple[asyncio.StreamReader, Any]]:
    """A CONNECT tunnel through the guard, established (200) before it is handed over."""
    async with client(guard) as (reader, writer):
        writer.write(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
        async with asyncio.timeout(5):
            head = await reader.readuntil(b"\r\n\r\n")
        assert head == b"HTTP/1.1 200 Connection Established\r\n\r\n"
        yield reader, writer


async def echoed(reader: asyncio.StreamReader, writer: Any, data: bytes) -> bytes:
    writer.write(data)
    async with asyncio.timeout(5):
        return await reader.readexactly(len(data))


async def fetch_via(guard: EgressGuard, url: str, **kwargs: Any) -> HTTPResponse:
    http = CurlAsyncHTTPClient(force_instance=True)
    try:
        return await http.fetch(
            HTTPRequest(url, proxy_host="127.0.0.1", proxy_port=guard.port, request_timeout=5,
                        **kwargs),
            raise_error=False,
        )  # fmt: skip
    finally:
        http.close()


def metric(outcome: str) -> float:
    return REGISTRY.get_sample_value("pagecast_egress_requests_total", {"outcome": outcome}) or 0.0


async def wait_until(condition: Callable[[], bool]) -> None:
    """Poll ``condition`` for up to 3 s (what the guard closes, it closes a moment later)."""
    for _ in range(300):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition not met within 3 s")


# -- plain http ---------------------------------------------------------------------------------


@pytest.mark.gen_test(timeout=10)
async def test_http_get_through_guard(
    origin: Origin, seen: list[dict[str, Any]], make_guard: GuardFactory
) -> None:
    guard = await make_guard()
    before = metric("allowed")
    response = await fetch_via(guard, origin.url("/echo?a=1&b=two"), headers={"X-Custom": "kept"})
    assert response.code == 200
    assert response.headers["X-Origin"] == "reached"
    received = json.loads(response.body)
    assert received["uri"] == "/echo?a=1&b=two"  # origin-form, not the absolute URL
    assert received["headers"]["x-custom"] == "kept"
    assert received["headers"]["host"] == f"127.0.0.1:{origin.port}"
    assert received["headers"]["connection"] == "close"
    assert not any(name.startswith("proxy-") for name in received["headers"])
    missing = await fetch_via(guard, origin.url("/echo?status=404"))
    assert missing.code == 404 and json.loads(missing.body)["uri"] == "/echo?status=404"
    assert (guard.allowed, guard.refused) == (2, 0)
    assert metric("allowed") == before + 2


@pytest.mark.gen_test(timeout=10)
async def test_http_post_body_forwarded(origin: Origin, make_guard: GuardFactory) -> None:
    guard = await make_guard()
    body = os.urandom(300_000)
    response = await fetch_via(
        guard,
        origin.url("/echo"),
        method="POST",
        body=body,
        headers={"Content-Type": "application/octet-stream"},
    )
    received = json.loads(response.body)
    assert response.code == 200 and received["method"] == "POST"
    assert received["body_length"] == len(body)
    assert received["body_sha256"] == hashlib.sha256(body).hexdigest()
    # A chunked body is relayed with its framing intact.
    chunked = await exchange(
        guard,
        f"POST {origin.url('/echo')} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n".encode(),
    )
    assert status_of(chunked) == 200
    received = json.loads(chunked.split(b"\r\n\r\n", 1)[1])
    assert received["body_sha256"] == hashlib.sha256(b"hello world").hexdigest()


@pytest.mark.gen_test(timeout=10)
async def test_keep_alive_client_connection_ends_after_one_response(
    origin: Origin, seen: list[dict[str, Any]], make_guard: GuardFactory
) -> None:
    """A second request on the same client connection never reaches the first origin."""
    guard = await make_guard()
    async with client(guard) as (reader, writer):
        writer.write(
            f"GET {origin.url('/echo?n=1')} HTTP/1.1\r\nHost: x\r\n"
            "Proxy-Connection: keep-alive\r\nConnection: keep-alive\r\n\r\n".encode()
        )
        async with asyncio.timeout(5):
            first = await reader.read()  # the guard closes after the response
        assert status_of(first) == 200
        with contextlib.suppress(OSError):
            writer.write(f"GET {origin.url('/echo?n=2')} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            await writer.drain()
    await asyncio.sleep(0.1)
    assert [each["uri"] for each in seen] == ["/echo?n=1"]


# -- CONNECT tunnels and WebSockets -------------------------------------------------------------


@pytest.mark.gen_test(timeout=10)
async def test_connect_tunnel_carries_bytes_both_ways(
    echo: tuple[EchoServer, int], make_guard: GuardFactory
) -> None:
    server, port = echo
    guard = await make_guard()
    async with tunnel(guard, f"127.0.0.1:{port}") as (reader, writer):
        assert await echoed(reader, writer, b"ping") == b"ping"
        big = os.urandom(2_000_000)
        assert await echoed(reader, writer, big) == big
    assert server.accepted == 1
    assert guard.allowed == 1


@pytest.mark.gen_test(timeout=10)
async def test_connect_tunnel_to_http_origin(
    origin: Origin, seen: list[dict[str, Any]], make_guard: GuardFactory
) -> None:
    guard = await make_guard()
    async with tunnel(guard, f"127.0.0.1:{origin.port}") as (reader, writer):
        writer.write(b"GET /echo?via=tunnel HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        async with asyncio.timeout(5):
            response = await reader.read()
    assert status_of(response) == 200
    assert b"X-Origin: reached" in response
    assert [each["uri"] for each in seen] == ["/echo?via=tunnel"]


def ws_frame(payload: bytes, opcode: int = 0x1) -> bytes:
    """A masked client frame (RFC 6455)."""
    mask = os.urandom(4)
    length = len(payload)
    header = bytes([0x80 | opcode])
    if length < 126:
        header += bytes([0x80 | length])
    else:
        header += bytes([0x80 | 126]) + length.to_bytes(2, "big")
    return header + mask + bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))


async def read_ws_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    first, second = await reader.readexactly(2)
    length = second & 0x7F
    if length == 126:
        length = int.from_bytes(await reader.readexactly(2), "big")
    return first & 0x0F, await reader.readexactly(length)


@pytest.mark.gen_test(timeout=10)
async def test_websocket_upgrade_through_guard(origin: Origin, make_guard: GuardFactory) -> None:
    guard = await make_guard()
    key = base64.b64encode(os.urandom(16)).decode()
    async with client(guard) as (reader, writer):
        writer.write(
            f"GET ws://127.0.0.1:{origin.port}/ws HTTP/1.1\r\nHost: 127.0.0.1:{origin.port}\r\n"
            "Proxy-Connection: keep-alive\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        async with asyncio.timeout(5):
            head = await reader.readuntil(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 101 ")
            accept = base64.b64encode(
                hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()
            )
            assert b"Sec-Websocket-Accept: " + accept in head
            for text in ("hello", "x" * 1000):
                writer.write(ws_frame(text.encode()))
                assert await read_ws_frame(reader) == (0x1, f"echo: {text}".encode())
            writer.write(ws_frame(b"\x03\xe8", opcode=0x8))
            opcode, _ = await read_ws_frame(reader)
            assert opcode == 0x8
            assert await reader.read() == b""


# -- refusals -----------------------------------------------------------------------------------

REFUSED = [
    # (destination, allow_hosts); {port} is the echo server's port
    ("127.0.0.1:{port}", []),  # loopback, not allow-listed
    ("10.0.0.1:{port}", []),
    ("169.254.169.254:80", ["169.254.169.254", "127.0.0.1"]),  # metadata, even when listed
    ("[::ffff:127.0.0.1]:{port}", ["127.0.0.1"]),
    ("public-looking.test:{port}", ["127.0.0.1"]),  # a name resolving to 127.0.0.1
    ("2130706433:{port}", ["127.0.0.1"]),  # 127.0.0.1 spelled as one number
]
RESOLVER = static_resolver({"public-looking.test": ["127.0.0.1"]})


@pytest.mark.gen_test(timeout=10)
@pytest.mark.parametrize("form", ["connect", "absolute"])
@pytest.mark.parametrize(("destination", "allow_hosts"), REFUSED)
async def test_refused_destinations(
    echo: tuple[EchoServer, int],
    make_guard: GuardFactory,
    form: str,
    destination: str,
    allow_hosts: list[str],
) -> None:
    server, port = echo
    guard = await make_guard(allow_hosts, RESOLVER)
    before = metric("refused")
    authority = destination.format(port=port)
    if form == "connect":
        request = f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n"
    else:
        request = f"GET http://{authority}/x HTTP/1.1\r\nHost: {authority}\r\n\r\n"
    response = await exchange(guard, request.encode())
    assert status_of(response) == 403, response
    assert b"Pagecast" in response.split(b"\r\n\r\n", 1)[1]
    assert server.accepted == 0
    assert (guard.allowed, guard.refused) == (0, 1)
    assert metric("refused") == before + 1


@pytest.mark.gen_test(timeout=10)
@pytest.mark.parametrize(
    "target", ["ftp://127.0.0.1:{port}/", "gopher://127.0.0.1:{port}/_x", "file:///etc/passwd"]
)
async def test_other_schemes_refused(
    echo: tuple[EchoServer, int], make_guard: GuardFactory, target: str
) -> None:
    server, port = echo
    guard = await make_guard()
    response = await exchange(guard, f"GET {target.format(port=port)} HTTP/1.1\r\n\r\n".encode())
    assert status_of(response) == 403
    assert server.accepted == 0


@pytest.mark.gen_test(timeout=10)
@pytest.mark.parametrize(
    "request_head",
    [
        "GET /echo HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n",  # not a proxy request
        "CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n",  # no port
        "CONNECT 127.0.0.1:{port}/x HTTP/1.1\r\n\r\n",
        "GET https://127.0.0.1:{port}/ HTTP/1.1\r\n\r\n",  # https goes through CONNECT
        "GET http://127.0.0.1:{port}/ HTTP/2\r\n\r\n",
        "GET http://127.0.0.1:{port}/ HTTP/1.1\r\nno colon here\r\n\r\n",
        "GET http://127.0.0.1:{port}/ HTTP/1.1\r\nX: a\nSmuggled: b\r\n\r\n",
    ],
)
async def test_malformed_requests(
    echo: tuple[EchoServer, int], make_guard: GuardFactory, request_head: str
) -> None:
    server, port = echo
    guard = await make_guard()
    response = await exchange(guard, request_head.format(port=port).encode())
    assert status_of(response) == 400
    assert server.accepted == 0


@pytest.mark.gen_test(timeout=10)
async def test_guard_never_connects_to_itself(make_guard: GuardFactory) -> None:
    guard = await make_guard()
    response = await exchange(guard, f"CONNECT 127.0.0.1:{guard.port} HTTP/1.1\r\n\r\n".encode())
    assert status_of(response) == 403
    assert guard.refused == 1


# -- the pin ------------------------------------------------------------------------------------


def serve_on(app: tornado.web.Application, *hosts: str) -> tuple[HTTPServer, int]:
    """Serve ``app`` on one port on each of ``hosts`` (loopback addresses)."""
    first = bind_sockets(0, hosts[0])
    port = first[0].getsockname()[1]
    sockets = first + [sock for host in hosts[1:] for sock in bind_sockets(port, host)]
    server = HTTPServer(app)
    server.add_sockets(sockets)
    return server, port


@pytest.fixture
def pinned_origin(io_loop: Any, seen: list[dict[str, Any]]) -> Iterator[int]:
    """The origin on 127.0.0.2 and 127.0.0.3 only, not on 127.0.0.1."""
    server, port = serve_on(origin_app(seen), "127.0.0.2", "127.0.0.3")
    yield port
    server.stop()
    io_loop.run_sync(server.close_all_connections)


@pytest.mark.gen_test(timeout=10)
async def test_connection_is_pinned_to_the_checked_address(
    pinned_origin: int, seen: list[dict[str, Any]], make_guard: GuardFactory
) -> None:
    calls: list[str] = []

    async def rebinding(host: str, port: int) -> list[str]:
        # The first answer passes the check; any later lookup would hand out metadata.
        calls.append(host)
        return ["127.0.0.2"] if len(calls) == 1 else ["169.254.169.254"]

    guard = await make_guard(["pinned.test"], rebinding)
    response = await fetch_via(guard, f"http://pinned.test:{pinned_origin}/echo")
    assert response.code == 200
    assert calls == ["pinned.test"]
    assert seen[-1]["local_address"] == "127.0.0.2"
    assert seen[-1]["headers"]["host"] == f"pinned.test:{pinned_origin}"

    calls.clear()
    guard = await make_guard(["pinned.test"], rebinding)
    async with tunnel(guard, f"pinned.test:{pinned_origin}") as (reader, writer):
        writer.write(b"GET /echo HTTP/1.1\r\nHost: pinned.test\r\nConnection: close\r\n\r\n")
        async with asyncio.timeout(5):
            assert status_of(await reader.read()) == 200
    assert calls == ["pinned.test"]
    assert seen[-1]["local_address"] == "127.0.0.2"


@pytest.mark.gen_test(timeout=10)
async def test_checked_addresses_are_tried_in_order(
    pinned_origin: int, seen: list[dict[str, Any]], make_guard: GuardFactory
) -> None:
    both = static_resolver({"multi.test": ["127.0.0.3", "127.0.0.2"]})
    guard = await make_guard(["multi.test"], both)
    assert (await fetch_via(guard, f"http://multi.test:{pinned_origin}/echo")).code == 200
    assert seen[-1]["local_address"] == "127.0.0.3"
    # Nothing listens on 127.0.0.4 at that port: the guard moves on to the next checked address.
    fallback = static_resolver({"multi.test": ["127.0.0.4", "127.0.0.2"]})
    guard = await make_guard(["multi.test"], fallback)
    assert (await fetch_via(guard, f"http://multi.test:{pinned_origin}/echo")).code == 200
    assert seen[-1]["local_address"] == "127.0.0.2"


# -- failures and limits ------------------------------------------------------------------------


@pytest.mark.gen_test(timeout=10)
@pytest.mark.parametrize("form", ["connect", "absolute"])
async def test_unresolvable_and_unreachable_are_502(make_guard: GuardFactory, form: str) -> None:
    guard = await make_guard(["missing.test", "127.0.0.1"], static_resolver({}))
    before = metric("failed")
    for authority in ("missing.test:80", f"127.0.0.1:{closed_port()}"):
        if form == "connect":
            request = f"CONNECT {authority} HTTP/1.1\r\n\r\n"
        else:
            request = f"GET http://{authority}/ HTTP/1.1\r\n\r\n"
        assert status_of(await exchange(guard, request.encode())) == 502
    assert (guard.allowed, guard.refused, guard.failed) == (0, 0, 2)
    assert metric("failed") == before + 2


@pytest.mark.gen_test(timeout=10)
async def test_oversized_head_is_431(
    origin: Origin, seen: list[dict[str, Any]], make_guard: GuardFactory
) -> None:
    guard = await make_guard()
    big = "a" * (MAX_HEAD_BYTES + 1000)
    response = await exchange(
        guard, f"GET {origin.url('/echo')} HTTP/1.1\r\nX-Big: {big}\r\n\r\n".encode()
    )
    assert status_of(response) == 431
    assert seen == []
    fits = "a" * 40_000
    response = await exchange(
        guard, f"GET {origin.url('/echo')} HTTP/1.1\r\nX-Big: {fits}\r\n\r\n".encode()
    )
    assert status_of(response) == 200
    assert len(seen) == 1


@pytest.mark.gen_test(timeout=10)
async def test_max_connections_answers_503(
    echo: tuple[EchoServer, int], make_guard: GuardFactory
) -> None:
    _, port = echo
    guard = await make_guard(max_connections=2)
    authority = f"127.0.0.1:{port}"
    async with tunnel(guard, authority) as first, tunnel(guard, authority) as second:
        assert await echoed(*first, b"1") == b"1"
        assert await echoed(*second, b"2") == b"2"
        response = await exchange(guard, f"CONNECT {authority} HTTP/1.1\r\n\r\n".encode())
        assert status_of(response) == 503
        assert b"Retry-After: 1" in response
    await wait_until(lambda: guard.active == 0)
    async with tunnel(guard, authority) as third:
        assert await echoed(*third, b"3") == b"3"


@pytest.mark.gen_test(timeout=15)
async def test_hundreds_of_concurrent_tunnels(
    echo: tuple[EchoServer, int], make_guard: GuardFactory
) -> None:
    server, port = echo
    guard = await make_guard()
    count = 200  # four descriptors each: stays under a default limit of 1024

    async def one(index: int, all_open: asyncio.Event, opened: list[int]) -> None:
        async with tunnel(guard, f"127.0.0.1:{port}") as (reader, writer):
            opened.append(index)
            if len(opened) == count:
                all_open.set()
            await all_open.wait()  # every tunnel is open at the same time
            payload = f"tunnel {index} ".encode() * 100
            assert await echoed(reader, writer, payload) == payload

    all_open = asyncio.Event()
    opened: list[int] = []
    async with asyncio.timeout(10):
        await asyncio.gather(*(one(index, all_open, opened) for index in range(count)))
    assert guard.allowed == count and server.accepted == count
    await wait_until(lambda: guard.active == 0)


@pytest.mark.gen_test(timeout=10)
async def test_idle_tunnel_is_closed(
    echo: tuple[EchoServer, int], make_guard: GuardFactory
) -> None:
    server, port = echo
    guard = await make_guard(idle_timeout=0.4)
    async with tunnel(guard, f"127.0.0.1:{port}") as (reader, writer):
        # Traffic keeps it open past several idle periods...
        for _ in range(6):
            await asyncio.sleep(0.2)
            assert await echoed(reader, writer, b"x") == b"x"
        # ...silence closes it.
        started = time.monotonic()
        async with asyncio.timeout(3):
            assert await reader.read() == b""
        assert 0.3 < time.monotonic() - started < 2
    await wait_until(lambda: guard.active == 0 and not server.open)


@pytest.mark.gen_test(timeout=10)
async def test_silent_client_is_dropped(make_guard: GuardFactory) -> None:
    guard = await make_guard(idle_timeout=0.3)
    async with client(guard) as (reader, _):
        async with asyncio.timeout(3):
            assert await reader.read() == b""
    assert guard.active == 0


@pytest.mark.gen_test(timeout=10)
async def test_close_ends_open_tunnels(
    echo: tuple[EchoServer, int], make_guard: GuardFactory
) -> None:
    server, port = echo
    guard = await make_guard()
    async with tunnel(guard, f"127.0.0.1:{port}") as (reader, writer), client(guard) as idle:
        assert await echoed(reader, writer, b"x") == b"x"
        await guard.close()
        async with asyncio.timeout(3):
            assert await reader.read() == b""
            assert await idle[0].read() == b""
    assert guard.active == 0
    await wait_until(lambda: not server.open)
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", guard.port)


# -- chaining through an upstream proxy ---------------------------------------------------------


@pytest.mark.gen_test(timeout=10)
async def test_upstream_chaining(
    upstream: tuple[TunnelProxy, int],
    echo: tuple[EchoServer, int],
    origin: Origin,
    seen: list[dict[str, Any]],
    make_guard: GuardFactory,
) -> None:
    proxy, proxy_port = upstream
    _, echo_port = echo
    route = ProxyRoute("standard", f"http://user:s3cret%3Apw@127.0.0.1:{proxy_port}", None)
    guard = await make_guard(upstream=route)
    async with tunnel(guard, f"127.0.0.1:{echo_port}") as (reader, writer):
        assert await echoed(reader, writer, b"through two proxies") == b"through two proxies"
    response = await fetch_via(guard, origin.url("/echo?chained=1"))
    assert response.code == 200
    assert seen[-1]["uri"] == "/echo?chained=1"
    assert "proxy-authorization" not in seen[-1]["headers"]
    assert proxy.tunnels == [f"127.0.0.1:{echo_port}", f"127.0.0.1:{origin.port}"]
    assert proxy.refused == 0
    # The guard still checks destinations: refused ones never reach the upstream proxy.
    refused = await exchange(guard, b"CONNECT 169.254.169.254:80 HTTP/1.1\r\n\r\n")
    assert status_of(refused) == 403
    assert len(proxy.tunnels) == 2


@pytest.mark.gen_test(timeout=10)
async def test_upstream_failures_are_502(
    upstream: tuple[TunnelProxy, int], echo: tuple[EchoServer, int], make_guard: GuardFactory
) -> None:
    proxy, proxy_port = upstream
    server, echo_port = echo
    wrong = ProxyRoute("standard", f"http://user:wrong@127.0.0.1:{proxy_port}", None)
    guard = await make_guard(upstream=wrong)
    response = await exchange(guard, f"CONNECT 127.0.0.1:{echo_port} HTTP/1.1\r\n\r\n".encode())
    assert status_of(response) == 502
    assert proxy.refused == 1
    gone = ProxyRoute("standard", f"http://user:pw@127.0.0.1:{closed_port()}", None)
    guard = await make_guard(upstream=gone)
    response = await exchange(guard, f"CONNECT 127.0.0.1:{echo_port} HTTP/1.1\r\n\r\n".encode())
    assert status_of(response) == 502
    assert server.accepted == 0


@pytest.mark.gen_test(timeout=10)
async def test_start_on_an_explicit_port(origin: Origin) -> None:
    guard = EgressGuard(AddressPolicy(["127.0.0.1"]), static_resolver({}))
    port = closed_port()
    await guard.start(port)
    try:
        assert guard.port == port
        assert guard.url == f"http://127.0.0.1:{port}"
        assert (await fetch_via(guard, origin.url("/echo"))).code == 200
    finally:
        await guard.close()


def test_upstream_must_be_an_http_proxy() -> None:
    with pytest.raises(ValueError, match="http://"):
        EgressGuard(
            AddressPolicy(),
            static_resolver({}),
            ProxyRoute("standard", "socks5h://user:pw@127.0.0.1:1080", None),
        )
