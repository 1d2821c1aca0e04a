"""Frame rows on SQLite and Postgres: upsert by embed_id, lookups scoped to the organization,
listing newest first with cursors, deletion, the installation secret, and survival across a
restart of the store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import peewee
import pytest

from store.db import StoreSettings
from store.frames import (
    BadCursorError,
    by_embed_id,
    by_hashes,
    decode_cursor,
    delete,
    listing,
    upsert,
)
from store.installation import installation_secret
from store.models import Organization
from store.store import Store
from tests.conftest import raw_database


@pytest.fixture
def store(database_url: str, tmp_path: Path) -> Iterator[Store]:
    store = Store(StoreSettings(database_url=database_url, data_dir=str(tmp_path / "data")))
    store.open()
    yield store
    store.close_sync()


def fields(org_id: int, n: int, **changes: Any) -> dict[str, Any]:
    base = {
        "embed_id": f"00000000-0000-5000-8000-{n:012d}",
        "org": org_id,
        "customer_hash": f"{org_id:016x}",
        "params_hash": f"{n:032x}",
        "url": f"https://example.com/{n}",
        "template": "default",
        "theme": "auto",
        "orientation": "vertical",
        "width": 800,
        "height": 600,
        "maxwidth": None,
        "maxheight": None,
        "metadata": {"title": f"Page {n}", "site_name": "Example"},
        "html": f"<iframe src='x/{n}'></iframe>",
    }
    return base | changes


def org_id(db: peewee.Database, name: str) -> int:
    return int(Organization.select().where(Organization.name == name).get(db).id)


def test_frames_round_trip(store: Store, database_url: str, tmp_path: Path) -> None:
    store.create_key("acme", "free")
    store.create_key("globex", "pro")
    with raw_database(database_url, tmp_path) as db:
        check_frames(db)
    store.close_sync()
    again = Store(StoreSettings(database_url=database_url, data_dir=str(tmp_path / "data")))
    again.open()  # a restart: migrations find everything in place
    again.close_sync()
    with raw_database(database_url, tmp_path) as db:
        assert listing(db, org_id(db, "acme"), 10, None).total == 4


def check_frames(db: peewee.Database) -> None:
    acme, globex = org_id(db, "acme"), org_id(db, "globex")
    made = [upsert(db, fields(acme, n), refreshed=False) for n in range(5)]
    upsert(db, fields(globex, 99), refreshed=False)
    assert made[0].plan == "free" and made[0].metadata["title"] == "Page 0"

    updated = upsert(db, fields(acme, 0, metadata={"title": "New"}), refreshed=True)
    assert updated.created_at == made[0].created_at and updated.metadata == {"title": "New"}
    assert updated.refreshed_at >= made[0].refreshed_at

    assert by_embed_id(db, acme, made[1].embed_id) is not None
    assert by_embed_id(db, globex, made[1].embed_id) is None
    assert by_hashes(db, made[2].customer_hash, made[2].params_hash).embed_id == made[2].embed_id

    seen, cursor = [], None
    while True:
        page = listing(db, acme, 2, cursor)
        assert page.total == 5
        seen += [frame.embed_id for frame in page.frames]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == [frame.embed_id for frame in made][::-1]
    with pytest.raises(BadCursorError):
        decode_cursor("not-a-cursor")

    assert delete(db, globex, made[3].embed_id) is None
    assert delete(db, acme, made[3].embed_id) is not None
    assert by_embed_id(db, acme, made[3].embed_id) is None

    secret = installation_secret(db)
    assert len(secret) == 64 and installation_secret(db) == secret
