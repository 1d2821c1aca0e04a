"""What the host says about the resources readiness watches: the free space of a folder's file
system (``statvfs``), this process's resident memory (``/proc/self/statm``), and the memory
still available to it (``/proc/meminfo``'s MemAvailable, lowered to what is left under the
process's cgroup memory limit when it has one). Plain blocking reads of a few small files,
meant to run in a thread (:class:`services.health.HealthService` bounds each in time); nothing
here keeps state."""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass
from pathlib import Path

_PROC = Path("/proc")
_CGROUP = Path("/sys/fs/cgroup")
_UNLIMITED = 1 << 60
"""A cgroup v1 limit at or above this is the kernel's way of saying "no limit"."""


@dataclass(frozen=True)
class DiskSpace:
    """The free space of the file system a folder is on."""

    free_bytes: int
    """Bytes an unprivileged process may still write (``f_bavail``)."""
    total_bytes: int

    @property
    def free_percent(self) -> float:
        return 100.0 * self.free_bytes / self.total_bytes if self.total_bytes else 0.0


def disk_space(folder: Path) -> DiskSpace:
    """The free space where ``folder`` is (its nearest existing parent if it does not exist
    yet); OSError when even that cannot be read."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    found = os.statvfs(probe)
    return DiskSpace(found.f_bavail * found.f_frsize, found.f_blocks * found.f_frsize)


def device_of(folder: Path) -> int | None:
    """The device id of ``folder``'s file system (two folders on one disk are checked once);
    None when it cannot be read."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        return probe.stat().st_dev
    except OSError:
        return None


def process_rss_bytes() -> int:
    """This process's resident memory now (``/proc/self/statm``); without ``/proc``, its peak
    (``getrusage``), the closest a portable call gets."""
    try:
        fields = (_PROC / "self" / "statm").read_text().split()
        return int(fields[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def available_memory_bytes() -> int | None:
    """Memory this process may still use: the system's MemAvailable, or less when its cgroup's
    limit leaves less (usage counted without the page cache the kernel can drop); None when
    neither can be read."""
    found = [value for value in (_meminfo_available(), _cgroup_headroom()) if value is not None]
    return min(found) if found else None


def _meminfo_available() -> int | None:
    try:
        for line in (_PROC / "meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        return None
    return None


def _cgroup_headroom() -> int | None:
    """What is left under the memory limit of this process's cgroup (v2 or v1); None without a
    limit or a readable cgroup."""
    try:
        lines = (_PROC / "self" / "cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        relative = path.lstrip("/")
        if controllers == "":  # cgroup v2
            for folder in (_CGROUP / relative, _CGROUP):
                found = _headroom(folder, "memory.max", "memory.current", "inactive_file")
                if found is not None:
                    return found
        elif "memory" in controllers.split(","):  # cgroup v1
            for folder in (_CGROUP / "memory" / relative, _CGROUP / "memory"):
                found = _headroom(
                    folder, "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"
                )
                if found is not None:
                    return found
    return None


def _headroom(folder: Path, limit_file: str, usage_file: str, cache_stat: str) -> int | None:
    """Bytes the cgroup in ``folder`` may still take (its limit less what it uses beyond its
    reclaimable cache); None when it has no limit or none can be read."""
    try:
        limit_text = (folder / limit_file).read_text().strip()
        if limit_text == "max" or int(limit_text) >= _UNLIMITED:
            return None
        usage = int((folder / usage_file).read_text().strip())
    except (OSError, ValueError):
        return None
    return max(int(limit_text) - max(usage - _reclaimable(folder, cache_stat), 0), 0)


def _reclaimable(folder: Path, cache_stat: str) -> int:
    """The cgroup's page cache the kernel can take back (``cache_stat`` in ``memory.stat``);
    0 when the file cannot be read, so that all of the usage counts as used."""
    try:
        for line in (folder / "memory.stat").read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == cache_stat:
                return int(value)
    except (OSError, ValueError):
        return 0
    return 0
