"""Signed screenshot links (see :mod:`services.screenshots.signed`):
``GET /api/1.1/screenshot/signed/{key_id}/{encoded_url}?...&expires=&signature=``, the image
itself, captured on its first fetch and served from the stored capture after, the capture billed
once to the key that signed it; and ``GET /api/1.1/signing-secret``, where a key's holder reads
the key's signing secret."""

from __future__ import annotations

import time
from typing import Any

from handlers.base import ApiHandler
from handlers.params.frames import KEY_ONLY, KeyOnlyParams
from handlers.params.screenshot import SIGNED_SCREENSHOT_PARAMS, SignedScreenshotParams
from handlers.target_url import decode_target
from services.accounts import KeyInfo
from services.screenshots import ScreenshotOptions, ScreenshotRequest

LINK_CACHE_SECONDS = 3600
"""The longest a browser or a shared cache may keep a signed link's image (never past the stored
capture's link, nor past the link's own expiry)."""


class SignedScreenshotHandler(ApiHandler):
    """Check the link's signature, then answer as the screenshot endpoint does with
    ``response_type=image``, billed to the key that signed the link."""

    endpoint = "screenshot_signed"
    error_shape = "oembed"
    params = SIGNED_SCREENSHOT_PARAMS

    async def authenticate(self) -> KeyInfo:
        key_id, encoded_url = self.path_args
        query = {
            name: [raw.decode("utf-8", "replace") for raw in values]
            for name, values in self.request.query_arguments.items()
        }
        return await self.services.signed_links.check(key_id, encoded_url, query)

    async def get(self, key_id: str, encoded_url: str) -> None:
        params = self.parse_params(SignedScreenshotParams)
        caller = self.caller
        screenshots = self.services.screenshot_service
        options, lowered = screenshots.options(ScreenshotOptions.of(params), params.sent)
        for warning in lowered:
            self.warn(warning)
        request = ScreenshotRequest(
            url=decode_target(encoded_url), org=caller.org, org_id=caller.org_id, options=options
        )
        shot = await screenshots.take(request)
        image = await screenshots.image(shot)
        # Billed once per capture: a link on a public page is fetched by each of its visitors,
        # and the stored capture they are served costs nothing more (the rate limit still holds).
        self.bill(shot.credits if shot.image is not None else 0)
        self.log_fields.update(tier=shot.route, render="reused" if shot.image is None else "yes")
        record = shot.record
        ends = [record.expires_at.timestamp(), time.time() + LINK_CACHE_SECONDS]
        if params.expires is not None:
            ends.append(params.expires)
        self.set_header("Cache-Control", f"public, max-age={max(int(min(ends) - time.time()), 0)}")
        self.set_header("Content-Type", record.content_type)
        self.set_header("X-Screenshot-Cached", "true" if shot.image is None else "false")
        self.finish(image)


class SigningSecretHandler(ApiHandler):
    """The signing secret of the key the request presents, with the key's prefix (free)."""

    endpoint = "signing_secret"
    params = KEY_ONLY
    uses_quota = False

    async def get(self) -> None:
        self.parse_params(KeyOnlyParams)
        prefix = self.caller.key.prefix
        secret = await self.services.signed_links.secret(prefix)
        self.write_json({"key_id": prefix, "signing_secret": secret})


ROUTES: list[tuple[str, Any]] = [
    (r"/api/1\.1/screenshot/signed/(pc_[A-Za-z0-9_-]{8})/(.+)", SignedScreenshotHandler),
    (r"/api/1\.1/signing-secret/?", SigningSecretHandler),
]
