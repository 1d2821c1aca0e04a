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
from handlers.openapi.screenshot_requests import ACCEPTED, CAPTURE_SCHEMAS, capture_status_paths
from handlers.openapi.signed import signed_paths
from handlers.params.groups import MARKDOWN_GROUPS, Groups, grouped
from handlers.params.markdown import MARKDOWN_PARAMS
from handlers.params.oembed import OEMBED_PARAMS
from handlers.params.screenshot import SCREENSHOT_PARAMS
from handlers.params.table import ParamTable
from services.markdown import METADATA_FIELD_HELP, METADATA_FIELDS
from services.screenshots import ReadyState

_METADATA = {
    "type": "object",
    "required": list(METADATA_FIELDS),
    "properties": {
        name: {"type": "string", "description": METADATA_FIELD_HELP[name]}
        for name in METADATA_FIELDS
    },
}
_DIMENSIONS = {
    "type": "object",
    "required": ["width", "height"],
    "properties": {"width": {"type": "integer"}, "height": {"type": "integer"}},
}
_MARKDOWN_ENVELOPE = {
    "type": "object",
    "required": ["usage", "debug", "request_id"],
    "properties": {
        "markdown": {"type": "string"},
        "metadata": _METADATA,
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
                "dimensions": _DIMENSIONS,
                "expiresAt": {"type": "string", "format": "date-time"},
            },
        },
    },
}

_SECURITY: list[dict[str, list[str]]] = [
    {"app_id": []},
    {"api_key": []},
    {"x_api_key": []},
    {"bearer": []},
]


_TARGET = {
    "name": "encoded_url",
    "in": "path",
    "required": True,
    "description": "The URL-encoded target URL (http or https).",
    "schema": {"type": "string"},
    "example": "https%3A%2F%2Fexample.com%2F",
}

_SCREENSHOT_RESULT = {
    "type": "object",
    "required": ["screenshotUrl", "dimensions", "requestInfo"],
    "properties": {
        "screenshotUrl": {"type": "string", "format": "uri"},
        "dimensions": _DIMENSIONS,
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
            **_METADATA,
            "description": "include_metadata=true only: the page's metadata from the same load.",
        },
    },
}


def _two_forms(
    path: str,
    operation_id: str,
    operation: dict[str, Any],
    table: ParamTable[Any],
    groups: Groups = (),
) -> dict[str, Any]:
    """``operation`` at ``path``/{encoded_url} (the target in the path) and at ``path`` (the
    target as url=): ``operation_id`` and ``operation_id``_query, the second marked as a variant
    of the first (``x-variant-of``: the same operation, but for the parameters that differ); the
    parameters in ``groups`` (when given) carry their group."""
    parameters = grouped(table.openapi(), groups) if groups else table.openapi()
    in_path = [_TARGET, *(item for item in parameters if item["name"] != "url")]
    in_query = [
        {**item, "required": True} if item["name"] == "url" else item for item in parameters
    ]
    return {
        path + "/{encoded_url}": {
            "get": {"operationId": operation_id, **operation, "parameters": in_path}
        },
        path: {
            "get": {
                "operationId": f"{operation_id}_query",
                **operation,
                "summary": operation["summary"] + " (the target as url=)",
                "x-variant-of": operation_id,
                "parameters": in_query,
            }
        },
    }


