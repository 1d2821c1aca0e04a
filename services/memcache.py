"""One in-memory cache shape for the services: least recently used entries out first, bounded
in bytes (an approximate size of each entry) and optionally in entries, every entry with an
expiry. The eviction and byte accounting are ``cachetools.LRUCache``'s; this adds the expiry.

An expired entry is dropped when it is looked up, and every ``SWEEP_INTERVAL`` seconds a write
walks the cache and drops every expired entry, so a burst of answers nobody asks for again does
not stay in memory until the byte limit pushes it out. There is no timer: an idle cache costs
nothing and is swept on its next write. A value larger than the whole byte limit is not kept.

Sizes are estimates (:func:`approx_size`: string and bytes lengths plus a fixed overhead per
container and per entry), good enough to keep a hostile page's 5 MB title from being cached
thousands of times; they are not the exact heap footprint. Not thread-safe: each cache is used
from the IOLoop only.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from cachetools import Cache, LRUCache

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

SWEEP_INTERVAL = 30.0
"""Seconds between two walks that drop every expired entry (done by a write, never a timer)."""
ENTRY_OVERHEAD = 200
"""Bytes counted for each entry on top of its value and key (the dict slot, the entry record)."""
CONTAINER_OVERHEAD = 64
"""Bytes counted for each dict, list, tuple or object inside a value."""
SCALAR_SIZE = 32
"""Bytes counted for a number, None or another small object."""
MAX_DEPTH = 32
"""Nesting followed by :func:`approx_size`; anything deeper counts as one scalar."""


def approx_size(value: Any, _depth: int = 0) -> int:
    """An estimate of the bytes ``value`` holds: strings and bytes by length, containers by
    their items plus an overhead, dataclass-like objects by their ``__dict__`` or slots."""
    if isinstance(value, str):
        return len(value) + 49
    if isinstance(value, (bytes, bytearray, memoryview)):
        return len(value) + 33
    if _depth >= MAX_DEPTH or value is None or isinstance(value, (int, float, bool)):
        return SCALAR_SIZE
    depth = _depth + 1
    if isinstance(value, dict):
        return CONTAINER_OVERHEAD + sum(
            approx_size(k, depth) + approx_size(v, depth) for k, v in value.items()
        )
    if isinstance(value, (list, tuple, set, frozenset)):
        return CONTAINER_OVERHEAD + sum(approx_size(item, depth) for item in value)
    fields = getattr(value, "__dict__", None)
    if fields is None:
        slots = getattr(type(value), "__slots__", ())
        fields = {name: getattr(value, name, None) for name in slots}
    return CONTAINER_OVERHEAD + sum(approx_size(v, depth) for v in fields.values())


@dataclass(slots=True)
class _Entry(Generic[V]):
    value: V
    size: int
    stored: float
    expires: float


class BoundedCache(Generic[K, V]):
    """Values by key for ``seconds`` each, at most ``max_bytes`` (and ``max_entries`` when
    given) in all, the least recently used dropped first. ``seconds <= 0`` or ``max_bytes <= 0``
    turns the cache off (nothing is kept)."""

    def __init__(
        self,
        max_bytes: int,
        seconds: float,
        *,
        max_entries: int | None = None,
        sizeof: Callable[[Any], int] = approx_size,
        clock: Callable[[], float] = time.monotonic,
        sweep_interval: float = SWEEP_INTERVAL,
    ) -> None:
        self._max_bytes = max_bytes
        self.seconds = seconds
        self.max_entries = max_entries
        self._sizeof = sizeof
        self._clock = clock
        self._sweep_interval = sweep_interval
        self._entries: LRUCache[K, _Entry[V]] = LRUCache(max(max_bytes, 1), getsizeof=_entry_size)
        self._last_sweep = clock()

    @property
    def max_bytes(self) -> int:
        return self._max_bytes

    @max_bytes.setter
    def max_bytes(self, max_bytes: int) -> None:
        """A new byte limit; the least recently used entries go until the rest fit."""
        if max_bytes == self._max_bytes:
            return
        entries = self._entries
        self._max_bytes = max_bytes
        self._entries = LRUCache(max(max_bytes, 1), getsizeof=_entry_size)
        while entries:  # least recently used first, so the new cache keeps the same order
            key, entry = entries.popitem()
            if entry.size <= max_bytes:
                self._entries[key] = entry

    @property
    def enabled(self) -> bool:
        return self.seconds > 0 and self.max_bytes > 0

    @property
    def bytes(self) -> int:
        """The estimated bytes held now."""
        return int(self._entries.currsize)

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K, max_age: float | None = None) -> V | None:
        """The value under ``key`` if it has not expired (and, with ``max_age``, was stored at
        most that many seconds ago), else None. An expired entry is dropped."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        now = self._clock()
        if now >= entry.expires:
            del self._entries[key]
            return None
        if max_age is not None and now - entry.stored > max_age:
            return None
        return entry.value

    def put(self, key: K, value: V, *, seconds: float | None = None) -> bool:
        """Keep ``value`` under ``key`` for ``seconds`` (the cache's own by default); False when
        it is not kept (cache off, or the value alone is larger than the byte limit)."""
        ttl = self.seconds if seconds is None else seconds
        self.pop(key)
        if ttl <= 0 or self.max_bytes <= 0:
            return False
        size = self._sizeof(value) + approx_size(key) + ENTRY_OVERHEAD
        if size > self.max_bytes:
            return False
        now = self._clock()
        if now - self._last_sweep >= self._sweep_interval:
            self.sweep()
        self._entries[key] = _Entry(value, size, now, now + ttl)
        while self.max_entries is not None and len(self._entries) > self.max_entries:
            self._entries.popitem()
        return True

    def pop(self, key: K) -> V | None:
        """Drop ``key``; its value when it was there (expired or not)."""
        entry = self._entries.pop(key, None)
        return None if entry is None else entry.value

    def drop_where(self, predicate: Callable[[K, V], bool]) -> int:
        """Drop every entry ``predicate(key, value)`` holds for; how many were dropped."""
        doomed = [key for key, entry in self._held() if predicate(key, entry.value)]
        for key in doomed:
            del self._entries[key]
        return len(doomed)

    def sweep(self) -> int:
        """Drop every expired entry now; how many were dropped."""
        now = self._clock()
        self._last_sweep = now
        doomed = [key for key, entry in self._held() if now >= entry.expires]
        for key in doomed:
            del self._entries[key]
        return len(doomed)

    def clear(self) -> None:
        self._entries.clear()

    def keys(self) -> Iterator[K]:
        """The keys held (expired ones included until they are dropped), in the order they were
        stored."""
        return iter(list(self._entries))

    def _held(self) -> list[tuple[K, _Entry[V]]]:
        """Every entry, read without counting as a use (a walk must not reorder the LRU)."""
        return [(key, Cache.__getitem__(self._entries, key)) for key in list(self._entries)]


def _entry_size(entry: _Entry[Any]) -> int:
    return entry.size
