"""``GET /api/1.1/screenshot/{encoded_url}``: a page rendered by the farm, stored, and linked for
24 hours (SPEC 2.1, 4.1, 8); and ``GET /screenshots/<token>.<ext>``, the link itself."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from email.utils import format_datetime
from typing import Any

from browser.farm.types import (
    PAPER_SIZES,
    PRESETS,
    VIEWPORT_LIMITS,
    CaptureOptions,
    ImageType,
    viewport_problem,
)
from convert.extract.consent import LOADERS, banner_css
from convert.html.document import SelectorError, check_selectors, split_selectors
from handlers.base import ApiHandler, BaseHandler
from handlers.errors import ApiError
from handlers.params import Params, ParamTable, param
from services.screenshots import ScreenshotJob
from store.images import CONTENT_TYPES
from store.screenshots import ScreenshotRecord


@dataclass(frozen=True)
class ScreenshotParams(Params):
    """The screenshot endpoint's parameters, typed."""

    app_id: str | None = param("string", "API key (or send the api-key header).", secret=True)
    url: str | None = param(
        "string",
        "The target URL, instead of the path segment (send exactly one of the two).",
        example="https://example.com/",
        max_length=8192,
    )
    format: str = param(
        "string",
        "Image format, or pdf: Chromium's print to PDF of the page as the screen shows it, "
        "backgrounds included.",
        "jpeg",
        choices=("jpeg", "png", "webp", "pdf"),
    )
    quality: float = param(
        "number",
        "Image quality, 10 to 80, rounded to the nearest 10; ignored for png.",
        80,
        minimum=10,
        maximum=80,
        round_to=10,
    )
    full_page: bool = param(
        "boolean", "Capture the whole scrollable page, not the viewport.", False
    )
    dimensions: str = param(
        "string",
        "Viewport: xs 375x812 (phone), sm 1024x768, md 1366x768, lg 1920x1080.",
        "md",
        choices=("xs", "sm", "md", "lg"),
    )
    selector: str | None = param(
        "string", "CSS selector: capture only that element.", max_length=1000
    )
    exclude_selectors: str | None = param(
        "string",
        "Comma-separated CSS selectors hidden from the capture.",
        max_length=2000,
        example=".ads,#chat",
    )
    block_cookie_banner: bool = param("boolean", "Hide known cookie-consent banners.", True)
    dark_mode: bool = param("boolean", "Ask the page for its dark color scheme.", False)
    cache_ok: bool = param(
        "boolean", "Reuse an identical capture whose link has an hour left.", True
    )
    use_proxy: bool = param("boolean", "Load the page through the standard proxy tier.", False)
    capture_delay: float | None = param(
        "number",
        "Milliseconds to wait after loading, before the capture.",
        minimum=0,
        maximum=10000,
    )
    navigationTimeout: float = param(  # noqa: N815 (the SPEC names it so)
        "number",
        "Milliseconds the page may take to load.",
        30000,
        minimum=1000,
        maximum=60000,
    )
    wait_for_selector: str | None = param(
        "string",
        "Wait until this CSS selector matches before the capture.",
        max_length=1000,
    )
    device_scale_factor: float = param(
        "number",
        "Device pixels per CSS pixel, 1 to 3 (2 gives a retina image).",
        1,
        minimum=1,
        maximum=3,
    )
    scroll_to_bottom: bool = param("boolean", "Scroll down first to load lazy images.", False)
    response_type: str = param(
        "string",
        "json: the SPEC result with a link; image: the image (or PDF) bytes themselves.",
        "json",
        choices=("json", "image"),
    )
    viewport_width: int | None = param(
        "integer",
        "Viewport width in CSS pixels instead of the preset's.",
        minimum=VIEWPORT_LIMITS[0][0],
        maximum=VIEWPORT_LIMITS[0][1],
    )
    viewport_height: int | None = param(
        "integer",
        "Viewport height in CSS pixels instead of the preset's.",
        minimum=VIEWPORT_LIMITS[1][0],
        maximum=VIEWPORT_LIMITS[1][1],
    )
    omit_background: bool = param(
        "boolean",
        "A transparent background where the page paints none (png and webp).",
        False,
    )
    paper: str = param("string", "Paper format of a pdf.", "a4", choices=tuple(PAPER_SIZES))


SCREENSHOT_PARAMS = ParamTable.of(ScreenshotParams)


