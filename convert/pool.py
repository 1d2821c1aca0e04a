"""The process pool that runs conversions off the IOLoop.

HTML parsing and conversion are CPU-bound; on a two-core host they must not stall the event loop.
Work goes to a small pool of worker processes started with ``spawn`` (never ``fork`` from a
process that has threads). A conversion that overruns its timeout takes its workers down with it,
and the pool is rebuilt, so one hostile page cannot hold a worker forever.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from store.settings import setting

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass
class ConvertSettings:
    """Conversion of pages to Markdown, in worker processes."""

    SECTION: ClassVar[str] = "convert"
    workers: int = setting(2, "Worker processes for HTML conversion.", min=1, max=64)
    timeout: float = setting(
        30.0, "Seconds one conversion may take before its worker is stopped.", min=1, max=600
    )


class ConversionTimeoutError(Exception):
    """A conversion ran past its time limit; its workers were stopped."""


class ConverterPool:
    """Runs pure conversion functions in worker processes, with a timeout per call."""

    def __init__(self, settings: ConvertSettings) -> None:
        self.settings = settings
        self._executor: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                max_workers=self.settings.workers,
                mp_context=multiprocessing.get_context("spawn"),
            )
        return self._executor

    async def warm_up(self) -> None:
        """Start every worker now, so the first request does not pay for process start-up."""
        await asyncio.gather(*(self.run(_ready) for _ in range(self.settings.workers)))

    async def run(self, func: Callable[..., T], *args: Any) -> T:
        """Run ``func(*args)`` in a worker and return its result.

        Raises :class:`ConversionTimeoutError` after ``timeout`` seconds; exceptions raised by
        ``func`` propagate unchanged. A pool broken by a dead worker is rebuilt and the call is
        tried once more.
        """
        for attempt in (1, 2):
            loop = asyncio.get_running_loop()
            future = loop.run_in_executor(self._pool(), func, *args)
            try:
                return await asyncio.wait_for(future, self.settings.timeout)
            except TimeoutError as exc:
                log.warning(
                    "conversion exceeded %.1fs; restarting the worker pool", self.settings.timeout
                )
                self._reset(kill=True)
                raise ConversionTimeoutError() from exc
            except BrokenProcessPool:
                log.warning(
                    "conversion worker died (attempt %d); restarting the worker pool", attempt
                )
                self._reset(kill=True)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _reset(self, kill: bool) -> None:
        executor, self._executor = self._executor, None
        if executor is None:
            return
        # ProcessPoolExecutor cannot cancel a running task; stopping its processes is the only way
        # to reclaim a worker stuck on a hostile document.
        processes = list(getattr(executor, "_processes", {}).values()) if kill else []
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.kill()

    def close(self) -> None:
        """Stop the workers; waits for running conversions to end."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


def _ready() -> bool:
    return True
