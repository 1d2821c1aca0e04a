"""Every parameter of every Pagecast endpoint, as typed keywords.

Each endpoint's parameters are one ``TypedDict``: the client methods take them as
``**params: Unpack[...]``, so type checkers and editors know every name and type, and a name
that is not the endpoint's raises ``TypeError`` before anything is sent. Python names are the
API's names, except ``navigation_timeout`` (``navigationTimeout`` on the wire).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict

Dimensions = Literal["xs", "sm", "md", "lg"]
ImageFormat = Literal["jpeg", "png", "webp", "pdf"]


class FetchParams(TypedDict, total=False):
    """How the target page is fetched (Markdown and oEmbed)."""

    auto_render: bool
    """Detect a JavaScript app shell and fetch the page again rendered (not billed as a render)."""
    full_render: bool
    """Render the page in Chromium first (billed)."""
    auto_proxy: bool
    """Start at the proxy tier known to work for the target's domain."""
    use_proxy: bool
    """Force the standard proxy tier."""
    use_premium: bool
    """Force the premium (residential) proxy tier; the plan must include it."""
    use_superior: bool
    """Force the superior (mobile) proxy tier; the plan must include it."""
    proxy_country: str
    """Two-letter country code of the proxy exit (with a forced tier)."""
    retry: bool
    """Retry a failed fetch, one proxy tier up each attempt."""
    cache_ok: bool
    """Allow a cached page."""
    max_cache_age: int
    """Milliseconds: the oldest cached page accepted."""


class PageOptions(FetchParams, total=False):
    """How a page is fetched and made Markdown: the Markdown endpoint's parameters but those
    that shape its answer; the ``options`` of a batch or a crawl, for every page."""

    only_main_content: bool
    """Drop navigation, sidebars and footers (default true)."""
    include_comments: bool
    """Readers' comments after the main content, under their own heading (default false)."""
    include_tags: str
    """Comma-separated CSS selectors to keep."""
    exclude_tags: str
    """Comma-separated CSS selectors to drop."""
    max_chars: int
    """Cap on the Markdown's length; truncation is reported in ``usage``."""
    chunking: bool
    """Split into chunks with heading paths (needs format=json, the client's default)."""
    chunk_size: int
    """Target characters per chunk, 200 to 20000 (default 2000)."""
    chunk_overlap: int
    """Characters repeated from the previous chunk, at most half of chunk_size."""
    heading_aware: bool
    heading_aware_level: int
    """Heading level (1 to 6) that starts a new chunk (default 2)."""
    max_chunks: int
    """1 to 2000 (default 500)."""
    query: str
    """Keyword question (up to 512 characters): only matching passages, best first."""
    query_top_k: int
    """Passages returned for a query (default 5)."""
    wait_for_selector: str
    """Wait for this CSS selector (turns rendering on)."""
    scroll_to_bottom: bool
    load_more_selector: str
    """Click this selector up to 3 times (turns rendering on)."""
    wait_timeout: int
    """Milliseconds to wait for wait_for_selector's element, and the most spent on the
    load-more clicks; 100 to 60000 (default 10000)."""
    max_retries: int
    """Attempts, 1 to 4 (default 4)."""
    retry_escalate: bool
    accept_lang: str
    """Accept-Language sent to the page."""
    ai_sanitize: bool
    """Scan for prompt injection (1 extra credit)."""
    ai_sanitize_mode: Literal["sanitize", "warn", "block"]


class MarkdownParams(PageOptions, total=False):
    """``GET /api/3.0/markdown/{url}``: the page's options and what its answer holds."""

    format: Literal["markdown", "json"]
    """``json`` (the client's default) answers the envelope; ``markdown`` the text alone."""
    include_markdown: bool
    include_metadata: bool
    include_chunks: bool
    include_ai_safety: bool
    include_headings: bool
    include_links: bool
    include_images: bool
    screenshot: bool
    """Also take a screenshot in the same page load (one render for both): its link is
    :attr:`MarkdownResult.screenshot_url`. Billed as a screenshot plus the Markdown base."""
    screenshot_format: Literal["jpeg", "png", "webp"]
    screenshot_quality: float
    """10 to 80, rounded to the nearest 10 (jpeg and webp; default 80)."""
    screenshot_full_page: bool
    screenshot_dimensions: Dimensions
    """The viewport of the render and the screenshot (default md)."""
    screenshot_dark_mode: bool


class OembedParams(FetchParams, total=False):
    """``GET /api/{1.1,3.0}/oembed/{url}``."""

    orientation: Literal["vertical", "horizontal"]
    always_og_frame: bool
    """Make a hosted card even when the site has a native embed."""
    maxwidth: int
    maxheight: int
    theme: Literal["light", "dark", "auto"]
    template: Literal["default", "compact", "horizontal"]


class ImageParams(TypedDict, total=False):
    """The screenshot parameters that shape the image (a call's and a signed link's)."""

    format: ImageFormat
    quality: float
    """10 to 80, rounded to the nearest 10 (default 80)."""
    full_page: bool
    dimensions: Dimensions
    """Viewport preset: xs 375x812, sm 1024x768, md 1366x768 (default), lg 1920x1080."""
    selector: str
    """Capture only this element."""
    exclude_selectors: str
    """Comma-separated CSS selectors hidden from the capture."""
    block_cookie_banner: bool
    dark_mode: bool
    cache_ok: bool
    use_proxy: bool
    capture_delay: float
    """Milliseconds before the capture, 0 to 10000."""
    navigation_timeout: float
    """Milliseconds, 1000 to 60000 (``navigationTimeout`` on the wire)."""
    wait_for_selector: str
    wait_timeout: int
    """Milliseconds to wait for wait_for_selector's element; 100 to 60000 (default 10000)."""
    device_scale_factor: float
    """1 to 3."""
    scroll_to_bottom: bool
    viewport_width: int
    viewport_height: int
    omit_background: bool
    paper: Literal["a4", "letter"]
    """Paper size with format=pdf."""


