"""``/openapi.json``: the OpenAPI 3.1 description, generated from the endpoints' parameter tables
and error shapes so it cannot drift from what the server accepts."""

from __future__ import annotations

from typing import Any

from convert.metadata import FIELD_HELP, FIELDS
from handlers.base import BaseHandler
from handlers.errors import KINDS
from handlers.markdown import MARKDOWN_PARAMS
from handlers.oembed import OEMBED_PARAMS
from handlers.openapi_frames import FRAME, FRAME_LIST, frame_paths
from handlers.screenshot import SCREENSHOT_PARAMS

_MARKDOWN_ERROR = {
    "type": "object",
    "required": ["error", "request_id"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
        },
        "request_id": {"type": "string"},
    },
}

_OEMBED_ERROR = {
    "type": "object",
    "required": ["success", "error"],
    "properties": {
        "success": {"const": False},
        "error": {
            "type": "object",
            "required": ["code", "message", "stage", "details"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "stage": {"type": "string"},
                "details": {},
            },
        },
        "request_id": {"type": "string"},
    },
}

_MARKDOWN_ENVELOPE = {
    "type": "object",
    "required": ["usage", "debug", "request_id"],
    "properties": {
        "markdown": {"type": "string"},
        "metadata": {
            "type": "object",
            "required": list(FIELDS),
            "properties": {
                name: {"type": "string", "description": FIELD_HELP[name]} for name in FIELDS
            },
        },
        "usage": {"type": "object"},
        "debug": {"type": "object"},
        "request_id": {"type": "string"},
    },
}

_HEADERS = {
    "X-Request-Id": {
        "description": "Unique request id; equals request_id in JSON bodies.",
        "schema": {"type": "string"},
    },
    "X-BILLING-REQUESTS": {
        "description": "Credits billed for this request (0 for failures).",
        "schema": {"type": "integer"},
    },
}


def _error_responses(shape: str) -> dict[str, Any]:
    ref = (
        "#/components/schemas/MarkdownError"
        if shape == "markdown"
        else "#/components/schemas/OembedError"
    )
    statuses = sorted({kind.status for kind in KINDS.values()})
    return {
        str(status): {
            "description": ", ".join(
                sorted(
                    str(kind.markdown_code if shape == "markdown" else kind.oembed_code)
                    for kind in KINDS.values()
                    if kind.status == status
                )
            ),
            "headers": _HEADERS,
            "content": {"application/json": {"schema": {"$ref": ref}}},
        }
        for status in statuses
    }


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
        "dimensions": {
            "type": "object",
            "required": ["width", "height"],
            "properties": {"width": {"type": "integer"}, "height": {"type": "integer"}},
        },
        "requestInfo": {
            "type": "object",
            "required": ["host", "responseCode"],
            "properties": {
                "host": {"type": "string"},
                "responseCode": {"type": ["integer", "null"]},
            },
        },
    },
}


