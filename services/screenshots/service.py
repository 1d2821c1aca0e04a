"""Screenshots: check the target, reuse a recent identical capture or capture the page in the
farm, encode it (WebP through Pillow, off the IOLoop), store it and price it; and the 24-hour
link that serves the stored image."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from PIL import Image

from browser.farm import Farm
from browser.farm.types import (
    CaptureResult,
    FarmError,
    FarmErrorKind,
    Readiness,
    ReadyState,
)
from browser.fetch.client import Fetcher
from browser.proxies import ProxyPool
from services.accounts.billing import CreditSettings, Usage, price
from services.screenshots.request import (
    CapturePlan,
    ScreenshotError,
    ScreenshotFailure,
    ScreenshotOptions,
    ScreenshotRequest,
    capture_plan,
    within_limits,
)
from services.target_guard import check_target
from store.screenshots import ScreenshotRecord, ScreenshotStore

log = logging.getLogger(__name__)

REUSE_MIN_LEFT = timedelta(hours=1)
"""A stored capture is reused only while its link has at least this long left."""


@dataclass
class Shot:
    """A stored capture, its bytes when it was just taken, and its price."""

    record: ScreenshotRecord
    image: bytes | None
    credits: int
    route: str
    """How the page was reached: direct, or the standard proxy tier."""
    readiness: Readiness | None = None
    """How the page was waited for after its load (a fresh capture only)."""
    pages: int | None = None
    """A fresh PDF capture's page count."""
    html: str | None = None
    """The page's HTML read in the capture's own visit (a capture that kept it)."""
    final_url: str | None = None
    """Where the page ended up after redirects (a fresh capture only)."""


@dataclass
class LinkImage:
    """What a live link serves: a presigned URL of the object, or the bytes (for a HEAD, only
    their count)."""

    record: ScreenshotRecord
    seconds_left: int
    direct: str | None
    image: bytes | None
    size: int = 0
    """The image's length in bytes (0 with ``direct``)."""


