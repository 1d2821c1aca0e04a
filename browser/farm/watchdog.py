"""The renderer watchdog: a page's memory is bounded while it runs, not after the capture.

Every browser context the farm makes serves one organization's page, Chromium never shares a
renderer process between contexts, and with site isolation off (see
:data:`browser.farm.flags.LAUNCH_ARGS`) a page's frames share its renderer, so a renderer
process is one page, frames included. The watchdog reads the resident memory of every renderer
under the farm's browsers a few times a second and kills, at once, any renderer over its share
(``page_memory_mb``). The page then crashes, its capture fails with a clear error, and the
browser and the other pages carry on. Which page a renderer served is not known here, so a crash
is put down to memory for sure only when it is the one crash just after the one kill
(:meth:`RendererWatchdog.crash_message`).

V8's own heap limit (``--max-old-space-size``, set at launch) stops script that allocates in a
loop earlier and more gently; the watchdog catches what lives outside V8's heap (the DOM, images,
canvases, a huge document).

A renderer that keeps a core busy (script that never yields) is lowered to the lowest scheduling
priority: on a small host two spinning pages would otherwise take every core from the other
organizations' pages, which now get the CPU first. Reads ``/proc`` only: after the first pass,
only the processes under the browsers and pids not met before
(:class:`~browser.farm.procs.TreeScanner`), a fraction of a millisecond a pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from browser.farm.procs import ProcessInfo, TreeScanner, kill_processes

log = logging.getLogger(__name__)

RENDERER_FLAG = b"--type=renderer"
"""What a renderer process's command line carries."""
ZYGOTE_FLAG = b"--type=zygote"
"""What the zygote's command line carries, and a renderer's until it renames itself."""
KILL_MEMORY_WINDOW = 5.0
"""Seconds after a kill during which a page crash is put down to the watchdog."""
EVENTS_KEPT = 64
"""Most recent kills and page crashes remembered to explain a crash."""
SPIN_WINDOW = 1.0
"""Seconds over which a renderer's CPU use is judged."""
SPIN_SHARE = 0.4
"""Share of one core above which a window counts as busy. Well under a whole core: when several
pages spin at once on a small host each gets only part of one, and they must be lowered too."""
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
    """Whether ``pid`` is a Chromium renderer, its command line remembered once it says.

    A renderer is forked from the zygote and carries the zygote's command line until it
    renames itself: a process that still reads as the zygote (or has no command line yet) is
    read again at the next pass, so that a renderer met in that moment is not taken for
    something else for the rest of its life (and never killed however large it grows)."""
    if pid not in known:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                cmdline = handle.read()
        except OSError:
            return False
        if RENDERER_FLAG not in cmdline and (not cmdline or ZYGOTE_FLAG in cmdline):
            return False
        known[pid] = RENDERER_FLAG in cmdline
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
        self.recent_kills: deque[tuple[float, int]] = deque(maxlen=EVENTS_KEPT)
        """``(time.monotonic(), pid)`` of the latest kills."""
        self._crashes: deque[float] = deque(maxlen=EVENTS_KEPT)
        """``time.monotonic()`` of the latest page crashes the farm reported."""
        self._roots = roots
        self._on_kill = on_kill
        self._known: dict[int, bool] = {}
        self._cpu: dict[int, _CpuWatch] = {}
        self._scanner = TreeScanner()
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

    def killed_since(self, since: float) -> list[int]:
        """The pids of the renderers killed since ``since`` (``time.monotonic()``)."""
        return [pid for at, pid in self.recent_kills if at >= since]

    def page_crashed(self) -> None:
        """A page's renderer went away (the farm saw its crash event)."""
        self._crashes.append(time.monotonic())

    def crash_message(self) -> str:
        """Why a page that just crashed did, as far as the watchdog can tell.

        The firm answer (the page used too much memory) only when exactly one renderer was
        killed and exactly one page crashed within KILL_MEMORY_WINDOW: the crash is then that
        kill. With more kills or crashes the crashed page's renderer may not be the one killed.
        """
        since = time.monotonic() - KILL_MEMORY_WINDOW
        kills = len(self.killed_since(since))
        crashes = sum(1 for at in self._crashes if at >= since)
        limit_mb = self.limit_bytes // 2**20
        if kills == 1 and crashes == 1:
            return (
                f"the page used more than the {limit_mb} MiB of memory a page may use, "
                "and was stopped"
            )
        if kills:
            return (
                f"the page's renderer crashed; it may have used more than the {limit_mb} MiB "
                "of memory a page may use"
            )
        return "the page's renderer crashed (out of memory?)"

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
        for info in self._scanner.trees(self._roots()):
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
                self.recent_kills.append((time.monotonic(), info.pid))
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
