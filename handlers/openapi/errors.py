"""The parts of ``/openapi.json`` every operation shares: the two error bodies (Markdown's and
oEmbed's) with one example per error kind, and the headers every answer carries.

Each is described once under ``components`` (``headers``, ``responses``, ``examples``) and named
by reference from the operations, so the document, and the reference page drawn from it, say
them once."""

from __future__ import annotations

from typing import Any

from handlers.errors import KINDS, ApiError, Shape, render

MARKDOWN_ERROR = {
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

OEMBED_ERROR = {
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

EXAMPLE_REQUEST_ID = "3247457d262e4728adb17e7e59c3e10f"

HEADERS = {
    "X-Request-Id": {
        "description": "Unique request id; equals request_id in JSON bodies.",
        "schema": {"type": "string"},
    },
    "X-BILLING-REQUESTS": {
        "description": "Credits billed for this request (0 for failures).",
        "schema": {"type": "integer"},
    },
    "X-Pagecast-Warnings": {
        "description": "Present when something in the request was not used as sent: parameters "
        "the endpoint does not know (with the likely intended name), parameters that have no "
        "effect with the others sent (ignored, see each parameter), a replaced or lowered "
        "value, query parameters kept in an unencoded target URL. JSON answers also list them "
        "in warnings.",
        "schema": {"type": "string"},
    },
    "X-RateLimit-Limit": {
        "description": "Requests the key may send at once (its plan's burst).",
        "schema": {"type": "integer"},
    },
    "X-RateLimit-Remaining": {
        "description": "Requests the key may still send at once, after this one.",
        "schema": {"type": "integer"},
    },
    "X-Credits-Remaining": {
        "description": "Credits the organization has left this month, when its plan has a "
        "monthly quota.",
        "schema": {"type": "integer"},
    },
    "Server-Timing": {
        "description": "Screenshot and Markdown answers, errors included: how long each phase "
        "of the request took, in the W3C Server Timing syntax, e.g. "
        '`queue;dur=0.4, navigation;dur=286.0, ready;dur=412.0;desc="settled", '
        "capture;dur=47.5, total;dur=803.2`. Phases: queue (waiting for a browser page or a "
        "conversion worker), fetch, navigation, ready (desc: how the readiness wait ended), "
        "capture, conversion; only those that happened are named; total comes last.",
        "schema": {"type": "string"},
    },
}

TIMED = frozenset({"Server-Timing"})
"""Headers of ``HEADERS`` that only the screenshot and Markdown operations carry."""

COMMON_HEADERS = {
    name: {"$ref": f"#/components/headers/{name}"} for name in HEADERS if name not in TIMED
}
"""The common headers as an operation's response names them: by reference to ``HEADERS``."""

TIMED_HEADERS = {name: {"$ref": f"#/components/headers/{name}"} for name in HEADERS}
"""The common headers and Server-Timing, as the screenshot and Markdown operations name them."""


def error_responses(shape: Shape) -> dict[str, Any]:
    """The error answers of an operation of ``shape``, by status: each a reference to the one
    description of that status in that shape (:func:`response_components`)."""
    return {
        status: {"$ref": f"#/components/responses/{response_name(shape, status)}"}
        for status in _error_responses(shape)
    }


def response_name(shape: Shape, status: str) -> str:
    return f"{shape}_{status}"


def response_components() -> dict[str, Any]:
    """Every error answer of both shapes, by name, for ``components.responses``."""
    shapes: tuple[Shape, ...] = ("markdown", "oembed")
    return {
        response_name(shape, status): response
        for shape in shapes
        for status, response in _error_responses(shape).items()
    }


def _error_responses(shape: Shape) -> dict[str, Any]:
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
            "headers": COMMON_HEADERS,
            "content": {
                "application/json": {
                    "schema": {"$ref": ref},
                    # One example body per error kind, each kept once under components.
                    "examples": {
                        name: {"$ref": f"#/components/examples/{example_name(shape, name)}"}
                        for name, kind in KINDS.items()
                        if kind.status == status
                    },
                }
            },
        }
        for status in statuses
    }


def example_name(shape: Shape, kind: str) -> str:
    return f"{shape}_{kind}"


def error_examples() -> dict[str, Any]:
    """Every error kind's body in both shapes: its meaning as the summary, the body a client
    gets (with a made-up request id) as the value."""
    shapes: tuple[Shape, ...] = ("markdown", "oembed")
    return {
        example_name(shape, name): {
            "summary": kind.message,
            "value": render(shape, ApiError(name), EXAMPLE_REQUEST_ID),
        }
        for shape in shapes
        for name, kind in KINDS.items()
    }