class ScreenshotParams(ImageParams, total=False):
    """``GET /api/1.1/screenshot/{url}``."""

    response_type: Literal["json", "image"]
    """``image`` answers the image's bytes instead of a link."""
    include_markdown: bool
    """Add the page's Markdown from the same page load (:attr:`Screenshot.markdown`)."""
    include_metadata: bool
    """Add the page's metadata from the same page load (:attr:`Screenshot.metadata`)."""


class SignedScreenshotParams(ImageParams, total=False):
    """``GET /api/1.1/screenshot/signed/{key_id}/{url}``: a signed link (always the image)."""

    expires: int
    """Unix seconds after which the link is refused; none: until the key is revoked."""


class MapParams(TypedDict, total=False):
    """``POST /api/3.0/map`` (the body, less ``url``)."""

    include: Sequence[str]
    """Keep only URLs whose path matches one of these shell-style globs, e.g. ``/docs/*``."""
    exclude: Sequence[str]
    """Drop URLs whose path matches one of these globs."""
    subdomains: bool
    """Also keep URLs on subdomains of the start host."""
    sitemap: Literal["include", "skip", "only"]
    """Sitemaps and the start page's links (``include``), links only, or sitemaps only."""
    limit: int
    """Most URLs answered, 1 to 5000 (default 1000)."""


class JobParams(TypedDict, total=False):
    """What every job body may carry besides its pages."""

    options: PageOptions
    """The Markdown options of every page."""
    webhook_url: str
    """Called (POST, JSON, signed) on each finished page and when the job ends."""
    webhook_secret: str
    """The webhook's signing secret (16 to 128 printable characters); one is made when not
    given and answered once in :attr:`JobAccepted.webhook_secret`."""


class BatchParams(JobParams, total=False):
    """``POST /api/3.0/batch`` (the body, less ``urls``)."""


class CrawlParams(JobParams, total=False):
    """``POST /api/3.0/crawl`` (the body, less ``url``)."""

    max_pages: int
    """Most pages fetched, the start page included (default 100)."""
    max_depth: int
    """Most links followed from the start page, 0 to 100 (default 3)."""
    include: Sequence[str]
    """Paths to crawl: shell-style globs on the URL path (the start page is always fetched)."""
    exclude: Sequence[str]
    """Paths to leave out."""
    subdomains: bool
    """Also follow links to subdomains of the start host."""


class JobResultsParams(TypedDict, total=False):
    """``GET /api/3.0/jobs/{id}``."""

    cursor: str
    """``next_cursor`` of the previous answer; none: from the first result."""
    limit: int
    """Most results in this answer, 0 to 100 (default 20; 0: the status alone)."""


class FrameListParams(TypedDict, total=False):
    """``GET /api/v1/frames`` on the frame host."""

    limit: int
    """Frames per page, 1 to 200 (default 50)."""
    cursor: str
    """``next_cursor`` of the previous page."""


# Python keyword -> the API's name, where they differ.
WIRE_NAMES = {"navigation_timeout": "navigationTimeout"}
# Second spellings the API accepts for a parameter the client sends under its first.
API_ALIASES = {"maxWidth": "maxwidth", "maxHeight": "maxheight"}


def allowed(params: type) -> frozenset[str]:
    """The keyword names of one endpoint's ``TypedDict``."""
    keys: frozenset[str] = params.__required_keys__ | params.__optional_keys__  # type: ignore[attr-defined]
    return keys


def encode(
    endpoint: str, params: type, given: Mapping[str, Any], defaults: Mapping[str, Any] = {}
) -> dict[str, str]:
    """The query string of a call: every keyword checked against the endpoint's names, booleans
    as ``true``/``false``, ``None`` left out."""
    names = allowed(params)
    unknown = sorted(set(given) - names)
    if unknown:
        raise TypeError(f"{endpoint}() got unexpected keyword argument(s): {', '.join(unknown)}")
    query: dict[str, str] = {}
    for name, value in {**defaults, **given}.items():
        if value is None:
            continue
        wire = WIRE_NAMES.get(name, name)
        if isinstance(value, bool):
            query[wire] = "true" if value else "false"
        elif isinstance(value, float) and value.is_integer():
            query[wire] = str(int(value))
        else:
            query[wire] = str(value)
    return query


def _json_value(value: Any) -> Any:
    """A keyword's value as JSON: sequences (a tuple of patterns) as lists."""
    if isinstance(value, (list, tuple)):
        return list(value)
    return value


def encode_body(
    endpoint: str, params: type, given: Mapping[str, Any], required: Mapping[str, Any]
) -> dict[str, Any]:
    """The JSON body of a call: ``required`` (the URL or URLs) and every keyword, checked
    against the endpoint's names (a job's ``options`` against :class:`PageOptions`'), ``None``
    left out."""
    names = allowed(params)
    unknown = sorted(set(given) - names)
    if unknown:
        raise TypeError(f"{endpoint}() got unexpected keyword argument(s): {', '.join(unknown)}")
    body = {name: _json_value(value) for name, value in given.items() if value is not None}
    if "options" in body:
        options = body["options"]
        if not isinstance(options, Mapping):
            raise TypeError(f"{endpoint}(): options must be a mapping of Markdown options")
        stray = sorted(set(options) - allowed(PageOptions))
        if stray:
            raise TypeError(f"{endpoint}(): not options of a job's pages: {', '.join(stray)}")
        body["options"] = {name: value for name, value in options.items() if value is not None}
    return {**required, **body}
