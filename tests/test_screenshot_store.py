"""Stored screenshots on SQLite and Postgres: files and rows together, reuse by request hash
while the link has time left, expiry and the janitor."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from store.db import StoreSettings
from store.screenshots import ImageFiles, ScreenshotStore
from store.store import Store


@pytest.fixture
def shots(database_url: str, tmp_path: Path) -> Iterator[ScreenshotStore]:
    store = Store(StoreSettings(database_url=database_url, data_dir=str(tmp_path / "data")))
    store.open()
    store.create_key("acme", "free")
    yield ScreenshotStore(store, ImageFiles(tmp_path / "images"))
    store.close_sync()


def fields(**overrides: object) -> dict[str, object]:
    values: dict[str, object] = {
        "org_id": 1,
        "request_hash": "a" * 64,
        "extension": "png",
        "width": 10,
        "height": 20,
        "host": "example.com",
        "response_code": 200,
    }
    values.update(overrides)
    return values


@pytest.mark.gen_test(timeout=20)
async def test_save_find_read(shots: ScreenshotStore, tmp_path: Path) -> None:
    record = await shots.save(b"\x89PNG fake", **fields())
    assert len(record.token) == 32 and record.content_type == "image/png"
    assert record.expires_at - record.created_at == timedelta(hours=24)
    found = await shots.find(record.token)
    assert found == record
    assert await shots.read(record) == b"\x89PNG fake"
    assert (tmp_path / "images" / record.filename).exists()
    assert await shots.find("0" * 32) is None


@pytest.mark.gen_test(timeout=20)
async def test_reuse_needs_time_left(shots: ScreenshotStore) -> None:
    now = datetime.now(UTC)
    await shots.save(b"old", **fields(), now=now - timedelta(hours=23, minutes=30))
    assert await shots.reusable(1, "a" * 64, timedelta(hours=1)) is None
    fresh = await shots.save(b"new", **fields())
    assert (await shots.reusable(1, "a" * 64, timedelta(hours=1))) == fresh
    assert await shots.reusable(1, "b" * 64, timedelta(hours=1)) is None
    assert await shots.reusable(2, "a" * 64, timedelta(hours=1)) is None  # another organization


@pytest.mark.gen_test(timeout=20)
async def test_janitor_removes_expired_files_and_rows(
    shots: ScreenshotStore, tmp_path: Path
) -> None:
    old = await shots.save(b"old", **fields(), now=datetime.now(UTC) - timedelta(hours=25))
    live = await shots.save(b"live", **fields(request_hash="c" * 64))
    assert await shots.sweep() == 1
    assert await shots.find(old.token) is None
    assert not (tmp_path / "images" / old.filename).exists()
    assert await shots.find(live.token) == live
    assert await shots.sweep() == 0


def test_file_names_cannot_escape_the_folder(tmp_path: Path) -> None:
    files = ImageFiles(tmp_path)
    for name in ("../x.png", ".hidden", "a/b.png"):
        with pytest.raises(ValueError):
            files.read(name)
