"""Resolved embeds kept in memory for a short while, per organization, URL and parameters."""

from __future__ import annotations

from typing import Any

from services.memcache import BoundedCache


class AnswerCache:
    """Resolved embeds kept in memory for a short while: a repeated request is answered without
    fetching, parsing or writing anything. Bounded in bytes, expired answers dropped; a deleted
    frame's answers are dropped."""

    def __init__(self, seconds: float, max_bytes: int) -> None:
        self._cache: BoundedCache[tuple[Any, ...], dict[str, Any]] = BoundedCache(
            max_bytes, seconds
        )

    @property
    def cache(self) -> BoundedCache[tuple[Any, ...], dict[str, Any]]:
        """The underlying cache (its size, for metrics and tests)."""
        return self._cache

    def get(self, key: tuple[Any, ...], max_age: float | None) -> dict[str, Any] | None:
        body = self._cache.get(key, max_age)
        return None if body is None else dict(body)

    def put(self, key: tuple[Any, ...], body: dict[str, Any]) -> None:
        self._cache.put(key, dict(body))

    def forget_frame(self, embed_id: str) -> None:
        """Drop every answer that points at the frame ``embed_id``."""
        self._cache.drop_where(lambda _, body: body.get("embed_id") == embed_id)
