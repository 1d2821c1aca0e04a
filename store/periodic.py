"""Work repeated on the IOLoop: a job run every so many seconds, for as long as its task runs.

A database outage (:class:`~store.threads.StoreUnavailable`) was logged where it happened, so the
round is passed over and the next one tries again; any other failure is a bug, logged with its
traceback, and the rounds go on. Stopping is cancelling the task."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from store.threads import StoreUnavailable

log = logging.getLogger(__name__)


async def repeat(
    seconds: float,
    job: Callable[[], Awaitable[object]],
    what: str,
    *,
    wake: asyncio.Event | None = None,
) -> None:
    """Await ``job()`` every ``seconds`` (after the first wait), or as soon as ``wake`` is set,
    until cancelled; ``what`` names the job in the log."""
    while True:
        if wake is None:
            await asyncio.sleep(seconds)
        else:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(seconds):
                    await wake.wait()
            wake.clear()
        try:
            await job()
        except StoreUnavailable:
            pass  # logged where it failed; the work waits for the next round
        except Exception:
            log.exception("periodic %s failed unexpectedly", what)
