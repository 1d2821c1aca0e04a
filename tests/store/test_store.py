"""The store: schema migrations, API keys, authentication, usage accounting and health, on a
SQLite file and on a fresh Postgres database."""

from __future__ import annotations

import asyncio
import hashlib
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import peewee
import psycopg2
import pytest

from settings.fields import build_section
from store import keys
from store.db import StoreSettings, close_database, open_database, run_unit
from store.migrations import MIGRATIONS, Migration, create_tables, latest_version, migrate
from store.models import ApiKey, BaseModel, SchemaVersion, Usage
from store.store import Store, StoreUnavailable
from tests.conftest import raw_database

SAFE_MESSAGES = {"the database is unavailable", "the database did not answer in time"}


@pytest.fixture
def make_store(database_url: str, tmp_path: Path) -> Iterator[Callable[..., Store]]:
    """Open stores on the test database; every one is closed at the end."""
    stores: list[Store] = []

    def make(**overrides: Any) -> Store:
        settings = StoreSettings(
            database_url=database_url, data_dir=str(tmp_path / "data"), **overrides
        )
        store = Store(settings)
        stores.append(store)
        store.open()
        return store

    yield make
    for store in stores:
        store.close_sync()


@contextmanager
def usage_table_locked(url: str) -> Iterator[None]:
    """Another connection holds the lock a usage write needs, until the block ends."""
    if url.startswith("sqlite:///"):
        conn = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
        conn.execute("BEGIN EXCLUSIVE")
        try:
            yield
        finally:
            conn.execute("ROLLBACK")
            conn.close()
        return
    pg = psycopg2.connect(url, connect_timeout=5)
    try:
        with pg.cursor() as cur:
            cur.execute('LOCK TABLE "usage" IN ACCESS EXCLUSIVE MODE')
        yield
    finally:
        pg.rollback()
        pg.close()


def totals(store: Store, org: str) -> tuple[int, int]:
    rows = store.usage(org=org)
    return sum(row.requests for row in rows), sum(row.credits for row in rows)


def this_month() -> str:
    return datetime.now(UTC).strftime("%Y-%m")


# -- settings and opening ------------------------------------------------------------------------


def test_settings_defaults_and_bounds() -> None:
    problems: list[str] = []
    prefix = "PAGECAST_STORE_"
    settings = build_section(
        StoreSettings, table={}, environ={}, env_prefix=prefix, label="store", problems=problems
    )
    assert problems == []
    assert settings == StoreSettings()
    assert settings.database_url == ""
    assert settings.auth_cache_seconds == 10.0
    build_section(
        StoreSettings,
        table={"executor_threads": 0, "query_timeout": 0.1, "usage_flush_seconds": 0.0},
        environ={"PAGECAST_STORE_AUTH_CACHE_SECONDS": "-1"},
        env_prefix=prefix,
        label="store",
        problems=problems,
    )
    assert len(problems) == 4


def test_default_database_is_a_sqlite_file_in_data_dir(tmp_path: Path) -> None:
    data_dir = tmp_path / "new" / "data"
    with Store(StoreSettings(data_dir=str(data_dir))) as store:
        store.create_key("acme", "free")
    assert (data_dir / "pagecast.db").is_file()
    conn = sqlite3.connect(data_dir / "pagecast.db")
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    conn.close()


@pytest.mark.parametrize(
    "url", ["mysql://root@localhost/pagecast", "sqlite:///", "sqlite:///:memory:", "pagecast.db"]
)
def test_open_database_rejects_what_it_cannot_serve(url: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="database_url"):
        open_database(url, str(tmp_path))


