"""``POST /api/3.0/map``: the URLs of a site, from its sitemaps and its start page's links,
answered at once (the use case is :mod:`services.site_map`).

The body is a JSON object read with :data:`MAP_PARAMS` (which also writes the operation's
``requestBody`` in ``/openapi.json``); the key comes as for every endpoint (app_id, api-key,
X-API-Key or Authorization: Bearer). Errors have the Markdown shape. A map costs
``credits.map`` credits (1 by default) whatever it fetched; a failed map costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from convert.crawl.scope import PatternError, check_patterns
from handlers.base import ApiHandler
from handlers.errors import ApiError
from handlers.params import Params, ParamTable, param
from services.site_map import SITEMAP_MODES, MapRequest, MapResult, SitemapMode

MAX_PATTERNS = 50
MAX_LIMIT = 5000

_PATTERN_WORDS = (
    "shell-style globs (*, ?, [...]) matched against the whole URL path, which they must start "
    "with (/ or a wildcard); * also matches /."
)


@dataclass(frozen=True)
class MapParams(Params):
    """The map body's fields, typed."""

    url: str = param(
        "string",
        "The start URL (http or https): its site is mapped, its links are read.",
        "",
        required=True,
        max_length=8192,
        example="https://example.com/docs/",
    )
    include: tuple[str, ...] = param(
        "array",
        "Keep only URLs whose path matches one of these patterns: " + _PATTERN_WORDS,
        (),
        max_items=MAX_PATTERNS,
        max_length=512,
        example=["/docs/*"],
    )
    exclude: tuple[str, ...] = param(
        "array",
        "Drop URLs whose path matches one of these patterns (same form as include).",
        (),
        max_items=MAX_PATTERNS,
        max_length=512,
        example=["/docs/archive/*"],
    )
    subdomains: bool = param(
        "boolean",
        "Also keep URLs on subdomains of the start host (without its www.).",
        False,
    )
    sitemap: str = param(
        "string",
        "include: sitemaps and the start page's links; skip: links only; only: sitemaps only.",
        "include",
        choices=SITEMAP_MODES,
    )
    limit: int = param(
        "integer",
        "Most URLs answered (truncated says when there were more).",
        1000,
        minimum=1,
        maximum=MAX_LIMIT,
    )


MAP_PARAMS = ParamTable.of(MapParams)


class MapHandler(ApiHandler):
    """Read the body, have the map service find the site's URLs, answer them as JSON."""

    endpoint = "map"
    error_shape = "markdown"
    params = MAP_PARAMS

    async def post(self) -> None:
        params = self.read_body(MapParams)
        for name, patterns in (("include", params.include), ("exclude", params.exclude)):
            try:
                check_patterns(patterns)
            except PatternError as exc:
                raise ApiError("invalid_parameter", f"invalid parameters: {name}: {exc}") from exc
        request = MapRequest(
            url=params.url.strip(),
            include=params.include,
            exclude=params.exclude,
            subdomains=params.subdomains,
            sitemap=cast(SitemapMode, params.sitemap),
            limit=params.limit,
        )
        result = await self.services.map_service.run(request)
        self.bill(result.credits)
        self.write_json(map_body(result, self.request_id))


def map_body(result: MapResult, request_id: str) -> dict[str, Any]:
    """The JSON answer of a map."""
    return {
        "url": result.url,
        "urls": result.urls,
        "count": len(result.urls),
        "truncated": result.truncated,
        "complete": result.complete,
        "sources": result.sources,
        "robots": result.robots,
        "sitemaps_read": result.sitemaps_read,
        "sitemaps_failed": result.sitemaps_failed,
        "request_id": request_id,
    }


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


ROUTES = [(r"/api/3\.0/map", MapHandler)]
