"""Requests a capture asks not to load (consent platforms' loaders, by default), failed by
Chromium's own request interception on a DevTools session of the page's own.

Only the requests that match a pattern pause, and the session fails them as blocked by the
client. Playwright's routing is not used for this: it pauses every request of the page for a
decision and turns the page's HTTP cache off. The session is the page's own target's: the farm
turns site isolation off (:mod:`browser.farm.flags`), so cross-site frames are the page's too,
and service workers are blocked; a frame in a process of its own would not be covered."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import CDPSession
from playwright.async_api import Error as PlaywrightError


class Blocker:
    """The URL patterns one page blocks now (see
    :attr:`~browser.farm.types.CaptureOptions.block_url_patterns`)."""

    def __init__(self) -> None:
        self.patterns: tuple[str, ...] = ()
        self._session: CDPSession | None = None
        self._failing: set[asyncio.Task[None]] = set()
        """Requests being failed (kept so that none is collected before it is done)."""

    async def block(
        self, devtools: Callable[[], Awaitable[CDPSession]], patterns: tuple[str, ...]
    ) -> None:
        """Make ``patterns`` the page's blocked URLs (nothing to do when they already are), on
        the session ``devtools`` gives (the page's own, opened at its first use)."""
        if patterns == self.patterns:
            return
        session = await devtools()
        if session is not self._session:
            session.on("Fetch.requestPaused", lambda event: self._fail(session, event))
            self._session = session
        self.patterns = ()
        if patterns:
            wanted = [{"urlPattern": pattern, "requestStage": "Request"} for pattern in patterns]
            await session.send("Fetch.enable", {"patterns": wanted})
            self.patterns = patterns
        else:
            await session.send("Fetch.disable")

    def _fail(self, session: CDPSession, event: dict[str, Any]) -> None:
        """Fail a paused request as blocked by the client (the page or its session may be gone
        by then: nothing is left to do)."""

        async def fail() -> None:
            with contextlib.suppress(PlaywrightError):
                await session.send(
                    "Fetch.failRequest",
                    {"requestId": event["requestId"], "errorReason": "BlockedByClient"},
                )

        task = asyncio.ensure_future(fail())
        self._failing.add(task)
        task.add_done_callback(self._failing.discard)