def test_open_database_never_shows_the_password(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as info:
        open_database("mssql://admin:hunter2@db/pagecast", str(tmp_path))
    assert "hunter2" not in str(info.value)


# -- migrations ----------------------------------------------------------------------------------


def test_migrate_is_idempotent(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    first = make_store()
    issued = first.create_key("acme", "free")
    first.open()
    second = make_store()
    assert [row.prefix for row in second.list_keys()] == [issued.prefix]
    with raw_database(database_url, tmp_path) as db:
        assert migrate(db) == latest_version()
        assert migrate(db) == latest_version()
        versions = [v for (v,) in SchemaVersion.select(SchemaVersion.version).tuples().execute(db)]
        assert versions == [step.version for step in MIGRATIONS]
        assert {"organization", "api_key", "usage", "schema_version"} <= set(db.get_tables())


def test_migrate_from_two_processes_at_once(database_url: str, tmp_path: Path) -> None:
    barrier = threading.Barrier(2)
    results: list[int] = []
    errors: list[BaseException] = []

    def run() -> None:
        db = open_database(database_url, str(tmp_path / "data"))
        try:
            barrier.wait()
            results.append(run_unit(db, migrate))
        except BaseException as exc:
            errors.append(exc)
        finally:
            close_database(db)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert results == [latest_version(), latest_version()]
    with raw_database(database_url, tmp_path) as db:
        assert SchemaVersion.select().count(db) == len(MIGRATIONS)


class Widget(BaseModel):
    """A table a later schema version might add."""

    name = peewee.CharField()


def test_a_later_step_adds_a_table(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    make_store()
    later = (
        *MIGRATIONS,
        Migration(latest_version() + 1, "widgets", lambda db: create_tables(db, [Widget])),
    )
    with raw_database(database_url, tmp_path) as db:
        assert "widget" not in db.get_tables()
        assert migrate(db, later) == latest_version() + 1
        assert migrate(db, later) == latest_version() + 1
        assert "widget" in db.get_tables()
        Widget.insert(name="kept").execute(db)
        # Older code on a newer schema keeps working.
        assert migrate(db) == latest_version() + 1
        assert Widget.select().count(db) == 1


# -- keys ----------------------------------------------------------------------------------------


def test_create_list_and_revoke_keys(make_store: Callable[..., Store]) -> None:
    store = make_store()
    first = store.create_key("acme", "free")
    assert keys.is_well_formed(first.key)
    assert first.prefix == first.key[:11]
    assert first.prefix.startswith("pc_")
    assert (first.org, first.plan) == ("acme", "free")
    second = store.create_key("acme", "pro")
    other = store.create_key("beta", "free")
    assert len({first.key, second.key, other.key}) == 3

    rows = store.list_keys()
    assert [row.prefix for row in rows] == [first.prefix, second.prefix, other.prefix]
    # The plan belongs to the organization: issuing with another plan changed it.
    assert [(row.org, row.plan) for row in rows] == [
        ("acme", "pro"),
        ("acme", "pro"),
        ("beta", "free"),
    ]
    assert all(row.revoked_at is None for row in rows)
    assert all(row.created_at.tzinfo is UTC for row in rows)

    before = datetime.now(UTC)
    assert store.revoke_key(first.prefix) is True
    assert store.revoke_key(first.prefix) is False
    assert store.revoke_key("pc_nothere") is False
    revoked = {row.prefix: row.revoked_at for row in store.list_keys()}
    revoked_at = revoked[first.prefix]
    assert revoked_at is not None
    assert revoked_at >= before.replace(microsecond=0)
    assert revoked[second.prefix] is None


def test_create_key_checks_names(make_store: Callable[..., Store]) -> None:
    store = make_store()
    with pytest.raises(ValueError, match="organization"):
        store.create_key("  ", "free")
    with pytest.raises(ValueError, match="plan"):
        store.create_key("acme", "")
    assert store.list_keys() == []


def test_only_the_hash_is_stored(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    store = make_store()
    issued = store.create_key("acme", "free")
    with raw_database(database_url, tmp_path) as db:
        rows = db.execute_sql("SELECT * FROM api_key").fetchall()
    assert len(rows) == 1
    stored = [str(value) for value in rows[0]]
    assert hashlib.sha256(issued.key.encode()).hexdigest() in stored
    assert issued.prefix in stored
    assert not any(issued.key in value for value in stored)


def test_prefixes_stay_unique(
    make_store: Callable[..., Store],
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = make_store()
    taken = "pc_SAMEPREF" + "a" * 24
    clash = "pc_SAMEPREF" + "b" * 24
    fresh = "pc_OTHERPRE" + "c" * 24
    drawn = iter([taken, clash, fresh])
    monkeypatch.setattr(keys, "new_key", lambda: next(drawn))
    assert store.create_key("acme", "free").key == taken
    # The second draw shares the prefix of the first, so another key is drawn.
    issued = store.create_key("beta", "free")
    assert (issued.key, issued.prefix) == (fresh, "pc_OTHERPRE")
    assert sorted(row.prefix for row in store.list_keys()) == ["pc_OTHERPRE", "pc_SAMEPREF"]
    with raw_database(database_url, tmp_path) as db, pytest.raises(peewee.IntegrityError):
        ApiKey.insert(key_hash="0" * 64, prefix="pc_SAMEPREF", org=1).execute(db)


# -- authentication ------------------------------------------------------------------------------


@pytest.mark.gen_test
async def test_authenticate_valid_unknown_and_malformed(make_store: Callable[..., Store]) -> None:
    store = make_store()
    issued = store.create_key("acme", "pro")
    info = await store.authenticate(issued.key)
    assert info is not None
    assert (info.prefix, info.org, info.plan) == (issued.prefix, "acme", "pro")
    assert info.org_id > 0
    assert await store.authenticate(keys.new_key()) is None
    assert await store.authenticate(issued.key + "x") is None
    assert await store.authenticate("") is None
    assert await store.authenticate(issued.prefix) is None


@pytest.mark.gen_test
async def test_revoked_key_stops_working(make_store: Callable[..., Store]) -> None:
    uncached = make_store(auth_cache_seconds=0)
    cached = make_store(auth_cache_seconds=60)
    operator = make_store(auth_cache_seconds=60)
    issued = operator.create_key("acme", "free")
    for store in (uncached, cached, operator):
        assert await store.authenticate(issued.key) is not None

    assert operator.revoke_key(issued.prefix)
    assert await uncached.authenticate(issued.key) is None
    # The store that revoked forgets the key at once...
    assert await operator.authenticate(issued.key) is None
    # ...another one trusts its cached lookup until it expires.
    assert await cached.authenticate(issued.key) is not None


@pytest.mark.gen_test
async def test_a_key_found_by_its_prefix_is_forgotten_when_revoked(
    make_store: Callable[..., Store],
) -> None:
    """Signed links name their key by prefix: found so while active, remembered like a key,
    forgotten at once by the store that revokes it; an installation secret is one per name."""
    operator = make_store(auth_cache_seconds=60)
    issued = operator.create_key("acme", "free")
    found = await operator.key_by_prefix(issued.prefix)
    assert found is not None and (found.prefix, found.org) == (issued.prefix, "acme")
    assert await operator.key_by_prefix("pc_unknown0") is None
    assert operator.revoke_key(issued.prefix)
    assert await operator.key_by_prefix(issued.prefix) is None
    other = make_store(auth_cache_seconds=0)
    assert await other.key_by_prefix(issued.prefix) is None
    link = await operator.installation_secret("link_signing")
    assert len(link) == 64 and await other.installation_secret("link_signing") == link
    assert await operator.installation_secret("frame_secret") != link


@pytest.mark.gen_test
async def test_fresh_key_works_at_once(
    make_store: Callable[..., Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = make_store(auth_cache_seconds=60)
    cli = make_store(auth_cache_seconds=60)
    # Never looked up before: works right away.
    issued = cli.create_key("acme", "free")
    assert await server.authenticate(issued.key) is not None

    # Looked up (and missed) just before it was issued: the miss is forgotten within a second.
    key = keys.new_key()
    monkeypatch.setattr(keys, "new_key", lambda: key)
    assert await server.authenticate(key) is None
    assert await cli.authenticate(key) is None
    cli.create_key("acme", "free")
    assert await cli.authenticate(key) is not None  # the issuing store forgets its miss
    await asyncio.sleep(1.05)
    assert await server.authenticate(key) is not None


# -- usage ---------------------------------------------------------------------------------------


@pytest.mark.gen_test
async def test_usage_is_aggregated_and_flushed(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    store = make_store()
    acme = store.create_key("acme", "free")
    store.create_key("beta", "free")
    assert await store.flush_usage() == 0
    store.record_usage("acme", "screenshot", 1)
    store.record_usage("acme", "screenshot", 1)
    store.record_usage("acme", "markdown", 3)
    store.record_usage("beta", "markdown", 0)
    assert store.pending_usage() == 3
    assert store.usage() == []
    assert await store.flush_usage() == 3
    assert store.pending_usage() == 0

    # A second flush adds to the existing row.
    store.record_usage("acme", "screenshot", 2)
    assert await store.flush_usage() == 1
    today = datetime.now(UTC).date()
    rows = store.usage(org="acme")
    assert [(r.endpoint, r.day, r.requests, r.credits) for r in rows] == [
        ("markdown", today, 1, 3),
        ("screenshot", today, 3, 4),
    ]
    assert [(r.org, r.endpoint) for r in store.usage(month=this_month())] == [
        ("acme", "markdown"),
        ("acme", "screenshot"),
        ("beta", "markdown"),
    ]

    info = await store.authenticate(acme.key)
    assert info is not None
    with raw_database(database_url, tmp_path) as db:
        Usage.insert(
            org=info.org_id, endpoint="markdown", day=date(2024, 2, 29), requests=7, credits=9
        ).execute(db)
    old = store.usage(month="2024-02")
    assert [(r.org, r.endpoint, r.day, r.requests, r.credits) for r in old] == [
        ("acme", "markdown", date(2024, 2, 29), 7, 9)
    ]
    assert store.usage(org="beta", month="2024-02") == []
    assert store.usage(month="2024-03") == []
    assert store.usage(org="nobody") == []
    assert len(store.usage()) == 4
    with pytest.raises(ValueError, match="month"):
        store.usage(month="2024-13")
    with pytest.raises(ValueError, match="credits"):
        store.record_usage("acme", "markdown", -1)


@pytest.mark.gen_test
async def test_failed_flush_keeps_the_counts(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    store = make_store()
    store.create_key("acme", "free")
    store.record_usage("acme", "markdown", 2)
    store.record_usage("acme", "oembed", 1)
    with raw_database(database_url, tmp_path) as db:
        db.execute_sql('ALTER TABLE "usage" RENAME TO usage_away')
        with pytest.raises(StoreUnavailable) as info:
            await store.flush_usage()
        assert str(info.value) in SAFE_MESSAGES
        assert store.pending_usage() == 2
        store.record_usage("acme", "markdown", 5)  # counted while the database is away
        db.execute_sql('ALTER TABLE usage_away RENAME TO "usage"')
    assert await store.flush_usage() == 2
    assert store.pending_usage() == 0
    assert totals(store, "acme") == (3, 8)


@pytest.mark.gen_test
async def test_slow_flush_counts_nothing_twice(
    make_store: Callable[..., Store], database_url: str
) -> None:
    store = make_store(query_timeout=0.5)
    store.create_key("acme", "free")
    store.record_usage("acme", "markdown", 2)
    with usage_table_locked(database_url):
        started = time.monotonic()
        with pytest.raises(StoreUnavailable) as info:
            await store.flush_usage()
        assert time.monotonic() - started < 2.0
        assert str(info.value) in SAFE_MESSAGES
        store.record_usage("acme", "markdown", 3)
    # The stuck write either failed (its rows came back) or finished late (they are stored).
    await store.flush_usage()
    assert store.pending_usage() == 0
    assert totals(store, "acme") == (2, 5)


@contextmanager
def usage_writes_locked(url: str) -> Iterator[None]:
    """Another connection keeps usage writes waiting, reads not, until the block ends."""
    if url.startswith("sqlite:///"):
        with usage_table_locked(url):  # the write lock; WAL readers go on
            yield
        return
    pg = psycopg2.connect(url, connect_timeout=5)
    try:
        with pg.cursor() as cur:
            cur.execute('LOCK TABLE "usage" IN EXCLUSIVE MODE')  # plain reads still pass
        yield
    finally:
        pg.rollback()
        pg.close()


@pytest.mark.gen_test
async def test_credits_being_flushed_still_count(make_store: Callable[..., Store]) -> None:
    """Usage taken by a flush whose write has not committed yet is neither in memory's count
    nor in the database's: the month's credits still count it, once."""
    store = make_store(query_timeout=5.0)
    store.create_key("acme", "free")
    store.record_usage("acme", "markdown", 1)
    await store.flush_usage()
    store.record_usage("acme", "markdown", 2)
    with usage_writes_locked(store.settings.database_url):
        flush = asyncio.ensure_future(store.flush_usage())
        for _ in range(500):
            if not store.pending_usage():
                break
            await asyncio.sleep(0.01)
        # Taken from memory, its write waiting for the lock.
        assert not store.pending_usage() and not flush.done()
        assert await store.month_credits("acme", fresh=True) == 3
        assert await store.month_requests("acme", "markdown") == 2
    assert await flush == 1
    assert await store.month_credits("acme", fresh=True) == 3
    assert await store.month_requests("acme", "markdown") == 2


@pytest.mark.gen_test
async def test_periodic_flush_and_close(
    make_store: Callable[..., Store], database_url: str, tmp_path: Path
) -> None:
    store = make_store(usage_flush_seconds=0.1)
    store.create_key("acme", "free")
    store.start()
    store.record_usage("acme", "screenshot", 1)
    for _ in range(60):
        await asyncio.sleep(0.05)
        if store.usage():
            break
    assert totals(store, "acme") == (1, 1)
    store.record_usage("acme", "screenshot", 4)
    await store.close()
    await store.close()
    assert await store.ping() is False
    with pytest.raises(StoreUnavailable, match="closed"):
        await store.authenticate(keys.new_key())
    reader = make_store()
    assert totals(reader, "acme") == (2, 5)


# -- health and failures -------------------------------------------------------------------------


@pytest.mark.gen_test
async def test_ping(make_store: Callable[..., Store]) -> None:
    store = make_store()
    assert await store.ping() is True
    assert await Store(StoreSettings()).ping() is False  # never opened


@pytest.mark.gen_test
async def test_unreachable_database(database_url: str, tmp_path: Path) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        if database_url.startswith("postgresql://"):
            port = closed.getsockname()[1]
            url = f"postgresql://postgres:s3cret@127.0.0.1:{port}/pagecast"
        else:
            blocker = tmp_path / "blocker"
            blocker.write_text("a file where a folder should be")
            url = f"sqlite:///{blocker / 'pagecast.db'}"
        store = Store(StoreSettings(database_url=url, data_dir=str(tmp_path), query_timeout=1.0))
        with pytest.raises(StoreUnavailable) as info:
            store.open()
        assert "s3cret" not in str(info.value)
        started = time.monotonic()
        assert await store.ping() is False
        assert time.monotonic() - started < 3.0
        with pytest.raises(StoreUnavailable) as lookup:
            await store.authenticate(keys.new_key())
        assert str(lookup.value) in SAFE_MESSAGES
        store.record_usage("acme", "markdown", 1)
        with pytest.raises(StoreUnavailable):
            await store.flush_usage()
        assert store.pending_usage() == 1
        await store.close()


@pytest.mark.gen_test
async def test_hung_database_does_not_hold_up_ping(tmp_path: Path) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # accepts connections and never answers
        port = silent.getsockname()[1]
        url = f"postgresql://postgres@127.0.0.1:{port}/pagecast"
        store = Store(StoreSettings(database_url=url, data_dir=str(tmp_path), query_timeout=0.5))
        with pytest.raises(StoreUnavailable):
            await asyncio.get_running_loop().run_in_executor(None, store.open)
        started = time.monotonic()
        assert await store.ping() is False
        assert time.monotonic() - started < 1.5
        await store.close()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
@pytest.mark.gen_test
async def test_reconnects_after_the_server_drops_connections(
    make_store: Callable[..., Store], database_url: str
) -> None:
    store = make_store(auth_cache_seconds=0)
    issued = store.create_key("acme", "free")

    def drop_connections() -> None:
        admin = psycopg2.connect(database_url, connect_timeout=5)
        admin.autocommit = True
        with admin.cursor() as cur:
            cur.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            assert cur.fetchall()
        admin.close()
        time.sleep(0.1)

    assert await store.authenticate(issued.key) is not None
    drop_connections()
    assert await store.authenticate(issued.key) is not None
    drop_connections()
    assert await store.ping() is True
    store.record_usage("acme", "markdown", 1)
    drop_connections()
    assert await store.flush_usage() == 1
    drop_connections()
    assert totals(store, "acme") == (1, 1)
