"""``GET /api/{1.1,3.0}/oembed/{encoded_url}`` and ``GET /api/{1.1,3.0}/oembed?url=``: a URL as an
oEmbed embed, from its native provider, a discovery link, or a hosted frame (SPEC 2.2, 4.2, 7.1).
"""

from __future__ import annotations

import re

from handlers.base import ApiHandler
from handlers.params.oembed import OEMBED_PARAMS, OembedParams
from services.embeds import (
    OembedOptions,
    OembedRequest,
)


class OembedHandler(ApiHandler):
    """Both versions and both forms; the version only changes defaults and credits."""

    endpoint = "oembed"
    error_shape = "oembed"
    params = OEMBED_PARAMS
    target_prefix = re.compile(r"/api/(?:1\.1|3\.0)/oembed/")

    async def get(self, version: str, encoded_url: str | None = None) -> None:
        params = self.parse_params(OembedParams)
        caller = self.caller
        request = OembedRequest(
            url=self.target(encoded_url, params.url),
            version=version,
            org=caller.org,
            org_id=caller.org_id,
            proxy_tiers=caller.proxy_tiers,
            options=OembedOptions.of(params),
        )
        answer = await self.services.embed_service.answer(request)
        self.bill(answer.credits)
        self.log_fields.update(answer.log_fields)
        self.write_json(answer.body)


ROUTES = [
    (r"/api/(1\.1|3\.0)/oembed/?", OembedHandler),
    (r"/api/(1\.1|3\.0)/oembed/(.+)", OembedHandler),
]
