"""Stored screenshots on SQLite and Postgres: files and rows together, reuse by request hash
while the link has time left, expiry and the janitor, and storage calls that fail or hang."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from handlers.base import REQUEST_ID, RequestIdFilter
from store.db import StoreSettings
from store.images import ImageFiles, ImageStorageError
from store.screenshots import ScreenshotStore
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


class SlowDisk(ImageFiles):
    """Files on a disk that has stopped answering (a hung network mount)."""

    call_timeout = 0.3

    def write(self, name: str, data: bytes) -> None:
        time.sleep(2)
        super().write(name, data)


@pytest.mark.gen_test(timeout=10)
async def test_a_hung_storage_is_cut_off(shots: ScreenshotStore, tmp_path: Path) -> None:
    shots.files = SlowDisk(tmp_path / "slow")
    started = time.monotonic()
    with pytest.raises(ImageStorageError):
        await shots.save(b"\x89PNG", **fields())
    assert time.monotonic() - started < 1.5
    assert await shots.reusable(1, "a" * 64, timedelta(hours=1)) is None


@pytest.mark.gen_test(timeout=10)
async def test_storage_failures_are_logged_with_the_request_id(
    shots: ScreenshotStore, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the image folder should be")
    shots.files = ImageFiles(blocked)
    caplog.handler.addFilter(RequestIdFilter())
    REQUEST_ID.set("req-4242-abcd")
    with pytest.raises(ImageStorageError):
        await shots.save(b"\x89PNG", **fields())
    failures = [record for record in caplog.records if "image write failed" in record.message]
    assert failures and all(
        getattr(record, "request_id", None) == "req-4242-abcd" for record in failures
    )
