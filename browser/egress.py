"""The egress guard: the local forward proxy through which every request of the headless browser
leaves, under the same SSRF rule as the fetcher.

Chromium contexts are given ``proxy={"server": guard.url}``, so the guard sees ``CONNECT
host:port`` for https and wss, and absolute-form requests (``GET http://host/path HTTP/1.1``) for
plain http and ws. Every destination goes through :meth:`AddressPolicy.check`, which resolves the
host once and checks every address; the guard then connects only to those checked addresses (the
pin: it never resolves again, so DNS rebinding cannot redirect the connection). Refused
destinations get ``403``, names that do not resolve and unreachable destinations ``502``.

Once a destination is approved the guard relays: a CONNECT tunnel as opaque bytes (at most
``max_tunnel_bytes`` from the origin), a plain http request after rewriting its head to
origin-form (hop-by-hop and ``Proxy-*`` headers dropped, ``Connection: close`` toward the origin
unless it is a WebSocket upgrade, ``Accept-Encoding`` limited to what the guard can measure), then
exactly one response under the fetcher's limits (:mod:`browser.egress_http`), and then it closes:
a client connection never carries a second, unchecked request. With an ``upstream`` proxy
(the standard tier) the guard still checks the destination, then reaches it through a CONNECT
tunnel of the upstream proxy instead of connecting itself.

Runs on asyncio streams, so it shares the event loop of the Tornado server.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ipaddress
import itertools
import logging
import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote, urlsplit

from prometheus_client import Counter

from browser.egress_http import ACCEPT_ENCODING, EgressLimits, LimitExceededError, relay_body
from browser.egress_http import relay_response as relay_http_response
from browser.proxies import ProxyRoute
from browser.ssrf import (
    AddressPolicy,
    ResolutionError,
    Resolver,
    Target,
    URLRefusedError,
    system_resolver,
)

__all__ = ["MAX_HEAD_BYTES", "EgressGuard", "EgressLimits"]

log = logging.getLogger(__name__)

EGRESS_REQUESTS = Counter(
    "pagecast_egress_requests",
    "Requests of the headless browser through the egress guard, by outcome "
    "(allowed, refused by the SSRF policy, failed, limited: a response over the byte limits).",
    ["outcome"],
)
OUTCOMES: Final = ("allowed", "refused", "failed", "limited")
for _outcome in OUTCOMES:
    EGRESS_REQUESTS.labels(_outcome)

MAX_HEAD_BYTES: Final = 64 * 1024
"""The largest request head (request line and headers) the guard reads; larger ones get 431."""

_CHUNK = 64 * 1024
_LINGER_SECONDS = 1.0
_CLOSE_GRACE_SECONDS = 1.0
_BACKLOG = 512

# Hop-by-hop headers (RFC 9110 7.6.1) that never travel past the guard. Transfer-Encoding stays:
# the body is relayed byte for byte, so its framing must reach the origin unchanged.
_HOP_BY_HOP = frozenset({"connection", "keep-alive", "te", "trailer", "upgrade"})
# Never dropped on a client's say-so in Connection: they frame the request or name the origin.
_END_TO_END = frozenset({"content-length", "transfer-encoding", "host"})
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_AUTHORITY = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[^\s/?#@\[\]\\:]+):([0-9]{1,5})$")
_REASONS = {
    400: "Bad Request",
    403: "Forbidden",
    431: "Request Header Fields Too Large",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


class _ReplyError(Exception):
    """Ends a client connection with a short text answer instead of relaying it."""

    def __init__(self, status: int, message: str, outcome: str = "failed") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.outcome = outcome


@dataclass(frozen=True)
class _Request:
    method: str
    target: str
    version: str
    headers: list[tuple[str, str]]


Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class EgressGuard:
    """A forward proxy on 127.0.0.1 that lets the browser reach only what ``policy`` allows.

    ``resolver`` replaces the system resolver (tests map names to addresses with it).
    ``upstream`` is a proxy of the standard tier (``http://user:password@host:port``) to send
    every approved request through; its own address is the operator's and is not checked.
    ``connect_timeout`` bounds name resolution, each connection attempt and the upstream
    handshake; ``idle_timeout`` closes a connection on which no byte moved for that long (it also
    bounds reading the request head); past ``max_connections`` concurrent client connections a
    new one is answered ``503``. ``limits`` are the fetcher's limits on what one response (and
    one tunnel) may bring in.
    """

    def __init__(
        self,
        policy: AddressPolicy,
        resolver: Resolver | None = None,
        upstream: ProxyRoute | None = None,
        *,
        connect_timeout: float = 5.0,
        idle_timeout: float = 60.0,
        max_connections: int = 512,
        limits: EgressLimits | None = None,
    ) -> None:
        self.policy = policy
        self.limits = limits or EgressLimits()
        # An origin's response head must fit the reader's buffer to be read (or refused) whole.
        self._origin_limit = max(MAX_HEAD_BYTES, self.limits.max_head_bytes + 4)
        self.resolver = resolver or system_resolver(connect_timeout)
        self.upstream = upstream
        self.connect_timeout = connect_timeout
        self.idle_timeout = idle_timeout
        self.max_connections = max_connections
        self.allowed = 0
        self.refused = 0
        self.failed = 0
        self.limited = 0
        self.port = 0
        self._upstream_auth = _upstream_authorization(upstream) if upstream else None
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._active = 0
        self._closing = False
        self._ids = itertools.count(1)

    @property
    def url(self) -> str:
        """The proxy server to give Chromium: ``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def active(self) -> int:
        """Client connections being served now (tunnels and requests being checked)."""
        return self._active

    async def start(self, port: int = 0) -> None:
        """Listen on 127.0.0.1, on ``port`` or (0) a free port; ``self.port`` tells which."""
        self._server = await asyncio.start_server(
            self._accept, "127.0.0.1", port, limit=MAX_HEAD_BYTES, backlog=_BACKLOG
        )
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("egress guard listening on 127.0.0.1:%d", self.port)

    async def close(self) -> None:
        """Stop listening and end every open tunnel."""
        self._closing = True
        if self._server is not None:
            self._server.close()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    # -- one client connection ----------------------------------------------------------------

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # A task of our own rather than a coroutine callback: asyncio reports a cancelled
        # callback task as an error, and close() cancels the tasks of open connections.
        task = asyncio.create_task(self._serve(next(self._ids), reader, writer))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(
        self, conn: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            if self._closing:
                return
            if self._active >= self.max_connections:
                await self._refuse_busy(conn, reader, writer)
                return
            self._active += 1
            try:
                await self._handle(conn, reader, writer)
            except _ReplyError as reply:
                log.info("egress #%d: %d %s", conn, reply.status, reply.message)
                self._count(reply.outcome)
                await _answer(reader, writer, reply)
            finally:
                self._active -= 1
        except Exception:
            log.exception("egress #%d: unexpected error", conn)
        finally:
            await _shut(writer)

    async def _refuse_busy(
        self, conn: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        # Read the head first (briefly): closing on an unread request resets the connection and
        # the client might never see the answer.
        with contextlib.suppress(_ReplyError, TimeoutError):
            async with asyncio.timeout(min(self.connect_timeout, self.idle_timeout)):
                await _read_head(reader)
        log.warning("egress #%d: %d connections open, refusing another", conn, self._active)
        self._count("failed")
        await _answer(reader, writer, _ReplyError(503, "too many connections through the guard"))

    async def _handle(
        self, conn: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            async with asyncio.timeout(self.idle_timeout):
                head = await _read_head(reader)
        except TimeoutError:
            log.debug("egress #%d: no request within %.1f s", conn, self.idle_timeout)
            return
        if head is None:
            return
        request = _parse_head(head)
        connect = request.method.upper() == "CONNECT"
        if connect:
            match = _AUTHORITY.match(request.target)
            if match is None:
                raise _ReplyError(400, "CONNECT needs host:port")
            url = f"https://{request.target}/"
        else:
            url = _check_url(request.target)
        target = await self._check(url)
        upstream = await self._open(conn, target)
        self._count("allowed")
        log.debug("egress #%d: %s %s:%d allowed", conn, request.method, target.host, target.port)
        try:
            if connect:
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                await self._splice(conn, (reader, writer), upstream)
            else:
                upstream[1].write(_origin_head(request, target))
                await self._exchange(conn, request, (reader, writer), upstream)
        finally:
            await _shut(upstream[1])

    async def _exchange(
        self, conn: int, request: _Request, client: Streams, origin: Streams
    ) -> None:
        """One plain-HTTP request and its response (or a WebSocket upgrade), then the end."""
        loop = asyncio.get_running_loop()
        body = asyncio.create_task(
            relay_body(client[0], origin[1], request.headers, until_close=False)
        )
        try:
            async with asyncio.timeout(self.idle_timeout) as idle:

                def progress() -> None:
                    idle.reschedule(loop.time() + self.idle_timeout)

                head = await relay_http_response(
                    origin[0], client[1], self.limits, request.method, progress
                )
        except TimeoutError:
            log.debug("egress #%d: no progress for %.1f s, closing", conn, self.idle_timeout)
            return
        except LimitExceededError as exc:
            if not exc.started:
                raise _ReplyError(502, exc.message, "limited") from None
            # Part of the response is with the browser already: only a reset tells it the
            # load failed (a clean close could pass for a complete, shorter page).
            log.info("egress #%d: response cut: %s", conn, exc.message)
            self._count("limited")
            client[1].transport.abort()
            origin[1].transport.abort()
            return
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
            log.debug("egress #%d: exchange broke off: %s", conn, exc.__class__.__name__)
            client[1].transport.abort()
            return
        finally:
            if not body.done():
                body.cancel()
            await asyncio.gather(body, return_exceptions=True)
        if head is None:
            raise _ReplyError(502, "the target closed the connection without answering")
        if head.status == 101:
            await self._splice(conn, client, origin)

    async def _check(self, url: str) -> Target:
        try:
            async with asyncio.timeout(self.connect_timeout):
                target = await self.policy.check(url, self.resolver)
        except URLRefusedError as exc:
            raise _ReplyError(403, exc.message, "refused") from None
        except ResolutionError as exc:
            raise _ReplyError(502, str(exc)) from None
        except TimeoutError:
            raise _ReplyError(502, "resolving the host timed out") from None
        if target.port == self.port and any(
            ipaddress.ip_address(address).is_loopback
            or ipaddress.ip_address(address).is_unspecified
            for address in target.addresses
        ):
            raise _ReplyError(403, "the egress guard does not connect to itself", "refused")
        return target

    async def _open(self, conn: int, target: Target) -> Streams:
        if self.upstream is not None:
            return await self._open_upstream(conn, target)
        # Only the addresses the policy checked, in order: never a fresh lookup.
        for address in target.addresses:
            try:
                async with asyncio.timeout(self.connect_timeout):
                    streams = await asyncio.open_connection(
                        address, target.port, limit=self._origin_limit
                    )
            except (OSError, TimeoutError) as exc:
                log.info(
                    "egress #%d: %s:%d via %s: %s",
                    conn,
                    target.host,
                    target.port,
                    address,
                    exc.__class__.__name__,
                )
                continue
            log.debug("egress #%d: connected to %s:%d", conn, address, target.port)
            return streams
        raise _ReplyError(502, f"{target.host}:{target.port} did not accept a connection")

    async def _open_upstream(self, conn: int, target: Target) -> Streams:
        route = self.upstream
        assert route is not None
        try:
            async with asyncio.timeout(self.connect_timeout):
                reader, writer = await asyncio.open_connection(
                    route.host, route.port, limit=self._origin_limit
                )
        except (OSError, TimeoutError) as exc:
            log.warning("egress #%d: upstream proxy %r: %s", conn, route, exc.__class__.__name__)
            raise _ReplyError(502, "the upstream proxy did not accept a connection") from None
        # The destination goes by name: the upstream proxy resolves it on its own network.
        host = f"[{target.host}]" if ":" in target.host else target.host
        authority = f"{host}:{target.port}"
        lines = [f"CONNECT {authority} HTTP/1.1", f"Host: {authority}"]
        if self._upstream_auth:
            lines.append(f"Proxy-Authorization: {self._upstream_auth}")
        try:
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("ascii"))
            async with asyncio.timeout(self.connect_timeout):
                answer = await reader.readuntil(b"\r\n\r\n")
            status_line = answer.split(b"\r\n", 1)[0].decode("latin-1")
            parts = status_line.split(" ", 2)
            status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
        except (OSError, TimeoutError, EOFError, asyncio.LimitOverrunError) as exc:
            await _shut(writer)
            log.warning("egress #%d: upstream proxy %r: %s", conn, route, exc.__class__.__name__)
            raise _ReplyError(502, "the upstream proxy failed") from None
        if not 200 <= status < 300:
            await _shut(writer)
            log.warning(
                "egress #%d: upstream proxy %r answered %d for %s", conn, route, status, authority
            )
            raise _ReplyError(502, f"the upstream proxy refused the tunnel ({status})")
        return reader, writer

    async def _splice(self, conn: int, client: Streams, origin: Streams) -> None:
        """Relay bytes both ways until either side closes or nothing moves for idle_timeout."""
        loop = asyncio.get_running_loop()
        last = [loop.time()]

        async def pump(
            reader: asyncio.StreamReader, writer: asyncio.StreamWriter, cap: int | None
        ) -> None:
            moved = 0
            while data := await reader.read(_CHUNK):
                last[0] = loop.time()
                moved += len(data)
                if cap is not None and moved > cap:
                    log.info("egress #%d: tunnel over %d bytes, closing", conn, cap)
                    self._count("limited")
                    return
                writer.write(data)
                await writer.drain()

        tasks = {
            asyncio.create_task(pump(client[0], origin[1], None)),
            asyncio.create_task(pump(origin[0], client[1], self.limits.max_tunnel_bytes)),
        }
        try:
            while True:
                remaining = last[0] + self.idle_timeout - loop.time()
                if remaining <= 0:
                    log.debug("egress #%d: idle for %.1f s, closing", conn, self.idle_timeout)
                    return
                done, _ = await asyncio.wait(
                    tasks, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
                )
                if done:
                    return
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def _count(self, outcome: str) -> None:
        EGRESS_REQUESTS.labels(outcome).inc()
        if outcome == "allowed":
            self.allowed += 1
        elif outcome == "refused":
            self.refused += 1
        elif outcome == "limited":
            self.limited += 1
        else:
            self.failed += 1


# -- the request head ---------------------------------------------------------------------------


async def _read_head(reader: asyncio.StreamReader) -> bytes | None:
    """The request head up to and including the blank line; None when the client went away.

    Callers bound the wait with ``asyncio.timeout``.
    """
    try:
        return await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        raise _ReplyError(431, f"the request head is over {MAX_HEAD_BYTES} bytes") from None
    except (asyncio.IncompleteReadError, OSError):
        return None


def _parse_head(raw: bytes) -> _Request:
    lines = raw[:-4].decode("latin-1").split("\r\n")
    if any("\r" in line or "\n" in line or "\0" in line for line in lines):
        raise _ReplyError(400, "malformed request head")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not _TOKEN.match(parts[0]) or parts[2] not in ("HTTP/1.1", "HTTP/1.0"):
        raise _ReplyError(400, "malformed request line")
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not _TOKEN.match(name):
            raise _ReplyError(400, "malformed header line")
        headers.append((name, value.strip(" \t")))
    return _Request(parts[0], parts[1], parts[2], headers)


def _check_url(request_target: str) -> str:
    """The URL to check for an absolute-form request target (ws is checked as http)."""
    scheme, sep, rest = request_target.partition("://")
    if not sep:
        raise _ReplyError(400, "not a proxy request: the request target must be an absolute URL")
    scheme = scheme.lower()
    if scheme in ("http", "ws"):
        return "http://" + rest
    if scheme in ("https", "wss"):
        raise _ReplyError(400, "send https and wss through CONNECT")
    raise _ReplyError(403, "only http, https, ws and wss are allowed", "refused")


def _origin_form(request_target: str) -> str:
    rest = request_target.partition("://")[2].partition("#")[0]
    for index, char in enumerate(rest):
        if char in "/?":
            path = rest[index:]
            return path if char == "/" else "/" + path
    return "/"


def _origin_head(request: _Request, target: Target) -> bytes:
    """The request head for the origin: origin-form, Host from the URL, hop-by-hop dropped."""
    tokens: set[str] = set()
    for name, value in request.headers:
        if name.lower() in ("connection", "proxy-connection"):
            tokens.update(token.strip().lower() for token in value.split(","))
    upgrade = next(
        (value for name, value in request.headers if name.lower() == "upgrade"), ""
    ).strip()
    websocket = "upgrade" in tokens and upgrade.lower() == "websocket"
    lines = [
        f"{request.method} {_origin_form(request.target)} {request.version}",
        f"Host: {urlsplit(target.url).netloc}",
    ]
    for name, value in request.headers:
        lower = name.lower()
        if (
            lower in _HOP_BY_HOP
            or lower.startswith("proxy-")
            or lower in ("host", "accept-encoding")
            or (lower in tokens and lower not in _END_TO_END)
        ):
            continue
        lines.append(f"{name}: {value}")
    # Only codings the guard can decode to count: the fetcher's limits hold for the browser too.
    lines.append(f"Accept-Encoding: {ACCEPT_ENCODING}")
    if websocket:
        lines += ["Connection: Upgrade", f"Upgrade: {upgrade}"]
    else:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


# -- answers and closing ------------------------------------------------------------------------


# Marks the guard's own answers, so the farm can tell "the guard refused or could not reach the
# target" from a page that answered with the same status.
EGRESS_HEADER = "X-Pagecast-Egress"
_VERDICTS = {403: "refused", 502: "unreachable"}
EGRESS_REASON_HEADER = "X-Pagecast-Egress-Reason"
"""Carries the guard's own short reason with a ``limited`` verdict (text the guard wrote)."""


async def _answer(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, reply: _ReplyError
) -> None:
    body = f"Pagecast egress guard: {reply.message}\n".encode()
    verdict = "limited" if reply.outcome == "limited" else _VERDICTS.get(reply.status, "failed")
    reason = f"{EGRESS_REASON_HEADER}: {reply.message}\r\n" if verdict == "limited" else ""
    head = (
        f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Error')}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        f"{EGRESS_HEADER}: {verdict}\r\n"
        + reason
        + f"Content-Length: {len(body)}\r\n"
        + ("Retry-After: 1\r\n" if reply.status == 503 else "")
        + "Connection: close\r\n\r\n"
    )
    writer.write(head.encode("latin-1") + body)
    # Half-close, then read and discard what the client still sends for a moment: closing with
    # unread bytes resets the connection, and the client could lose the answer.
    with contextlib.suppress(OSError, TimeoutError):
        async with asyncio.timeout(_LINGER_SECONDS):
            await writer.drain()
            if writer.can_write_eof():
                writer.write_eof()
            while await reader.read(_CHUNK):
                pass


async def _shut(writer: asyncio.StreamWriter) -> None:
    """Close a connection and wait until its socket is closed; abort if it will not flush."""
    writer.close()
    try:
        async with asyncio.timeout(_CLOSE_GRACE_SECONDS):
            await writer.wait_closed()
        return
    except OSError:
        return
    except TimeoutError:
        writer.transport.abort()
    with contextlib.suppress(OSError, TimeoutError):
        async with asyncio.timeout(_CLOSE_GRACE_SECONDS):
            await writer.wait_closed()


def _upstream_authorization(route: ProxyRoute) -> str | None:
    parts = urlsplit(route.url)
    if parts.scheme != "http":
        raise ValueError("the egress guard chains only to http:// proxies")
    if parts.username is None:
        return None
    credentials = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
    return "Basic " + base64.b64encode(credentials.encode()).decode("ascii")
