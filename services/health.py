"""Readiness: whether this process can serve now. It cannot while the database does not answer,
the farm is down or the process is shutting down, and, by the ``[readiness]`` settings, while the
data disk is nearly full, memory is short, or the farm is saturated (every page slot busy and
more requests queued than ``max_farm_queue``). Each check is bounded in time and runs off the
IOLoop; the answer names every check that failed and why, beside the farm's own account of its
health."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from browser.farm import Farm
from services import host_resources
from settings.fields import setting
from store.store import Store

log = logging.getLogger(__name__)

T = TypeVar("T")
MIB = 2**20


@dataclass
class ReadinessSettings:
    """What /readyz checks beyond the database, the browser and shutdown: the data disk's free
    space, memory, and the farm's load. A failed check answers 503 with its reason, so a load
    balancer sends no more work; 0 turns a limit off."""

    SECTION: ClassVar[str] = "readiness"
    min_free_disk_bytes: int = setting(
        268435456,
        "Not ready while the file system of the data folder (store.data_dir: the SQLite "
        "database, the screenshot images, the provider registry) has fewer free bytes than this. "
        "0 turns the check off.",
        min=0,
    )
    min_free_disk_percent: float = setting(
        0.0,
        "Not ready while that file system has less than this percent of its size free. 0 turns "
        "the check off.",
        min=0,
        max=100,
    )
    max_rss_bytes: int = setting(
        0,
        "Not ready while this process's resident memory is above this many bytes (the "
        "browser's own processes are watched by farm.memory_mb). 0 turns the check off.",
        min=0,
    )
    min_available_memory_bytes: int = setting(
        134217728,
        "Not ready while the memory available to this process is below this many bytes: the "
        "system's MemAvailable, or what is left under the process's cgroup memory limit (a "
        "container's, systemd's MemoryMax) when that is less. 0 turns the check off.",
        min=0,
    )
    max_farm_queue: int = setting(
        16,
        "Not ready while every page slot of the farm (farm.max_pages) is busy and more requests "
        "than this wait for one. At farm.queue_size or above the check never fails (a full "
        "queue is answered 503 busy anyway).",
        min=0,
    )
    check_timeout: float = setting(
        1.0,
        "Seconds each readiness check (the disk, memory) may take; one that takes longer fails, "
        "and is not started again until it has ended.",
        min=0.05,
        max=30,
    )


@dataclass(frozen=True)
class Readiness:
    """What ``/readyz`` answers: each check and whether it passed, and why those that failed
    did."""

    checks: dict[str, bool]
    reasons: dict[str, str]
    farm_health: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)
    """What the disk and memory checks measured."""

    @property
    def ready(self) -> bool:
        return all(self.checks.values())

    @property
    def failed(self) -> list[str]:
        return [name for name, passed in self.checks.items() if not passed]


class HealthService:
    """Readiness over the store, the farm and the host; ``draining()`` says whether shutdown
    began, ``settings()`` gives the current ``[readiness]`` settings and ``folders`` are where the
    data disk is measured. Built once: a check that outlived its time is remembered, so that a
    hung file system does not gather a thread per probe."""

    def __init__(
        self,
        store: Store,
        farm: Farm,
        draining: Callable[[], bool],
        settings: Callable[[], ReadinessSettings] = ReadinessSettings,
        folders: Sequence[Path] = (),
    ) -> None:
        self.store = store
        self.farm = farm
        self.draining = draining
        self.settings = settings
        self.folders = list(folders)
        self._running: dict[str, asyncio.Future[Any]] = {}

    async def readiness(self) -> Readiness:
        limits = self.settings()
        database, disk, memory = await asyncio.gather(
            self.store.ping(), self._disk(limits), self._memory(limits)
        )
        farm_health = self.farm.health()
        checks = {
            "database": database,
            "farm": self.farm.ready,
            "draining": not self.draining(),
            "disk": disk[0] is None,
            "memory": memory[0] is None,
            "farm_capacity": True,
        }
        reasons = {"disk": disk[0], "memory": memory[0]}
        reasons["farm_capacity"] = _saturation(farm_health, limits.max_farm_queue)
        checks["farm_capacity"] = reasons["farm_capacity"] is None
        if not database:
            reasons["database"] = "the database does not answer"
        if not checks["farm"]:
            reasons["farm"] = "the browser farm is not running"
        if not checks["draining"]:
            reasons["draining"] = "the server is shutting down"
        return Readiness(
            checks,
            {name: why for name, why in reasons.items() if why is not None},
            farm_health,
            {"disk": disk[1], "memory": memory[1]},
        )

    # -- the host's checks -------------------------------------------------------------------------

    async def _disk(self, limits: ReadinessSettings) -> tuple[str | None, dict[str, Any]]:
        if not limits.min_free_disk_bytes and not limits.min_free_disk_percent:
            return None, {}
        try:
            spaces = await self._bounded("disk", limits.check_timeout, self._measure_disk)
        except TimeoutError:
            return f"the data disk did not answer within {limits.check_timeout:g} s", {}
        except OSError as exc:
            return f"the data disk cannot be read ({exc.strerror or type(exc).__name__})", {}
        if not spaces:
            return None, {}
        low = min(spaces, key=lambda space: space.free_bytes)
        least = min(spaces, key=lambda space: space.free_percent)
        measured = {"free_bytes": low.free_bytes, "free_percent": round(least.free_percent, 2)}
        if low.free_bytes < limits.min_free_disk_bytes:
            return (
                f"the data disk has {_mib(low.free_bytes)} free, below "
                f"{_mib(limits.min_free_disk_bytes)} (readiness.min_free_disk_bytes)",
                measured,
            )
        if least.free_percent < limits.min_free_disk_percent:
            return (
                f"the data disk has {least.free_percent:.1f}% free, below "
                f"{limits.min_free_disk_percent:g}% (readiness.min_free_disk_percent)",
                measured,
            )
        return None, measured

    def _measure_disk(self) -> list[host_resources.DiskSpace]:
        """The free space of each distinct file system among the data folders (in a thread)."""
        seen: set[int | None] = set()
        spaces = []
        for folder in self.folders:
            device = host_resources.device_of(folder)
            if device is not None and device in seen:
                continue
            seen.add(device)
            spaces.append(host_resources.disk_space(folder))
        return spaces

    async def _memory(self, limits: ReadinessSettings) -> tuple[str | None, dict[str, Any]]:
        if not limits.max_rss_bytes and not limits.min_available_memory_bytes:
            return None, {}
        try:
            rss, available = await self._bounded("memory", limits.check_timeout, _measure_memory)
        except TimeoutError:
            return f"memory could not be measured within {limits.check_timeout:g} s", {}
        measured = {"rss_bytes": rss, "available_bytes": available}
        if limits.max_rss_bytes and rss > limits.max_rss_bytes:
            return (
                f"this process uses {_mib(rss)} of memory, above "
                f"{_mib(limits.max_rss_bytes)} (readiness.max_rss_bytes)",
                measured,
            )
        if available is not None and available < limits.min_available_memory_bytes:
            return (
                f"{_mib(available)} of memory is available, below "
                f"{_mib(limits.min_available_memory_bytes)} "
                "(readiness.min_available_memory_bytes)",
                measured,
            )
        return None, measured

    async def _bounded(self, name: str, seconds: float, work: Callable[[], T]) -> T:
        """``work`` in a thread, waited for at most ``seconds``; while an earlier run
        that outlived its time has not ended, no other is started (TimeoutError at once)."""
        running = self._running.get(name)
        if running is not None and not running.done():
            raise TimeoutError
        future = asyncio.get_running_loop().run_in_executor(None, work)
        self._running[name] = future
        future.add_done_callback(_consume)
        return await asyncio.wait_for(asyncio.shield(future), seconds)


def _measure_memory() -> tuple[int, int | None]:
    return host_resources.process_rss_bytes(), host_resources.available_memory_bytes()


def _consume(future: asyncio.Future[Any]) -> None:
    """Retrieve a late check's exception, so that it is not logged as never retrieved."""
    if not future.cancelled():
        future.exception()


def _saturation(farm_health: dict[str, Any], max_queue: int) -> str | None:
    """Why the farm counts as saturated (every page slot busy and its queue longer than
    ``max_queue``); None when it does not."""
    queued = int(farm_health.get("queue_length", 0))
    if farm_health.get("slots_full") and queued > max_queue:
        return (
            f"every page of the browser farm is busy and {queued} requests wait for one, more "
            f"than {max_queue} (readiness.max_farm_queue)"
        )
    return None


def _mib(count: int) -> str:
    return f"{count / MIB:.0f} MiB"
