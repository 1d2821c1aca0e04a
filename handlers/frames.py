"""The frame host: hosted frame pages at ``/oembed/<customer_hash>/<params_hash>`` and the frame
management API under ``/api/v1/frames`` (SPEC 4.3, DESIGN section 6), over
:class:`services.embeds.frames.FrameService`."""

from __future__ import annotations

from typing import Any

from handlers.base import ApiHandler, BaseHandler
from handlers.params.frames import KEY_ONLY, LIST_PARAMS, FrameListParams, KeyOnlyParams
from handlers.params.table import ParamTable
from handlers.request_body import BoundedBody
from services.embeds.frames import CARD_CSP

# -- the frame page -----------------------------------------------------------------------------


class FramePageHandler(BaseHandler):
    """The card of one frame: static HTML and CSS, no script, cacheable with an ETag."""

    endpoint = "frame_page"

    async def get(self, customer: str, params: str) -> None:
        etag, body = await self.services.frame_service.card_page(customer, params)
        self.set_header("Content-Security-Policy", CARD_CSP)
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Referrer-Policy", "no-referrer")
        if not etag:
            self.set_status(404)
            self.set_header("Cache-Control", "no-store")
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(body)
            return
        self.set_header("Cache-Control", "public, max-age=300")
        self.set_header("ETag", etag)
        if etag in self.request.headers.get("If-None-Match", ""):
            self.set_status(304)
            self.finish()
            return
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(body)

    async def head(self, customer: str, params: str) -> None:
        """GET's answer without its body (HTTP): the card is served from memory, free."""
        await self.get(customer, params)


# -- the management API -------------------------------------------------------------------------


class FramesApiHandler(ApiHandler):
    """Common ground of the frame management handlers: the oEmbed error shape, no credits."""

    endpoint = "frames"
    error_shape = "oembed"
    params: ParamTable[Any] = KEY_ONLY
    uses_quota = False

    @property
    def org_id(self) -> int:
        return self.caller.org_id


class FrameListHandler(FramesApiHandler):
    """``GET /api/v1/frames``: the organization's frames, newest first."""

    params = LIST_PARAMS

    async def get(self) -> None:
        params = self.parse_params(FrameListParams)
        frames = self.services.frame_service
        page = await frames.listing(self.org_id, params.limit, params.cursor or None)
        self.write_json(
            {
                "frames": [frame.to_json(frames.frame_host()) for frame in page.frames],
                "next_cursor": page.next_cursor,
                "total": page.total,
            }
        )


class FrameHandler(FramesApiHandler):
    """``GET`` and ``DELETE /api/v1/frames/:id``."""

    async def get(self, embed: str) -> None:
        self.parse_params(KeyOnlyParams)
        frames = self.services.frame_service
        record = await frames.own(self.org_id, embed)
        self.write_json(record.to_json(frames.frame_host()))

    async def delete(self, embed: str) -> None:
        self.parse_params(KeyOnlyParams)
        await self.services.frame_service.delete(self.org_id, embed)
        self.set_status(204)
        self.finish()


class FrameRefreshHandler(BoundedBody, FramesApiHandler):
    """``POST /api/v1/frames/:id/refresh``: re-read the page (no cache) and rebuild the frame."""

    async def post(self, embed: str) -> None:
        self.parse_params(KeyOnlyParams)
        frames = self.services.frame_service
        updated = await frames.refresh(self.org_id, embed, self.caller.proxy_tiers)
        self.write_json(updated.to_json(frames.frame_host()))


ROUTES = [
    (r"/oembed/([0-9a-f]{16})/([0-9a-f]{32})", FramePageHandler),
    (r"/api/v1/frames/?", FrameListHandler),
    (r"/api/v1/frames/([^/]+)/refresh", FrameRefreshHandler),
    (r"/api/v1/frames/([^/]+)", FrameHandler),
]
