"""Liveness and readiness: ``/healthz`` answers while the process runs, ``/readyz`` only while it
can serve (database reachable, farm up, not shutting down, and the disk, memory and farm load
within the ``[readiness]`` settings); a 503 names the checks that failed and why."""

from __future__ import annotations

from handlers.base import BaseHandler


class HealthHandler(BaseHandler):
    """Alive: the IOLoop answers."""

    endpoint = "healthz"
    counts_in_flight = False

    async def get(self) -> None:
        self.write_json({"status": "ok"})


class ReadyHandler(BaseHandler):
    """Ready: every readiness check passed (see :mod:`services.health`)."""

    endpoint = "readyz"
    counts_in_flight = False

    async def get(self) -> None:
        found = await self.services.health_service.readiness()
        checks = dict(found.checks)
        checks["draining"] = not checks["draining"]  # true while shutting down, as it always was
        body = {
            "status": "ready" if found.ready else "not_ready",
            "checks": checks,
            "failed": found.failed,
            "reasons": found.reasons,
            "resources": found.details,
            "farm": found.farm_health,
        }
        self.write_json(body, 200 if found.ready else 503)


ROUTES = [(r"/healthz", HealthHandler), (r"/readyz", ReadyHandler)]
