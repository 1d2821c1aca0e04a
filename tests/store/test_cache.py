"""The page cache: keys, compressed storage, freshness, size limits, eviction and its periodic job,
and the schema step that adds it, on a SQLite file and on a fresh Postgres database."""

from __future__ import annotations

import asyncio
import random
import time
import zlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import peewee
import pytest

from convert.embed.oembed import normalize_url as frame_key
from settings.fields import build_section
from store import keys
from store.cache import MIB, CachedPage, CacheSettings, Eviction, cache_key, evict, normalize_url
from store.db import StoreSettings, run_unit
from store.migrations import MIGRATIONS, latest_version, migrate
from store.models import PageCache, SchemaVersion
from store.store import Store, StoreUnavailable
from tests.conftest import raw_database

HTML = b"<html><body>" + b"<p>Pagecast keeps pages for a while.</p>" * 5000 + b"</body></html>"


@pytest.fixture
def make_store(database_url: str, tmp_path: Path) -> Iterator[Callable[..., Store]]:
    """Open stores on the test database with the given cache settings; all closed at the end."""
    stores: list[Store] = []

    def make(**cache: Any) -> Store:
        settings = StoreSettings(database_url=database_url, data_dir=str(tmp_path / "data"))
        store = Store(settings, cache=CacheSettings(**cache))
        stores.append(store)
        store.open()
        return store

    yield make
    for store in stores:
        store.close_sync()


def page(url: str = "https://example.com/a", body: bytes = HTML, **fields: Any) -> CachedPage:
    values: dict[str, Any] = {
        "key": cache_key(url, {}),
        "url": url,
        "final_url": url + "?final",
        "status": 200,
        "content_type": "text/html; charset=utf-8",
        "headers": {"etag": '"v1"', "last-modified": "Mon, 01 Jan 2024 00:00:00 GMT"},
        "body": body,
        "tier": "standard",
    }
    values.update(fields)
    return CachedPage(**values)


def ago(seconds: float) -> datetime:
    return datetime.now(UTC) - timedelta(seconds=seconds)


def noise(size: int, seed: int) -> bytes:
    """Bytes that do not compress, so the stored size is about ``size``."""
    return random.Random(seed).randbytes(size)


def stored_keys(url: str, tmp_path: Path) -> set[str]:
    with raw_database(url, tmp_path) as db:
        return {key for (key,) in PageCache.select(PageCache.key).tuples().execute(db)}


# -- keys ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "normalized"),
    [
        ("HTTP://Example.COM", "http://example.com/"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com:80/a?b=1", "http://example.com/a?b=1"),
        ("http://example.com:443/", "http://example.com:443/"),
        ("https://example.com:8443/x", "https://example.com:8443/x"),
        ("https://example.com/Path/?q=A&a=1#frag", "https://example.com/Path/?q=A&a=1"),
        ("http://[::1]:80/", "http://[::1]/"),
        ("https://User:Pw@Example.com:443", "https://User:Pw@example.com/"),
        ("  https://example.com/a  ", "https://example.com/a"),
    ],
)
def test_normalize_url(given: str, normalized: str) -> None:
    assert normalize_url(given) == normalized


@pytest.mark.parametrize("bad", ["example.com/a", "https://", "http://example.com:99999/"])
def test_normalize_url_rejects_what_is_not_a_url(bad: str) -> None:
    with pytest.raises(ValueError):
        normalize_url(bad)


def test_cache_key_equal_for_equivalent_requests() -> None:
    base = cache_key("https://example.com/", {"accept_lang": "en", "device": "desktop"})
    assert len(base) == 64 and int(base, 16) >= 0
    for url in (
        "HTTPS://EXAMPLE.com",
        "https://example.com:443",
        "https://example.com/#top",
        "https://Example.com:443/#",
    ):
        assert cache_key(url, {"device": "desktop", "accept_lang": "en"}) == base


def test_cache_key_differs_when_the_fetch_differs() -> None:
    url = "https://example.com/a?x=1&y=2"
    base = cache_key(url, {"accept_lang": "en"})
    others = [
        cache_key("https://example.com/a?y=2&x=1", {"accept_lang": "en"}),
        cache_key("https://example.com/A?x=1&y=2", {"accept_lang": "en"}),
        cache_key("http://example.com/a?x=1&y=2", {"accept_lang": "en"}),
        cache_key("https://example.com:8443/a?x=1&y=2", {"accept_lang": "en"}),
        cache_key(url, {"accept_lang": "de"}),
        cache_key(url, {}),
        cache_key(url, {"accept_lang": "en", "device": "mobile"}),
    ]
    assert len({base, *others}) == len(others) + 1
    # The URL and the variant cannot be confused with one another.
    assert cache_key("https://example.com/a", {"b": "c"}) != cache_key(
        "https://example.com/ab", {"": "c"}
    )


