"""The worker processes that run conversions off the IOLoop.

HTML parsing and conversion are CPU-bound; on a two-core host they must not stall the event loop.
Each worker is its own single-process executor started with ``spawn`` (never ``fork`` from a
process that has threads). A request first waits for a free worker (at most ``queue_timeout``,
else :class:`PoolBusyError`), then its conversion has ``timeout`` seconds of its worker's own CPU
time (at most ``wall_factor`` times as long by the clock); a conversion that overruns is stopped
by killing that one worker, which is then replaced. Other workers and their requests are not
touched. Counting the worker's CPU time, not the clock, means a conversion is not cut short on a
busy host for the time it waited for the processor (a background worker, at a lower priority,
may wait most of it).

Workers are shared fairly between organizations (:class:`~browser.fair.FairSlots`): a freed
worker goes to the waiting organization holding the fewest, so one organization's queue of
large pages never delays another's first conversion by more than one conversion; and while
more than one organization converted within ``share_window`` seconds, one may hold at most all
workers but one, so a second finds one free. A single organization uses every worker.

Work of at least ``background_bytes`` (a very large page, a large sitemap) runs in the
``background`` pool when the server has one: the job pages' workers, at a lower CPU priority. It
converts as fast on an idle host, and yields the processor to others' small conversions on a
busy one instead of taking a core from them.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import resource
import signal
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, ClassVar, Final, TypeVar

from browser import timing
from browser.fair import FairSlots
from convert.html.size import MAX_ELEMENTS
from settings.fields import setting

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass
class ConvertSettings:
    """Conversion of pages to Markdown, in worker processes."""

    SECTION: ClassVar[str] = "convert"
    workers: int = setting(2, "Worker processes for HTML conversion.", min=1, max=64)
    timeout: float = setting(
        30.0,
        "Seconds of its worker's CPU time one conversion may use before the worker is stopped "
        "(the clock's seconds where the host cannot tell a process's CPU time).",
        min=0.05,
        max=600,
    )
    wall_factor: float = setting(
        3.0,
        "A conversion is also stopped after this many times timeout by the clock, however little "
        "of the processor it had: on a busy host it waits for the processor that long at most "
        "(1: the clock alone).",
        min=1.0,
        max=20.0,
    )
    queue_timeout: float = setting(
        10.0,
        "Seconds a request may wait for a free worker before it is answered 503 busy.",
        min=0.01,
        max=600,
    )
    max_headings: int = setting(
        500, "Headings listed with include_headings (headings_truncated beyond).", min=1
    )
    max_links: int = setting(
        2000, "Links listed with include_links (links_truncated beyond).", min=1
    )
    max_images: int = setting(
        500, "Images listed with include_images (images_truncated beyond).", min=1
    )
    share_window: float = setting(
        30.0,
        "While more than one organization converted within this many seconds, one organization "
        "holds at most all workers but one (0: never held back).",
        min=0.0,
        max=3600,
    )
    max_elements: int = setting(
        MAX_ELEMENTS,
        "Elements of a page converted to Markdown, in document order, once scripts and hidden "
        "elements are gone: a page with more is cut there and answered truncated "
        "(truncation_reason too_many_elements), so that it converts well within the timeout.",
        min=1000,
    )
    background_bytes: int = setting(
        2_000_000,
        "Pages and sitemaps of at least this many bytes convert in the job pages' workers, at "
        "their lower CPU priority and with twice the timeout: a large page then takes the "
        "processor only when others' conversions leave it free (0: none; every conversion "
        "in the requests' workers).",
        min=0,
    )
    worker_memory_mb: int = setting(
        2048,
        "Address space (MiB) one conversion worker may use: a page or PDF that would need more "
        "fails its conversion (a decompression bomb, a gigantic document) instead of the host's "
        "memory. 0 sets no limit.",
        min=0,
        max=1_048_576,
    )


class ConversionTimeoutError(Exception):
    """A conversion ran past its time limit (``seconds``); its worker was stopped."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"conversion stopped after {seconds:g} s")
        self.seconds = seconds


class PoolBusyError(Exception):
    """No worker became free within ``queue_timeout``."""


