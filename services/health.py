"""Readiness: whether this process can serve now (the database answers, the farm is up, and it is
not shutting down), with the farm's own account of its health."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from browser.farm import Farm
from store.store import Store


@dataclass(frozen=True)
class Readiness:
    """What ``/readyz`` answers."""

    database: bool
    farm: bool
    draining: bool
    farm_health: dict[str, Any]

    @property
    def ready(self) -> bool:
        return self.database and self.farm and not self.draining


class HealthService:
    """Readiness over the store and the farm; ``draining()`` says whether shutdown began."""

    def __init__(self, store: Store, farm: Farm, draining: Callable[[], bool]) -> None:
        self.store = store
        self.farm = farm
        self.draining = draining

    async def readiness(self) -> Readiness:
        database = await self.store.ping()
        return Readiness(database, self.farm.ready, self.draining(), self.farm.health())
