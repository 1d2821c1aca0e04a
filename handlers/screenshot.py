"""``GET /api/1.1/screenshot/{encoded_url}``: a page rendered by the farm, stored, and linked for
24 hours (SPEC 2.1, 4.1, 8); and ``GET /screenshots/<token>.<ext>``, the link itself."""

from __future__ import annotations

import re
from email.utils import format_datetime
from typing import Any

from handlers.base import ApiHandler, BaseHandler
from handlers.params.screenshot import SCREENSHOT_PARAMS, ScreenshotParams
from handlers.screenshot_requests import accept, link, shot_json
from services.screenshots import (
    CONTENT_TYPES,
    ScreenshotOptions,
    ScreenshotRecord,
    ScreenshotRequest,
)


class ScreenshotHandler(ApiHandler):
    """Check the target, reuse or capture, store, and answer the link (or the bytes)."""

    endpoint = "screenshot"
    error_shape = "oembed"
    params = SCREENSHOT_PARAMS
    target_prefix = re.compile(r"/api/1\.1/screenshot/")
    server_timing = True

    async def get(self, encoded_url: str | None = None) -> None:
        params = self.parse_params(ScreenshotParams)
        caller = self.caller
        screenshots = self.services.screenshot_service
        options, lowered = screenshots.options(ScreenshotOptions.of(params), params.sent)
        for warning in lowered:
            self.warn(warning)
        request = ScreenshotRequest(
            url=self.target(encoded_url, params.url),
            org=caller.org,
            org_id=caller.org_id,
            options=options,
        )
        if params.async_:
            await accept(self, request, params)
            return
        page_text = params.include_markdown or params.include_metadata
        page = None
        if page_text:  # the picture and the page's text from one load
            both = await self.services.one_load_service.screenshot_with_markdown(request)
            shot, page = both.shot, both.page
            self.bill(both.credits)
        else:
            shot = await screenshots.take(request)
            self.bill(shot.credits)
        self.log_fields.update(tier=shot.route, render="reused" if shot.image is None else "yes")
        record = shot.record
        if shot.readiness is not None:
            self.set_header("X-Render-Timing", shot.readiness.header())
        if params.response_type == "image":
            image = await screenshots.image(shot)
            self.set_header("Content-Type", record.content_type)
            self.set_header("X-Screenshot-Url", self._link(record))
            self.finish(image)
            return
        body = shot_json(shot, self.services.server.public_base_url())
        if page is not None and params.include_markdown:
            body["markdown"] = page.markdown
        if page is not None and params.include_metadata:
            body["metadata"] = page.metadata
        self.write_json(body)

    def _link(self, record: ScreenshotRecord) -> str:
        return link(record, self.services.server.public_base_url())


class ScreenshotImageHandler(BaseHandler):
    """The link: the image until it expires, then 410 Gone. No key needed; the token is the key.

    With an object store behind the screenshots, a live link answers 302 to a presigned URL of
    the object that expires no later than the link (and within ``s3_link_seconds``); the answer
    itself is never cached, so every visit checks the row again.

    ``HEAD`` answers as ``GET`` does (status, Content-Type, Content-Length, caching headers,
    the same errors) without a body and without reading the image; its redirect is presigned
    for HEAD.
    """

    endpoint = "screenshot_image"

    async def get(self, token: str, extension: str) -> None:
        await self._serve(token, extension, body=True)

    async def head(self, token: str, extension: str) -> None:
        await self._serve(token, extension, body=False)

    async def _serve(self, token: str, extension: str, *, body: bool) -> None:
        served = await self.services.screenshot_service.open_link(token, extension, body=body)
        if served.direct:
            self.redirect(served.direct, status=302)
            return
        record = served.record
        self.set_header("Content-Type", CONTENT_TYPES[record.extension])
        self.set_header("Content-Length", str(served.size))
        self.set_header("Cache-Control", f"public, max-age={served.seconds_left}, immutable")
        self.set_header("Expires", format_datetime(record.expires_at, usegmt=True))
        self.set_header("Last-Modified", format_datetime(record.created_at, usegmt=True))
        self.finish(served.image if body else None)


ROUTES: list[tuple[str, Any]] = [
    (r"/api/1\.1/screenshot/?", ScreenshotHandler),
    (r"/api/1\.1/screenshot/(.+)", ScreenshotHandler),
    (r"/screenshots/([0-9a-f]{32})\.(png|jpeg|webp|pdf)", ScreenshotImageHandler),
]