def _screenshot_paths() -> dict[str, Any]:
    image = {
        f"image/{kind}": {"schema": {"type": "string", "format": "binary"}}
        for kind in ("jpeg", "png", "webp")
    }
    return {
        "/api/1.1/screenshot/{encoded_url}": {
            "get": {
                "operationId": "screenshot",
                "summary": "A screenshot of a web page, linked for 24 hours",
                "parameters": [_TARGET, *SCREENSHOT_PARAMS.openapi()],
                "security": [{"app_id": []}, {"api_key": []}],
                "responses": {
                    "200": {
                        "description": "The result with its link (response_type=json), or the "
                        "image itself (response_type=image).",
                        "headers": _HEADERS,
                        "content": {
                            "application/json": {
                                "schema": {"$ref": "#/components/schemas/ScreenshotResult"}
                            },
                            **image,
                        },
                    },
                    **_error_responses("oembed"),
                },
            }
        },
        "/screenshots/{file}": {
            "get": {
                "operationId": "screenshotImage",
                "summary": "A screenshot link: the image until 24 hours after capture, then 410",
                "parameters": [
                    {
                        "name": "file",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                        "description": "<token>.<jpeg|png|webp>",
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
(:func:`convert.oembed.frame_oembed_fields`); native and discovery answers keep the fields the
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
        "html": {"type": "string"},
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


def _oembed_paths() -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for version in ("1.1", "3.0"):
        for form in ("path", "query"):
            parameters = OEMBED_PARAMS.openapi()
            if form == "path":
                parameters = [_TARGET, *(p for p in parameters if p["name"] != "url")]
            path = f"/api/{version}/oembed" + ("/{encoded_url}" if form == "path" else "")
            paths[path] = {
                "get": {
                    "operationId": f"oembed_{version.replace('.', '_')}_{form}",
                    "summary": f"A URL as an oEmbed embed (version {version}, target in the "
                    f"{form})",
                    "parameters": parameters,
                    "security": [{"app_id": []}, {"api_key": []}],
                    "responses": {
                        "200": {
                            "description": "The embed: native, discovery or a hosted frame.",
                            "headers": _HEADERS,
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Embed"}
                                }
                            },
                        },
                        **_error_responses("oembed"),
                    },
                }
            }
    return paths


def build_openapi(base_url: str, frame_host: str = "") -> dict[str, Any]:
    """The whole document; the frame host's operations name ``frame_host`` (the API's own
    address when not given) as their server."""
    markdown_op = {
        "operationId": "markdown",
        "summary": "A web page as Markdown for LLM pipelines",
        "parameters": [_TARGET, *MARKDOWN_PARAMS.openapi()],
        "security": [{"app_id": []}, {"api_key": []}],
        "responses": {
            "200": {
                "description": "The Markdown (format=markdown) or the JSON envelope (format=json).",
                "headers": {
                    **_HEADERS,
                    "X-Markdown-Character-Count": {
                        "description": "Length of the Markdown (format=markdown).",
                        "schema": {"type": "integer"},
                    },
                    "X-Markdown-Truncated": {
                        "description": "Present when max_chars cut the document.",
                        "schema": {"type": "string"},
                    },
                    "X-Markdown-Truncation-Reason": {
                        "description": "max_chars_exceeded when truncated.",
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
            **_error_responses("markdown"),
        },
    }
    health = {
        "get": {
            "summary": "Liveness",
            "responses": {"200": {"description": "The process answers."}},
        }
    }
    ready = {
        "get": {
            "summary": "Readiness (database reachable, not draining)",
            "responses": {
                "200": {"description": "Ready."},
                "503": {"description": "Not ready."},
            },
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Pagecast",
            "version": "3.0",
            "description": "Screenshots, oEmbed embeds and Markdown of web pages.",
        },
        "servers": [{"url": base_url}],
        "paths": {
            "/api/3.0/markdown/{encoded_url}": {"get": markdown_op},
            **_oembed_paths(),
            **_screenshot_paths(),
            "/healthz": health,
            "/readyz": ready,
            **frame_paths(frame_host or base_url, _error_responses("oembed")),
        },
        "components": {
            "securitySchemes": {
                "app_id": {"type": "apiKey", "in": "query", "name": "app_id"},
                "api_key": {"type": "apiKey", "in": "header", "name": "api-key"},
            },
            "schemas": {
                "MarkdownError": _MARKDOWN_ERROR,
                "OembedError": _OEMBED_ERROR,
                "MarkdownEnvelope": _MARKDOWN_ENVELOPE,
                "ScreenshotResult": _SCREENSHOT_RESULT,
                "Embed": _EMBED,
                "Frame": FRAME,
                "FrameList": FRAME_LIST,
            },
        },
    }


class OpenApiHandler(BaseHandler):
    """Serves the document (small enough to build on each request)."""

    endpoint = "openapi"

    async def get(self) -> None:
        server = self.services.settings.server
        self.write_json(build_openapi(server.public_base_url(), server.public_frame_host()))


ROUTES = [(r"/openapi\.json", OpenApiHandler)]