class ConverterPool:
    """Runs pure conversion functions in worker processes, one conversion per worker at a time."""

    def __init__(
        self,
        settings: ConvertSettings,
        *,
        workers: int | None = None,
        niceness: int = 0,
        time_factor: float = 1.0,
    ) -> None:
        self.settings = settings
        self.niceness = niceness
        """Added to the workers' CPU niceness: a background pool yields the processor to the
        requests' workers and the server."""
        self.time_factor = time_factor
        """``timeout`` is multiplied by it here: a background pool's conversion waits for the
        processor on a busy host, and is not stopped for that."""
        count = settings.workers if workers is None else max(1, workers)
        self._workers: list[ProcessPoolExecutor | None] = [None] * count
        self._slots = FairSlots(count, count)
        self._idle = list(range(count))
        self._seen: dict[str, float] = {}
        """When each organization last asked for a worker (within ``share_window``)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self.background: ConverterPool | None = None
        """Where work of at least ``background_bytes`` runs (a pool at a lower CPU priority:
        the job pages'); None: here."""

    @property
    def timeout(self) -> float:
        """Seconds one conversion may run in this pool's workers."""
        return self.settings.timeout * self.time_factor

    def _shares(self, owner: str) -> FairSlots:
        """The workers' slots, with the share one organization may hold now. One server runs
        one loop; tests run a loop per test, so the slots follow the loop."""
        loop = asyncio.get_running_loop()
        count = len(self._workers)
        if self._loop is not loop:
            self._loop, self._slots, self._idle = loop, FairSlots(count, count), list(range(count))
        now = time.monotonic()
        window = self.settings.share_window
        self._seen = {name: at for name, at in self._seen.items() if now - at < window}
        if owner:  # work of no organization (warming up) shares with everyone
            self._seen[owner] = now
        crowded = window > 0 and len(self._seen) > 1
        self._slots.set_share(max(count - 1, 1) if crowded else count)
        return self._slots

    def _worker(self, index: int) -> ProcessPoolExecutor:
        executor = self._workers[index]
        if executor is None:
            executor = self._workers[index] = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_prepare_worker,
                initargs=(self.settings.worker_memory_mb, self.niceness),
            )
        return executor

    async def warm_up(self) -> None:
        """Start every worker now, so the first request does not pay for process start-up. A
        worker not ready within the timeout (a host too busy to start it) is logged, not fatal:
        it is started again on the first request that needs it."""
        started = await asyncio.gather(
            *(self.run(_ready) for _ in self._workers), return_exceptions=True
        )
        late = [result for result in started if isinstance(result, ConversionTimeoutError)]
        for result in started:
            if isinstance(result, BaseException) and not isinstance(result, ConversionTimeoutError):
                raise result
        if late:
            log.warning(
                "%d of %d conversion workers were not ready within %s s (the host is busy); "
                "the first conversions may wait for them",
                len(late),
                len(started),
                self.settings.timeout,
            )

    async def run(self, func: Callable[..., T], *args: Any, owner: str = "", size: int = 0) -> T:
        """Run ``func(*args)`` in a free worker, in the share of the organization ``owner``,
        and return its result; work of ``size`` bytes or more runs in the ``background`` pool
        when there is one.

        Raises :class:`PoolBusyError` when no worker is free within ``queue_timeout`` and
        :class:`ConversionTimeoutError` after ``timeout`` seconds of work (its worker's CPU time,
        within ``wall_factor`` times that by the clock); exceptions raised by
        ``func`` propagate unchanged. A worker found dead is replaced and the call tried once more.
        """
        lower = self.background
        if lower is not None and size >= self.settings.background_bytes > 0:
            return await lower.run(func, *args, owner=owner)
        slots = self._shares(owner)
        queued = time.monotonic()
        try:
            async with asyncio.timeout(self.settings.queue_timeout):
                await slots.acquire(owner)
        except TimeoutError as exc:
            raise PoolBusyError() from exc
        finally:
            timing.record("queue", timing.since(queued))
        index = self._idle.pop()
        started = time.monotonic()
        try:
            return await self._run_on(index, func, args)
        finally:
            timing.record("conversion", timing.since(started))
            self._idle.append(index)
            slots.release(owner)

    async def _run_on(self, index: int, func: Callable[..., T], args: tuple[Any, ...]) -> T:
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            try:
                executor = self._worker(index)
                future = loop.run_in_executor(executor, func, *args)
                return await self._within_budget(future, _worker_pid(executor))
            except TimeoutError as exc:
                # The caller, who knows what was converted, tells why at warning level.
                log.info("conversion exceeded %.1fs; replacing worker %d", self.timeout, index)
                await self._replace(index)
                raise ConversionTimeoutError(self.timeout) from exc
            except BrokenProcessPool:
                log.warning("conversion worker %d died (attempt %d); replacing it", index, attempt)
                await self._replace(index)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def _within_budget(self, future: asyncio.Future[T], pid: int | None) -> T:
        """``future``'s result once it is done, or :class:`TimeoutError` when the worker ``pid``
        has used ``timeout`` seconds of CPU time since now, or ``wall_factor`` times as many
        seconds have passed. The CPU time is read when a wait ends; each wait is the budget
        left (or what is left of the clock's, if less)."""
        budget = self.timeout
        cap = budget * self.settings.wall_factor
        started = time.monotonic()
        spent = _cpu_seconds(pid)
        wait = min(budget, cap)
        while True:
            try:
                done, _ = await asyncio.wait((future,), timeout=wait)
            except asyncio.CancelledError:
                future.cancel()  # as awaiting it would: its outcome is no one's now
                raise
            if done:
                return future.result()
            elapsed = time.monotonic() - started
            now_spent = _cpu_seconds(pid)
            used = elapsed if spent is None or now_spent is None else now_spent - spent
            if used >= budget or elapsed >= cap:
                future.cancel()
                raise TimeoutError()
            wait = max(min(budget - used, cap - elapsed), _MIN_WAIT)

    async def _replace(self, index: int) -> None:
        """Stop worker ``index`` now (killing and reaping it in a thread, off the IOLoop); the
        next use starts a fresh one."""
        executor, self._workers[index] = self._workers[index], None
        if executor is not None:
            await asyncio.get_running_loop().run_in_executor(None, _stop, executor, 0.0)

    def close(self, grace: float = 5.0) -> None:
        """Stop every worker: running conversions get ``grace`` seconds, then are killed.
        Blocking; call it off the IOLoop."""
        executors = [executor for executor in self._workers if executor is not None]
        self._workers = [None] * len(self._workers)
        deadline = time.monotonic() + grace
        for executor in executors:
            _stop(executor, grace=max(deadline - time.monotonic(), 0.0))


