"""The health checks' part of ``/openapi.json``: ``/healthz`` (liveness) and ``/readyz``
(readiness, with the checks that failed, and why on the metrics listener or where configured),
neither needing a key."""

from __future__ import annotations

from typing import Any

READINESS = {
    "type": "object",
    "required": ["status", "checks", "failed"],
    "description": "reasons, resources and farm are answered on the metrics listener (with "
    "its token when server.metrics_token is set), or on every listener with "
    "server.public_readiness_details = true; otherwise left out.",
    "properties": {
        "status": {"enum": ["ready", "not_ready"]},
        "checks": {
            "type": "object",
            "description": "Each check and whether it passed (draining: true while the server "
            "shuts down).",
            "additionalProperties": {"type": "boolean"},
        },
        "failed": {"type": "array", "items": {"type": "string"}},
        "reasons": {
            "type": "object",
            "description": "Why each failed check failed.",
            "additionalProperties": {"type": "string"},
        },
        "resources": {
            "type": "object",
            "description": "What the disk and memory checks measured.",
        },
        "farm": {"type": "object", "description": "The browser farm's state and counters."},
    },
}

HEALTH_SCHEMAS = {"Readiness": READINESS}

_READINESS = {"application/json": {"schema": {"$ref": "#/components/schemas/Readiness"}}}


def health_paths() -> dict[str, Any]:
    """The two paths, as the document lists them."""
    return {
        "/healthz": {
            "get": {
                "operationId": "health",
                "summary": "Liveness",
                "responses": {
                    "200": {
                        "description": "The process answers.",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["status"],
                                    "properties": {"status": {"const": "ok"}},
                                }
                            }
                        },
                    }
                },
            }
        },
        "/readyz": {
            "get": {
                "operationId": "ready",
                "summary": "Readiness (database, browser, disk, memory, farm load, not draining)",
                "responses": {
                    "200": {"description": "Ready.", "content": _READINESS},
                    "503": {
                        "description": "Not ready: failed lists the checks that failed (database, "
                        "farm, draining, disk, memory, farm_capacity); where details are told, "
                        "reasons says why, each.",
                        "content": _READINESS,
                    },
                },
            }
        },
    }
