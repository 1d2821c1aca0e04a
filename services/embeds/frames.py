"""Hosted frames: build (or rebuild) an organization's frame for a page and its render
parameters, serve its card page from a bounded memory cache that every change invalidates, list,
refresh and delete frames.

Card pages are kept in this process's memory for :data:`PAGE_CACHE_SECONDS`, in a cache bounded
in bytes (``oembed.frame_page_cache_bytes``)."""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from convert.embed.card_content import CardData
from convert.embed.frame_card import CSP, render_card
from convert.embed.oembed import (
    TEMPLATE_SIZES,
    EmbedPage,
    customer_hash,
    embed_id,
    frame_size,
    iframe_snippet,
    normalize_url,
    params_hash,
    render_params,
)
from services.embeds.tiers import EmbedError, EmbedRequest, EmbedResolver, with_cache_off
from services.failure import ServiceError
from services.fetch_policy import PageRequest
from services.memcache import BoundedCache
from store.frames import METADATA_FIELDS, BadCursorError, FramePage, FrameRecord, FrameStore
from store.store import StoreUnavailable

FRAME_FIELDS = METADATA_FIELDS
"""The page metadata a frame keeps (its listing's ``metadata`` object)."""
CARD_CSP = CSP
"""The Content-Security-Policy a card page is served with: no script, nothing fetched but its
image."""
PAGE_CACHE_SECONDS = 5.0
"""How long a process serves a frame page from memory before reading its row again."""
NOT_FOUND_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>Frame not found</title>"
    "<meta name='robots' content='noindex'></head><body style='font:14px sans-serif;"
    "color:#555;display:flex;align-items:center;justify-content:center;height:100vh;margin:0'>"
    "<p>This embed is no longer available.</p></body></html>"
)


class FrameFailure(enum.Enum):
    """What went wrong with a frame."""

    NOT_FOUND = "not_found"
    """No such frame in the organization."""
    BAD_CURSOR = "bad_cursor"
    """A listing cursor this API did not issue."""
    GENERATION_FAILED = "generation_failed"
    """The frame could not be built (the page, or the store, failed)."""


class FrameError(ServiceError):
    """A frame request that cannot be answered; ``message`` is safe to show."""


@dataclass(frozen=True)
class FrameSpec:
    """What a frame shows and how: the page and its render parameters."""

    url: str
    template: str
    theme: str
    orientation: str
    maxwidth: int | None
    maxheight: int | None


