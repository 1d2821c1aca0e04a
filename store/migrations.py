"""Schema migrations: numbered steps applied once each, in order, recorded in ``schema_version``.

:func:`migrate` is safe to run on every start, from several processes at once: the whole run is
one transaction holding a lock (Postgres: an advisory lock; SQLite: the write lock), so a second
process waits, then finds the steps applied and does nothing. Both backends run DDL inside
transactions, so a failed step leaves the schema as it was.

Adding to the schema means appending a step with the next number, never editing a shipped one.
Steps create tables from the models; a later step that adds a column to an existing model must
check that the column is missing first (``db.get_columns``), because a fresh database gets the
column from the model already.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import peewee

from store.db import execute_sql, is_sqlite, write_transaction
from store.models import (
    ApiKey,
    AsyncCapture,
    DomainStrategy,
    Frame,
    Job,
    JobPage,
    MarkdownResult,
    Organization,
    PageCache,
    SchemaVersion,
    Screenshot,
    Secret,
    Usage,
    WebhookEvent,
)

log = logging.getLogger(__name__)

# "pagecast" read as a 64-bit integer: the Postgres advisory lock that serializes migrations.
_LOCK_KEY = int.from_bytes(b"pagecast", "big")


@dataclass(frozen=True)
class Migration:
    """One schema step: its number, what it does, and the function that does it."""

    version: int
    description: str
    apply: Callable[[peewee.Database], None]


def create_tables(db: peewee.Database, models: Sequence[type[peewee.Model]]) -> None:
    """Create the tables and indexes of ``models`` (in the given order) on ``db``."""
    for model in models:
        peewee.SchemaManager(model, db).create_all(safe=True)


def _core_tables(db: peewee.Database) -> None:
    create_tables(db, [Organization, ApiKey, Usage])


def _page_cache(db: peewee.Database) -> None:
    create_tables(db, [PageCache])


def _domain_strategy(db: peewee.Database) -> None:
    create_tables(db, [DomainStrategy])


def _screenshots(db: peewee.Database) -> None:
    create_tables(db, [Screenshot])


def _frames(db: peewee.Database) -> None:
    create_tables(db, [Frame, Secret])


def _jobs(db: peewee.Database) -> None:
    create_tables(db, [Job, JobPage])


def _webhook_events(db: peewee.Database) -> None:
    create_tables(db, [WebhookEvent])


def _markdown_results(db: peewee.Database) -> None:
    create_tables(db, [MarkdownResult])


def _async_captures(db: peewee.Database) -> None:
    create_tables(db, [AsyncCapture])


def _job_result_sizes(db: peewee.Database) -> None:
    if "result_bytes" not in {column.name for column in db.get_columns("job_page")}:
        execute_sql(db, "ALTER TABLE job_page ADD COLUMN result_bytes BIGINT")


def _answer_pages(db: peewee.Database) -> None:
    if "page" not in {column.name for column in db.get_columns("markdown_result")}:
        execute_sql(db, "ALTER TABLE markdown_result ADD COLUMN page VARCHAR(64)")
        # Answers kept before this step name no page, so a newer version of their page could
        # not supersede them: they are dropped (a cache; the next request converts again).
        execute_sql(db, "DELETE FROM markdown_result")
    execute_sql(
        db,
        "CREATE INDEX IF NOT EXISTS markdown_result_page ON markdown_result (page)",
    )


_JOB_WEBHOOK_COLUMNS = (
    ("webhook_delivered", "INTEGER NOT NULL DEFAULT 0"),
    ("webhook_failed", "INTEGER NOT NULL DEFAULT 0"),
    ("webhook_error", "VARCHAR(200)"),
    ("webhook_error_at", "TIMESTAMP"),
)


def _job_webhook_outcomes(db: peewee.Database) -> None:
    present = {column.name for column in db.get_columns("job")}
    for name, kind in _JOB_WEBHOOK_COLUMNS:
        if name not in present:
            execute_sql(db, f"ALTER TABLE job ADD COLUMN {name} {kind}")


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "organizations, API keys and usage", _core_tables),
    Migration(2, "page cache", _page_cache),
    Migration(3, "learned per-domain fetch strategy", _domain_strategy),
    Migration(4, "screenshots", _screenshots),
    Migration(5, "hosted frames and installation secrets", _frames),
    Migration(6, "batch and crawl jobs and their pages", _jobs),
    Migration(7, "webhook events waiting to be delivered", _webhook_events),
    Migration(8, "Markdown answers kept for reuse", _markdown_results),
    Migration(9, "screenshots captured in the background", _async_captures),
    Migration(10, "the size of each job page's stored result", _job_result_sizes),
    Migration(11, "the page each kept Markdown answer was converted from", _answer_pages),
    Migration(12, "each job's webhook deliveries and failures", _job_webhook_outcomes),
)


def latest_version() -> int:
    """The schema version this code expects."""
    return MIGRATIONS[-1].version


def migrate(db: peewee.Database, steps: Sequence[Migration] = MIGRATIONS) -> int:
    """Create or upgrade the schema of ``db``; return the schema version afterwards.

    Runs on the calling thread's connection and needs it open (see :func:`store.db.run_unit`).
    """
    with write_transaction(db):
        if not is_sqlite(db):
            # Schema work and waiting for another migrating process may outlast a query.
            execute_sql(db, "SET LOCAL statement_timeout = 0")
            execute_sql(db, "SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        create_tables(db, [SchemaVersion])
        applied = {
            version
            for (version,) in SchemaVersion.select(SchemaVersion.version).tuples().execute(db)
        }
        for step in sorted(steps, key=lambda item: item.version):
            if step.version in applied:
                continue
            log.info("applying schema step %d: %s", step.version, step.description)
            step.apply(db)
            SchemaVersion.insert(version=step.version, description=step.description).execute(db)
            applied.add(step.version)
    current = max(applied, default=0)
    known = max((step.version for step in steps), default=0)
    if current > known:
        # Steps only add, so older code keeps working during a rolling upgrade.
        log.warning(
            "the database schema (version %d) is newer than this Pagecast (version %d)",
            current,
            known,
        )
    return current