# -- settings and schema -------------------------------------------------------------------------


def test_settings_defaults_and_bounds() -> None:
    problems: list[str] = []
    prefix = "PAGECAST_CACHE_"
    settings = build_section(
        CacheSettings, table={}, environ={}, env_prefix=prefix, label="cache", problems=problems
    )
    assert problems == []
    assert settings == CacheSettings()
    assert settings.retention == 432000000 / 1000  # the oEmbed default max_cache_age
    assert settings.max_bytes == 512 * MIB and settings.max_entry_bytes == 8 * MIB
    build_section(
        CacheSettings,
        table={"retention": 1.0, "max_bytes": 1000, "max_entry_bytes": 10, "enabled": "yes"},
        environ={"PAGECAST_CACHE_EVICTION_INTERVAL": "0"},
        env_prefix=prefix,
        label="cache",
        problems=problems,
    )
    assert len(problems) == 5


def test_migration_from_version_1(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    assert (MIGRATIONS[1].version, MIGRATIONS[1].description) == (2, "page cache")
    with raw_database(database_url, tmp_path) as db:
        assert migrate(db, MIGRATIONS[:1]) == 1
        keys.create_key(db, org="acme", plan="free")
        assert "page_cache" not in db.get_tables()
    store = make_store()
    assert [row.org for row in store.list_keys()] == ["acme"]
    with raw_database(database_url, tmp_path) as db:
        assert "page_cache" in db.get_tables()
        versions = [v for (v,) in SchemaVersion.select(SchemaVersion.version).tuples().execute(db)]
        assert sorted(versions) == [step.version for step in MIGRATIONS]
        indexed = {column for index in db.get_indexes("page_cache") for column in index.columns}
        assert "fetched_at" in indexed


@pytest.mark.gen_test
async def test_fresh_database_gets_the_cache(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    store = make_store()
    assert await store.cache_put(page())
    with raw_database(database_url, tmp_path) as db:
        assert SchemaVersion.select().count(db) == len(MIGRATIONS)
        assert migrate(db) == latest_version() >= 2


# -- reads and writes ----------------------------------------------------------------------------


@pytest.mark.gen_test
async def test_round_trip_and_compressed_storage(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    store = make_store()
    written = page(fetched_at=ago(5))
    assert await store.cache_put(written) is True
    read = await store.cache_get(written.key, 60)
    assert read is not None
    assert read.body == HTML
    assert isinstance(read.body, bytes)
    assert (read.key, read.url, read.final_url) == (written.key, written.url, written.final_url)
    assert (read.status, read.content_type, read.tier) == (200, written.content_type, "standard")
    assert read.headers == written.headers
    assert read.fetched_at.tzinfo is UTC
    assert abs((read.fetched_at - written.fetched_at).total_seconds()) < 0.001
    assert 4 <= read.age_seconds < 30

    with raw_database(database_url, tmp_path) as db:
        raw, size, length = db.execute_sql(
            "SELECT body, size, body_length FROM page_cache"
        ).fetchone()
    raw = bytes(raw)
    assert len(raw) < len(HTML) / 10
    assert zlib.decompress(raw) == HTML
    assert (size, length) == (len(raw), len(HTML))


@pytest.mark.gen_test
async def test_miss_and_empty_body(make_store: Callable[..., Store]) -> None:
    store = make_store()
    assert await store.cache_get(cache_key("https://example.com/", {}), 3600) is None
    empty = page("https://example.com/empty", body=b"", status=204, headers={}, tier=None)
    assert await store.cache_put(empty)
    read = await store.cache_get(empty.key, 3600)
    assert read is not None
    assert (read.body, read.status, read.headers, read.tier) == (b"", 204, {}, None)


@pytest.mark.gen_test
async def test_expiry_by_max_age(make_store: Callable[..., Store]) -> None:
    store = make_store(default_max_age=3600, retention=86400)
    old = page("https://example.com/old", fetched_at=ago(2 * 3600))
    fresh = page("https://example.com/fresh", fetched_at=ago(60))
    assert await store.cache_put(old) and await store.cache_put(fresh)

    assert await store.cache_get(old.key, 3600) is None
    assert await store.cache_get(old.key) is None  # default_max_age
    hit = await store.cache_get(old.key, 3 * 3600)
    assert hit is not None and hit.age_seconds >= 2 * 3600
    assert await store.cache_get(fresh.key) is not None
    assert await store.cache_get(fresh.key, 30) is None
    assert await store.cache_get(fresh.key, 0) is None
    # Never older than retention, whatever the request accepts.
    assert await store.cache_get(old.key, 86400 * 10) is not None
    ancient = page("https://example.com/ancient", fetched_at=ago(2 * 86400))
    assert await store.cache_put(ancient)
    assert await store.cache_get(ancient.key, 86400 * 10) is None


@pytest.mark.gen_test
async def test_upsert_replaces_an_older_copy_only(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    store = make_store()
    first = page(fetched_at=ago(60))
    assert await store.cache_put(first)
    second = page(
        body=b"<p>gone</p>",
        status=404,
        headers={"etag": '"v2"'},
        tier="premium",
        final_url="https://example.com/elsewhere",
        fetched_at=ago(10),
    )
    assert await store.cache_put(second)
    read = await store.cache_get(first.key, 3600)
    assert read is not None
    assert (read.body, read.status, read.headers) == (b"<p>gone</p>", 404, {"etag": '"v2"'})
    assert (read.tier, read.final_url) == ("premium", "https://example.com/elsewhere")
    assert stored_keys(database_url, tmp_path) == {first.key}

    # A slower fetch of the same page that finishes later does not overwrite the newer copy.
    assert await store.cache_put(page(body=b"stale", fetched_at=ago(30)))
    read = await store.cache_get(first.key, 3600)
    assert read is not None and read.body == b"<p>gone</p>"


@pytest.mark.gen_test
async def test_too_large_entry_is_refused(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    store = make_store(max_entry_bytes=4096)
    big = page("https://example.com/big", body=noise(8192, 1))
    assert await store.cache_put(big) is False
    assert await store.cache_get(big.key, 3600) is None
    # Large but compressible: the compressed size is what counts.
    assert len(HTML) > 4096
    assert await store.cache_put(page("https://example.com/html")) is True
    assert stored_keys(database_url, tmp_path) == {cache_key("https://example.com/html", {})}


@pytest.mark.gen_test
async def test_disabled_cache(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    enabled = make_store()
    disabled = make_store(enabled=False)
    stored = page("https://example.com/stored")
    assert await enabled.cache_put(stored)
    assert await disabled.cache_get(stored.key, 3600) is None
    assert await disabled.cache_put(page("https://example.com/other")) is False
    assert stored_keys(database_url, tmp_path) == {stored.key}
    assert await enabled.cache_get(stored.key, 3600) is not None


@pytest.mark.gen_test
async def test_damaged_body_is_a_miss(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    store = make_store()
    written = page()
    assert await store.cache_put(written)
    with raw_database(database_url, tmp_path) as db:
        # Claims a small body, holds a large one: decompression stops at the claim.
        PageCache.update(body_length=100).execute(db)
    assert await store.cache_get(written.key, 3600) is None
    with raw_database(database_url, tmp_path) as db:
        PageCache.update(body=b"not zlib", body_length=len(HTML)).execute(db)
    assert await store.cache_get(written.key, 3600) is None


@pytest.mark.gen_test
async def test_database_failure_is_store_unavailable(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    store = make_store()
    disabled = make_store(enabled=False)
    with raw_database(database_url, tmp_path) as db:
        db.execute_sql("ALTER TABLE page_cache RENAME TO page_cache_away")
        try:
            # A disabled cache never asks the database, so it never fails.
            assert await disabled.cache_get(cache_key("https://example.com/", {})) is None
            assert await disabled.cache_put(page()) is False
            with pytest.raises(StoreUnavailable, match="the database is unavailable"):
                await store.cache_get(cache_key("https://example.com/", {}), 3600)
            with pytest.raises(StoreUnavailable, match="the database is unavailable"):
                await store.cache_put(page())
            with pytest.raises(StoreUnavailable, match="the database is unavailable"):
                await store.cache_evict()
        finally:
            db.execute_sql("ALTER TABLE page_cache_away RENAME TO page_cache")


# -- eviction ------------------------------------------------------------------------------------


@pytest.mark.gen_test
async def test_eviction_by_retention(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    store = make_store(retention=3600)
    kept = page("https://example.com/kept", fetched_at=ago(1800))
    await store.cache_put(kept)
    for number in range(7):
        await store.cache_put(page(f"https://example.com/old{number}", fetched_at=ago(7200)))
    assert len(stored_keys(database_url, tmp_path)) == 8
    assert await store.cache_evict() == 7
    assert stored_keys(database_url, tmp_path) == {kept.key}
    assert await store.cache_evict() == 0


@pytest.mark.gen_test
async def test_eviction_by_size_takes_the_oldest_first(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    store = make_store(max_bytes=MIB)
    ages = [500, 400, 300, 200, 100]  # the first written is the oldest
    pages = [
        page(f"https://example.com/{n}", body=noise(300 * 1024, n), fetched_at=ago(age))
        for n, age in enumerate(ages)
    ]
    for item in reversed(pages):  # written newest first: age, not insertion order, decides
        assert await store.cache_put(item)
    assert await store.cache_evict() == 2
    assert stored_keys(database_url, tmp_path) == {item.key for item in pages[2:]}
    with raw_database(database_url, tmp_path) as db:
        total = PageCache.select(peewee.fn.SUM(PageCache.size)).scalar(db)
    assert 0 < total <= MIB
    assert await store.cache_evict() == 0


@pytest.mark.gen_test
async def test_eviction_in_batches_and_units(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    settings = CacheSettings(retention=3600, max_bytes=MIB)
    store = make_store()
    for number in range(5):
        await store.cache_put(page(f"https://example.com/old{number}", fetched_at=ago(7200)))
    bigs = [
        page(f"https://example.com/big{n}", body=noise(300 * 1024, n), fetched_at=ago(100 - n))
        for n in range(5)
    ]
    for item in bigs:
        await store.cache_put(item)

    def unit(batch: int) -> Eviction:
        with raw_database(database_url, tmp_path) as db:
            return run_unit(db, lambda d: evict(d, settings, budget_seconds=0, batch=batch))

    # With no time budget each call deletes one batch and says whether work is left.
    results = [unit(batch=2)]
    while not results[-1].complete:
        results.append(unit(batch=2))
    assert results == [Eviction(2, False), Eviction(2, False), Eviction(3, True)]
    assert stored_keys(database_url, tmp_path) == {item.key for item in bigs[2:]}

    # One row per batch: the size pass also stops and continues.
    await store.cache_put(bigs[0])
    await store.cache_put(bigs[1])
    assert [unit(batch=1) for _ in range(3)] == [
        Eviction(1, False),
        Eviction(1, True),
        Eviction(0, True),
    ]
    assert stored_keys(database_url, tmp_path) == {item.key for item in bigs[2:]}


@pytest.mark.gen_test
async def test_periodic_eviction_runs_until_close(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    store = make_store(retention=3600, eviction_interval=0.1)
    kept = page("https://example.com/kept")
    old = page("https://example.com/old", fetched_at=ago(7200))
    await store.cache_put(kept)
    await store.cache_put(old)
    store.start()
    for _ in range(60):
        await asyncio.sleep(0.05)
        if len(stored_keys(database_url, tmp_path)) == 1:
            break
    assert stored_keys(database_url, tmp_path) == {kept.key}

    # A second round runs too.
    await store.cache_put(old)
    for _ in range(60):
        await asyncio.sleep(0.05)
        if len(stored_keys(database_url, tmp_path)) == 1:
            break
    assert stored_keys(database_url, tmp_path) == {kept.key}

    await store.close()
    running = [
        task
        for task in asyncio.all_tasks()
        if task.get_coro().__qualname__ == "Store._repeat" and not task.done()
    ]
    assert running == []

    # Closing does not wait for the next round of a long interval.
    idle = make_store(eviction_interval=300.0)
    idle.start()
    await asyncio.sleep(0.05)
    started = time.monotonic()
    await idle.close()
    assert time.monotonic() - started < 1.0


def test_the_cache_and_the_frames_write_urls_alike_but_for_userinfo() -> None:
    for url in ("HTTP://Example.COM:80", "https://example.com:8443/a?b=1#c", "http://[::1]:80/x"):
        assert normalize_url(url) == frame_key(url)
    assert normalize_url("http://u:p@example.com/") == "http://u:p@example.com/"
    assert frame_key("http://u:p@example.com/") == "http://example.com/"
