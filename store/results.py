"""Markdown answers kept in the database for reuse, shared by every host: the exact response body
and the headers that belong to it, zlib-compressed, under a key the caller derives (the target's
normalized URL and every parameter that shapes the answer, :func:`store.cache.cache_key`).

An answer is as old as the page it was converted from (``made_at``, the page's fetch or render
time), so it is reused under the page cache's rules: never older than the age the caller
accepts, nor than ``retention``. A newer page version replaces an older one's answer, never the
other way round. :func:`evict` deletes answers past ``retention``, then the oldest until the
compressed answers fit in ``result_max_bytes``.

The functions here take the database as their first argument and run on the calling thread; the
:class:`~store.store.Store` runs them in its executor.
"""

from __future__ import annotations

import json
import logging
import math
import time
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import peewee

from store.bounded import Eviction, evict_oldest, put_newer
from store.cache import EVICT_BATCH, MAX_BODY_BYTES, CacheSettings
from store.db import write_transaction
from store.models import MarkdownResult, as_utc, utc_now

log = logging.getLogger(__name__)

_LEVEL = 6


@dataclass(frozen=True)
class StoredAnswer:
    """A Markdown answer as the cache keeps it."""

    key: str
    body: str
    """The response body: Markdown text, or the JSON envelope."""
    headers: dict[str, str]
    """The headers that belong to the body (its type, counts, truncation, safety, timing)."""
    page_version: str
    """Which fetch or render of the page the answer was converted from."""
    made_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    """When that page was fetched or rendered (aware, UTC): the answer's age counts from it."""
    page: str | None = None
    """The page the answer was converted from (:func:`store.cache.page_key`): an answer of a
    newer version of that page supersedes this one, whatever its format or options; None: the
    answer supersedes and is superseded by no other."""

    @property
    def age_seconds(self) -> float:
        return max(0.0, time.time() - self.made_at.timestamp())


def usable(settings: CacheSettings) -> bool:
    """Whether answers are kept at all (the page cache and the answers both on)."""
    return settings.enabled and settings.results


def max_age(settings: CacheSettings, max_age_seconds: float | None) -> float:
    """The oldest answer accepted, in seconds: the caller's (else ``default_max_age``), never
    past ``retention``."""
    wanted = settings.default_max_age if max_age_seconds is None else max_age_seconds
    return min(wanted, settings.retention)


def get_answer(
    db: peewee.Database, key: str, max_age_seconds: float | None, settings: CacheSettings
) -> StoredAnswer | None:
    """The answer under ``key`` if its page is at most ``max_age_seconds`` (None:
    ``default_max_age``) and ``retention`` old; None otherwise, when answers are not kept, or
    when the stored answer is damaged."""
    oldest = max_age(settings, max_age_seconds)
    if not usable(settings) or oldest <= 0:
        return None
    cutoff = utc_now() - timedelta(seconds=oldest)
    row = (
        MarkdownResult.select()
        .where(MarkdownResult.key == key, MarkdownResult.made_at >= cutoff)
        .first(db)
    )
    if row is None:
        return None
    loaded = _unpack(bytes(row.answer), row.answer_length)
    if loaded is None:
        log.warning("kept Markdown answer %s is damaged; treating it as missing", key)
        return None
    body, headers = loaded
    return StoredAnswer(key, body, headers, row.page_version, as_utc(row.made_at), row.page)


def put_answer(db: peewee.Database, answer: StoredAnswer, settings: CacheSettings) -> bool:
    """Keep ``answer``, deleting every answer of an older version of its page (under any key:
    another format, other options); one of a newer version stays. False, storing nothing, when
    answers are not kept, the answer is too large (``max_entry_bytes`` compressed) or a newer
    version of its page has an answer already."""
    if not usable(settings):
        return False
    raw = json.dumps(
        {"body": answer.body, "headers": answer.headers}, ensure_ascii=False, separators=(",", ":")
    ).encode()
    if len(raw) > MAX_BODY_BYTES:
        return False
    packed = zlib.compress(raw, _LEVEL)
    if len(packed) > settings.max_entry_bytes:
        return False
    row: dict[Any, Any] = {
        MarkdownResult.key: answer.key,
        MarkdownResult.page_version: answer.page_version,
        MarkdownResult.answer: packed,
        MarkdownResult.answer_length: len(raw),
        MarkdownResult.size: len(packed),
        MarkdownResult.made_at: as_utc(answer.made_at).replace(tzinfo=None),
        MarkdownResult.page: answer.page,
    }
    if answer.page is None:
        put_newer(db, MarkdownResult, row, written=MarkdownResult.made_at)
        return True
    made_at = row[MarkdownResult.made_at]
    of_page = MarkdownResult.page == answer.page
    with write_transaction(db):
        newer = MarkdownResult.select().where(of_page, MarkdownResult.made_at > made_at)
        if newer.exists(db):
            return False
        MarkdownResult.delete().where(of_page, MarkdownResult.made_at < made_at).execute(db)
        put_newer(db, MarkdownResult, row, written=MarkdownResult.made_at)
    return True


def evict(
    db: peewee.Database,
    settings: CacheSettings,
    *,
    budget_seconds: float = math.inf,
    batch: int = EVICT_BATCH,
) -> Eviction:
    """Delete answers older than ``retention``, then the oldest until the compressed answers
    total at most ``result_max_bytes`` (:func:`~store.bounded.evict_oldest`; an answer replaced
    since it was chosen is of a newer page and stays)."""
    return evict_oldest(
        db,
        MarkdownResult,
        written=MarkdownResult.made_at,
        retention_seconds=settings.retention,
        max_bytes=settings.result_max_bytes,
        budget_seconds=budget_seconds,
        batch=batch,
    )


def _unpack(packed: bytes, length: int) -> tuple[str, dict[str, str]] | None:
    """A stored answer's body and headers; None when it is not what was written."""
    if not 0 <= length <= MAX_BODY_BYTES:
        return None
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(packed, length + 1)
    except zlib.error:
        return None
    if len(raw) != length or not inflater.eof:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("body"), str):
        return None
    headers = value.get("headers")
    if not isinstance(headers, dict):
        return None
    return value["body"], {str(name): str(item) for name, item in headers.items()}
