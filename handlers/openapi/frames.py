"""The frame host's part of ``/openapi.json``: the hosted frame pages and the frame management
API, each operation with the frame host as its server (it is a separate origin)."""

from __future__ import annotations

from typing import Any

from handlers.params.frames import KEY_ONLY, LIST_PARAMS
from services.embeds.frames import FRAME_FIELDS

FRAME = {
    "type": "object",
    "required": ["embed_id", "url", "frame_url", "html", "created_at", "updated_at"],
    "properties": {
        "embed_id": {"type": "string"},
        "url": {"type": "string", "description": "The page the frame shows."},
        "frame_url": {"type": "string", "description": "The frame page on the frame host."},
        "template": {"type": "string"},
        "theme": {"type": "string"},
        "orientation": {"type": "string"},
        "width": {"type": "integer"},
        "height": {"type": "integer"},
        "maxwidth": {"type": ["integer", "null"]},
        "maxheight": {"type": ["integer", "null"]},
        "metadata": {
            "type": "object",
            "description": "The page's metadata as read when the frame was built or refreshed "
            "(published_at in ISO 8601; image_width and image_height when the page declares "
            "its image's size).",
            "properties": {name: {"type": "string"} for name in FRAME_FIELDS},
        },
        "html": {
            "type": "string",
            "description": "The iframe snippet (responsive unless maxwidth or maxheight set "
            "its size).",
        },
        "created_at": {"type": ["string", "null"], "format": "date-time"},
        "updated_at": {"type": ["string", "null"], "format": "date-time"},
        "refreshed_at": {"type": ["string", "null"], "format": "date-time"},
    },
}
"""One frame as the management API shows it (``FrameRecord.to_json``)."""

FRAME_LIST = {
    "type": "object",
    "required": ["frames", "next_cursor", "total"],
    "properties": {
        "frames": {"type": "array", "items": {"$ref": "#/components/schemas/Frame"}},
        "next_cursor": {"type": ["string", "null"]},
        "total": {"type": "integer"},
    },
}

_EMBED_ID = {
    "name": "embed_id",
    "in": "path",
    "required": True,
    "description": "The frame's embed_id.",
    "schema": {"type": "string"},
}
_FRAME = {"application/json": {"schema": {"$ref": "#/components/schemas/Frame"}}}
_HTML = {"text/html": {"schema": {"type": "string"}}}


def _hash(name: str, length: int, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description,
        "schema": {"type": "string", "pattern": f"^[0-9a-f]{{{length}}}$"},
    }


def frame_paths(frame_host: str, errors: dict[str, Any]) -> dict[str, Any]:
    """The frame host's paths; ``errors`` are the oEmbed-shaped error responses."""
    servers = [{"url": frame_host, "description": "The frame host."}]
    secured: dict[str, Any] = {
        "servers": servers,
        "tags": ["frames"],
        "security": [{"app_id": []}, {"api_key": []}],
    }
    key_only = KEY_ONLY.openapi()
    return {
        "/api/v1/frames": {
            "get": {
                **secured,
                "operationId": "listFrames",
                "summary": "The organization's frames, newest first",
                "parameters": LIST_PARAMS.openapi(),
                "responses": {
                    "200": {
                        "description": "A page of frames.",
                        "content": {
                            "application/json": {
                                "schema": {"$ref": "#/components/schemas/FrameList"}
                            }
                        },
                    },
                    **errors,
                },
            }
        },
        "/api/v1/frames/{embed_id}": {
            "get": {
                **secured,
                "operationId": "getFrame",
                "summary": "One frame of the organization",
                "parameters": [_EMBED_ID, *key_only],
                "responses": {"200": {"description": "The frame.", "content": _FRAME}, **errors},
            },
            "delete": {
                **secured,
                "operationId": "deleteFrame",
                "summary": "Delete a frame (its page answers 404 from then on)",
                "parameters": [_EMBED_ID, *key_only],
                "responses": {"204": {"description": "Deleted."}, **errors},
            },
        },
        "/api/v1/frames/{embed_id}/refresh": {
            "post": {
                **secured,
                "operationId": "refreshFrame",
                "summary": "Read the page again (no cache) and rebuild the frame",
                "parameters": [_EMBED_ID, *key_only],
                "responses": {
                    "200": {"description": "The rebuilt frame.", "content": _FRAME},
                    **errors,
                },
            }
        },
        "/oembed/{customer_hash}/{params_hash}": {
            "get": {
                "servers": servers,
                "tags": ["frames"],
                "operationId": "framePage",
                "summary": "A hosted frame's card page (static HTML, no script)",
                "parameters": [
                    _hash("customer_hash", 16, "The organization's part of the frame URL."),
                    _hash("params_hash", 32, "The frame's part of the frame URL."),
                ],
                "responses": {
                    "200": {"description": "The card, with an ETag.", "content": _HTML},
                    "304": {"description": "Not modified (If-None-Match)."},
                    "404": {"description": "No such frame.", "content": _HTML},
                },
            }
        },
    }
