"""Liveness and readiness: ``/healthz`` answers while the process runs, ``/readyz`` only while it
can serve (database reachable, farm up, not shutting down, and the disk, memory and farm load
within the ``[readiness]`` settings); a 503 names the checks that failed. Why they failed and
the host's details (free disk, process memory, the browser's version and PID) are told on the
metrics listener (with its token when one is set), or on every listener with
``server.public_readiness_details``."""

from __future__ import annotations

from typing import Any

from handlers.auth import bearer_matches
from handlers.base import BaseHandler
from handlers.context import UseCases


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

    def initialize(self, services: UseCases, operator: bool = False) -> None:
        super().initialize(services)
        self.operator = operator
        """Whether this is the metrics (operator) listener."""

    def tells_details(self) -> bool:
        server = self.services.server
        if server.public_readiness_details:
            return True
        token = server.metrics_token
        return self.operator and (not token or bearer_matches(self.request, token))

    async def get(self) -> None:
        found = await self.services.health_service.readiness()
        checks = dict(found.checks)
        checks["draining"] = not checks["draining"]  # true while shutting down, as it always was
        body: dict[str, Any] = {
            "status": "ready" if found.ready else "not_ready",
            "checks": checks,
            "failed": found.failed,
        }
        if self.tells_details():
            body.update(reasons=found.reasons, resources=found.details, farm=found.farm_health)
        self.write_json(body, 200 if found.ready else 503)


ROUTES = [(r"/healthz", HealthHandler), (r"/readyz", ReadyHandler)]
