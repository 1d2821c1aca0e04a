"""Tables of kept bodies bounded in bytes (the page cache, the kept Markdown answers): the write
where the newer copy wins, and the eviction (rows older than a retention first, then the oldest
until the bodies fit a byte bound, in short transactions of a batch each, within a time
budget)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import peewee

from store.db import write_transaction
from store.models import utc_now


@dataclass(frozen=True, slots=True)
class Eviction:
    """What one eviction unit did: rows deleted, and whether nothing is left to delete."""

    deleted: int
    complete: bool


def put_newer(
    db: peewee.Database, model: Any, row: dict[Any, Any], *, written: peewee.Field
) -> None:
    """Insert ``row``, or replace the row under its key when that one was ``written`` no later:
    of two writers racing, the copy written later wins, whichever commits last."""
    columns = [column for column in row if column is not model.key]
    with write_transaction(db):
        model.insert(row).on_conflict(
            conflict_target=[model.key],
            preserve=columns,
            where=(written <= getattr(peewee.EXCLUDED, written.column_name)),
        ).execute(db)


def evict_oldest(
    db: peewee.Database,
    model: Any,
    *,
    written: peewee.Field,
    retention_seconds: float,
    max_bytes: int,
    budget_seconds: float,
    batch: int,
) -> Eviction:
    """Delete ``model``'s rows ``written`` more than ``retention_seconds`` ago, then the least
    recently written until their ``size`` totals at most ``max_bytes``.

    Deletes ``batch`` rows per statement, each in its own short transaction, oldest first by the
    ``written`` index. Stops starting batches once ``budget_seconds`` have passed (after at least
    one); the result then says the work is not complete and a new call continues it. A row
    written again since it was chosen is newer and stays."""
    deadline = time.monotonic() + budget_seconds
    deleted = 0
    cutoff = utc_now() - timedelta(seconds=retention_seconds)
    while True:
        oldest = model.select(model.key).where(written < cutoff).order_by(written).limit(batch)
        with write_transaction(db):
            count = model.delete().where(model.key.in_(oldest)).execute(db)
        deleted += count
        if count < batch:
            break
        if time.monotonic() >= deadline:
            return Eviction(deleted, complete=False)
    total = model.select(peewee.fn.COALESCE(peewee.fn.SUM(model.size), 0)).scalar(db)
    excess = int(total) - max_bytes
    while excess > 0:
        rows = (
            model.select(model.key, model.size, written)
            .order_by(written, model.key)
            .limit(batch)
            .tuples()
            .execute(db)
        )
        chosen: list[str] = []
        newest = None
        for key, size, at in rows:
            chosen.append(key)
            newest = at
            excess -= size
            if excess <= 0:
                break
        if not chosen:
            break
        with write_transaction(db):
            deleted += model.delete().where(model.key.in_(chosen), written <= newest).execute(db)
        if excess > 0 and time.monotonic() >= deadline:
            return Eviction(deleted, complete=False)
    return Eviction(deleted, complete=True)