class ScreenshotHandler(ApiHandler):
    """Check the target, reuse or capture, store, and answer the link (or the bytes)."""

    endpoint = "screenshot"
    error_shape = "oembed"
    params = SCREENSHOT_PARAMS
    target_prefix = re.compile(r"/api/1\.1/screenshot/")

    async def get(self, encoded_url: str | None = None) -> None:
        params = self.parse_params(ScreenshotParams)
        url = self.target(encoded_url, params.url)
        assert self.key_info is not None
        job = ScreenshotJob(
            url=url,
            org_id=self.key_info.org_id,
            capture=self._options(params),
            request_hash=_request_hash(url, params),
            image_format=params.format,
            quality=int(params.quality),
            reuse=params.cache_ok,
        )
        screenshots = self.services.screenshot_service
        shot = await screenshots.take(job)
        self.bill(shot.credits)
        self.log_fields.update(
            tier=job.capture.route, render="reused" if shot.image is None else "yes"
        )
        record = shot.record
        if shot.readiness is not None:
            self.set_header("X-Render-Timing", shot.readiness.header())
        if params.response_type == "image":
            image = await screenshots.image(shot)
            self.set_header("Content-Type", record.content_type)
            self.set_header("X-Screenshot-Url", self._link(record))
            self.finish(image)
            return
        body: dict[str, Any] = {
            "screenshotUrl": self._link(record),
            "dimensions": {"width": record.width, "height": record.height},
            "requestInfo": {"host": record.host, "responseCode": record.response_code},
            "expiresAt": record.expires_at.isoformat().replace("+00:00", "Z"),
            "cached": shot.image is None,
        }
        if shot.pages is not None:
            body["pages"] = shot.pages
        if shot.readiness is not None:
            body["timing"] = shot.readiness.as_dict()
        self.write_json(body)

    def _options(self, params: ScreenshotParams) -> CaptureOptions:
        exclude = split_selectors(params.exclude_selectors)
        for name, selectors in (
            ("selector", (params.selector,) if params.selector else ()),
            (
                "wait_for_selector",
                (params.wait_for_selector,) if params.wait_for_selector else (),
            ),
            ("exclude_selectors", exclude),
        ):
            try:
                check_selectors(name, selectors)
            except SelectorError as exc:
                raise ApiError(
                    "invalid_parameter",
                    f"invalid parameters: {name} has an invalid CSS selector",
                    details=[{"parameter": name, "message": "invalid CSS selector"}],
                ) from exc
        _check_formats(params)
        css = banner_css() if params.block_cookie_banner else ""  # the farm hides exclude_selectors
        return CaptureOptions(
            preset=params.dimensions,
            dark_mode=params.dark_mode,
            full_page=params.full_page,
            selector=params.selector or None,
            exclude_selectors=exclude,
            hide_css=css,
            block_url_patterns=LOADERS if params.block_cookie_banner else (),
            wait_for_selector=params.wait_for_selector or None,
            scroll_to_bottom=params.scroll_to_bottom,
            capture_delay_ms=int(params.capture_delay or 0),
            navigation_timeout_ms=int(params.navigationTimeout),
            device_scale_factor=float(params.device_scale_factor),
            image_type=_IMAGE_TYPES[params.format],
            quality=int(params.quality) if params.format == "jpeg" else None,
            route="standard" if params.use_proxy else "direct",
            org=self.key_info.org if self.key_info else "",
            viewport=_viewport(params),
            omit_background=params.omit_background,
            paper=params.paper,
        )

    def _link(self, record: ScreenshotRecord) -> str:
        return f"{self.services.settings.server.public_base_url()}/screenshots/{record.filename}"


_IMAGE_TYPES: dict[str, ImageType] = {"jpeg": "jpeg", "png": "png", "webp": "png", "pdf": "pdf"}
"""The format asked -> what Chromium makes (WebP is encoded from a PNG)."""


def _check_formats(params: ScreenshotParams) -> None:
    """The rules between the format and the parameters that only some formats take."""
    problems = []
    if params.omit_background and params.format not in ("png", "webp"):
        problems.append(("omit_background", "a transparent background needs png or webp"))
    if params.format == "pdf" and params.selector:
        problems.append(("selector", "a pdf is of the whole page, not of one element"))
    size = _viewport(params) or (
        PRESETS[params.dimensions].width,
        PRESETS[params.dimensions].height,
    )
    too_large = viewport_problem(size, float(params.device_scale_factor))
    if too_large:
        problems.append(("device_scale_factor", f"{too_large}: lower the scale or the viewport"))
    if problems:
        raise ApiError(
            "invalid_parameter",
            "invalid parameters: " + "; ".join(f"{name}: {why}" for name, why in problems),
            details=[{"parameter": name, "message": why} for name, why in problems],
        )


def _viewport(params: ScreenshotParams) -> tuple[int, int] | None:
    """The viewport asked instead of the preset's (either side may be given alone)."""
    if params.viewport_width is None and params.viewport_height is None:
        return None
    preset = PRESETS[params.dimensions]
    return (params.viewport_width or preset.width, params.viewport_height or preset.height)


def _request_hash(url: str, params: ScreenshotParams) -> str:
    """What makes two captures identical: the URL and every parameter that changes the image."""
    fields = {
        name: getattr(params, name)
        for name in (
            "format",
            "full_page",
            "dimensions",
            "selector",
            "exclude_selectors",
            "block_cookie_banner",
            "dark_mode",
            "use_proxy",
            "capture_delay",
            "wait_for_selector",
            "device_scale_factor",
            "scroll_to_bottom",
            "viewport_width",
            "viewport_height",
            "omit_background",
        )
    }
    if params.format not in ("png", "pdf"):
        fields["quality"] = params.quality
    if params.format == "pdf":
        fields["paper"] = params.paper
    text = json.dumps({"url": url, **fields}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class ScreenshotImageHandler(BaseHandler):
    """The link: the image until it expires, then 410 Gone. No key needed; the token is the key.

    With an object store behind the screenshots, a live link answers 302 to a presigned URL of
    the object that expires no later than the link (and within ``s3_link_seconds``); the answer
    itself is never cached, so every visit checks the row again.
    """

    endpoint = "screenshot_image"

    async def get(self, token: str, extension: str) -> None:
        served = await self.services.screenshot_service.open_link(token, extension)
        if served.direct:
            self.redirect(served.direct, status=302)
            return
        record = served.record
        self.set_header("Content-Type", CONTENT_TYPES[record.extension])
        self.set_header("Cache-Control", f"public, max-age={served.seconds_left}, immutable")
        self.set_header("Expires", format_datetime(record.expires_at, usegmt=True))
        self.set_header("Last-Modified", format_datetime(record.created_at, usegmt=True))
        self.finish(served.image)


ROUTES: list[tuple[str, Any]] = [
    (r"/api/1\.1/screenshot/?", ScreenshotHandler),
    (r"/api/1\.1/screenshot/(.+)", ScreenshotHandler),
    (r"/screenshots/([0-9a-f]{32})\.(png|jpeg|webp|pdf)", ScreenshotImageHandler),
]
