"""The store's settings and opening its database: a SQLite file (embedded default) or Postgres.

Both backends are connection pools, so any thread may run a unit of work (:func:`run_unit`) and
every connection can be closed at shutdown (:func:`close_database`). Postgres connections that the
server dropped are replaced transparently outside transactions.
"""

from __future__ import annotations

import logging
import math
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar
from urllib.parse import urlsplit

import peewee
import psycopg2
from playhouse.pool import MaxConnectionsExceeded, PooledPostgresqlDatabase, PooledSqliteDatabase
from playhouse.shortcuts import ReconnectMixin

from settings.fields import setting

log = logging.getLogger(__name__)

T = TypeVar("T")

SQLITE_FILE = "pagecast.db"

#: Everything a database or its driver raises when it is unreachable, locked, slow or broken.
DATABASE_ERRORS: tuple[type[BaseException], ...] = (
    peewee.PeeweeException,
    psycopg2.Error,
    sqlite3.Error,
    MaxConnectionsExceeded,
)

# Idle Postgres connections older than this are replaced, so server-side limits never bite.
_STALE_SECONDS = 300


@dataclass
class StoreSettings:
    """Persistence: the database and the data folder."""

    SECTION: ClassVar[str] = "store"

    database_url: str = setting(
        "",
        "Empty: a SQLite file pagecast.db inside data_dir. Or sqlite:///PATH, or "
        "postgresql://USER[:PASSWORD]@HOST[:PORT]/DB.",
        secret=True,  # may hold a password
    )
    data_dir: str = setting(
        "data",
        "Folder for the SQLite database and screenshot images; relative paths are relative to "
        "the working directory.",
    )
    executor_threads: int = setting(
        4,
        "Threads that run database work so the server never waits on it; also the most "
        "database connections one process opens for requests.",
        min=1,
        max=64,
    )
    query_timeout: float = setting(
        10.0,
        "Seconds a database operation may take before the request gets an error; on Postgres "
        "also the server-side statement timeout.",
        min=0.5,
    )
    auth_cache_seconds: float = setting(
        10.0,
        "How long a looked-up API key is trusted before it is checked again; a revoked key stops "
        "working within this time.",
        min=0,
    )
    usage_flush_seconds: float = setting(
        2.0,
        "How often the usage counted in memory is added to the usage table.",
        min=0.1,
    )


class _PostgresDatabase(ReconnectMixin, PooledPostgresqlDatabase):  # type: ignore[misc]
    """A Postgres pool that replaces a connection the server dropped (restart, idle kill)."""

    # psycopg2's wording for a connection the server or the network closed.
    reconnect_errors = (
        (peewee.OperationalError, "server closed the connection"),
        (peewee.OperationalError, "terminating connection"),
        (peewee.OperationalError, "connection already closed"),
        (peewee.OperationalError, "could not receive data from server"),
        (peewee.OperationalError, "ssl connection has been closed"),
        (peewee.InterfaceError, "connection already closed"),
    )

    def _is_closed(self, conn: Any) -> bool:
        # The pool's default check costs a round trip per checkout; a dead connection is instead
        # caught by the reconnect logic on its first statement.
        return bool(conn.closed)


class _SqliteDatabase(PooledSqliteDatabase):  # type: ignore[misc]
    """A SQLite pool whose connections wait for a busy file while they are set up."""

    def __init__(self, path: str, *, busy_seconds: float, **kwargs: Any) -> None:
        self._busy_seconds = busy_seconds
        super().__init__(path, **kwargs)

    def _set_pragmas(self, conn: sqlite3.Connection) -> None:
        # Two processes switching a new file to WAL at once get "database is locked" at once,
        # the busy timeout notwithstanding; retry until it has passed.
        deadline = time.monotonic() + self._busy_seconds
        for name, value in self._pragmas:
            while True:
                try:
                    conn.execute(f"PRAGMA {name} = {value}")
                    break
                except sqlite3.OperationalError as exc:
                    if "locked" not in str(exc) or time.monotonic() > deadline:
                        raise
                    time.sleep(0.01)