class ScreenshotService:
    """Screenshots over the address check, the farm and the screenshot store."""

    def __init__(
        self,
        fetcher: Fetcher,
        farm: Farm,
        proxies: ProxyPool,
        store: ScreenshotStore,
        credits: CreditSettings,
        *,
        max_navigation_ms: float = 60_000,
    ) -> None:
        self.fetcher = fetcher
        self.farm = farm
        self.proxies = proxies
        self.store = store
        self.credits = credits
        self.max_navigation_ms = max_navigation_ms

    def options(
        self, options: ScreenshotOptions, asked: Collection[str] = ()
    ) -> tuple[ScreenshotOptions, list[str]]:
        """``options`` within the server's limits (``farm.max_navigation_timeout``), and what
        the caller should be told about the values it asked for (``asked``) that were lowered."""
        return within_limits(options, self.max_navigation_ms, asked)

    def check(self, request: ScreenshotRequest) -> CapturePlan:
        """The capture ``request`` asks for, its options checked against each other and the
        server's rules, before the target is looked at (:class:`ScreenshotError`)."""
        job = capture_plan(request)
        if job.capture.route == "standard" and not self.proxies.configured("standard"):
            raise ScreenshotError(
                ScreenshotFailure.NO_STANDARD_PROXY,
                "use_proxy: no standard proxy is configured on this server",
            )
        return job

    async def take(self, request: ScreenshotRequest, *, keep_html: bool = False) -> Shot:
        """A reused or fresh capture of ``request.url``, stored; :class:`ScreenshotError`,
        :class:`~services.target_guard.TargetRefusedError` or the store's ``StoreUnavailable``
        when it cannot be had. With ``keep_html`` the capture is always fresh (a stored one
        kept no HTML) and the shot carries the page's HTML from the same visit."""
        job = self.check(request)
        route = job.capture.route
        await check_target(self.fetcher, job.url)
        if job.reuse and not keep_html:
            record = await self.store.reusable(job.org_id, job.request_hash, REUSE_MIN_LEFT)
            if record is not None:
                return Shot(record, None, price(self.credits, Usage("screenshot", "1.1")), route)
        if keep_html:
            job = replace(job, capture=replace(job.capture, keep_html=True))
        record, image, shot = await self._capture(job)
        usage = Usage("screenshot", "1.1", fetched_through=route)
        credits = price(self.credits, usage)
        return Shot(
            record, image, credits, route, shot.readiness, shot.pages, shot.html, shot.final_url
        )

    @property
    def image_origin(self) -> str | None:
        """The origin links redirect to when images are served from an object store's own
        addresses (None when Pagecast serves them itself)."""
        return self.store.files.direct_origin

    async def image(self, shot: Shot) -> bytes:
        """The image's bytes: the fresh capture's, else read back from the store."""
        image = shot.image if shot.image is not None else await self.store.read(shot.record)
        if image is None:
            raise ScreenshotError(
                ScreenshotFailure.UNREADABLE, "the stored image could not be read"
            )
        return image

    async def open_link(self, token: str, extension: str, *, body: bool = True) -> LinkImage:
        """What the link ``token.extension`` serves while it lives; with ``body`` false (a
        HEAD), the same answer without reading the image: its size, or a presigned URL that
        answers HEAD."""
        record = await self.store.find(token)
        if record is None or record.extension != extension:
            raise ScreenshotError(ScreenshotFailure.UNKNOWN_LINK, "no such screenshot")
        # Whole seconds, rounded down: nothing handed out from here outlives the link.
        left = int((record.expires_at - datetime.now(UTC)).total_seconds())
        if left <= 0:
            raise ScreenshotError(
                ScreenshotFailure.EXPIRED_LINK,
                "this screenshot link has expired (links live 24 hours)",
            )
        direct = await self.store.link(record, left, "GET" if body else "HEAD") or None
        if direct:
            return LinkImage(record, left, direct, None)
        if body:
            image = await self.store.read(record)
            size = None if image is None else len(image)
        else:
            image, size = None, await self.store.size(record)
        if size is None:
            raise ScreenshotError(ScreenshotFailure.GONE, "this screenshot is no longer available")
        return LinkImage(record, left, None, image, size)

    async def _capture(self, job: CapturePlan) -> tuple[ScreenshotRecord, bytes, CaptureResult]:
        """Capture, encode and store; the stored record, the image bytes and the capture."""
        try:
            shot = await self.farm.capture(job.url, job.capture)
        except ValueError as exc:  # the route has no egress guard (a SOCKS-only standard tier)
            raise ScreenshotError(
                ScreenshotFailure.NO_BROWSER_PROXY,
                "use_proxy: the standard tier has no HTTP proxy for browsers",
            ) from exc
        except FarmError as exc:
            raise ScreenshotError(
                exc.kind, exc.message, retry_after=exc.retry_after, problems=exc.problems
            ) from exc
        try:
            image, width, height = await _encode(shot, job.image_format, job.quality)
        except (OSError, ValueError, Image.DecompressionBombError) as exc:
            log.warning("a capture could not be encoded as %s: %s", job.image_format, exc)
            raise ScreenshotError(
                FarmErrorKind.capture_failed,
                f"the capture could not be encoded as {job.image_format}",
            ) from exc
        record = await self.store.save(
            image,
            org_id=job.org_id,
            request_hash=job.request_hash,
            extension=job.image_format,
            width=width,
            height=height,
            host=urlsplit(shot.final_url or job.url).hostname or "",
            response_code=shot.status,
        )
        if shot.readiness is not None and shot.readiness.state is ReadyState.blank:
            log.info("captured a page that painted nothing (%s)", shot.readiness.header())
        return record, image, shot


async def _encode(shot: CaptureResult, image_format: str, quality: int) -> tuple[bytes, int, int]:
    """The image in the asked format: PNG and JPEG come from Chromium, WebP through Pillow."""
    if image_format != "webp":
        return shot.image, shot.width, shot.height
    loop = asyncio.get_running_loop()
    image = await loop.run_in_executor(None, _to_webp, shot.image, quality)
    return image, shot.width, shot.height


def _to_webp(png: bytes, quality: int) -> bytes:
    with Image.open(io.BytesIO(png)) as source:
        out = io.BytesIO()
        source.save(out, format="WEBP", quality=quality, method=4)
        return out.getvalue()
