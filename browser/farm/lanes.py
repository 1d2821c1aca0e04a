"""The way a browser's contexts reach the egress guard: the proxy a new context of a route gets,
and the guard lane opened for each context, closed for sure once the farm is done with it.

A lane is a listening socket of the guard that counts everything one page brings in. It is closed
when the farm discards its context (whether or not the context closed in time), when the context
reports itself closed, and when the browser disconnects; closing twice is harmless.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol
from urllib.parse import unquote, urlsplit

from playwright.async_api import BrowserContext


class EgressLane(Protocol):
    """One context's own way through the egress guard (:class:`browser.egress.guard.Lane`)."""

    @property
    def url(self) -> str: ...

    def renew(self) -> None: ...

    def close(self) -> None: ...


Egress = str | Callable[[], Awaitable[EgressLane]]
"""How contexts of a route reach the egress guard: its proxy URL, or an opener of one lane per
context (the guard then counts everything the page brings in against the page's budget)."""


def proxy_settings(url: str) -> dict[str, str]:
    """Playwright's proxy option for a proxy URL (credentials split out).

    ``<-loopback>`` makes Chromium send loopback addresses through the proxy too: by default it
    would reach 127.0.0.1 directly, around the egress guard.
    """
    parts = urlsplit(url)
    if not parts.hostname:
        raise ValueError("an egress URL needs a host")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    server = f"{parts.scheme or 'http'}://{host}" + (f":{parts.port}" if parts.port else "")
    proxy = {"server": server, "bypass": "<-loopback>"}
    if parts.username:
        proxy["username"] = unquote(parts.username)
        proxy["password"] = unquote(parts.password or "")
    return proxy


class ContextLanes:
    """The lanes of one browser's contexts; ``egress`` maps route names to :data:`Egress` (None:
    contexts reach the network without a proxy)."""

    def __init__(self, egress: Mapping[str, Egress] | None) -> None:
        self._egress = egress
        self._lanes: dict[BrowserContext, EgressLane] = {}

    async def proxy(self, route: str) -> tuple[dict[str, str] | None, EgressLane | None]:
        """The proxy option for a context of ``route``, and the lane it was opened on (a route
        given as a lane opener gives each context a lane of its own). Pass a lane to
        :meth:`bind` once its context exists, or close it."""
        if self._egress is None:
            return None, None
        egress = self._egress.get(route)
        if egress is None:
            raise ValueError(f"no egress URL for route {route!r}")
        if isinstance(egress, str):
            return proxy_settings(egress), None
        lane = await egress()
        return proxy_settings(lane.url), lane

    def bind(self, context: BrowserContext, lane: EgressLane) -> None:
        """``lane`` is ``context``'s: closed by :meth:`release` or when the context closes."""
        self._lanes[context] = lane
        context.on("close", self.release)

    def renew(self, context: BrowserContext) -> None:
        """Start ``context``'s lane's count over: its page was reset for another capture."""
        lane = self._lanes.get(context)
        if lane is not None:
            lane.renew()

    def release(self, context: BrowserContext) -> None:
        """Close ``context``'s lane, if it has one still open (idempotent)."""
        lane = self._lanes.pop(context, None)
        if lane is not None:
            lane.close()

    def close_all(self) -> None:
        """Close every lane (the browser is gone, and its contexts with it)."""
        lanes, self._lanes = list(self._lanes.values()), {}
        for lane in lanes:
            lane.close()
