"""The browser farm's vocabulary: viewport presets, context shapes, request options, results and
the error with its kinds. No Playwright here, so handlers can import it cheaply."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from browser.farm.settings import FarmSettings


@dataclass(frozen=True)
class Preset:
    """A viewport preset (SPEC 4.1 dimensions)."""

    name: str
    width: int
    height: int
    mobile: bool = False


PRESETS: dict[str, Preset] = {
    "xs": Preset("xs", 375, 812, mobile=True),
    "sm": Preset("sm", 1024, 768),
    "md": Preset("md", 1366, 768),
    "lg": Preset("lg", 1920, 1080),
}
COLOR_SCHEMES: tuple[bool, ...] = (False, True)
"""dark_mode values: every preset is kept warm in light and in dark."""

DEFAULT_ROUTE = "direct"
"""The egress route of a request that names none."""


@dataclass(frozen=True)
class ContextKey:
    """What a context is made for; contexts are only shared out between equal keys."""

    preset: str
    dark: bool
    scale: float = 1.0
    route: str = DEFAULT_ROUTE
    viewport: tuple[int, int] | None = None
    """(width, height) in CSS pixels instead of the preset's."""

    @property
    def warmable(self) -> bool:
        """Whether contexts of this shape are kept ready."""
        return self.scale == 1.0 and self.route == DEFAULT_ROUTE and self.viewport is None

    def size(self) -> tuple[int, int]:
        """The viewport's (width, height) in CSS pixels."""
        preset = PRESETS[self.preset]
        return self.viewport or (preset.width, preset.height)


ImageType = Literal["png", "jpeg", "pdf"]
PAPER_SIZES: dict[str, tuple[float, float]] = {"a4": (8.27, 11.69), "letter": (8.5, 11.0)}
"""Paper formats of a PDF capture, (width, height) in inches."""
VIEWPORT_LIMITS = ((200, 3840), (200, 4320))
"""The (least, most) CSS pixels of a viewport's width, then of its height."""
MAX_SIDE = 16_384
"""Most device pixels of an image's side (Chromium's limit)."""
MAX_IMAGE_PIXELS = 64_000_000
"""Most device pixels of one image (width x height): what one capture may hold in memory."""


MAX_URL_PATTERN = 2048
"""Most characters of one blocked URL pattern."""
WAIT_TIMEOUT_MS = 10_000
"""Milliseconds a request waits for the element it names in wait_for_selector (and spends on
load_more_selector's clicks) when it does not say (wait_timeout)."""
WAIT_TIMEOUT_LIMITS = (100, 60_000)
"""The (least, most) milliseconds a request may give its waits for elements."""
SELECTOR_GRACE = 1.0
"""Most seconds a ready page is given for an element it does not have yet (the element to
capture, the load-more button); a page that adds one later is waited for with
wait_for_selector."""


@dataclass(frozen=True)
class NoticeRules:
    """What a consent notice says and offers, as JavaScript regular expressions (read
    case-insensitive), and how small and how near the viewport's edge it is."""

    notice: str
    """Words a notice speaks of, anywhere in its text."""
    purpose: str
    """Words of what it says they are for, anywhere in its text."""
    choice: str
    """The whole text of a control that answers it."""
    max_chars: int
    """Most characters of a notice's text."""
    edge: float
    """A notice starts within this share of the viewport from its top, or ends within it from
    its bottom."""