class FrameService:
    """Frames over the frame store and the embed resolver; built once (it owns the page cache).

    ``frame_host()`` is the public origin of the frame pages; ``badge(plan)`` whether a plan's
    cards show the Pagecast badge; ``cache_bytes()`` the page cache's bound. They are read per
    call, so that changed settings take effect."""

    def __init__(
        self,
        frames: FrameStore,
        embeds: EmbedResolver,
        *,
        frame_host: Callable[[], str],
        badge: Callable[[str], bool],
        cache_bytes: Callable[[], int],
    ) -> None:
        self.frames = frames
        self.embeds = embeds
        self._frame_host = frame_host
        self._badge = badge
        self._cache_bytes = cache_bytes
        # path -> (ETag, "" when the frame does not exist; the page), bounded in bytes
        self.card_pages: BoundedCache[str, tuple[str, bytes]] = BoundedCache(0, PAGE_CACHE_SECONDS)

    def frame_host(self) -> str:
        return self._frame_host()

    async def build(
        self, org_id: int, spec: FrameSpec, page: EmbedPage, *, refreshed: bool = False
    ) -> FrameRecord:
        """Create or update the organization's frame for ``spec``; :class:`FrameError` when the
        store fails."""
        try:
            record = await self._upsert(org_id, spec, page, refreshed)
        except StoreUnavailable as exc:
            raise FrameError(FrameFailure.GENERATION_FAILED) from exc
        self.card_pages.pop(record.path())
        return record

    async def card_page(self, customer: str, params: str) -> tuple[str, bytes]:
        """``(ETag, page)`` of a frame's card; the ETag is "" when there is no such frame."""
        path = f"/oembed/{customer}/{params}"
        cached = self.card_pages.get(path)
        if cached is None:
            cached = await self._render(customer, params)
            self.card_pages.max_bytes = self._cache_bytes()
            self.card_pages.put(path, cached)
        return cached

    async def own(self, org_id: int, embed: str) -> FrameRecord:
        """The organization's frame ``embed``, or :class:`FrameError` ``NOT_FOUND``."""
        record = await self.frames.get(org_id, embed)
        if record is None:
            raise FrameError(
                FrameFailure.NOT_FOUND, f"no frame {embed[:64]!r} in this organization"
            )
        return record

    async def listing(self, org_id: int, limit: int, cursor: str | None) -> FramePage:
        try:
            return await self.frames.listing(org_id, limit, cursor)
        except BadCursorError as exc:
            raise FrameError(FrameFailure.BAD_CURSOR, "cursor is not one this API issued") from exc

    async def delete(self, org_id: int, embed: str) -> None:
        """Delete the frame; its card page and the oEmbed answers that name it are forgotten."""
        record = await self.frames.delete(org_id, embed)
        if record is None:
            raise FrameError(
                FrameFailure.NOT_FOUND, f"no frame {embed[:64]!r} in this organization"
            )
        self.card_pages.pop(record.path())
        self.embeds.answers.forget_frame(record.embed_id)

    async def refresh(self, org_id: int, embed: str, allowed_tiers: frozenset[str]) -> FrameRecord:
        """Read the frame's page again (no cache) and rebuild the frame."""
        record = await self.own(org_id, embed)
        request = with_cache_off(
            EmbedRequest(
                url=record.url,
                page=PageRequest(url=record.url, allowed_tiers=allowed_tiers),
                auto_render=True,
            )
        )
        try:
            page, _, _ = await self.embeds.read_page(request)
        except EmbedError as exc:
            raise FrameError(FrameFailure.GENERATION_FAILED, exc.message) from exc
        if not page.has_metadata:
            raise FrameError(FrameFailure.GENERATION_FAILED, "the page no longer has card metadata")
        spec = FrameSpec(
            record.url,
            record.template,
            record.theme,
            record.orientation,
            record.maxwidth,
            record.maxheight,
        )
        updated = await self.build(org_id, spec, page, refreshed=True)
        self.embeds.answers.forget_frame(updated.embed_id)
        return updated

    async def _upsert(
        self, org_id: int, spec: FrameSpec, page: EmbedPage, refreshed: bool
    ) -> FrameRecord:
        secret = await self.frames.secret()
        normalized = normalize_url(spec.url)
        params = render_params(
            spec.template, spec.theme, spec.orientation, spec.maxwidth, spec.maxheight
        )
        hashes = customer_hash(secret, org_id), params_hash(normalized, params)
        width, height = frame_size(spec.template, spec.maxwidth, spec.maxheight)
        frame_url = f"{self.frame_host()}/oembed/{hashes[0]}/{hashes[1]}"
        metadata = {name: page.metadata.get(name, "") for name in METADATA_FIELDS}
        return await self.frames.upsert(
            {
                "embed_id": embed_id(org_id, normalized, params),
                "org": org_id,
                "customer_hash": hashes[0],
                "params_hash": hashes[1],
                "url": spec.url,
                "template": spec.template,
                "theme": spec.theme,
                "orientation": spec.orientation,
                "width": width,
                "height": height,
                "maxwidth": spec.maxwidth,
                "maxheight": spec.maxheight,
                "metadata": metadata,
                "html": iframe_snippet(
                    frame_url,
                    width,
                    height,
                    metadata["title"],
                    responsive=not (spec.maxwidth or spec.maxheight),
                ),
            },
            refreshed=refreshed,
        )

    async def _render(self, customer: str, params: str) -> tuple[str, bytes]:
        record = await self.frames.page(customer, params)
        if record is None:
            return "", NOT_FOUND_PAGE.encode()
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
            badge=self._badge(record.plan),
        ).encode()
        return '"' + hashlib.sha256(body).hexdigest()[:32] + '"', body


def sample_snippets() -> list[str]:
    """Every form of a hosted frame's embed snippet, for a sample URL: what a page embedding
    frames has to allow in its own Content-Security-Policy (their style attributes). A
    responsive snippet's style names the proportions of its template's size; a fixed one's
    does not depend on its size."""
    url = "https://frames.invalid/oembed/a/b"
    return [
        iframe_snippet(url, width, height, "title", responsive=True)
        for width, height in TEMPLATE_SIZES.values()
    ] + [iframe_snippet(url, 1, 1, "title")]