def open_database(
    url: str,
    data_dir: str,
    *,
    connect_timeout: float = 5.0,
    query_timeout: float = 10.0,
    max_connections: int = 8,
) -> peewee.Database:
    """Make the database named by ``url``; nothing connects until the first unit of work.

    An empty ``url`` means the SQLite file ``pagecast.db`` inside ``data_dir`` (created if
    missing). ``sqlite:///PATH`` names another file (``sqlite:////abs/path`` for an absolute
    one); ``postgresql://`` or ``postgres://`` URLs name a Postgres database. SQLite runs in WAL
    mode with foreign keys on and waits up to ``query_timeout`` for a lock; Postgres gives up
    connecting after ``connect_timeout`` and cancels statements after ``query_timeout``.

    :raises ValueError: for any other scheme or an empty path.
    """
    url = url.strip()
    if not url:
        folder = Path(data_dir)
        folder.mkdir(parents=True, exist_ok=True)
        return _sqlite(str(folder / SQLITE_FILE), query_timeout, max_connections)
    scheme, separator, rest = url.partition("://")
    scheme = scheme.lower()
    if separator and scheme == "sqlite":
        # sqlite:///relative/file.db and sqlite:////absolute/file.db, as SQLAlchemy spells them.
        path = rest[1:] if rest.startswith("/") else rest
        if not path or path == ":memory:":
            raise ValueError("database_url: sqlite:///PATH needs the path of a database file")
        return _sqlite(path, query_timeout, max_connections)
    if separator and scheme in ("postgresql", "postgres"):
        return _postgres("postgresql://" + rest, connect_timeout, query_timeout, max_connections)
    shown = scheme if separator else "(none)"
    raise ValueError(
        f"database_url: unsupported scheme {shown}; use sqlite:///PATH or "
        "postgresql://USER[:PASSWORD]@HOST[:PORT]/DB"
    )


def _sqlite(path: str, query_timeout: float, max_connections: int) -> peewee.Database:
    # busy_timeout first, so switching to WAL also waits for a concurrent opener.
    pragmas = [
        ("busy_timeout", int(query_timeout * 1000)),
        ("journal_mode", "wal"),
        ("synchronous", "normal"),
        ("foreign_keys", 1),
    ]
    # Pooled connections move between executor threads, one thread at a time.
    return _SqliteDatabase(
        path,
        busy_seconds=query_timeout,
        pragmas=pragmas,
        max_connections=max_connections,
        timeout=query_timeout,
        check_same_thread=False,
    )


def _postgres(
    url: str, connect_timeout: float, query_timeout: float, max_connections: int
) -> peewee.Database:
    return _PostgresDatabase(
        url,
        max_connections=max_connections,
        stale_timeout=_STALE_SECONDS,
        timeout=query_timeout,
        # libpq counts whole seconds and treats anything below 2 as 2.
        connect_timeout=max(2, math.ceil(connect_timeout)),
        options=f"-c statement_timeout={int(query_timeout * 1000)}",
        application_name="pagecast",
        # A silent network partition must not pin the store's threads: TCP keepalives notice a
        # dead server within about a minute, and unacknowledged writes fail after 30 s.
        keepalives=1,
        keepalives_idle=30,
        keepalives_interval=10,
        keepalives_count=3,
        tcp_user_timeout=30_000,
    )


def local_folders(settings: StoreSettings, images_on_disk: bool) -> list[Path]:
    """The folders of this host the store writes to: the data folder, the SQLite file's folder
    when the database is one elsewhere, and the screenshot images' folder when they are kept on
    the filesystem (for readiness' free-space check)."""
    folders = [Path(settings.data_dir)]
    url = settings.database_url.strip()
    scheme, separator, rest = url.partition("://")
    if separator and scheme.lower() == "sqlite":
        path = rest[1:] if rest.startswith("/") else rest
        folders.append(Path(path).parent)
    if images_on_disk:
        folders.append(Path(settings.data_dir) / "screenshots")
    return folders


def describe_url(url: str, data_dir: str) -> str:
    """The database location for logs and messages, without any password."""
    url = url.strip()
    if not url:
        return f"sqlite:///{Path(data_dir) / SQLITE_FILE}"
    if not url.lower().startswith(("postgresql://", "postgres://")):
        return url
    parts = urlsplit(url)
    user = f"{parts.username}@" if parts.username else ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"postgresql://{user}{host}{port}{parts.path}"


def execute_sql(db: peewee.Database, sql: str, params: tuple[Any, ...] = ()) -> Any:
    """Run one SQL statement on ``db``; the driver's cursor (Peewee's method is untyped)."""
    return db.execute_sql(sql, params)  # type: ignore[no-untyped-call]


def is_sqlite(db: peewee.Database) -> bool:
    """True for the embedded SQLite backend."""
    return isinstance(db, peewee.SqliteDatabase)


def write_transaction(db: peewee.Database) -> Any:
    """A transaction that will write: on SQLite it takes the write lock up front, so it waits
    for a busy database instead of failing when a read turns into a write."""
    if is_sqlite(db):
        return db.atomic("IMMEDIATE")
    return db.atomic()


def run_unit(db: peewee.Database, work: Callable[[peewee.Database], T]) -> T:
    """Run ``work(db)`` on a pooled connection of the calling thread, then return it to the pool."""
    opened = db.connect(reuse_if_open=True)
    try:
        return work(db)
    finally:
        if opened:
            db.close()


def close_database(db: peewee.Database) -> None:
    """Close every pooled connection, idle or not; call only once no unit of work is running."""
    close_all = getattr(db, "close_all", None)
    if close_all is not None:
        close_all()
    elif not db.is_closed():
        db.close()
