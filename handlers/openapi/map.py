"""The map endpoint's part of ``/openapi.json``: ``POST /api/3.0/map``, its body from the map
parameter table, its answer's schema and its errors in the Markdown shape.

Public API: :func:`map_paths` (headers, security, error responses) -> the ``paths`` entries;
:data:`MAP_SCHEMAS` -> the ``components.schemas`` entries.
"""

from __future__ import annotations

from typing import Any

from handlers.params.frames import KEY_ONLY
from handlers.params.json_body import request_body
from handlers.params.site_map import MAP_PARAMS

MAP_RESULT = {
    "type": "object",
    "required": [
        "url",
        "urls",
        "count",
        "truncated",
        "complete",
        "sources",
        "robots",
        "sitemaps_read",
        "sitemaps_failed",
        "request_id",
    ],
    "properties": {
        "url": {
            "type": "string",
            "description": "The start URL, cleaned; when its redirects end on another site "
            "(http://example.com to https://www.example.com/), that URL: its site was mapped.",
        },
        "urls": {
            "type": "array",
            "items": {"type": "string"},
            "description": "The site's URLs: the start URL, the start page's links, then the "
            "sitemaps' URLs; fragments and tracking parameters dropped, query parameters "
            "sorted, one per page (a trailing slash does not make another page).",
        },
        "count": {"type": "integer"},
        "truncated": {"type": "boolean", "description": "limit cut the list."},
        "complete": {
            "type": "boolean",
            "description": "False when the map's time or a sitemap bound ran out first (or "
            "the start page's links could not be read).",
        },
        "sources": {
            "type": "object",
            "description": "How many of urls each source gave first.",
            "properties": {
                "start": {"type": "integer"},
                "links": {"type": "integer"},
                "sitemaps": {"type": "integer"},
            },
        },
        "robots": {
            "enum": ["found", "absent", "unreachable"],
            "description": "The site's robots.txt: its rules were followed (found); there is "
            "none (absent, every URL allowed); it failed (unreachable: the site is not "
            "crawled, only the start URL is answered).",
        },
        "sitemaps_read": {"type": "integer"},
        "sitemaps_failed": {"type": "integer"},
        "request_id": {"type": "string"},
        "warnings": {"type": "array", "items": {"type": "string"}},
    },
}
"""The answer's JSON schema, for ``/openapi.json``."""
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
