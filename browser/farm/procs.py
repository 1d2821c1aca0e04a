"""Chromium's processes as Linux sees them: the process tree under a browser, its memory, stopping
it, and reaping what is left.

Chromium's helper processes (zygotes, crash handlers) are re-parented when the browser exits. On a
host whose PID 1 does not reap (many containers), they would stay behind as zombies, so the farm
makes this process a *child subreaper*: orphans of its descendants become its own children, and
:func:`reap_orphans` collects those that belong to Chromium. Everything here reads ``/proc``
directly; nothing blocks for long.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass

log = logging.getLogger(__name__)

_PR_SET_CHILD_SUBREAPER = 36
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
CHROMIUM_NAMES: tuple[str, ...] = ("chromium", "chrome", "chrome_crashpad", "headless_shell")
"""Process names (``/proc/<pid>/comm``, at most 15 characters) of Chromium builds' processes."""

_subreaper = False


@dataclass(frozen=True)
class ProcessInfo:
    """One process, as read from ``/proc/<pid>/stat``."""

    pid: int
    ppid: int
    state: str
    name: str
    rss_bytes: int
    cpu_seconds: float = 0.0
    """User and system CPU time used so far."""


def enable_subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans (Linux only; idempotent).

    Returns whether it is in effect. Without it, Chromium's helpers that outlive their browser are
    re-parented to PID 1, which reaps them on ordinary hosts but not in every container.
    """
    global _subreaper  # noqa: PLW0603 - one flag for the whole process, set once
    if _subreaper:
        return True
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            log.warning("could not become a child subreaper (errno %d)", ctypes.get_errno())
            return False
    except (OSError, AttributeError):
        log.warning("could not become a child subreaper: prctl is unavailable")
        return False
    _subreaper = True
    return True


def read_process(pid: int) -> ProcessInfo | None:
    """The process ``pid``, or None when it does not exist (any more)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read().decode("utf-8", "replace")
    except OSError:
        return None
    # The name is in parentheses and may itself contain spaces or parentheses.
    open_paren, close_paren = raw.find("("), raw.rfind(")")
    if open_paren < 0 or close_paren < 0:
        return None
    fields = raw[close_paren + 2 :].split()
    try:
        return ProcessInfo(
            pid=pid,
            ppid=int(fields[1]),
            state=fields[0],
            name=raw[open_paren + 1 : close_paren],
            rss_bytes=int(fields[21]) * _PAGE_SIZE,
            cpu_seconds=(int(fields[11]) + int(fields[12])) / _CLOCK_TICKS,
        )
    except (IndexError, ValueError):
        return None


def all_processes() -> list[ProcessInfo]:
    """Every process visible in ``/proc``."""
    processes = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            info = read_process(int(entry))
            if info is not None:
                processes.append(info)
    return processes


def process_tree(root: int) -> list[ProcessInfo]:
    """``root`` and all its living descendants (empty when ``root`` is gone)."""
    processes = all_processes()
    by_parent: dict[int, list[ProcessInfo]] = {}
    found: ProcessInfo | None = None
    for info in processes:
        by_parent.setdefault(info.ppid, []).append(info)
        if info.pid == root:
            found = info
    if found is None:
        return []
    tree, pending = [found], [root]
    while pending:
        for child in by_parent.get(pending.pop(), []):
            tree.append(child)
            pending.append(child.pid)
    return tree


FULL_SCAN = 2.0
"""Seconds after which a :class:`TreeScanner` forgets the parents it remembers and reads every
process again (a pid that ended and was reused between two looks keeps no stale parent longer)."""


