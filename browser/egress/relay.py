"""Relaying through the egress guard once a destination is approved: one plain-HTTP exchange, or
an opaque tunnel (CONNECT, or a WebSocket after its upgrade), each under its byte budgets.

A :class:`Lane` is one page's own way out: a port of its own on the guard, so that everything the
page brings in, all its responses and tunnels together, counts against one budget
(``farm.max_page_mb``); past it, the page's connections are cut and new ones refused.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from browser.egress.body import CHUNK, relay_body
from browser.egress.exchange import relay_response
from browser.egress.limits import EgressLimits, LimitExceededError
from browser.egress.wire import ReplyError, RequestHead, Streams

__all__ = ["Lane", "Relay"]

log = logging.getLogger(__name__)

MIB = 2**20


class Lane:
    """One page's own port on the guard and the byte budget of everything it brings in."""

    def __init__(self, limit: int, on_close: Callable[[Lane], None]) -> None:
        self.limit = limit
        self.received = 0
        self.port = 0
        self._server: asyncio.Server | None = None
        self._on_close = on_close

    def listen(self, server: asyncio.Server) -> None:
        self._server = server
        self.port = server.sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        """The proxy server for the page's context."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def exhausted(self) -> bool:
        return self.received > self.limit

    def refusal(self) -> ReplyError:
        return ReplyError(502, f"the page brought in more than {self.limit // MIB} MiB", "limited")

    def take(self, size: int) -> None:
        """Count ``size`` bytes in; raises :class:`LimitExceededError` past the budget."""
        self.received += size
        if self.received > self.limit:
            raise LimitExceededError(
                f"the page brought in more than {self.limit // MIB} MiB", started=True
            )

    def renew(self) -> None:
        """Start the count over: the page was reset for another capture."""
        self.received = 0

    def close(self) -> None:
        """Stop listening (connections in progress end with the page's context). Idempotent."""
        if self._server is not None:
            self._server.close()
            self._server = None
            self._on_close(self)


@dataclass
class Relay:
    """Relaying for one client connection of the guard."""

    conn: int
    limits: EgressLimits
    idle_timeout: float
    count: Callable[[str], None]
    """Counts an outcome (``limited`` when a budget cuts the relay)."""
    lane: Lane | None = None

    async def exchange(self, request: RequestHead, client: Streams, origin: Streams) -> None:
        """One plain-HTTP request and its response (or a WebSocket upgrade), then the end."""
        loop = asyncio.get_running_loop()
        body = asyncio.create_task(
            relay_body(client[0], origin[1], request.headers, until_close=False)
        )
        lane = self.lane
        try:
            async with asyncio.timeout(self.idle_timeout) as idle:

                def wire(size: int) -> None:
                    idle.reschedule(loop.time() + self.idle_timeout)
                    if lane is not None:
                        lane.take(size)

                head = await relay_response(origin[0], client[1], self.limits, request.method, wire)
        except TimeoutError:
            log.debug("egress #%d: no progress for %.1f s, closing", self.conn, self.idle_timeout)
            return
        except LimitExceededError as exc:
            if not exc.started:
                raise ReplyError(502, exc.message, "limited") from None
            # Part of the response is with the browser already: only a reset tells it the
            # load failed (a clean close could pass for a complete, shorter page).
            log.info("egress #%d: response cut: %s", self.conn, exc.message)
            self.count("limited")
            client[1].transport.abort()
            origin[1].transport.abort()
            return
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
            log.debug("egress #%d: exchange broke off: %s", self.conn, exc.__class__.__name__)
            client[1].transport.abort()
            return
        finally:
            if not body.done():
                body.cancel()
            await asyncio.gather(body, return_exceptions=True)
        if head is None:
            raise ReplyError(502, "the target closed the connection without answering")
        if head.status == 101:
            await self.splice(client, origin)

    async def splice(self, client: Streams, origin: Streams) -> None:
        """Relay bytes both ways until either side closes, nothing moves for idle_timeout, or the
        origin's side passes the tunnel's or the lane's budget."""
        loop = asyncio.get_running_loop()
        last = [loop.time()]
        conn, lane, cap = self.conn, self.lane, self.limits.max_tunnel_bytes

        async def pump(
            reader: asyncio.StreamReader, writer: asyncio.StreamWriter, inbound: bool
        ) -> None:
            moved = 0
            while data := await reader.read(CHUNK):
                last[0] = loop.time()
                if inbound:
                    moved += len(data)
                    try:
                        if moved > cap:
                            raise LimitExceededError(f"tunnel over {cap // MIB} MiB")
                        if lane is not None:
                            lane.take(len(data))
                    except LimitExceededError as exc:
                        log.info("egress #%d: %s, closing", conn, exc.message)
                        self.count("limited")
                        return
                writer.write(data)
                await writer.drain()

        tasks = {
            asyncio.create_task(pump(client[0], origin[1], False)),
            asyncio.create_task(pump(origin[0], client[1], True)),
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
