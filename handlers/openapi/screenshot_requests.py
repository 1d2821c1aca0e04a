"""Background screenshots' part of ``/openapi.json``: the screenshot endpoint's ``202`` answer to
``async=true`` and ``GET /api/1.1/screenshot/requests/{capture_id}``, the capture's state.

Public API: :data:`ACCEPTED` (the ``202`` response), :func:`capture_status_paths` (headers,
security, error responses) -> the ``paths`` entry; :data:`CAPTURE_SCHEMAS` -> the
``components.schemas`` entries.
"""

from __future__ import annotations

from typing import Any

from handlers.params.screenshot_requests import CAPTURE_STATUS_PARAMS

ACCEPTED = {
    "description": "async=true: accepted; the capture goes on in the background.",
    "content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/ScreenshotAccepted"}}
    },
}

CAPTURE_SCHEMAS: dict[str, Any] = {
    "ScreenshotAccepted": {
        "type": "object",
        "required": ["id", "status", "url"],
        "properties": {
            "id": {"type": "string"},
            "status": {"const": "pending"},
            "url": {
                "type": "string",
                "format": "uri",
                "description": "The capture's state: GET it with the same key.",
            },
            "webhook_secret": {
                "type": "string",
                "description": "With a webhook_url: the secret its events are signed with "
                "(answered once).",
            },
        },
    },
    "ScreenshotRequest": {
        "type": "object",
        "required": ["id", "status", "createdAt"],
        "properties": {
            "id": {"type": "string"},
            "status": {"enum": ["pending", "done", "failed"]},
            "result": {
                "$ref": "#/components/schemas/ScreenshotResult",
                "description": "done: what the synchronous request would have answered.",
            },
            "success": {"const": False, "description": "failed only."},
            "error": {
                "type": "object",
                "description": "failed: the error the synchronous request would have "
                "answered (code, message, stage, details).",
            },
            "request_id": {"type": "string", "description": "failed only."},
            "createdAt": {"type": "string", "format": "date-time"},
            "endedAt": {"type": "string", "format": "date-time"},
        },
    },
}


def capture_status_paths(
    headers: dict[str, Any], security: Any, errors: dict[str, Any]
) -> dict[str, Any]:
    """The status endpoint's path; ``errors`` are the oEmbed-shaped error responses."""
    return {
        "/api/1.1/screenshot/requests/{capture_id}": {
            "get": {
                "operationId": "screenshotRequest",
                "summary": "A background screenshot's state: pending, done or failed",
                "tags": ["screenshots"],
                "security": security,
                "parameters": [
                    {
                        "name": "capture_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                        "description": "The id the 202 answer to async=true gave.",
                    },
                    *CAPTURE_STATUS_PARAMS.openapi(),
                ],
                "responses": {
                    "200": {
                        "description": "The capture's state (another organization's: 404).",
                        "headers": headers,
                        "content": {
                            "application/json": {
                                "schema": {"$ref": "#/components/schemas/ScreenshotRequest"}
                            }
                        },
                    },
                    **errors,
                },
            }
        }
    }
