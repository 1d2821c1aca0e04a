"""Screenshots captured in the background (``async=true``): a row per capture, written pending
when it is accepted (within its organization's bound on captures pending at once), then done or
failed with what it answered. Any process on the database reads a capture's state; the rows of
an organization that ended over a day ago are deleted when it asks for another."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import peewee

from store.db import write_transaction
from store.models import AsyncCapture, as_utc, utc_now

PENDING = "pending"
DONE = "done"
FAILED = "failed"

KEPT = timedelta(days=1)
"""How long a capture's row is kept once it ended (its link lives 24 hours)."""


@dataclass(frozen=True)
class CaptureState:
    """A capture as stored: its state, what it answered once it ended (JSON text) and when."""

    id: str
    status: str
    answer: str | None
    created_at: datetime
    ended_at: datetime | None


def add_pending(
    db: peewee.Database, *, capture_id: str, org_id: int, max_pending: int, since: datetime
) -> bool:
    """Store a pending capture for ``org_id`` unless it has ``max_pending`` captures pending
    that were accepted after ``since`` (older ones were lost with the process that ran them);
    False when it has. Deletes the organization's captures that ended over :data:`KEPT` ago."""
    now = utc_now()
    with write_transaction(db):
        AsyncCapture.delete().where(
            (AsyncCapture.org == org_id)
            & (AsyncCapture.status != PENDING)
            & (AsyncCapture.ended_at < now - KEPT)
        ).execute(db)
        pending = (
            AsyncCapture.select()
            .where(
                (AsyncCapture.org == org_id)
                & (AsyncCapture.status == PENDING)
                & (AsyncCapture.created_at > since.replace(tzinfo=None))
            )
            .count(db)
        )
        if pending >= max_pending:
            return False
        AsyncCapture.insert(id=capture_id, org=org_id, status=PENDING, created_at=now).execute(db)
    return True


def finish(db: peewee.Database, *, capture_id: str, status: str, answer: str) -> None:
    """Record that a pending capture ended (``done`` or ``failed``) with ``answer``."""
    with write_transaction(db):
        AsyncCapture.update(status=status, answer=answer, ended_at=utc_now()).where(
            (AsyncCapture.id == capture_id) & (AsyncCapture.status == PENDING)
        ).execute(db)


def read(db: peewee.Database, *, capture_id: str, org_id: int) -> CaptureState | None:
    """``org_id``'s capture ``capture_id``; None when there is none (or it is another's)."""
    row = (
        AsyncCapture.select()
        .where((AsyncCapture.id == capture_id) & (AsyncCapture.org == org_id))
        .first(db)
    )
    if row is None:
        return None
    ended = as_utc(row.ended_at) if row.ended_at is not None else None
    return CaptureState(row.id, row.status, row.answer, as_utc(row.created_at), ended)
