"""The frame host: hosted frame pages at ``/oembed/<customer_hash>/<params_hash>`` and the frame
management API under ``/api/v1/frames`` (SPEC 4.3, DESIGN section 6).

Rendered frame pages are kept in this process's memory for ``PAGE_CACHE_SECONDS``, in a cache
bounded in bytes (``oembed.frame_page_cache_bytes``)."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, ClassVar

from convert.frame_card import CSP, CardData, render_card
from convert.oembed import (
    EmbedPage,
    customer_hash,
    embed_id,
    frame_size,
    iframe_snippet,
    normalize_url,
    params_hash,
    render_params,
)
from handlers.base import ApiHandler, BaseHandler
from handlers.errors import ApiError
from handlers.params import Param, ParamTable
from services.embeds import EmbedRequest, ResolutionError, with_cache_off
from services.pages import PageRequest
from store.frames import METADATA_FIELDS, BadCursorError, FrameRecord
from store.memcache import BoundedCache
from store.store import StoreUnavailable

if TYPE_CHECKING:  # the composition root builds what the handlers are given
    from app.services import Services

PAGE_CACHE_SECONDS = 5.0
"""How long a process serves a frame page from memory before reading its row again."""
NOT_FOUND_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>Frame not found</title>"
    "<meta name='robots' content='noindex'></head><body style='font:14px sans-serif;"
    "color:#555;display:flex;align-items:center;justify-content:center;height:100vh;margin:0'>"
    "<p>This embed is no longer available.</p></body></html>"
)


async def build_frame(
    services: Services,
    *,
    org_id: int,
    url: str,
    page: EmbedPage,
    template: str,
    theme: str,
    orientation: str,
    maxwidth: int | None,
    maxheight: int | None,
    refreshed: bool = False,
) -> FrameRecord:
    """Create or update the organization's frame for this URL and these render parameters.
    Raises StoreUnavailable."""
    secret = await services.frames.secret()
    normalized = normalize_url(url)
    params = render_params(template, theme, orientation, maxwidth, maxheight)
    hashes = customer_hash(secret, org_id), params_hash(normalized, params)
    width, height = frame_size(template, maxwidth, maxheight)
    frame_url = f"{services.settings.server.public_frame_host()}/oembed/{hashes[0]}/{hashes[1]}"
    metadata = {name: page.metadata.get(name, "") for name in METADATA_FIELDS}
    record = await services.frames.upsert(
        {
            "embed_id": embed_id(org_id, normalized, params),
            "org": org_id,
            "customer_hash": hashes[0],
            "params_hash": hashes[1],
            "url": url,
            "template": template,
            "theme": theme,
            "orientation": orientation,
            "width": width,
            "height": height,
            "maxwidth": maxwidth,
            "maxheight": maxheight,
            "metadata": metadata,
            "html": iframe_snippet(frame_url, width, height, metadata["title"]),
        },
        refreshed=refreshed,
    )
    FramePageHandler.forget(record.path())
    return record


# -- the frame page -----------------------------------------------------------------------------


class FramePageHandler(BaseHandler):
    """The card of one frame: static HTML and CSS, no script, cacheable with an ETag."""

    endpoint = "frame_page"
    # path -> (ETag, "" when the frame does not exist; the page); its byte limit is set from
    # the settings before each write.
    _cache: ClassVar[BoundedCache[str, tuple[str, bytes]]] = BoundedCache(0, PAGE_CACHE_SECONDS)

    @classmethod
    def forget(cls, path: str) -> None:
        """Drop a frame page from this process's memory (after an update or a delete)."""
        cls._cache.pop(path)

    async def get(self, customer: str, params: str) -> None:
        path = f"/oembed/{customer}/{params}"
        cached = self._cache.get(path)
        if cached is None:
            cached = await self._render(customer, params)
            self._cache.max_bytes = self.services.settings.oembed.frame_page_cache_bytes
            self._cache.put(path, cached)
        etag, body = cached
        self.set_header("Content-Security-Policy", CSP)
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

    async def _render(self, customer: str, params: str) -> tuple[str, bytes]:
        try:
            record = await self.services.frames.page(customer, params)
        except StoreUnavailable as exc:
            raise ApiError("unavailable") from exc
        if record is None:
            return "", NOT_FOUND_PAGE.encode()
        plan = self.services.settings.plans.get(record.plan)
        meta = record.metadata
        body = render_card(
            CardData(
                url=record.url,
                title=meta.get("title", ""),
                description=meta.get("description", ""),
                image=meta.get("image", ""),
                site_name=meta.get("site_name", ""),
                favicon=meta.get("favicon", ""),
                canonical_url=meta.get("canonical_url", ""),
            ),
            template=record.template,
            theme=record.theme,
            width=record.width,
            height=record.height,
            badge=plan.badge if plan is not None else True,
        ).encode()
        return '"' + hashlib.sha256(body).hexdigest()[:32] + '"', body


