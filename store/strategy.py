"""The learned fetch strategy per target domain: which proxy tier last succeeded. Entries expire
and the table is bounded."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import peewee

from store.models import DomainStrategy, utc_now


@dataclass(frozen=True)
class Strategy:
    """What to try first for a domain."""

    tier: str


def get_strategy(db: peewee.Database, domain: str, ttl_seconds: float) -> Strategy | None:
    """The strategy learned for ``domain`` within the last ``ttl_seconds``, if any."""
    oldest = utc_now() - timedelta(seconds=ttl_seconds)
    row = (
        DomainStrategy.select(DomainStrategy.tier)
        .where((DomainStrategy.domain == domain) & (DomainStrategy.updated_at >= oldest))
        .first(db)
    )
    return Strategy(row.tier) if row else None


def put_strategy(db: peewee.Database, domain: str, tier: str, max_domains: int) -> None:
    """Remember ``tier`` for ``domain``; forget the least recently updated past ``max_domains``."""
    now = utc_now()
    with db.atomic():
        DomainStrategy.insert(domain=domain, tier=tier, updated_at=now).on_conflict(
            conflict_target=[DomainStrategy.domain],
            update={DomainStrategy.tier: tier, DomainStrategy.updated_at: now},
        ).execute(db)
        excess = DomainStrategy.select().count(db) - max_domains
        if excess > 0:
            oldest = (
                DomainStrategy.select(DomainStrategy.id)
                .order_by(DomainStrategy.updated_at, DomainStrategy.id)
                .limit(excess)
            )
            DomainStrategy.delete().where(DomainStrategy.id.in_(oldest)).execute(db)
