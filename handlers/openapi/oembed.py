"""The oEmbed endpoint's part of ``/openapi.json``: versions 1.1 and 3.0, each in its two forms,
and the embed's schema.

Public API: :func:`oembed_paths` -> the ``paths`` entries; :data:`EMBED` -> the ``Embed`` schema.
"""

from __future__ import annotations

from typing import Any

from handlers.openapi.errors import COMMON_HEADERS, error_responses
from handlers.openapi.shared import SECURITY, two_forms
from handlers.params.oembed import OEMBED_PARAMS

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

EMBED = {
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


def oembed_paths() -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for version in ("1.1", "3.0"):
        operation = {
            "summary": f"A URL as an oEmbed embed (version {version})",
            "security": SECURITY,
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
        forms = two_forms(f"/api/{version}/oembed", f"{name}_path", operation, OEMBED_PARAMS)
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