# -- the management API -------------------------------------------------------------------------

KEY_ONLY = ParamTable(
    [Param("app_id", "string", "API key (or send the api-key header).", secret=True)]
)
LIST_PARAMS = ParamTable(
    [
        Param("app_id", "string", "API key (or send the api-key header).", secret=True),
        Param("limit", "integer", "Frames per page, newest first.", 50, minimum=1, maximum=200),
        Param("cursor", "string", "next_cursor of the previous page.", max_length=200),
    ]
)


class FramesApiHandler(ApiHandler):
    """Common ground of the frame management handlers: the oEmbed error shape, no credits."""

    endpoint = "frames"
    error_shape = "oembed"
    params = KEY_ONLY
    uses_quota = False

    def frame_host(self) -> str:
        return self.services.settings.server.public_frame_host()

    async def own_frame(self, embed: str) -> FrameRecord:
        assert self.key_info is not None
        try:
            record = await self.services.frames.get(self.key_info.org_id, embed)
        except StoreUnavailable as exc:
            raise ApiError("unavailable") from exc
        if record is None:
            raise ApiError("frame_not_found", f"no frame {embed[:64]!r} in this organization")
        return record


class FrameListHandler(FramesApiHandler):
    """``GET /api/v1/frames``: the organization's frames, newest first."""

    params = LIST_PARAMS

    async def get(self) -> None:
        assert self.key_info is not None
        params = self.parse_params()
        try:
            page = await self.services.frames.listing(
                self.key_info.org_id, params["limit"], params["cursor"] or None
            )
        except BadCursorError as exc:
            raise ApiError("invalid_parameter", "cursor is not one this API issued") from exc
        except StoreUnavailable as exc:
            raise ApiError("unavailable") from exc
        self.write_json(
            {
                "frames": [frame.to_json(self.frame_host()) for frame in page.frames],
                "next_cursor": page.next_cursor,
                "total": page.total,
            }
        )


class FrameHandler(FramesApiHandler):
    """``GET`` and ``DELETE /api/v1/frames/:id``."""

    async def get(self, embed: str) -> None:
        self.parse_params()
        record = await self.own_frame(embed)
        self.write_json(record.to_json(self.frame_host()))

    async def delete(self, embed: str) -> None:
        assert self.key_info is not None
        self.parse_params()
        try:
            record = await self.services.frames.delete(self.key_info.org_id, embed)
        except StoreUnavailable as exc:
            raise ApiError("unavailable") from exc
        if record is None:
            raise ApiError("frame_not_found", f"no frame {embed[:64]!r} in this organization")
        FramePageHandler.forget(record.path())
        self.services.embeds.answers.forget_frame(record.embed_id)
        self.set_status(204)
        self.finish()


class FrameRefreshHandler(FramesApiHandler):
    """``POST /api/v1/frames/:id/refresh``: re-read the page (no cache) and rebuild the frame."""

    async def post(self, embed: str) -> None:
        assert self.key_info is not None
        self.parse_params()
        record = await self.own_frame(embed)
        request = with_cache_off(
            EmbedRequest(
                url=record.url,
                page=PageRequest(
                    url=record.url,
                    allowed_tiers=self.plan.proxy_tiers() if self.plan else frozenset(),
                ),
                auto_render=True,
            )
        )
        try:
            page, _, _ = await self.services.embeds.read_page(request)
        except ResolutionError as exc:
            raise ApiError("frame_generation_failed", exc.message) from exc
        if not page.has_metadata:
            raise ApiError("frame_generation_failed", "the page no longer has card metadata")
        try:
            updated = await build_frame(
                self.services,
                org_id=self.key_info.org_id,
                url=record.url,
                page=page,
                template=record.template,
                theme=record.theme,
                orientation=record.orientation,
                maxwidth=record.maxwidth,
                maxheight=record.maxheight,
                refreshed=True,
            )
        except StoreUnavailable as exc:
            raise ApiError("frame_generation_failed") from exc
        self.services.embeds.answers.forget_frame(updated.embed_id)
        self.write_json(updated.to_json(self.frame_host()))


ROUTES = [
    (r"/oembed/([0-9a-f]{16})/([0-9a-f]{32})", FramePageHandler),
    (r"/api/v1/frames/?", FrameListHandler),
    (r"/api/v1/frames/([^/]+)/refresh", FrameRefreshHandler),
    (r"/api/v1/frames/([^/]+)", FrameHandler),
]
