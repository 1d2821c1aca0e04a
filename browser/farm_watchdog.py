"""The renderer watchdog: a page's memory is bounded while it runs, not after the capture.

Every browser context the farm makes serves one organization's page, and Chromium never shares a
renderer process between contexts, so a renderer process is one page (or one of its cross-site
frames). The watchdog reads the resident memory of every renderer under the farm's browsers a few
times a second and kills, at once, any renderer over its share (``page_memory_mb``). The page
then crashes, its capture fails with a clear error, and the browser and the other pages carry on.

V8's own heap limit (``--max-old-space-size``, set at launch) stops script that allocates in a
loop earlier and more gently; the watchdog catches what lives outside V8's heap (the DOM, images,
canvases, a huge document).

A renderer that keeps a core busy (script that never yields) is lowered to the lowest scheduling
priority: on a small host two spinning pages would otherwise take every core from the other
organizations' pages, which now get the CPU first. Reads ``/proc`` only; one pass costs a few
milliseconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from browser.farm_procs import ProcessInfo, kill_processes, process_tree

log = logging.getLogger(__name__)

RENDERER_FLAG = b"--type=renderer"
"""What a renderer process's command line carries."""
KILL_MEMORY_WINDOW = 5.0
"""Seconds after a kill during which a page crash is put down to the watchdog."""
SPIN_WINDOW = 1.0
"""Seconds over which a renderer's CPU use is judged."""
SPIN_SHARE = 0.8
"""Share of one core above which a window counts as busy."""
SPIN_WINDOWS = 2
"""Busy windows in a row after which a renderer is lowered."""
LOW_PRIORITY = 19
"""The nice value of a lowered renderer (the lowest priority)."""


@dataclass
class _CpuWatch:
    """A renderer's CPU use at the start of the current window, and its busy windows so far."""

    since: float
    cpu_seconds: float
    busy: int = 0
    lowered: bool = False


def is_renderer(pid: int, known: dict[int, bool]) -> bool:
    """Whether ``pid`` is a Chromium renderer (its command line read once, then remembered)."""
    if pid not in known:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                known[pid] = RENDERER_FLAG in handle.read()
        except OSError:
            return False
    return known[pid]


class RendererWatchdog:
    """Kills renderers over ``limit_bytes``; ``roots()`` names the browsers' pids to watch.

    ``on_kill(rss_bytes)`` is called for each renderer killed.
    """

    def __init__(
        self,
        limit_bytes: int,
        interval: float,
        roots: Callable[[], Iterable[int]],
        on_kill: Callable[[int], None],
    ) -> None:
        self.limit_bytes = limit_bytes
        self.interval = interval
        self.kills = 0
        self.last_kill = float("-inf")
        """``time.monotonic()`` of the latest kill."""
        self._roots = roots
        self._on_kill = on_kill
        self._known: dict[int, bool] = {}
        self._cpu: dict[int, _CpuWatch] = {}
        self.lowered = 0
        """Renderers lowered in priority for keeping a core busy."""
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Watch in the background until :meth:`stop`."""
        if self._task is None:
            self._task = asyncio.create_task(self._watch())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    def killed_recently(self) -> bool:
        """Whether a renderer was killed in the last KILL_MEMORY_WINDOW seconds."""
        return time.monotonic() - self.last_kill < KILL_MEMORY_WINDOW

    async def _watch(self) -> None:
        while True:
            try:
                self.check()
            except Exception:  # the watchdog must outlive any surprise in /proc
                log.exception("renderer watchdog pass failed")
            await asyncio.sleep(self.interval)

    def check(self) -> int:
        """One pass: kill every renderer over the limit; returns how many were killed."""
        living: set[int] = set()
        over: list[ProcessInfo] = []
        now = time.monotonic()
        for root in self._roots():
            for info in process_tree(root):
                living.add(info.pid)
                if info.state == "Z" or not is_renderer(info.pid, self._known):
                    continue
                if info.rss_bytes > self.limit_bytes:
                    over.append(info)
                self._watch_cpu(info, now)
        for pid in [pid for pid in self._known if pid not in living]:
            del self._known[pid]  # pids are reused: forget the ones that are gone
            self._cpu.pop(pid, None)
        for info in over:
            if kill_processes([info.pid]):
                self.kills += 1
                self.last_kill = time.monotonic()
                log.warning(
                    "killed renderer %d: %d MiB resident, over a page's share of %d MiB",
                    info.pid,
                    info.rss_bytes // 2**20,
                    self.limit_bytes // 2**20,
                )
                self._on_kill(info.rss_bytes)
        return len(over)

    def _watch_cpu(self, info: ProcessInfo, now: float) -> None:
        watch = self._cpu.get(info.pid)
        if watch is None:
            self._cpu[info.pid] = _CpuWatch(now, info.cpu_seconds)
            return
        elapsed = now - watch.since
        if elapsed < SPIN_WINDOW or watch.lowered:
            return
        share = (info.cpu_seconds - watch.cpu_seconds) / elapsed
        watch.busy = watch.busy + 1 if share >= SPIN_SHARE else 0
        watch.since, watch.cpu_seconds = now, info.cpu_seconds
        if watch.busy >= SPIN_WINDOWS:
            watch.lowered = True
            if lower_priority(info.pid):
                self.lowered += 1
                log.info(
                    "renderer %d kept a core busy for %.0f s: lowered to nice %d",
                    info.pid,
                    SPIN_WINDOW * SPIN_WINDOWS,
                    LOW_PRIORITY,
                )


def lower_priority(pid: int) -> bool:
    """Give every thread of ``pid`` the lowest scheduling priority; whether it worked."""
    try:
        threads = [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return False
    done = False
    for tid in threads:
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, tid, LOW_PRIORITY)
            done = True
    return done
