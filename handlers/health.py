"""Liveness and readiness: ``/healthz`` answers while the process runs, ``/readyz`` only while it
can serve (database reachable, not shutting down)."""

from __future__ import annotations

from handlers.base import BaseHandler


class HealthHandler(BaseHandler):
    """Alive: the IOLoop answers."""

    endpoint = "healthz"
    counts_in_flight = False

    async def get(self) -> None:
        self.write_json({"status": "ok"})


class ReadyHandler(BaseHandler):
    """Ready: the database answers and the server is not draining."""

    endpoint = "readyz"
    counts_in_flight = False

    async def get(self) -> None:
        found = await self.services.health_service.readiness()
        body = {
            "status": "ready" if found.ready else "not_ready",
            "checks": {"database": found.database, "farm": found.farm, "draining": found.draining},
            "farm": found.farm_health,
        }
        self.write_json(body, 200 if found.ready else 503)


ROUTES = [(r"/healthz", HealthHandler), (r"/readyz", ReadyHandler)]
