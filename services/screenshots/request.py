"""A screenshot request as the service takes it, and how it becomes the farm's capture options.

:class:`ScreenshotOptions` are the screenshot endpoint's parameters that shape the image, typed;
:class:`ScreenshotRequest` adds the page and who asks. :func:`capture_plan` checks the rules
between options (formats, selectors, the image's size) and gives the farm's
:class:`~browser.farm.types.CaptureOptions` with what makes two captures the same
(:func:`request_hash`).
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any

from browser.farm.types import (
    PRESETS,
    WAIT_TIMEOUT_MS,
    CaptureOptions,
    ImageType,
    NoticeRules,
    viewport_problem,
)
from convert.extract.consent import (
    CHOICE_WORDS,
    LOADERS,
    NOTICE_EDGE,
    NOTICE_MAX_CHARS,
    NOTICE_PURPOSES,
    NOTICE_WORDS,
    banner_css,
)
from convert.html.document import SelectorError, check_selectors, split_selectors
from services.failure import ServiceError
from services.options import options_of

IMAGE_TYPES: dict[str, ImageType] = {"jpeg": "jpeg", "png": "png", "webp": "png", "pdf": "pdf"}
"""The format asked -> what Chromium makes (WebP is encoded from a PNG)."""
SAME_IMAGE = (
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
"""The options that change the image whatever its format (quality and paper count where they
apply)."""


class ScreenshotFailure(enum.Enum):
    """What went wrong, beyond the farm's and the address check's own kinds."""

    INVALID_OPTION = "invalid_option"
    """Options that contradict each other, a selector that is not CSS, an image too large."""
    NO_STANDARD_PROXY = "no_standard_proxy"
    """use_proxy on a server with no standard proxy tier."""
    NO_BROWSER_PROXY = "no_browser_proxy"
    """The standard tier has no HTTP proxy a browser can use (a SOCKS-only tier)."""
    UNREADABLE = "unreadable"
    """The stored image could not be read back."""
    UNKNOWN_LINK = "unknown_link"
    EXPIRED_LINK = "expired_link"
    GONE = "gone"
    """The link is live but its image is no longer stored."""


class ScreenshotError(ServiceError):
    """A screenshot (or its link) that cannot be answered; ``message`` is safe to show."""


@dataclass(frozen=True)
class ScreenshotOptions:
    """How a page is captured: the screenshot endpoint's parameters that shape the image, with
    the endpoint's defaults (``navigation_timeout`` is the endpoint's ``navigationTimeout``)."""

    format: str = "jpeg"
    quality: float = 80
    full_page: bool = False
    dimensions: str = "md"
    selector: str | None = None
    exclude_selectors: str | None = None
    block_cookie_banner: bool = True
    dark_mode: bool = False
    cache_ok: bool = True
    use_proxy: bool = False
    capture_delay: float | None = None
    """Milliseconds."""
    navigation_timeout: float = 30000
    """Milliseconds."""
    wait_for_selector: str | None = None
    wait_timeout: int = WAIT_TIMEOUT_MS
    """Milliseconds."""
    device_scale_factor: float = 1
    scroll_to_bottom: bool = False
    viewport_width: int | None = None
    viewport_height: int | None = None
    omit_background: bool = False
    paper: str = "a4"

    @classmethod
    def of(cls, values: Any) -> ScreenshotOptions:
        """The options read off any object with attributes of the same names (a handler's typed
        parameters; ``navigationTimeout`` for ``navigation_timeout``)."""
        return options_of(cls, values, _PARAMETER_NAMES)


_PARAMETER_NAMES = {"navigation_timeout": "navigationTimeout"}
"""Options whose parameter has another name."""


def within_limits(
    options: ScreenshotOptions, max_navigation_ms: float, asked: Collection[str] = ()
) -> tuple[ScreenshotOptions, list[str]]:
    """``options`` within the server's limits (a navigation timeout above ``max_navigation_ms``
    is lowered to it), and a warning for each value the caller asked for (``asked`` names the
    parameters it sent) that was lowered."""
    if options.navigation_timeout <= max_navigation_ms:
        return options, []
    warnings = []
    if "navigationTimeout" in asked:
        warnings.append(
            f"navigationTimeout: {options.navigation_timeout:g} ms is more than this server "
            f"allows; {max_navigation_ms:g} ms is used"
        )
    return replace(options, navigation_timeout=max_navigation_ms), warnings


@dataclass(frozen=True)
class ScreenshotRequest:
    """One page to capture for an organization (``org_id`` owns the stored image)."""

    url: str
    org: str
    org_id: int
    options: ScreenshotOptions = ScreenshotOptions()


@dataclass(frozen=True)
class CapturePlan:
    """A request resolved into the farm's options and how the image is stored."""

    url: str
    org_id: int
    capture: CaptureOptions
    request_hash: str
    """What makes two captures identical (the URL and every option that changes the image)."""
    image_format: str
    """png, jpeg, webp or pdf."""
    quality: int
    reuse: bool
    """A stored identical capture may answer (cache_ok)."""


