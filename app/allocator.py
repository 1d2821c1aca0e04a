"""The C allocator of the server process: large blocks handed back to the system when freed.

glibc serves a freed block of up to 32 MB again from its heap rather than returning it, once it
has seen one that size freed (its mmap threshold follows the largest block freed so far). A
server that reads pages of several megabytes (each copied a few times: the body, its text, the
worker's message) then keeps tens of megabytes it no longer uses, and more the more requests run
at once. Fixing the threshold at ``LARGE_BLOCK_BYTES`` makes every block that size or larger a
mapping of its own, released the moment it is freed. Smaller blocks are unaffected. On a C
library without ``mallopt`` (musl, macOS) nothing changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger(__name__)

LARGE_BLOCK_BYTES = 1024 * 1024
"""Blocks of at least this many bytes are mapped on their own and returned when freed."""
M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter number for the mmap threshold (malloc.h)."""


def release_large_blocks(threshold: int = LARGE_BLOCK_BYTES) -> bool:
    """Fix the allocator's mmap threshold at ``threshold`` bytes; whether the C library took it."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        log.info("the C library has no mallopt: large blocks stay with its heap")
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, threshold))
