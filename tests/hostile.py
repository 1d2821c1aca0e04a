"""A hostile origin on 127.0.0.1: pages built to hurt a browser farm, served over raw asyncio
streams so that each can break HTTP the way real attackers do (stacked encodings, endless
bodies, resets mid-body, megabytes of headers).

Used by the hostile-page tests and by ``bench/hostile.py``. Each path is one kind of page; the
server answers one request per connection and counts what it sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import socket
import struct
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cache

Writer = asyncio.StreamWriter
Page = Callable[["HostileOrigin", Writer], Awaitable[None]]

ORDINARY = (
    "<html><head><title>Ordinary</title></head><body style='margin:0;background:#fff'>"
    "<h1>An ordinary page</h1><p>Nothing to see here but a paragraph of text.</p></body></html>"
)

# Script that allocates in a loop: V8's heap limit stops it.
JS_HEAP = (
    "<html><body><p>heap</p><script>const keep=[];(function grow(){for(let i=0;i<200000;i++)"
    "keep.push({a:i,b:'x'+i});setTimeout(grow,0)})();</script></body></html>"
)
# Memory outside V8's heap (canvas backing stores, 64 MiB each): only the watchdog stops it.
CANVASES = (
    "<html><body><p>canvases</p><script>const keep=[];setInterval(()=>{"
    "const c=document.createElement('canvas');c.width=4096;c.height=4096;"
    "const x=c.getContext('2d');x.fillStyle='#f00';x.fillRect(0,0,4096,4096);keep.push(c)},30);"
    "</script></body></html>"
)
# DOM text outside V8's heap, attached to the document (Blink holds it), grown in one synchronous
# loop: past any page budget within a second, before the watchdog could lower a spinning
# renderer's priority (a lowered renderer on a busy host grows too slowly to test anything).
DOM_TEXT = (
    "<html><body><p>dom text</p><div id='k' style='display:none'></div><script>"
    "const k=document.getElementById('k');for(let n=0;;n++){const d=document.createElement('div');"
    "d.textContent='x'.repeat(4e6)+n;k.appendChild(d)}</script></body></html>"
)
JS_LOOP = "<html><body><p>loop</p><script>while(true){}</script></body></html>"
# A page that reloads itself every 50 ms: whatever the farm evaluates in it loses its context.
SELF_RELOAD = (
    "<html><body style='height:5000px'><p>reloading</p>"
    "<script>setTimeout(() => location.reload(), 50)</script></body></html>"
)
# Sixteen downloads of a megabyte each: more than a small per-page budget.
HEAVY = (
    "<html><body><p>heavy</p><script>for(let i=0;i<16;i++)"
    "fetch('/blob?'+i).then(r=>r.arrayBuffer()).catch(()=>0);</script></body></html>"
)


async def through_proxy(port: int, request: bytes, limit: float = 10.0) -> bytes:
    """Send raw bytes to a proxy on 127.0.0.1:``port`` (the egress guard or one of its lanes);
    everything it answers until it closes, ``<reset>`` appended when it resets the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    received = b""
    try:
        async with asyncio.timeout(limit):
            while data := await reader.read(65536):
                received += data
    except ConnectionResetError:
        received += b"<reset>"
    writer.close()
    return received


def proxy_get(url: str) -> bytes:
    """An absolute-form GET of ``url``, as a browser sends it to its proxy."""
    return f"GET {url} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()