@dataclass(frozen=True)
class CaptureOptions:
    """How to capture one screenshot.

    ``hide_css`` is injected at document start, before the page paints; ``block_url_patterns`` are
    URL patterns of requests to abort, as Chromium's request interception reads them (``*``: any
    run of characters, ``?``: one character; the whole URL must match). ``route`` names the
    egress route ("direct", "standard") the page's traffic goes through.
    """

    preset: str = "md"
    dark_mode: bool = False
    full_page: bool = False
    max_height: int = 16_000
    selector: str | None = None
    exclude_selectors: tuple[str, ...] = ()
    hide_css: str = ""
    block_url_patterns: tuple[str, ...] = ()
    wait_for_selector: str | None = None
    wait_timeout_ms: int = WAIT_TIMEOUT_MS
    """Most milliseconds wait_for_selector's element is waited for; the element to capture
    (``selector``) is given at most this too."""
    scroll_to_bottom: bool = False
    capture_delay_ms: int = 0
    navigation_timeout_ms: int = 30_000
    device_scale_factor: float = 1.0
    image_type: ImageType = "png"
    """png, jpeg, or pdf (Chromium's print to PDF of the page as the screen shows it)."""
    quality: int | None = None
    route: str = "direct"
    org: str = ""
    """The organization asking: it holds at most its share of the farm's pages."""
    viewport: tuple[int, int] | None = None
    """(width, height) in CSS pixels instead of the preset's (within VIEWPORT_LIMITS)."""
    notices: NoticeRules | None = None
    """Consent notices no list knows to hide before the picture (None: leave them)."""
    omit_background: bool = False
    """A transparent background where the page paints none (png only)."""
    paper: str = "a4"
    """A PDF's paper format (PAPER_SIZES)."""
    keep_html: bool = False
    """Also serialize the page's DOM in the same visit (the result's ``html``), so that one
    load of the page gives both its picture and its HTML."""

    def __post_init__(self) -> None:
        _check_common(self.preset, self.navigation_timeout_ms, self.wait_timeout_ms)
        if self.image_type not in ("png", "jpeg", "pdf"):
            raise ValueError(f"image_type must be png, jpeg or pdf, not {self.image_type!r}")
        if self.quality is not None and (self.image_type != "jpeg" or not 0 <= self.quality <= 100):
            raise ValueError("quality is for jpeg only, 0 to 100")
        if self.omit_background and self.image_type != "png":
            raise ValueError("omit_background is for png only")
        if self.image_type == "pdf" and self.selector:
            raise ValueError("a pdf is of the whole page, not of a selector")
        if self.paper not in PAPER_SIZES:
            raise ValueError(f"paper must be one of {', '.join(PAPER_SIZES)}")
        if self.viewport is not None:
            for size, (least, most) in zip(self.viewport, VIEWPORT_LIMITS, strict=True):
                if not least <= size <= most:
                    raise ValueError(f"a viewport side must be {least} to {most} pixels")
        if not 1 <= self.max_height <= 16_384:
            raise ValueError("max_height must be 1 to 16384 (Chromium's limit)")
        if not 0 <= self.capture_delay_ms <= 60_000:
            raise ValueError("capture_delay_ms must be 0 to 60000")
        if not 0.5 <= self.device_scale_factor <= 4:
            raise ValueError("device_scale_factor must be 0.5 to 4")
        for pattern in self.block_url_patterns:
            if not pattern or len(pattern) > MAX_URL_PATTERN or not pattern.isprintable():
                raise ValueError(f"not a URL pattern: {pattern[:80]!r}")
        problem = viewport_problem(self.size(), self.device_scale_factor)
        if problem:
            raise ValueError(problem)

    def size(self) -> tuple[int, int]:
        """The viewport's (width, height) in CSS pixels."""
        preset = PRESETS[self.preset]
        return self.viewport or (preset.width, preset.height)


def viewport_problem(size: tuple[int, int], scale: float) -> str:
    """Why a viewport of ``size`` CSS pixels at ``scale`` cannot be captured ("" when it can)."""
    width, height = (side * scale for side in size)
    if max(width, height) > MAX_SIDE:
        return f"the viewport is wider or taller than {MAX_SIDE} device pixels"
    if width * height > MAX_IMAGE_PIXELS:
        return f"the viewport holds more than {MAX_IMAGE_PIXELS // 1_000_000} million device pixels"
    return ""


@dataclass(frozen=True)
class RenderOptions:
    """How to render one page for its HTML (Markdown full_render, oEmbed fallback)."""

    preset: str = "md"
    wait_for_selector: str | None = None
    scroll_to_bottom: bool = False
    load_more_selector: str | None = None
    wait_timeout_ms: int = WAIT_TIMEOUT_MS
    """Most milliseconds wait_for_selector's element is waited for, and spent on
    load_more_selector's clicks."""
    navigation_timeout_ms: int = 30_000
    route: str = "direct"
    org: str = ""
    """The organization asking: it holds at most its share of the farm's pages."""

    def __post_init__(self) -> None:
        _check_common(self.preset, self.navigation_timeout_ms, self.wait_timeout_ms)


def _check_common(preset: str, navigation_timeout_ms: int, wait_timeout_ms: int) -> None:
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {', '.join(PRESETS)}, not {preset!r}")
    if not 100 <= navigation_timeout_ms <= 600_000:
        raise ValueError("navigation_timeout_ms must be 100 to 600000")
    least, most = WAIT_TIMEOUT_LIMITS
    if not least <= wait_timeout_ms <= most:
        raise ValueError(f"wait_timeout_ms must be {least} to {most}")