def _screenshot_paths() -> dict[str, Any]:
    image = {
        kind: {"schema": {"type": "string", "format": "binary"}}
        for kind in ("image/jpeg", "image/png", "image/webp", "application/pdf")
    }
    operation = {
        "summary": "A screenshot (or PDF) of a web page, linked for 24 hours",
        "security": _SECURITY,
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
        **_two_forms("/api/1.1/screenshot", "screenshot", operation, SCREENSHOT_PARAMS),
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


OEMBED_OPTIONAL = {
    "title": "og_frame: the page's title, when it has one.",
    "author_name": "og_frame: the page's author, when it names one.",
    "provider_url": "og_frame: the home of the page's site.",
    "thumbnail_url": "og_frame: the page's image, when the page declares its size.",
    "thumbnail_width": "og_frame: the width of thumbnail_url in pixels.",
    "thumbnail_height": "og_frame: the height of thumbnail_url in pixels.",
}
"""The oEmbed spec's optional fields a hosted frame answer carries when the page supports them
(:func:`convert.embed.oembed.frame_oembed_fields`); native and discovery answers keep the fields the
specification lists."""

_EMBED = {
    "type": "object",
    "required": ["type", "version", "provider_name", "width", "height", "source", "html"],
    "properties": {
        "type": {"type": "string"},
        "version": {"const": "1.0"},
        "provider_name": {"type": "string"},
        "width": {"type": "integer"},
        "height": {"type": "integer"},
        "source": {"enum": ["native", "discovery", "og_frame"]},
        "embed_id": {"type": "string", "format": "uuid"},
        "frame_url": {"type": "string", "format": "uri"},
        "html": {
            "type": "string",
            "description": "The snippet to insert. og_frame: an iframe of frame_url that loads "
            "lazily; without maxwidth or maxheight it is responsive (inside a div as wide as "
            "its place, whose aspect-ratio is width/height), with them it keeps that fixed "
            "size.",
        },
        **{
            name: {**schema, "description": OEMBED_OPTIONAL[name]}
            for name, schema in (
                ("title", {"type": "string"}),
                ("author_name", {"type": "string"}),
                ("provider_url", {"type": "string", "format": "uri"}),
                ("thumbnail_url", {"type": "string", "format": "uri"}),
                ("thumbnail_width", {"type": "integer"}),
                ("thumbnail_height", {"type": "integer"}),
            )
        },
    },
}


_ONE_ONE_PATHS = {"path": "/api/1.1/oembed/{encoded_url}", "query": "/api/1.1/oembed"}


def _oembed_paths() -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for version in ("1.1", "3.0"):
        operation = {
            "summary": f"A URL as an oEmbed embed (version {version})",
            "security": _SECURITY,
            "responses": {
                "200": {
                    "description": "The embed: native, discovery or a hosted frame.",
                    "headers": COMMON_HEADERS,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Embed"}}
                    },
                },
                **error_responses("oembed"),
            },
        }
        name = f"oembed_{version.replace('.', '_')}"
        forms = _two_forms(f"/api/{version}/oembed", f"{name}_path", operation, OEMBED_PARAMS)
        # The query form keeps its historical name.
        forms[f"/api/{version}/oembed"]["get"]["operationId"] = f"{name}_query"
        if version == "1.1":
            # Version 1.1 answers as 3.0 does (SPEC 4.2); only its price differs.
            for form in ("path", "query"):
                get = forms[_ONE_ONE_PATHS[form]]["get"]
                get["x-variant-of"] = f"oembed_3_0_{form}"
                get["description"] = (
                    f"Version 1.1 of `oembed_3_0_{form}`: the same parameters and answers; "
                    "each request costs `credits.oembed_v1` credits (10 by default), whatever "
                    "it used."
                )
        paths.update(forms)
    return paths


def build_openapi(base_url: str, frame_host: str = "") -> dict[str, Any]:
    """The whole document; the frame host's operations name ``frame_host`` (the API's own
    address when not given) as their server."""
    markdown_op = {
        "summary": "A web page as Markdown for LLM pipelines",
        "security": _SECURITY,
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
        **_two_forms(
            "/api/3.0/markdown", "markdown", markdown_op, MARKDOWN_PARAMS, MARKDOWN_GROUPS
        ),
        **job_paths(_SECURITY, error_responses("markdown")),
        **_oembed_paths(),
        **_screenshot_paths(),
        **signed_paths(COMMON_HEADERS, _SECURITY, error_responses("oembed")),
        **capture_status_paths(COMMON_HEADERS, _SECURITY, error_responses("oembed")),
        **map_paths(COMMON_HEADERS, _SECURITY, error_responses("markdown")),
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
                "ScreenshotResult": _SCREENSHOT_RESULT,
                **CAPTURE_SCHEMAS,
                "Embed": _EMBED,
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
