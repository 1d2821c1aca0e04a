"""Per-key token buckets: a key may send ``burst`` requests at once and ``rate`` per second after
that. In memory, per process."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    """Token buckets keyed by API key prefix."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, max_keys: int = 100_000
    ) -> None:
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}
        self._max_keys = max_keys

    def take(self, key: str, rate: float, burst: int) -> int | None:
        """Take one token; None when allowed, else the whole seconds to wait (Retry-After)."""
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self._max_keys:
                self._forget_full(now, rate, burst)
            bucket = self._buckets[key] = _Bucket(float(burst), now)
        bucket.tokens = min(float(burst), bucket.tokens + (now - bucket.updated) * rate)
        bucket.updated = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return None
        return max(1, math.ceil((1.0 - bucket.tokens) / rate))

    def remaining(self, key: str, rate: float, burst: int) -> int:
        """Whole requests ``key`` may send at once now (its bucket's tokens)."""
        bucket = self._buckets.get(key)
        if bucket is None:
            return burst
        now = self._clock()
        return int(min(float(burst), bucket.tokens + (now - bucket.updated) * rate))

    def give_back(self, key: str, burst: int) -> None:
        """Return a token taken in advance for what turned out not to cost one. A bucket that was
        forgotten meanwhile had refilled, so there is nothing to return it to."""
        bucket = self._buckets.get(key)
        if bucket is not None:
            bucket.tokens = min(float(burst), bucket.tokens + 1.0)

    def _forget_full(self, now: float, rate: float, burst: int) -> None:
        """Drop buckets that have refilled: forgetting them changes nothing."""
        for key, bucket in list(self._buckets.items()):
            if bucket.tokens + (now - bucket.updated) * rate >= burst:
                del self._buckets[key]
