"""Kept Markdown answers in the store: the round trip of body and headers, freshness by the age of
their page, a newer page version winning, damaged rows, the entry size limit, and eviction by
retention and by bytes, on a SQLite file and on a fresh Postgres database."""

from __future__ import annotations

import base64
import random
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import peewee
import pytest

from store.cache import MIB, CacheSettings, cache_key
from store.db import StoreSettings
from store.models import MarkdownResult
from store.results import StoredAnswer
from store.store import Store
from tests.conftest import raw_database

HEADERS = {"Content-Type": "text/markdown; charset=utf-8", "X-Markdown-Character-Count": "41"}


@pytest.fixture
def make_store(database_url: str, tmp_path: Path) -> Iterator[Callable[..., Store]]:
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


def ago(seconds: float) -> datetime:
    return datetime.now(UTC) - timedelta(seconds=seconds)


def answer(name: str = "a", body: str = "# Tide mills\n\nThe wheel turns. ü", **fields: Any):
    values: dict[str, Any] = {
        "key": cache_key(f"https://example.com/{name}", {"format": '"markdown"'}),
        "body": body,
        "headers": HEADERS,
        "page_version": "fetched 2026-01-01T00:00:00+00:00",
        "made_at": ago(10),
    }
    values.update(fields)
    return StoredAnswer(**values)


def noise(size: int, seed: int) -> str:
    """Text that hardly compresses: about ``size`` bytes stored for ``size * 4 // 3`` characters."""
    return base64.b64encode(random.Random(seed).randbytes(size)).decode()


def stored_keys(url: str, tmp_path: Path) -> set[str]:
    with raw_database(url, tmp_path) as db:
        return {key for (key,) in MarkdownResult.select(MarkdownResult.key).tuples().execute(db)}


@pytest.mark.gen_test
async def test_round_trip_keeps_body_and_headers(make_store: Callable[..., Store]) -> None:
    store = make_store()
    kept = answer()
    assert await store.answer_put(kept)
    found = await store.answer_get(kept.key)
    assert found is not None
    assert (found.body, found.headers, found.page_version) == (
        kept.body,
        HEADERS,
        kept.page_version,
    )
    assert abs((found.made_at - kept.made_at).total_seconds()) < 0.001
    assert await store.answer_get(answer("other").key) is None


@pytest.mark.gen_test
async def test_an_answer_is_as_old_as_its_page(make_store: Callable[..., Store]) -> None:
    store = make_store(default_max_age=3600, retention=7200)
    kept = answer(made_at=ago(1800))
    await store.answer_put(kept)
    assert await store.answer_get(kept.key) is not None  # the default age: one hour
    assert await store.answer_get(kept.key, 3000) is not None
    assert await store.answer_get(kept.key, 1000) is None
    assert await store.answer_get(kept.key, 0) is None
    assert await store.answer_get(kept.key, 10**9) is not None  # capped by retention, not past it
    old = answer("old", made_at=ago(8000))
    await store.answer_put(old)
    assert await store.answer_get(old.key, 10**9) is None


@pytest.mark.gen_test
async def test_a_newer_page_version_wins(make_store: Callable[..., Store]) -> None:
    store = make_store()
    older = answer(body="old text", page_version="fetched old", made_at=ago(100))
    newer = answer(body="new text", page_version="fetched new", made_at=ago(5))
    await store.answer_put(newer)
    await store.answer_put(older)  # a slow writer of an older page loses
    found = await store.answer_get(newer.key)
    assert found is not None and (found.body, found.page_version) == ("new text", "fetched new")
    newest = answer(body="newest", page_version="fetched newest", made_at=ago(1))
    await store.answer_put(newest)
    found = await store.answer_get(newer.key)
    assert found is not None and found.body == "newest"


@pytest.mark.gen_test
async def test_off_too_large_or_damaged(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    off = make_store(results=False)
    assert not await off.answer_put(answer())
    assert await off.answer_get(answer().key) is None
    store = make_store(max_entry_bytes=4096)
    assert not await store.answer_put(answer("big", body=noise(20_000, 1)))
    assert stored_keys(database_url, tmp_path) == set()
    kept = answer()
    assert await store.answer_put(kept)
    with raw_database(database_url, tmp_path) as db:
        MarkdownResult.update(answer=b"not zlib").execute(db)
    assert await store.answer_get(kept.key) is None


@pytest.mark.gen_test
async def test_eviction_by_retention_then_bytes_oldest_first(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    store = make_store(retention=3600, result_max_bytes=MIB)
    for number in range(3):
        await store.answer_put(answer(f"expired{number}", made_at=ago(7200)))
    ages = [500, 400, 300, 200, 100]  # the first is the oldest
    bigs = [
        answer(f"big{n}", body=noise(300 * 1024, n), made_at=ago(age)) for n, age in enumerate(ages)
    ]
    for item in reversed(bigs):  # written newest first: the page's age decides, not the write
        assert await store.answer_put(item)
    assert await store.cache_evict() == 3 + 2
    assert stored_keys(database_url, tmp_path) == {item.key for item in bigs[2:]}
    with raw_database(database_url, tmp_path) as db:
        total = MarkdownResult.select(peewee.fn.SUM(MarkdownResult.size)).scalar(db)
    assert 0 < total <= MIB
    assert await store.cache_evict() == 0
