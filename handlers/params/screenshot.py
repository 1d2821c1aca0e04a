"""The screenshot endpoint's parameter table (SPEC 4.1): validation, defaults, ``/openapi.json``
and the docs all come from it."""

from __future__ import annotations

from dataclasses import dataclass

from handlers.params.inert import Inert, all_of, one_of
from handlers.params.table import Params, ParamTable, param
from services.screenshots import (
    PAPER_SIZES,
    SELECTOR_GRACE,
    VIEWPORT_LIMITS,
    WAIT_TIMEOUT_LIMITS,
    WAIT_TIMEOUT_MS,
)

WAIT_LEAST, WAIT_MOST = WAIT_TIMEOUT_LIMITS


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
        "Image quality, 10 to 80, rounded to the nearest 10.",
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
        "string",
        "CSS selector: capture only that element. It is looked for once the page is ready and "
        f"given at most {SELECTOR_GRACE:g} s more (and no more than wait_timeout); an element "
        "the page adds later must be named in wait_for_selector too. When none matches: "
        "selector_not_found (422), naming the selector and the time waited.",
        max_length=1000,
    )
    exclude_selectors: str | None = param(
        "string",
        "Comma-separated CSS selectors hidden from the capture.",
        max_length=2000,
        example=".ads,#chat",
    )
    block_cookie_banner: bool = param(
        "boolean",
        "Hide cookie-consent banners: the known platforms' and any notice fixed near the top "
        "or bottom that speaks of cookies or consent and offers to accept or reject.",
        True,
    )
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
        "Milliseconds the page may take to load; more than the server allows "
        "(farm.max_navigation_timeout) is lowered to that, with a warning.",
        30000,
        minimum=1000,
        maximum=60000,
    )
    wait_for_selector: str | None = param(
        "string",
        "Wait until this CSS selector matches a visible element before the capture, at most "
        "wait_timeout after the page's load.",
        max_length=1000,
    )
    wait_timeout: int = param(
        "integer",
        f"Milliseconds to wait for wait_for_selector's element after the page's load, "
        f"{WAIT_LEAST} to {WAIT_MOST}; then the answer is selector_not_found (422), naming the "
        "selector and the time waited. Never past the request's own time limit "
        "(navigationTimeout and a few seconds for the capture).",
        WAIT_TIMEOUT_MS,
        minimum=WAIT_LEAST,
        maximum=WAIT_MOST,
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
    async_: bool = param(
        "boolean",
        "Capture in the background: answered 202 at once with the capture's id, its status "
        "URL (GET /api/1.1/screenshot/requests/{capture_id}) and the webhook's signing secret; "
        "the result (or the error) is read there and POSTed to webhook_url. Always a JSON "
        "result (response_type=json), billed when the capture ends. At most "
        "async_captures.max_pending per organization at once (then 429).",
        False,
        name="async",
    )
    include_markdown: bool = param(
        "boolean",
        "Add the page's Markdown (markdown) from the same load, as the Markdown endpoint "
        "converts it by default; the capture is then always fresh. A screenshot's price plus "
        "the Markdown base.",
        False,
    )
    include_metadata: bool = param(
        "boolean",
        "Add the page's metadata (metadata) from the same load; priced as include_markdown "
        "(both cost as one).",
        False,
    )
    webhook_url: str | None = param(
        "string",
        "With async=true: where the capture's end is POSTed (JSON), signed with "
        "X-Pagecast-Signature: sha256=HMAC-SHA256(webhook_secret, body), retried as the jobs' "
        "webhooks are. The same address rules as a job's webhook.",
        max_length=2048,
        example="https://example.com/hooks/pagecast",
    )


PAGE_TEXT = all_of(one_of("response_type", "json"), one_of("async", False))
"""Where the page's Markdown and metadata can be answered: a synchronous JSON result."""

SCREENSHOT_INERT = (
    Inert("quality", one_of("format", "jpeg", "webp")),
    Inert("paper", one_of("format", "pdf")),
    Inert("webhook_url", one_of("async", True)),
    Inert("include_markdown", PAGE_TEXT),
    Inert("include_metadata", PAGE_TEXT),
)
"""When a screenshot parameter does nothing: sent then, it is ignored with a warning."""

SCREENSHOT_PARAMS = ParamTable.of(ScreenshotParams, SCREENSHOT_INERT)


@dataclass(frozen=True)
class SignedScreenshotParams(ScreenshotParams):
    """A signed link's parameters: the screenshot endpoint's that shape the image, the link's
    expiry and its signature. Seven of the screenshot endpoint's are no parameters here (plain
    fields, left out of the table): no key (the link names its key and is signed), the target in
    the path only, the image as the only answer, and so no capture in the background and no
    Markdown or metadata beside the image."""

    app_id: str | None = None
    url: str | None = None
    response_type: str = "image"
    async_: bool = False
    webhook_url: str | None = None
    include_markdown: bool = False
    include_metadata: bool = False
    expires: int | None = param(
        "integer",
        "Unix seconds after which the link is refused (403); none: the link lives until its key "
        "is revoked.",
        minimum=0,
        maximum=999_999_999_999,
    )
    signature: str | None = param(
        "string",
        "Hex HMAC-SHA256 of the link's canonical form, keyed with the key's signing secret "
        "(docs/screenshots.md, Signed links). A missing or wrong one is refused (403).",
        max_length=64,
    )


SIGNED_SCREENSHOT_PARAMS = ParamTable.of(
    SignedScreenshotParams,
    tuple(
        rule
        for rule in SCREENSHOT_INERT
        if rule.name not in ("webhook_url", "include_markdown", "include_metadata")
    ),
)
