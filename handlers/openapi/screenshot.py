"""The screenshot endpoint's part of ``/openapi.json``: ``GET /api/1.1/screenshot`` in its two
forms, its result's schema, and the 24-hour link that serves the image.

Public API: :func:`screenshot_paths` -> the ``paths`` entries; :data:`SCREENSHOT_RESULT` -> the
``ScreenshotResult`` schema.
"""

from __future__ import annotations

from typing import Any

from handlers.openapi.errors import TIMED_HEADERS, error_responses
from handlers.openapi.screenshot_requests import ACCEPTED
from handlers.openapi.shared import DIMENSIONS, METADATA, SECURITY, two_forms
from handlers.params.screenshot import SCREENSHOT_PARAMS
from services.screenshots import ReadyState

SCREENSHOT_RESULT = {
    "type": "object",
    "required": ["screenshotUrl", "dimensions", "requestInfo"],
    "properties": {
        "screenshotUrl": {"type": "string", "format": "uri"},
        "dimensions": DIMENSIONS,
        "requestInfo": {
            "type": "object",
            "required": ["host", "responseCode"],
            "properties": {
                "host": {"type": "string"},
                "responseCode": {"type": ["integer", "null"]},
            },
        },
        "expiresAt": {
            "type": "string",
            "format": "date-time",
            "description": "When the link expires (UTC), 24 hours after the capture.",
        },
        "cached": {
            "type": "boolean",
            "description": "True when an identical earlier capture was reused (cache_ok).",
        },
        "pages": {
            "type": "integer",
            "description": "A fresh pdf capture's page count.",
        },
        "timing": {
            "type": "object",
            "description": "A fresh capture only: how the page was waited for after its load. "
            "ready: settled (network quiet, DOM settled), blank (nothing painted, nothing "
            "pending), timeout (still changing at the bound: retry with a capture_delay), "
            "selector (wait_for_selector), off. Also in the X-Render-Timing header.",
            "required": ["ready", "ready_ms", "load_ms"],
            "properties": {
                "ready": {"type": "string", "enum": [state.value for state in ReadyState]},
                "ready_ms": {"type": "integer"},
                "load_ms": {"type": "integer"},
            },
        },
        "markdown": {
            "type": "string",
            "description": "include_markdown=true only: the page's Markdown from the same load.",
        },
        "metadata": {
            **METADATA,
            "description": "include_metadata=true only: the page's metadata from the same load.",
        },
    },
}


def screenshot_paths() -> dict[str, Any]:
    image = {
        kind: {"schema": {"type": "string", "format": "binary"}}
        for kind in ("image/jpeg", "image/png", "image/webp", "application/pdf")
    }
    operation = {
        "summary": "A screenshot (or PDF) of a web page, linked for 24 hours",
        "security": SECURITY,
        "responses": {
            "200": {
                "description": "The result with its link (response_type=json), or the image "
                "itself (response_type=image).",
                "headers": TIMED_HEADERS,
                "content": {
                    "application/json": {
                        "schema": {"$ref": "#/components/schemas/ScreenshotResult"}
                    },
                    **image,
                },
            },
            "202": ACCEPTED,
            **error_responses("oembed"),
        },
    }
    link: dict[str, Any] = {
        "summary": "A screenshot link: the image until 24 hours after capture, then 410",
        "parameters": [
            {
                "name": "file",
                "in": "path",
                "required": True,
                "schema": {"type": "string"},
                "description": "<token>.<jpeg|png|webp|pdf>",
            }
        ],
        "responses": {
            "200": {"description": "The image.", "content": image},
            "302": {
                "description": "With screenshots in an object store (screenshots."
                "backend = s3): a redirect to a presigned URL of the image that "
                "expires no later than the link.",
                "headers": {
                    "Location": {
                        "description": "The presigned URL.",
                        "schema": {"type": "string", "format": "uri"},
                    }
                },
            },
            "404": {"description": "No such screenshot."},
            "410": {"description": "The link has expired."},
            "503": {"description": "The screenshot storage is unavailable; retry."},
        },
    }
    return {
        **two_forms("/api/1.1/screenshot", "screenshot", operation, SCREENSHOT_PARAMS),
        "/screenshots/{file}": {
            "get": {"operationId": "screenshotImage", **link},
            "head": {
                "operationId": "screenshotImageHead",
                "x-variant-of": "screenshotImage",
                **link,
                "summary": "The headers of a screenshot link (as GET, without the body)",
                "description": "The same status, Content-Type, Content-Length and caching "
                "headers as GET, and the same 404 and 410; no body. With an object store, the "
                "redirect goes to a URL presigned for HEAD.",
            },
        },
    }