@dataclass(frozen=True)
class ReadyRules:
    """The readiness wait's windows, in seconds, from the farm's settings."""

    timeout: float
    quiet: float
    long_request: float
    timer_horizon: float
    blank_grace: float

    @classmethod
    def of(cls, settings: FarmSettings) -> ReadyRules:
        """The rules ``settings`` declare."""
        return cls(
            timeout=settings.ready_timeout,
            quiet=settings.ready_quiet,
            long_request=settings.ready_long_request,
            timer_horizon=settings.ready_timer_horizon,
            blank_grace=settings.ready_blank_grace,
        )


class ReadyState(StrEnum):
    """How the readiness wait ended."""

    settled = "settled"
    """The network was quiet and the DOM settled."""
    blank = "blank"
    """The page stayed blank with nothing pending: it shows nothing."""
    timeout = "timeout"
    """The wait reached its bound with the page still changing: captured as it was."""
    selector = "selector"
    """The request named the element to wait for instead (wait_for_selector)."""
    off = "off"
    """Readiness waits are turned off (farm.ready_timeout = 0)."""


@dataclass(frozen=True)
class Readiness:
    """How long a render waited after ``load`` and why it stopped."""

    state: ReadyState
    waited_ms: int
    load_ms: int
    """Milliseconds from the start of navigation to the end of the load wait."""

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"ready": state, "ready_ms": ..., "load_ms": ...}``."""
        return {"ready": self.state.value, "ready_ms": self.waited_ms, "load_ms": self.load_ms}

    def header(self) -> str:
        """The ``X-Render-Timing`` header's value: ``ready=settled; ready_ms=120; load_ms=80``."""
        return "; ".join(f"{name}={value}" for name, value in self.as_dict().items())


@dataclass(frozen=True)
class CaptureResult:
    """A screenshot: the image bytes and their pixel size, with what the page answered."""

    image: bytes
    image_type: ImageType
    width: int
    height: int
    status: int | None
    """The main document's HTTP status (after redirects), None when there was no response."""
    final_url: str
    readiness: Readiness | None = None
    """How long the page was waited for after its load, and why the wait ended."""
    pages: int | None = None
    """A PDF's page count."""
    html: str | None = None
    """The page's serialized DOM, read in the same visit just before the picture, once the page
    was ready and before anything was hidden for the picture (``keep_html``; None otherwise)."""


@dataclass(frozen=True)
class RenderResult:
    """A rendered page: its serialized DOM after scripts ran."""

    html: str
    final_url: str
    status: int | None
    readiness: Readiness | None = None
    """How long the page was waited for after its load, and why the wait ended."""


class FarmErrorKind(StrEnum):
    """Why a capture or render failed; the values are the screenshot API's error codes."""

    busy = "busy"
    navigation_timeout = "navigation_timeout"
    target_unreachable = "target_unreachable"
    selector_not_found = "selector_not_found"
    capture_failed = "capture_failed"


class FarmError(Exception):
    """A capture or render failed. ``message`` is short and safe to show to the API client;
    ``retry_after`` (seconds) is set for ``busy``; ``problems`` names the request's parameters
    at fault, each with why (an element a selector names that never came)."""

    def __init__(
        self,
        kind: FarmErrorKind | str,
        message: str,
        *,
        retry_after: int | None = None,
        problems: tuple[tuple[str, str], ...] = (),
    ) -> None:
        super().__init__(message)
        self.kind = FarmErrorKind(kind)
        self.message = message
        self.retry_after = retry_after
        self.problems = problems

    def __repr__(self) -> str:
        return f"FarmError({self.kind.value!r}, {self.message!r})"


def image_size(data: bytes) -> tuple[int, int]:
    """The pixel (width, height) of a PNG or JPEG, read from its header."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    raise ValueError("not a PNG or JPEG image")


# Start-of-frame markers carry the size; C4 (DHT), C8 (JPG) and CC (DAC) share the range.
_SOF_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg_size(data: bytes) -> tuple[int, int]:
    index = 2
    while index + 4 <= len(data):
        if data[index] != 0xFF:
            raise ValueError("corrupt JPEG: marker expected")
        marker = data[index + 1]
        if marker == 0xFF:  # fill byte
            index += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
            index += 2
            continue
        (length,) = struct.unpack(">H", data[index + 2 : index + 4])
        if marker in _SOF_MARKERS:
            height, width = struct.unpack(">HH", data[index + 5 : index + 9])
            return int(width), int(height)
        index += 2 + length
    raise ValueError("corrupt JPEG: no frame header")
