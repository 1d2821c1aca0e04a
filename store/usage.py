"""Usage accounting: counted in memory per (organization, endpoint, UTC day), then added to the
``usage`` table in batches with upserts, and read back per organization and month.

Counting costs a dictionary update on the request path; the database sees one upsert per key per
flush. A batch that could not be written goes back into the buffer, so nothing is lost while the
database is away.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import NamedTuple

import peewee

from store.db import write_transaction
from store.models import Organization, Usage

log = logging.getLogger(__name__)

_MONTH = re.compile(r"(\d{4})-(\d{2})")


class UsageKey(NamedTuple):
    """What usage is aggregated by."""

    org: str
    endpoint: str
    day: date


class UsageCount(NamedTuple):
    """Requests and credits counted for one key."""

    requests: int
    credits: int

    def plus(self, other: UsageCount) -> UsageCount:
        """The sum of two counts."""
        return UsageCount(self.requests + other.requests, self.credits + other.credits)


@dataclass(frozen=True, slots=True)
class UsageRow:
    """One stored usage row."""

    org: str
    endpoint: str
    day: date
    requests: int
    credits: int


def utc_today() -> date:
    """The current UTC day, the unit of usage rows."""
    return datetime.now(UTC).date()


class UsageBuffer:
    """Thread-safe in-memory aggregate of usage not yet written.

    A batch handed to a writer (:meth:`take`) still counts here until the writer reports it
    written (:meth:`settled`) or failed (:meth:`restore`), so that usage is never invisible
    while its write is under way: a reader that takes this buffer's counts *before* reading the
    database's counts every charge made before it began at least once (a batch that commits
    during the read is counted twice for that moment, never missed)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[UsageKey, UsageCount] = {}
        self._writing: list[dict[UsageKey, UsageCount]] = []

    def add(self, key: UsageKey, count: UsageCount) -> None:
        """Count ``count`` under ``key``."""
        with self._lock:
            previous = self._counts.get(key)
            self._counts[key] = count if previous is None else previous.plus(count)

    def take(self) -> dict[UsageKey, UsageCount]:
        """Everything counted so far, for a writer; the buffer starts empty again, the batch
        still counted until :meth:`settled` or :meth:`restore`."""
        with self._lock:
            batch, self._counts = self._counts, {}
            if batch:
                self._writing.append(batch)
        return batch

    def settled(self, batch: Mapping[UsageKey, UsageCount]) -> None:
        """``batch`` (from :meth:`take`) is in the database: no longer counted here."""
        with self._lock:
            self._forget(batch)

    def restore(self, batch: Mapping[UsageKey, UsageCount]) -> None:
        """Put back a batch that was not written, adding to whatever was counted since."""
        with self._lock:
            self._forget(batch)
            for key, count in batch.items():
                previous = self._counts.get(key)
                self._counts[key] = count if previous is None else previous.plus(count)

    def _forget(self, batch: Mapping[UsageKey, UsageCount]) -> None:
        self._writing = [taken for taken in self._writing if taken is not batch]

    def __len__(self) -> int:
        with self._lock:
            return len(self._counts)

    def _all(self) -> list[tuple[UsageKey, UsageCount]]:
        """Every count held: not yet taken, and taken but not yet written."""
        items = list(self._counts.items())
        for batch in self._writing:
            items += batch.items()
        return items

    def credits_since(self, org: str, since: date) -> int:
        """Credits of ``org`` counted here (not yet written) from day ``since`` on."""
        with self._lock:
            return sum(
                count.credits for key, count in self._all() if key.org == org and key.day >= since
            )

    def requests_since(self, org: str, endpoint: str, since: date) -> int:
        """Requests of ``org`` on ``endpoint`` counted here (not yet written) from ``since`` on."""
        with self._lock:
            return sum(
                count.requests
                for key, count in self._all()
                if key.org == org and key.endpoint == endpoint and key.day >= since
            )


def write_usage(db: peewee.Database, batch: Mapping[UsageKey, UsageCount]) -> int:
    """Add ``batch`` to the usage table in one transaction; return the number of rows written.

    Keys are written in sorted order so concurrent writers lock rows in the same order. Usage of
    an organization that does not exist (never issued a key) cannot be stored and is dropped with
    a warning.
    """
    if not batch:
        return 0
    names = sorted({key.org for key in batch})
    written = 0
    with write_transaction(db):
        ids = dict(
            Organization.select(Organization.name, Organization.id)
            .where(Organization.name.in_(names))
            .tuples()
            .execute(db)
        )
        for key in sorted(batch):
            count = batch[key]
            org_id = ids.get(key.org)
            if org_id is None:
                log.warning(
                    "dropping usage of unknown organization %s: %d request(s), %d credit(s)",
                    key.org,
                    count.requests,
                    count.credits,
                )
                continue
            Usage.insert(
                org=org_id,
                endpoint=key.endpoint,
                day=key.day,
                requests=count.requests,
                credits=count.credits,
            ).on_conflict(
                conflict_target=[Usage.org, Usage.endpoint, Usage.day],
                update={
                    Usage.requests: Usage.requests + count.requests,
                    Usage.credits: Usage.credits + count.credits,
                },
            ).execute(db)
            written += 1
    return written


def month_bounds(month: str) -> tuple[date, date]:
    """The first day of ``month`` (``YYYY-MM``) and of the month after.

    :raises ValueError: when ``month`` is not a valid ``YYYY-MM``.
    """
    match = _MONTH.fullmatch(month.strip())
    if match is None or not 1 <= int(match.group(2)) <= 12:
        raise ValueError(f"month must look like 2025-01, not {month!r}")
    year, number = int(match.group(1)), int(match.group(2))
    start = date(year, number, 1)
    end = date(year + 1, 1, 1) if number == 12 else date(year, number + 1, 1)
    return start, end


def query_usage(db: peewee.Database, org: str | None, month: str | None) -> list[UsageRow]:
    """Stored usage, optionally of one organization and one month, by day, org and endpoint."""
    query = Usage.select(
        Organization.name, Usage.endpoint, Usage.day, Usage.requests, Usage.credits
    ).join(Organization)
    if org is not None:
        query = query.where(Organization.name == org)
    if month is not None:
        start, end = month_bounds(month)
        query = query.where(Usage.day >= start, Usage.day < end)
    query = query.order_by(Usage.day, Organization.name, Usage.endpoint).tuples()
    return [
        UsageRow(org=name, endpoint=endpoint, day=day, requests=requests, credits=credits)
        for name, endpoint, day, requests, credits in query.execute(db)
    ]


def stored_credits_since(db: peewee.Database, org: str, since: date) -> int:
    """Credits of ``org`` stored from day ``since`` on."""
    total = (
        Usage.select(peewee.fn.COALESCE(peewee.fn.SUM(Usage.credits), 0))
        .join(Organization)
        .where((Organization.name == org) & (Usage.day >= since))
        .scalar(db)
    )
    return int(total or 0)


def stored_requests_since(db: peewee.Database, org: str, endpoint: str, since: date) -> int:
    """Requests of ``org`` on ``endpoint`` stored from day ``since`` on."""
    total = (
        Usage.select(peewee.fn.COALESCE(peewee.fn.SUM(Usage.requests), 0))
        .join(Organization)
        .where((Organization.name == org) & (Usage.endpoint == endpoint) & (Usage.day >= since))
        .scalar(db)
    )
    return int(total or 0)
