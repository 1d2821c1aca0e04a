"""Markdown answers kept for reuse, in two levels: this process's memory (least recently used
first out, bounded in bytes) in front of the store's table (:mod:`store.results`), which every
host shares.

An answer is the exact response body and the headers that belong to it, kept under the hash of
the target's normalized URL and every parameter that shapes the answer (the endpoint's parameter
table says which, :meth:`~handlers.params.table.ParamTable.answer_variant`). It is as old as the
page version it was converted from, and is reused under the page cache's rules: ``cache_ok``,
``max_cache_age`` (else ``default_max_age``), ``retention``.

A newer version of a page supersedes every answer of an older one, whatever its format or
options: keeping an answer deletes the older versions' answers from the store, and this process
remembers the newest version of each page it saw (fetched again, or answered) and reuses no
answer held in memory or read from the store that is older. Reading or writing the store never
fails a request: a store that cannot answer is a miss, an answer it cannot keep is only kept in
memory.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Coroutine, Mapping
from datetime import datetime
from typing import Any, Protocol

from services.memcache import BoundedCache
from store.cache import CacheSettings, cache_key
from store.results import StoredAnswer, max_age, usable
from store.threads import StoreUnavailable

log = logging.getLogger(__name__)

KEYS_REMEMBERED = 1024
"""Keys of recent (target, parameters) pairs remembered (their values are bounded by the
parameter table: a few kilobytes each at worst)."""


PAGES_REMEMBERED = 50_000
"""Pages whose newest version this process remembers; an answer held in memory whose page was
forgotten is read from the store again (which holds no superseded answer)."""
PAGE_ENTRY_BYTES = 400
"""The estimated bytes of one remembered page (its key and its version's time)."""


class AnswerStore(Protocol):
    """What the answer cache needs of the store."""

    async def answer_get(
        self, key: str, max_age_seconds: float | None = None
    ) -> StoredAnswer | None: ...

    async def answer_put(self, answer: StoredAnswer) -> bool: ...


class AnswerCache:
    """Kept answers: this process's memory, then the store. ``settings`` gives the current
    cache settings (read on every call, so a reload applies at once)."""

    def __init__(self, store: AnswerStore, settings: Callable[[], CacheSettings]) -> None:
        self.store = store
        self.settings = settings
        current = settings()
        self._memory: BoundedCache[str, StoredAnswer] = BoundedCache(
            current.result_memory_bytes, current.retention
        )
        self._newest: BoundedCache[str, datetime] = BoundedCache(
            PAGES_REMEMBERED * PAGE_ENTRY_BYTES, current.retention, max_entries=PAGES_REMEMBERED
        )
        self._background: set[asyncio.Task[None]] = set()

    @staticmethod
    def key(url: str, variant: Mapping[str, str]) -> str | None:
        """The key of the answer to ``url`` with the parameters ``variant``; None for a URL the
        cache cannot normalize (such an answer is not kept)."""
        return _key(url, tuple(variant.items()))

    @property
    def memory_bytes(self) -> int:
        """The estimated bytes of answers held in this process's memory."""
        return self._memory.bytes

    async def get(self, key: str, max_age_seconds: float | None) -> StoredAnswer | None:
        """The answer under ``key`` whose page is at most ``max_age_seconds`` old (None: the
        default age), from memory, else from the store (then remembered in memory)."""
        settings = self._current()
        if not usable(settings):
            return None
        oldest = max_age(settings, max_age_seconds)
        held = self._memory.get(key)
        if held is not None and held.age_seconds <= oldest and self._current_version(held, True):
            return held
        try:
            found = await self.store.answer_get(key, max_age_seconds)
        except StoreUnavailable:
            return None  # the store has logged what failed; the page is converted again
        except Exception:
            log.warning("could not read a kept Markdown answer", exc_info=True)
            return None
        if found is None or not self._current_version(found, False):
            return None
        self._hold(found)
        return found

    def keep(self, answer: StoredAnswer) -> None:
        """Keep ``answer`` in memory now and in the store in the background, unless a newer
        version of its page was seen."""
        if not usable(self._current()) or not self._current_version(answer, False):
            return
        self._hold(answer)
        self._later(self._write(answer))

    def saw(self, page: str | None, made_at: datetime) -> None:
        """Remember that ``page`` has a version fetched or rendered at ``made_at``: no answer
        of an older version is reused from now on."""
        if page is None:
            return
        newest = self._newest.get(page)
        if newest is None or newest < made_at:
            self._newest.put(page, made_at)

    def _current_version(self, answer: StoredAnswer, remembered: bool) -> bool:
        """Whether ``answer`` is of the newest version of its page this process saw; with
        ``remembered``, only when that version is remembered (an answer held in memory, whose
        page was forgotten, is read from the store again)."""
        if answer.page is None:
            return True
        newest = self._newest.get(answer.page)
        if newest is None:
            return not remembered
        return answer.made_at >= newest

    async def drain(self, seconds: float = 5.0) -> None:
        """Wait for the store writes under way (at shutdown), at most ``seconds``."""
        if self._background:
            await asyncio.wait(self._background, timeout=seconds)

    def _current(self) -> CacheSettings:
        settings = self.settings()
        self._memory.max_bytes = settings.result_memory_bytes
        self._memory.seconds = settings.retention
        self._newest.seconds = settings.retention
        return settings

    def _hold(self, answer: StoredAnswer) -> None:
        """Hold ``answer`` in memory unless the answer held is of a newer page version."""
        self.saw(answer.page, answer.made_at)
        held = self._memory.get(answer.key)
        if held is None or held.made_at <= answer.made_at:
            self._memory.put(answer.key, answer)

    async def _write(self, answer: StoredAnswer) -> None:
        try:
            await self.store.answer_put(answer)
        except StoreUnavailable:
            log.info("did not keep a Markdown answer: the store is unavailable")
        except Exception:
            log.warning("could not keep a Markdown answer", exc_info=True)

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)


@functools.lru_cache(maxsize=KEYS_REMEMBERED)
def _key(url: str, variant: tuple[tuple[str, str], ...]) -> str | None:
    """:meth:`AnswerCache.key`, remembered: normalizing the URL and hashing cost more than the
    rest of a reused answer's work."""
    try:
        return cache_key(url, dict(variant))
    except ValueError:
        return None
