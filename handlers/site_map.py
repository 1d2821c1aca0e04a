"""``POST /api/3.0/map``: the URLs of a site, from its sitemaps and its start page's links,
answered at once (the use case is :mod:`services.site_map`).

The body is a JSON object read with :data:`MAP_PARAMS` (which also writes the operation's
``requestBody`` in ``/openapi.json``); the key comes as for every endpoint (app_id, api-key,
X-API-Key or Authorization: Bearer). Errors have the Markdown shape. A map costs
``credits.map`` credits (1 by default) whatever it fetched; a failed map costs nothing.
"""

from __future__ import annotations

from typing import Any, cast

from handlers.base import ApiHandler
from handlers.params.site_map import MAP_PARAMS, MapParams
from handlers.request_body import BoundedBody
from services.site_map import MapRequest, MapResult, SitemapMode


class MapHandler(BoundedBody, ApiHandler):
    """Read the body, have the map service find the site's URLs, answer them as JSON."""

    endpoint = "map"
    error_shape = "markdown"
    params = MAP_PARAMS

    async def post(self) -> None:
        params = self.read_body(MapParams)
        request = MapRequest(
            url=params.url.strip(),
            include=params.include,
            exclude=params.exclude,
            subdomains=params.subdomains,
            sitemap=cast(SitemapMode, params.sitemap),
            limit=params.limit,
            org=self.caller.org,
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


ROUTES = [(r"/api/3\.0/map", MapHandler)]
