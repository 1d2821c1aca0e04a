"""The map endpoint's part of ``/openapi.json``: ``POST /api/3.0/map``, its body from the map
parameter table, its answer's schema and its errors in the Markdown shape.

Public API: :func:`map_paths` (headers, security, error responses) -> the ``paths`` entries;
:data:`MAP_SCHEMAS` -> the ``components.schemas`` entries.
"""

from __future__ import annotations

from typing import Any

from handlers.frames import KEY_ONLY
from handlers.json_params import request_body
from handlers.site_map import MAP_PARAMS, MAP_RESULT

MAP_SCHEMAS = {"MapResult": MAP_RESULT}


def map_paths(
    headers: dict[str, Any], security: list[dict[str, list[str]]], errors: dict[str, Any]
) -> dict[str, Any]:
    """The map operation, with the document's common ``headers``, ``security`` and the
    Markdown-shape ``errors``."""
    operation = {
        "operationId": "map",
        "summary": "The URLs of a site, from its sitemaps and its start page's links",
        "description": "Reads robots.txt (its rules are followed), the sitemaps it names "
        "(indexes, gzip, text; else /sitemap.xml) and the start page's links; keeps the URLs "
        "on the start URL's site (subdomains when asked) that match the patterns; answers at "
        "once. Costs one credit (credits.map); a failure costs nothing.",
        "security": security,
        "parameters": KEY_ONLY.openapi(),
        "requestBody": request_body(
            MAP_PARAMS,
            example={"url": "https://example.com/", "include": ["/docs/*"], "limit": 100},
        ),
        "responses": {
            "200": {
                "description": "The URLs found.",
                "headers": headers,
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/MapResult"}}
                },
            },
            **errors,
        },
    }
    return {"/api/3.0/map": {"post": operation}}
