"""Database work off the IOLoop: a pool of threads, one writer thread for SQLite, and a bound on
every wait.

Database errors and timeouts come out as :class:`StoreUnavailable`, whose message is safe to
show; the driver's error stays in the logs and in ``__cause__``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import peewee

from store.db import DATABASE_ERRORS, is_sqlite, run_unit

log = logging.getLogger(__name__)

T = TypeVar("T")


class StoreUnavailable(Exception):  # noqa: N818 (the name is part of the store's contract)
    """The database could not do what was asked; the message is safe to show to clients."""


class Runner:
    """Runs units of database work in threads, each wait bounded by ``query_timeout()`` (read
    at each call, so a changed setting applies at once)."""

    def __init__(self, threads: int, query_timeout: Callable[[], float]) -> None:
        self.query_timeout = query_timeout
        self._executor = ThreadPoolExecutor(
            max_workers=threads, thread_name_prefix="pagecast-store"
        )
        # SQLite takes one writer at a time and makes the others sleep and retry; writes queue in
        # one thread instead. Postgres writes use the shared pool.
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pagecast-store-write")

    def sync(self, db: peewee.Database, work: Callable[[peewee.Database], T], what: str) -> T:
        """Run ``work(db)`` in the calling thread (the CLI's and tests' blocking calls)."""
        try:
            return run_unit(db, work)
        except DATABASE_ERRORS as exc:
            log.warning("database %s failed: %s", what, summary(exc))
            raise StoreUnavailable("the database is unavailable") from exc

    def submit(
        self, db: peewee.Database, work: Callable[[peewee.Database], T], *, write: bool
    ) -> asyncio.Future[T]:
        """Start ``work(db)`` in the right thread and return its future, unbounded."""
        executor = self._writer if write and is_sqlite(db) else self._executor
        return asyncio.get_running_loop().run_in_executor(executor, run_unit, db, work)

    async def run(
        self,
        db: peewee.Database,
        work: Callable[[peewee.Database], T],
        what: str,
        seconds: float | None = None,
        *,
        write: bool = False,
    ) -> T:
        """Run ``work(db)`` in a thread and wait at most ``seconds`` (``query_timeout()``)."""
        future = self.submit(db, work, write=write)
        return await self.bounded(future, seconds or self.query_timeout(), what)

    async def bounded(self, future: asyncio.Future[T], seconds: float, what: str) -> T:
        """Wait for ``future`` at most ``seconds``, database failures as StoreUnavailable."""
        try:
            # asyncio.timeout, unlike wait_for on 3.11, never swallows a caller's cancellation.
            async with asyncio.timeout(seconds):
                return await future
        except TimeoutError as exc:
            log.warning("database %s: no answer within %.1f s", what, seconds)
            raise StoreUnavailable("the database did not answer in time") from exc
        except DATABASE_ERRORS as exc:
            log.warning("database %s failed: %s", what, summary(exc))
            raise StoreUnavailable("the database is unavailable") from exc

    def shutdown(self) -> None:
        """Wait for the work under way and stop the threads. Blocks."""
        self._executor.shutdown(wait=True)
        self._writer.shutdown(wait=True)


def summary(exc: BaseException) -> str:
    """The error's type and first line, for logs."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
