"""Bounded memo caches for pure functions of short strings."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Final, TypeVar

_T = TypeVar("_T")
CACHED_KEY_CHARS: Final = 2048
"""Longest string argument whose result the memo caches below keep: their entries are then
bounded in bytes as well as in number (a page's 5 MB word is judged, not kept)."""


def small_key_cache(maxsize: int) -> Callable[[Callable[..., _T]], Callable[..., _T]]:
    """``functools.lru_cache(maxsize)`` for calls whose string arguments are at most
    ``CACHED_KEY_CHARS`` long; longer ones are computed without being cached."""

    def wrap(func: Callable[..., _T]) -> Callable[..., _T]:
        cached = functools.lru_cache(maxsize=maxsize)(func)

        @functools.wraps(func)
        def call(*args: Any) -> _T:
            for arg in args:
                if isinstance(arg, str) and len(arg) > CACHED_KEY_CHARS:
                    return func(*args)
            return cached(*args)

        @functools.wraps(func)
        def call_one(arg: Any) -> _T:  # most of them: half the cost of the loop above
            if isinstance(arg, str) and len(arg) > CACHED_KEY_CHARS:
                return func(arg)
            return cached(arg)

        chosen = call_one if _one_parameter(func) else call
        chosen.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        return chosen

    return wrap


def _one_parameter(func: Callable[..., Any]) -> bool:
    """Whether ``func`` takes exactly one argument, by position."""
    parameters = list(inspect.signature(func).parameters.values())
    return len(parameters) == 1 and parameters[0].kind in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    )


class TextMemo:
    """A memo of results keyed by a text of any length (a page's ``<style>`` block), bounded
    in number and in the characters its keys hold; the oldest entries go first."""

    def __init__(self, entries: int, chars: int) -> None:
        self._entries = entries
        self._chars = chars
        self._held = 0
        self._known: dict[str, Any] = {}

    def get(self, text: str) -> Any:
        return self._known.get(text)

    def put(self, text: str, value: Any) -> None:
        if len(text) > self._chars or text in self._known:
            return
        known = self._known
        while known and (len(known) >= self._entries or self._held + len(text) > self._chars):
            oldest = next(iter(known))
            del known[oldest]
            self._held -= len(oldest)
        known[text] = value
        self._held += len(text)

    def clear(self) -> None:
        self._known.clear()
        self._held = 0
