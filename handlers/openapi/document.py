"""``/openapi.json``: the OpenAPI 3.1 description, generated from the endpoints' parameter tables
and error shapes so it cannot drift from what the server accepts."""

from __future__ import annotations

from typing import Any

from handlers.base import BaseHandler
from handlers.openapi.errors import (
    COMMON_HEADERS,
    HEADERS,
    MARKDOWN_ERROR,
    OEMBED_ERROR,
    TIMED_HEADERS,
    error_examples,
    error_responses,
    response_components,
)
from handlers.openapi.examples import attach_examples
from handlers.openapi.frames import FRAME, FRAME_LIST, frame_paths
from handlers.openapi.health import HEALTH_SCHEMAS, health_paths
from handlers.openapi.jobs import SCHEMAS as JOB_SCHEMAS
from handlers.openapi.jobs import job_paths
from handlers.openapi.map import MAP_SCHEMAS, map_paths
from handlers.openapi.oembed import EMBED, oembed_paths
from handlers.openapi.screenshot import SCREENSHOT_RESULT, screenshot_paths
from handlers.openapi.screenshot_requests import CAPTURE_SCHEMAS, capture_status_paths
from handlers.openapi.shared import DIMENSIONS, METADATA, SECURITY, two_forms
from handlers.openapi.signed import signed_paths
from handlers.params.groups import MARKDOWN_GROUPS
from handlers.params.markdown import MARKDOWN_PARAMS

_MARKDOWN_ENVELOPE = {
    "type": "object",
    "required": ["usage", "debug", "request_id"],
    "properties": {
        "markdown": {"type": "string"},
        "metadata": METADATA,
        "usage": {"type": "object"},
        "debug": {"type": "object"},
        "request_id": {"type": "string"},
        "screenshotUrl": {
            "type": "string",
            "format": "uri",
            "description": "screenshot=true only: the 24-hour link of the screenshot taken in "
            "the same page load.",
        },
        "screenshot": {
            "type": "object",
            "description": "screenshot=true only: the screenshot's size and when its link "
            "expires (UTC).",
            "required": ["dimensions", "expiresAt"],
            "properties": {
                "dimensions": DIMENSIONS,
                "expiresAt": {"type": "string", "format": "date-time"},
            },
        },
    },
}


def build_openapi(base_url: str, frame_host: str = "") -> dict[str, Any]:
    """The whole document; the frame host's operations name ``frame_host`` (the API's own
    address when not given) as their server."""
    markdown_op = {
        "summary": "A web page as Markdown for LLM pipelines",
        "security": SECURITY,
        "responses": {
            "200": {
                "description": "The Markdown (format=markdown; with a query, the matched "
                "passages, best first, each under its score and heading path) or the JSON "
                "envelope (format=json).",
                "headers": {
                    **TIMED_HEADERS,
                    "X-Markdown-Character-Count": {
                        "description": "Length of the Markdown (format=markdown).",
                        "schema": {"type": "integer"},
                    },
                    "X-Markdown-Passage-Count": {
                        "description": "Passages in the body (format=markdown with a query).",
                        "schema": {"type": "integer"},
                    },
                    "X-Screenshot-Url": {
                        "description": "The 24-hour link of the screenshot taken in the same "
                        "page load (format=markdown with screenshot=true).",
                        "schema": {"type": "string", "format": "uri"},
                    },
                    "X-Cache": {
                        "description": "hit: the answer kept from an earlier request of the same "
                        "page with the same parameters (as debug.cache says); miss: converted "
                        "now.",
                        "schema": {"type": "string", "enum": ["hit", "miss"]},
                    },
                    "X-Markdown-Truncated": {
                        "description": "Present when the document was cut: by max_chars, or "
                        "by the server's bounds on a page's depth and elements.",
                        "schema": {"type": "string"},
                    },
                    "X-Markdown-Truncation-Reason": {
                        "description": "Why it was cut: max_chars_exceeded, "
                        "document_too_deep (nesting past the parser's depth) or "
                        "too_many_elements (more than convert.max_elements elements).",
                        "schema": {"type": "string"},
                    },
                },
                "content": {
                    "text/markdown": {"schema": {"type": "string"}},
                    "application/json": {
                        "schema": {"$ref": "#/components/schemas/MarkdownEnvelope"}
                    },
                },
            },
            **error_responses("markdown"),
        },
    }
    paths = {
        **two_forms("/api/3.0/markdown", "markdown", markdown_op, MARKDOWN_PARAMS, MARKDOWN_GROUPS),
        **job_paths(SECURITY, error_responses("markdown")),
        **oembed_paths(),
        **screenshot_paths(),
        **signed_paths(COMMON_HEADERS, SECURITY, error_responses("oembed")),
        **capture_status_paths(COMMON_HEADERS, SECURITY, error_responses("oembed")),
        **map_paths(COMMON_HEADERS, SECURITY, error_responses("markdown")),
        **health_paths(),
        **frame_paths(frame_host or base_url, error_responses("oembed")),
    }
    attach_examples(paths, base_url, frame_host or base_url)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Pagecast",
            "version": "3.0",
            "description": "Screenshots, oEmbed embeds and Markdown of web pages.",
        },
        "servers": [{"url": base_url}],
        "paths": paths,
        "components": {
            "securitySchemes": {
                "app_id": {"type": "apiKey", "in": "query", "name": "app_id"},
                "api_key": {"type": "apiKey", "in": "header", "name": "api-key"},
                "x_api_key": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
                "bearer": {"type": "http", "scheme": "bearer"},
            },
            "headers": HEADERS,
            "responses": response_components(),
            "examples": error_examples(),
            "schemas": {
                "MarkdownError": MARKDOWN_ERROR,
                "OembedError": OEMBED_ERROR,
                "MarkdownEnvelope": _MARKDOWN_ENVELOPE,
                "ScreenshotResult": SCREENSHOT_RESULT,
                **CAPTURE_SCHEMAS,
                "Embed": EMBED,
                "Frame": FRAME,
                "FrameList": FRAME_LIST,
                **JOB_SCHEMAS,
                **MAP_SCHEMAS,
                **HEALTH_SCHEMAS,
            },
        },
    }


class OpenApiHandler(BaseHandler):
    """Serves the document (small enough to build on each request)."""

    endpoint = "openapi"

    async def get(self) -> None:
        server = self.services.server
        self.write_json(build_openapi(server.public_base_url(), server.public_frame_host()))


ROUTES = [(r"/openapi\.json", OpenApiHandler)]
