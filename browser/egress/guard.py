"""The egress guard: the local forward proxy through which every request of the headless browser
leaves, under the same SSRF rule as the fetcher.

Chromium contexts are given ``proxy={"server": guard.url}``, so the guard sees ``CONNECT
host:port`` for https and wss, and absolute-form requests (``GET http://host/path HTTP/1.1``) for
plain http and ws. Every destination goes through :meth:`AddressPolicy.check`, which resolves the
host once and checks every address; the guard then connects only to those checked addresses (the
pin: it never resolves again, so DNS rebinding cannot redirect the connection). Refused
destinations get ``403``, names that do not resolve and unreachable destinations ``502``.

Once a destination is approved the guard relays: a CONNECT tunnel as opaque bytes (at most
``max_tunnel_bytes`` from the origin), a plain http request after rewriting its head to origin-form
(hop-by-hop and ``Proxy-*`` headers dropped, ``Connection: close`` toward the origin unless it is a
WebSocket upgrade, ``Accept-Encoding`` limited to what the guard can measure), then exactly one
response under the fetcher's limits (:mod:`browser.egress.exchange`), and then it closes: a client
connection never carries a second, unchecked request. With an ``upstream`` proxy (the standard tier)
the guard still checks the destination, then reaches it through a CONNECT tunnel of the upstream
proxy instead of connecting itself.

Runs on asyncio streams, so it shares the event loop of the Tornado server.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ipaddress
import itertools
import logging
from urllib.parse import unquote, urlsplit

from browser.egress.limits import EGRESS_HEADER, EGRESS_REASON_HEADER, EgressLimits
from browser.egress.metrics import EGRESS_REQUESTS
from browser.egress.relay import Lane, Relay
from browser.egress.wire import (
    AUTHORITY,
    MAX_HEAD_BYTES,
    ReplyError,
    Streams,
    answer,
    check_url,
    origin_head,
    parse_head,
    read_head,
    shut,
)
from browser.proxies import ProxyRoute
from browser.resolver import ResolutionError, Resolver, system_resolver
from browser.ssrf import AddressPolicy, Target, URLRefusedError

__all__ = [
    "EGRESS_HEADER",
    "EGRESS_REASON_HEADER",
    "MAX_HEAD_BYTES",
    "EgressGuard",
    "EgressLimits",
    "Lane",
]

log = logging.getLogger(__name__)

_BACKLOG = 512


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
        self._lanes: set[Lane] = set()
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

    async def open_lane(self, max_bytes: int) -> Lane:
        """A :class:`Lane` for one page, allowed ``max_bytes`` in all; close it with the page."""
        lane = Lane(max_bytes, self._lanes.discard)
        server = await asyncio.start_server(
            lambda reader, writer: self._accept(reader, writer, lane),
            "127.0.0.1",
            0,
            limit=MAX_HEAD_BYTES,
            backlog=_BACKLOG,
        )
        lane.listen(server)
        self._lanes.add(lane)
        return lane

    @property
    def lanes(self) -> int:
        """Lanes open now (one per browser context)."""
        return len(self._lanes)

    async def close(self) -> None:
        """Stop listening and end every open tunnel."""
        self._closing = True
        for lane in list(self._lanes):
            lane.close()
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

    def _accept(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        lane: Lane | None = None,
    ) -> None:
        # A task of our own rather than a coroutine callback: asyncio reports a cancelled
        # callback task as an error, and close() cancels the tasks of open connections.
        task = asyncio.create_task(self._serve(next(self._ids), reader, writer, lane))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(
        self,
        conn: int,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        lane: Lane | None,
    ) -> None:
        try:
            if self._closing:
                return
            if self._active >= self.max_connections:
                await self._refuse_busy(conn, reader, writer)
                return
            self._active += 1
            try:
                await self._handle(conn, reader, writer, lane)
            except ReplyError as reply:
                log.info("egress #%d: %d %s", conn, reply.status, reply.message)
                self._count(reply.outcome)
                await answer(reader, writer, reply)
            finally:
                self._active -= 1
        except Exception:
            log.exception("egress #%d: unexpected error", conn)
        finally:
            await shut(writer)

    async def _refuse_busy(
        self, conn: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        # Read the head first (briefly): closing on an unread request resets the connection and
        # the client might never see the answer.
        with contextlib.suppress(ReplyError, TimeoutError):
            async with asyncio.timeout(min(self.connect_timeout, self.idle_timeout)):
                await read_head(reader)
        log.warning("egress #%d: %d connections open, refusing another", conn, self._active)
        self._count("failed")
        await answer(reader, writer, ReplyError(503, "too many connections through the guard"))

    async def _handle(
        self,
        conn: int,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        lane: Lane | None,
    ) -> None:
        try:
            async with asyncio.timeout(self.idle_timeout):
                head = await read_head(reader)
        except TimeoutError:
            log.debug("egress #%d: no request within %.1f s", conn, self.idle_timeout)
            return
        if head is None:
            return
        request = parse_head(head)
        if lane is not None and lane.exhausted:
            raise lane.refusal()
        connect = request.method.upper() == "CONNECT"
        if connect:
            match = AUTHORITY.match(request.target)
            if match is None:
                raise ReplyError(400, "CONNECT needs host:port")
            url = f"https://{request.target}/"
        else:
            url = check_url(request.target)
        target = await self._check(url)
        upstream = await self._open(conn, target)
        self._count("allowed")
        log.debug("egress #%d: %s %s:%d allowed", conn, request.method, target.host, target.port)
        relay = Relay(conn, self.limits, self.idle_timeout, self._count, lane)
        try:
            if connect:
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                await relay.splice((reader, writer), upstream)
            else:
                upstream[1].write(origin_head(request, target))
                await relay.exchange(request, (reader, writer), upstream)
        finally:
            await shut(upstream[1])

    async def _check(self, url: str) -> Target:
        try:
            async with asyncio.timeout(self.connect_timeout):
                target = await self.policy.check(url, self.resolver)
        except URLRefusedError as exc:
            raise ReplyError(403, exc.message, "refused") from None
        except ResolutionError as exc:
            raise ReplyError(502, str(exc)) from None
        except TimeoutError:
            raise ReplyError(502, "resolving the host timed out") from None
        own_ports = {self.port} | {lane.port for lane in self._lanes}
        if target.port in own_ports and any(
            ipaddress.ip_address(address).is_loopback
            or ipaddress.ip_address(address).is_unspecified
            for address in target.addresses
        ):
            raise ReplyError(403, "the egress guard does not connect to itself", "refused")
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
        raise ReplyError(502, f"{target.host}:{target.port} did not accept a connection")

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
            raise ReplyError(502, "the upstream proxy did not accept a connection") from None
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
            await shut(writer)
            log.warning("egress #%d: upstream proxy %r: %s", conn, route, exc.__class__.__name__)
            raise ReplyError(502, "the upstream proxy failed") from None
        if not 200 <= status < 300:
            await shut(writer)
            log.warning(
                "egress #%d: upstream proxy %r answered %d for %s", conn, route, status, authority
            )
            raise ReplyError(502, f"the upstream proxy refused the tunnel ({status})")
        return reader, writer

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


def _upstream_authorization(route: ProxyRoute) -> str | None:
    parts = urlsplit(route.url)
    if parts.scheme != "http":
        raise ValueError("the egress guard chains only to http:// proxies")
    if parts.username is None:
        return None
    credentials = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
    return "Basic " + base64.b64encode(credentials.encode()).decode("ascii")
