"""Noticing that the browser serving a request went away (crashed, killed, or closed after a
failed health probe): the request is then retried once on the browser that replaced it
(:meth:`browser.farm.core.Farm._attempts`) rather than failed as the page's doing."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import TypeVar

from browser.farm.browser import FarmBrowser

T = TypeVar("T")

GONE_WAIT = 1.0
"""Seconds to wait for a disconnect event after an unexplained Playwright error."""


class BrowserGoneError(Exception):
    """The browser serving a request went away during it."""


async def unless_gone(browser: FarmBrowser, work: Awaitable[T]) -> T:
    """``work``, abandoned the moment ``browser`` disconnects: neither a call still pending in
    the browser nor a wait that makes no call to it (the network settling, a capture delay) may
    sit out its whole budget on a browser that is no longer there."""
    task = asyncio.ensure_future(work)
    disconnected = asyncio.ensure_future(browser.gone.wait())
    try:
        await asyncio.wait((task, disconnected), return_when=asyncio.FIRST_COMPLETED)
    finally:
        disconnected.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
    if task.cancelled():
        raise BrowserGoneError()
    return task.result()


async def gone(browser: FarmBrowser) -> bool:
    """Whether ``browser`` went away (waiting briefly: the error can beat the event)."""
    if browser.dead or browser.closing:
        return True
    try:
        async with asyncio.timeout(GONE_WAIT):
            await browser.gone.wait()
    except TimeoutError:
        return False
    return True
