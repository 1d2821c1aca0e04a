"""The page cache: fetched pages kept in the database for reuse, their bodies zlib-compressed.

A page is found by :func:`cache_key`, the hash of its normalized URL and of the request
parameters that change what is fetched. Reads never return a page older than the age the caller
accepts (nor older than ``retention``); :func:`evict` deletes pages past ``retention``, then the
least recently written ones until the stored bodies fit in ``max_bytes``.

The functions here take the database as their first argument and run on the calling thread; the
:class:`~store.store.Store` runs them in its executor.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

import peewee

from convert.text import urls
from settings.fields import setting
from store.bounded import Eviction, evict_oldest, put_newer
from store.models import PageCache, as_utc, utc_now

log = logging.getLogger(__name__)

MIB = 1024 * 1024
#: Pages larger than this uncompressed are never cached, and a read never inflates beyond it.
MAX_BODY_BYTES = 64 * MIB
#: Rows one eviction statement deletes; keeps each transaction and its locks short.
EVICT_BATCH = 500

# Level 6 is zlib's default: HTML shrinks five- to tenfold at tens of MB/s.
_LEVEL = 6


@dataclass
class CacheSettings:
    """Page cache: fetched pages kept in the database and reused while fresh enough."""

    SECTION: ClassVar[str] = "cache"

    enabled: bool = setting(
        True,
        "Keep fetched pages in the database and reuse them. When false nothing is read or "
        "written; pages already stored still age out.",
    )
    default_max_age: float = setting(
        3600.0,
        "Seconds a cached page is reused when a request does not give max_cache_age.",
        min=0,
    )
    retention: float = setting(
        432000.0,
        "Seconds a page is kept at most: older pages are never reused and the eviction job "
        "deletes them. The default, 5 days, is the default max_cache_age of oEmbed requests.",
        min=60,
    )
    max_bytes: int = setting(
        512 * MIB,
        "Most bytes of compressed page bodies kept in all; the eviction job deletes the least "
        "recently written pages until they fit.",
        min=MIB,
    )
    max_entry_bytes: int = setting(
        8 * MIB,
        "A page whose compressed body is larger than this many bytes is not cached.",
        min=1024,
        max=MAX_BODY_BYTES,
    )
    eviction_interval: float = setting(
        300.0,
        "Seconds between runs of the eviction job (retention, then max_bytes; then the same "
        "for Markdown answers).",
        min=0.1,
        max=86400,
    )
    results: bool = setting(
        True,
        "Keep Markdown answers (the converted body and its headers) per page version and "
        "parameters, and answer a repeated request from them, under the pages' rules "
        "(cache_ok, max_cache_age, default_max_age, retention). Needs enabled.",
    )
    result_memory_bytes: int = setting(
        32 * MIB,
        "Most bytes of Markdown answers each server process keeps in memory, in front of the "
        "database; the least recently used go first. 0 keeps none in memory.",
        min=0,
    )
    result_max_bytes: int = setting(
        256 * MIB,
        "Most bytes of compressed Markdown answers kept in the database, shared by every "
        "host; the eviction job deletes the oldest until they fit.",
        min=MIB,
    )


@dataclass
class CachedPage:
    """A fetched page as the cache keeps it."""

    key: str
    url: str
    final_url: str
    status: int
    content_type: str
    #: The few response headers the caller chose to keep.
    headers: dict[str, str]
    body: bytes
    #: The proxy tier that fetched the page; None when unknown.
    tier: str | None = None
    #: When the page was fetched (aware, UTC); a naive value is read as UTC.
    fetched_at: datetime = field(default_factory=lambda: datetime.now(UTC))

    @property
    def age_seconds(self) -> float:
        """Seconds since the page was fetched (never negative)."""
        return max(0.0, (datetime.now(UTC) - as_utc(self.fetched_at)).total_seconds())


def normalize_url(url: str) -> str:
    """``url`` as the cache sees it: scheme and host lowercased, default port and fragment
    dropped, an empty path made ``/``; userinfo, path and query kept as given, in order.

    :raises ValueError: for a URL without scheme or host, or with an invalid port.
    """
    return urls.normalize_url(url, keep_userinfo=True, strict=True)


def cache_key(url: str, variant: Mapping[str, str]) -> str:
    """The cache key of ``url`` fetched with ``variant``: a sha256 hex digest.

    ``variant`` holds the request parameters that change what is fetched (for example
    ``accept_lang``); the caller decides which. Their order does not matter.

    :raises ValueError: as :func:`normalize_url`.
    """
    material = [normalize_url(url), sorted(variant.items())]
    encoded = json.dumps(material, separators=(",", ":"))
    return hashlib.sha256(encoded.encode()).hexdigest()


def page_key(url: str, accept_lang: str | None) -> str:
    """The key of the page ``url`` fetched with ``accept_lang``: the page cache's key, and the
    page every Markdown answer converted from it belongs to (a newer version of the page
    supersedes them all).

    :raises ValueError: as :func:`normalize_url`.
    """
    return cache_key(url, {"accept_lang": accept_lang or ""})


def get_page(
    db: peewee.Database, key: str, max_age_seconds: float | None, settings: CacheSettings
) -> CachedPage | None:
    """The page stored under ``key`` if it is at most ``max_age_seconds`` (None:
    ``default_max_age``) and ``retention`` old; None otherwise, when caching is disabled, or
    when the stored body is damaged."""
    wanted = settings.default_max_age if max_age_seconds is None else max_age_seconds
    max_age = min(wanted, settings.retention)
    if not settings.enabled or max_age <= 0:
        return None
    cutoff = utc_now() - timedelta(seconds=max_age)
    row = PageCache.select().where(PageCache.key == key, PageCache.fetched_at >= cutoff).first(db)
    if row is None:
        return None
    body = _inflate(bytes(row.body), row.body_length)
    if body is None:
        log.warning("cached page %s is damaged; treating it as missing", key)
        return None
    return CachedPage(
        key=row.key,
        url=row.url,
        final_url=row.final_url,
        status=row.status,
        content_type=row.content_type,
        headers=_load_headers(row.headers),
        body=body,
        tier=row.tier,
        fetched_at=as_utc(row.fetched_at),
    )


def put_page(db: peewee.Database, page: CachedPage, settings: CacheSettings) -> bool:
    """Store ``page``, replacing an older copy under its key (a newer copy stays).

    Returns False, storing nothing, when caching is disabled or the body is too large
    (``max_entry_bytes`` compressed, :data:`MAX_BODY_BYTES` uncompressed).
    """
    if not settings.enabled or len(page.body) > MAX_BODY_BYTES:
        return False
    packed = zlib.compress(page.body, _LEVEL)
    if len(packed) > settings.max_entry_bytes:
        return False
    row: dict[Any, Any] = {
        PageCache.key: page.key,
        PageCache.url: page.url,
        PageCache.final_url: page.final_url,
        PageCache.status: page.status,
        PageCache.content_type: page.content_type,
        PageCache.headers: json.dumps(dict(page.headers), separators=(",", ":")),
        PageCache.tier: page.tier,
        PageCache.body: packed,
        PageCache.body_length: len(page.body),
        PageCache.size: len(packed),
        PageCache.fetched_at: as_utc(page.fetched_at).replace(tzinfo=None),
    }
    put_newer(db, PageCache, row, written=PageCache.fetched_at)
    return True


def evict(
    db: peewee.Database,
    settings: CacheSettings,
    *,
    budget_seconds: float = math.inf,
    batch: int = EVICT_BATCH,
) -> Eviction:
    """Delete pages older than ``retention``, then the least recently written ones until the
    compressed bodies total at most ``max_bytes`` (:func:`~store.bounded.evict_oldest`: ``batch``
    rows per short transaction, within ``budget_seconds``)."""
    return evict_oldest(
        db,
        PageCache,
        written=PageCache.fetched_at,
        retention_seconds=settings.retention,
        max_bytes=settings.max_bytes,
        budget_seconds=budget_seconds,
        batch=batch,
    )


def _inflate(packed: bytes, length: int) -> bytes | None:
    """Decompress a stored body of ``length`` bytes; None when it is not exactly that."""
    if not 0 <= length <= MAX_BODY_BYTES:
        return None
    inflater = zlib.decompressobj()
    try:
        body = inflater.decompress(packed, length + 1)
    except zlib.error:
        return None
    if len(body) != length or not inflater.eof:
        return None
    return body


def _load_headers(text: str) -> dict[str, str]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    if not isinstance(value, dict):
        return {}
    return {str(name): str(item) for name, item in value.items()}
