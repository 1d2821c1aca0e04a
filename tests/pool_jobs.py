"""Functions the worker-pool tests run inside the spawned workers (they must be importable)."""

from __future__ import annotations

import os
import time


def sleep_then(seconds: float, value: str) -> str:
    time.sleep(seconds)
    return value


def spin(seconds: float, value: str) -> str:
    """Use the processor for ``seconds`` of this process's CPU time."""
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass
    return value


def pid() -> int:
    return os.getpid()


def allocate(megabytes: int) -> int:
    """Hold ``megabytes`` of memory at once, then give it back; the size held."""
    block = bytearray(megabytes * 2**20)
    return len(block) // 2**20


def niceness(_: str = "") -> int:
    """The worker's CPU niceness (its argument, the work's body, only sized)."""
    return os.nice(0)