def _stop(executor: ProcessPoolExecutor, grace: float) -> None:
    # ProcessPoolExecutor cannot cancel a running task; killing its process is the only way to
    # reclaim a worker stuck on a hostile document.
    processes = list(getattr(executor, "_processes", {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + grace
    for process in processes:
        process.join(max(deadline - time.monotonic(), 0.0))
        if process.is_alive():
            process.kill()
            process.join(1.0)


_MIN_WAIT: Final = 0.05
"""The shortest wait between two readings of a worker's CPU time."""
_CLOCK_TICKS: Final = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _worker_pid(executor: ProcessPoolExecutor) -> int | None:
    """The process of a one-process executor, once a task was submitted to it."""
    processes = getattr(executor, "_processes", None) or {}
    return next(iter(processes), None)


def _cpu_seconds(pid: int | None) -> float | None:
    """The CPU time (user and system) process ``pid`` has used, from ``/proc``; None where it
    cannot be read (no ``/proc``, the process gone). A read of the kernel's memory, no disk."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # After the command's closing parenthesis: state is field 3, utime 14 and stime 15.
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


def _prepare_worker(memory_mb: int, niceness: int = 0) -> None:
    """Workers leave stopping to the server: SIGTERM/SIGINT sent to the whole process group (by
    systemd or a terminal) must not kill a conversion the server is still draining. Their
    address space is bounded, so a conversion that would take the host's memory fails alone;
    a background pool's run at a lower CPU priority."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if niceness > 0:
        os.nice(niceness)
    if memory_mb > 0:
        limit = memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _ready() -> bool:
    return True
