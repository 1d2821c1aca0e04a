"""The learned per-domain fetch strategy in the store: remembered, replaced, expiring and
bounded, on SQLite and on Postgres."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from store.db import StoreSettings, close_database, open_database
from store.models import DomainStrategy, utc_now
from store.store import Store
from store.strategy import Strategy


@pytest.fixture
def store(database_url: str, tmp_path: Path) -> Iterator[Store]:
    store = Store(StoreSettings(database_url=database_url, data_dir=str(tmp_path / "data")))
    store.open()
    yield store
    store.close_sync()


@pytest.mark.gen_test(timeout=20)
async def test_remember_and_replace(store: Store) -> None:
    assert await store.strategy_get("example.com", 3600) is None
    await store.strategy_put("example.com", "premium")
    assert await store.strategy_get("example.com", 3600) == Strategy("premium")
    await store.strategy_put("example.com", "standard")
    assert await store.strategy_get("example.com", 3600) == Strategy("standard")
    assert await store.strategy_get("other.example", 3600) is None


@pytest.mark.gen_test(timeout=20)
async def test_expired_strategy_is_not_used(
    store: Store, database_url: str, tmp_path: Path
) -> None:
    await store.strategy_put("old.example", "superior")
    db = open_database(database_url, str(tmp_path / "data"))
    try:
        DomainStrategy.update(updated_at=utc_now() - timedelta(hours=2)).execute(db)
    finally:
        close_database(db)
    assert await store.strategy_get("old.example", 3600) is None
    assert await store.strategy_get("old.example", 3 * 3600) == Strategy("superior")


@pytest.mark.gen_test(timeout=30)
async def test_table_is_bounded_forgetting_the_least_recent(store: Store) -> None:
    for index in range(5):
        await store.strategy_put(f"d{index}.example", "standard", max_domains=3)
    remembered = [
        name for name in (f"d{i}.example" for i in range(5)) if await store.strategy_get(name, 3600)
    ]
    assert remembered == ["d2.example", "d3.example", "d4.example"]