NOTICES = NoticeRules(NOTICE_WORDS, NOTICE_PURPOSES, CHOICE_WORDS, NOTICE_MAX_CHARS, NOTICE_EDGE)
"""Consent notices no list knows, hidden with the known banners."""


def capture_plan(request: ScreenshotRequest) -> CapturePlan:
    """The farm's options for ``request``, every rule between options checked first
    (:class:`ScreenshotError` ``INVALID_OPTION``, naming each option at fault)."""
    options = request.options
    exclude = split_selectors(options.exclude_selectors)
    for name, selectors in (
        ("selector", (options.selector,) if options.selector else ()),
        ("wait_for_selector", (options.wait_for_selector,) if options.wait_for_selector else ()),
        ("exclude_selectors", exclude),
    ):
        try:
            check_selectors(name, selectors)
        except SelectorError as exc:
            raise ScreenshotError(
                ScreenshotFailure.INVALID_OPTION,
                f"invalid parameters: {name} has an invalid CSS selector",
                problems=((name, "invalid CSS selector"),),
            ) from exc
    _check_formats(options)
    css = banner_css() if options.block_cookie_banner else ""  # the farm hides exclude_selectors
    capture = CaptureOptions(
        preset=options.dimensions,
        dark_mode=options.dark_mode,
        full_page=options.full_page,
        selector=options.selector or None,
        exclude_selectors=exclude,
        hide_css=css,
        block_url_patterns=LOADERS if options.block_cookie_banner else (),
        notices=NOTICES if options.block_cookie_banner else None,
        wait_for_selector=options.wait_for_selector or None,
        wait_timeout_ms=int(options.wait_timeout),
        scroll_to_bottom=options.scroll_to_bottom,
        capture_delay_ms=int(options.capture_delay or 0),
        navigation_timeout_ms=int(options.navigation_timeout),
        device_scale_factor=float(options.device_scale_factor),
        image_type=IMAGE_TYPES[options.format],
        quality=int(options.quality) if options.format == "jpeg" else None,
        route="standard" if options.use_proxy else "direct",
        org=request.org,
        viewport=_viewport(options),
        omit_background=options.omit_background,
        paper=options.paper,
    )
    return CapturePlan(
        url=request.url,
        org_id=request.org_id,
        capture=capture,
        request_hash=request_hash(request.url, options),
        image_format=options.format,
        quality=int(options.quality),
        reuse=options.cache_ok,
    )


def _check_formats(options: ScreenshotOptions) -> None:
    """The rules between the format and the options that only some formats take."""
    problems = []
    if options.omit_background and options.format not in ("png", "webp"):
        problems.append(("omit_background", "a transparent background needs png or webp"))
    if options.format == "pdf" and options.selector:
        problems.append(("selector", "a pdf is of the whole page, not of one element"))
    size = _viewport(options) or (
        PRESETS[options.dimensions].width,
        PRESETS[options.dimensions].height,
    )
    too_large = viewport_problem(size, float(options.device_scale_factor))
    if too_large:
        problems.append(("device_scale_factor", f"{too_large}: lower the scale or the viewport"))
    if problems:
        raise ScreenshotError(
            ScreenshotFailure.INVALID_OPTION,
            "invalid parameters: " + "; ".join(f"{name}: {why}" for name, why in problems),
            problems=tuple(problems),
        )


def _viewport(options: ScreenshotOptions) -> tuple[int, int] | None:
    """The viewport asked instead of the preset's (either side may be given alone)."""
    if options.viewport_width is None and options.viewport_height is None:
        return None
    preset = PRESETS[options.dimensions]
    return (options.viewport_width or preset.width, options.viewport_height or preset.height)


def request_hash(url: str, options: ScreenshotOptions) -> str:
    """What makes two captures identical: the URL and every option that changes the image."""
    fields: dict[str, Any] = {name: getattr(options, name) for name in SAME_IMAGE}
    if options.format not in ("png", "pdf"):
        fields["quality"] = options.quality
    if options.format == "pdf":
        fields["paper"] = options.paper
    text = json.dumps({"url": url, **fields}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()