class TreeScanner:
    """:func:`process_tree` for a watcher that looks several times a second.

    A look lists ``/proc`` and reads only the processes under the roots and the pids it has not
    met before; the parent of every other process is remembered from its first reading (a
    process can leave a tree by being re-parented, never join one that way), so a look costs a
    few reads instead of one per process of the host.
    """

    def __init__(self, full_scan: float = FULL_SCAN) -> None:
        self._full_scan = full_scan
        self._parents: dict[int, int] = {}
        self._forgot_at = time.monotonic()

    def trees(self, roots: Iterable[int]) -> list[ProcessInfo]:
        """The living processes of every root's tree (as :func:`process_tree` finds them)."""
        now = time.monotonic()
        if now - self._forgot_at >= self._full_scan:
            self._parents.clear()
            self._forgot_at = now
        listed = {int(entry) for entry in os.listdir("/proc") if entry.isdigit()}
        parents = self._parents
        for pid in parents.keys() - listed:
            del parents[pid]
        read: dict[int, ProcessInfo] = {}
        for pid in listed - parents.keys():
            self._read(pid, read)
        roots = [root for root in roots if root in parents]
        members = self._walk(roots)
        walked = {pid: parents[pid] for pid in members}
        for pid in members - read.keys():
            self._read(pid, read)
        if any(parents.get(pid) != parent for pid, parent in walked.items()):
            members = self._walk(roots)  # a member was re-parented (or is gone) meanwhile
        return [read[pid] for pid in members if pid in read]

    def _read(self, pid: int, read: dict[int, ProcessInfo]) -> None:
        info = read_process(pid)
        if info is None:
            self._parents.pop(pid, None)
            return
        read[pid] = info
        self._parents[pid] = info.ppid

    def _walk(self, roots: list[int]) -> set[int]:
        children: dict[int, list[int]] = {}
        for pid, parent in self._parents.items():
            children.setdefault(parent, []).append(pid)
        members, pending = set(roots), list(roots)
        while pending:
            for child in children.get(pending.pop(), []):
                if child not in members:
                    members.add(child)
                    pending.append(child)
        return members


def pss_bytes(info: ProcessInfo) -> int:
    """The process's proportional set size: its resident pages, shared ones divided among the
    processes sharing them. Falls back to RSS where ``smaps_rollup`` cannot be read."""
    try:
        with open(f"/proc/{info.pid}/smaps_rollup", "rb") as handle:
            for line in handle:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return info.rss_bytes


def tree_memory_bytes(root: int) -> int:
    """Resident memory of ``root`` and its descendants, shared pages counted once (the sum of
    their proportional set sizes; a plain RSS sum would count Chromium's shared memory once per
    process, about twice the truth)."""
    return sum(pss_bytes(info) for info in process_tree(root) if info.state != "Z")


def kill_processes(pids: Iterable[int]) -> int:
    """SIGKILL each process that still exists; returns how many were signalled."""
    killed = 0
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except (ProcessLookupError, PermissionError):
            pass
    return killed


def is_chromium(info: ProcessInfo) -> bool:
    """Whether the process is one of a Chromium build's (by its name)."""
    return info.name.startswith(CHROMIUM_NAMES)


def chromium_orphans() -> list[ProcessInfo]:
    """Chromium processes that are this process's children, living or exited.

    Pagecast never starts Chromium itself (Playwright's driver does), so each of these was
    re-parented here when its browser went away.
    """
    me = os.getpid()
    return [info for info in all_processes() if info.ppid == me and is_chromium(info)]


def zombie_children() -> list[ProcessInfo]:
    """Chromium processes re-parented here that have exited but were not yet reaped."""
    return [info for info in chromium_orphans() if info.state == "Z"]


def reap_orphans() -> int:
    """Collect exited Chromium processes re-parented to this process; returns how many.

    Only Chromium's are waited for, by pid: this process's own children (the Playwright driver,
    worker pools) belong to whoever started them.
    """
    reaped = 0
    for info in zombie_children():
        try:
            pid, _status = os.waitpid(info.pid, os.WNOHANG)
        except ChildProcessError:
            continue
        if pid:
            reaped += 1
    if reaped:
        log.debug("reaped %d exited Chromium processes", reaped)
    return reaped