@cache
def zeros_gzip(size: int) -> bytes:
    """``size`` zero bytes, gzipped (about 1 KB per MB)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1024 * 1024)
    parts = [compressor.compress(block) for _ in range(size // len(block))]
    parts.append(compressor.flush())
    return b"".join(parts)


@dataclass
class HostileOrigin:
    """The server; ``url(path)`` addresses one of its pages."""

    pages: dict[str, Page] = field(default_factory=lambda: PAGES)
    """The pages served, by path (every hostile page by default)."""
    port: int = 0
    sent: dict[str, int] = field(default_factory=dict)
    """Body bytes sent, by path."""
    requests: list[str] = field(default_factory=list)
    _server: asyncio.Server | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _accept(self, reader: asyncio.StreamReader, writer: Writer) -> None:
        task = asyncio.create_task(self._serve(reader, writer))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(self, reader: asyncio.StreamReader, writer: Writer) -> None:
        # A client that goes away mid-page is what many of these pages are for: not an error.
        try:
            with contextlib.suppress(
                OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError
            ):
                head = await reader.readuntil(b"\r\n\r\n")
                path = head.split(b" ", 2)[1].decode("latin-1")
                self.requests.append(path)
                page = self.pages.get(path.split("?", 1)[0], _not_found)
                await page(self, writer)
        finally:
            with contextlib.suppress(OSError):
                writer.close()

    def count(self, path: str, size: int) -> None:
        self.sent[path] = self.sent.get(path, 0) + size


def _head(status: str, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status}", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _html(body: str) -> Page:
    async def page(origin: HostileOrigin, writer: Writer) -> None:
        data = body.encode()
        writer.write(
            _head("200 OK", {"Content-Type": "text/html", "Content-Length": str(len(data))})
        )
        writer.write(data)
        await writer.drain()

    return page


async def _not_found(origin: HostileOrigin, writer: Writer) -> None:
    writer.write(_head("404 Not Found", {"Content-Length": "0"}))
    await writer.drain()


BOMB_BYTES = 256 * 1024 * 1024
"""Zeros inside the gzip bombs."""


def _bomb(path: str, encoding: str, layers: int) -> Page:
    """``BOMB_BYTES`` zeros gzipped ``layers`` times, declared ``Content-Encoding: encoding``."""

    async def page(origin: HostileOrigin, writer: Writer) -> None:
        body = zeros_gzip(BOMB_BYTES)
        for _ in range(layers - 1):
            body = gzip.compress(body, 9)
        headers = {"Content-Type": "text/html", "Content-Encoding": encoding}
        writer.write(_head("200 OK", {**headers, "Content-Length": str(len(body))}) + body)
        origin.count(path, len(body))
        await writer.drain()

    return page


async def _endless(origin: HostileOrigin, writer: Writer) -> None:
    """An HTML body without end, as fast as the reader takes it."""
    writer.write(_head("200 OK", {"Content-Type": "text/html"}))
    block = b"<p>" + b"endless " * 8000 + b"</p>\n"
    while True:
        writer.write(block)
        origin.count("/endless", len(block))
        await writer.drain()


async def _drip(origin: HostileOrigin, writer: Writer) -> None:
    """A byte a second, never finished."""
    writer.write(_head("200 OK", {"Content-Type": "text/html"}) + b"<html><body>")
    await writer.drain()
    while True:
        await asyncio.sleep(1.0)
        writer.write(b" ")
        await writer.drain()


async def _reset(origin: HostileOrigin, writer: Writer) -> None:
    """Announces 100,000 bytes, sends 17, resets the connection."""
    writer.write(_head("200 OK", {"Content-Type": "text/html", "Content-Length": "100000"}))
    writer.write(b"<html><body>hello")
    await writer.drain()
    await asyncio.sleep(0.2)
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


async def _huge_headers(origin: HostileOrigin, writer: Writer) -> None:
    """A megabyte of response headers."""
    headers = {"Content-Type": "text/html", "Content-Length": "2"}
    headers.update({f"X-Filler-{i}": "f" * 1000 for i in range(1024)})
    writer.write(_head("200 OK", headers) + b"ok")
    await writer.drain()


async def _download(origin: HostileOrigin, writer: Writer) -> None:
    body = b"binary" * 1000
    writer.write(
        _head(
            "200 OK",
            {
                "Content-Type": "application/octet-stream",
                "Content-Disposition": 'attachment; filename="file.bin"',
                "Content-Length": str(len(body)),
            },
        )
        + body
    )
    await writer.drain()


async def _blob(origin: HostileOrigin, writer: Writer) -> None:
    """A megabyte of zeros (the heavy page asks for sixteen of them)."""
    body = bytes(1024 * 1024)
    writer.write(
        _head(
            "200 OK",
            {"Content-Type": "application/octet-stream", "Content-Length": str(len(body))},
        )
    )
    for start in range(0, len(body), 64 * 1024):
        writer.write(body[start : start + 64 * 1024])
        origin.count("/blob", 64 * 1024)
        await writer.drain()


def canned(data: bytes) -> Page:
    """A page that answers ``data`` as it is (head and body, however broken), then closes."""

    async def page(origin: HostileOrigin, writer: Writer) -> None:
        writer.write(data)
        await writer.drain()

    return page


def _redirect(location: str) -> Page:
    async def page(origin: HostileOrigin, writer: Writer) -> None:
        writer.write(_head("302 Found", {"Location": location, "Content-Length": "0"}))
        await writer.drain()

    return page


PAGES: dict[str, Page] = {
    "/ordinary": _html(ORDINARY),
    # Twice gzipped (a bomb in a few KB) and declared so; once, stopped by the ratio.
    "/gzip-gzip": _bomb("/gzip-gzip", "gzip, gzip", layers=2),
    "/gzip-bomb": _bomb("/gzip-bomb", "gzip", layers=1),
    "/endless": _endless,
    "/drip": _drip,
    "/reset": _reset,
    "/huge-headers": _huge_headers,
    "/download": _download,
    "/js-heap": _html(JS_HEAP),
    "/canvases": _html(CANVASES),
    "/dom-text": _html(DOM_TEXT),
    "/js-loop": _html(JS_LOOP),
    "/self-reload": _html(SELF_RELOAD),
    "/heavy": _html(HEAVY),
    "/blob": _blob,
    "/to-gopher": _redirect("gopher://127.0.0.1:70/1"),
    "/to-ftp": _redirect("ftp://127.0.0.1/file"),
    "/to-dict": _redirect("dict://127.0.0.1:2628/d:word"),
    "/to-file": _redirect("file:///etc/passwd"),
}
"""Every page the hostile origin serves, by path."""


async def _serve_forever(port: int) -> None:
    zeros_gzip(BOMB_BYTES)  # made once before serving: the bench times Pagecast, not this
    origin = HostileOrigin()
    origin._server = await asyncio.start_server(origin._accept, "127.0.0.1", port)
    origin.port = port
    print(f"hostile origin on {origin.url('/')}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":  # python -m tests.hostile PORT (for bench/hostile.py)
    import sys

    asyncio.run(_serve_forever(int(sys.argv[1])))
