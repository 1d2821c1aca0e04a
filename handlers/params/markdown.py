"""The Markdown endpoint's parameter table (SPEC 4.4): validation, defaults, ``/openapi.json``
and the docs all come from it."""

from __future__ import annotations

from dataclasses import dataclass

from handlers.params.inert import TIER_FORCED, Given, Inert, all_of, any_of, one_of
from handlers.params.table import Params, ParamTable, param
from services.fetch_policy import RENDER_TIMEOUT_MS
from services.markdown import SAFETY_MODES, SELECTOR_GRACE, WAIT_TIMEOUT_LIMITS, WAIT_TIMEOUT_MS

WAIT_LEAST, WAIT_MOST = WAIT_TIMEOUT_LIMITS


@dataclass(frozen=True)
class MarkdownParams(Params):
    """The Markdown endpoint's parameters, typed."""

    # Getting the page.
    app_id: str | None = param(
        "string",
        "API key (or send the api-key header).",
        required=False,
        secret=True,
        shapes_answer=False,
    )
    url: str | None = param(
        "string",
        "The target URL, instead of the path segment (send exactly one of the two).",
        example="https://example.com/",
        max_length=8192,
        shapes_answer=False,  # the target, whichever way it is sent, is keyed on its own
    )
    only_main_content: bool = param("boolean", "Strip navigation, sidebars and footers.", True)
    include_comments: bool = param(
        "boolean",
        "Readers' comments after the main content, under a Comments heading, each with its "
        "author and date where the page shows them (usage.comment_count says how many were "
        "found), those hidden behind a show-comments button included. A forum or Q&A page's "
        "posts are its content either way; the short comments under a Q&A page's question and "
        "answers are comments.",
        False,
    )
    include_tags: str | None = param(
        "string",
        "Comma-separated CSS selectors to keep; everything else is dropped.",
        example="article,.post",
        max_length=2000,
    )
    exclude_tags: str | None = param(
        "string",
        "Comma-separated CSS selectors to drop.",
        example="nav,.ads",
        max_length=2000,
    )
    max_chars: int | None = param(
        "integer",
        "Cap on the Markdown length; truncation is reported in headers and usage.",
        minimum=1,
        example=20000,
        problem="invalid_max_chars",
    )
    # Choosing what comes back.
    format: str = param(
        "string",
        "markdown: a text/markdown body (with a query: the matched passages, see query); "
        "json: the JSON envelope.",
        "markdown",
        choices=("markdown", "json"),
        problem="invalid_format",
    )
    include_markdown: bool = param("boolean", "Include the markdown field (format=json).", True)
    include_metadata: bool = param("boolean", "Include the metadata object (format=json).", True)
    include_chunks: bool = param(
        "boolean",
        "When false, chunk counts are returned without chunk text.",
        True,
    )
    include_ai_safety: bool = param(
        "boolean",
        "Include the ai_safety object when ai_sanitize=true.",
        True,
    )
    # Chunking.
    chunking: bool = param(
        "boolean",
        "Split the document into chunks with heading paths (the chunks field of format=json).",
        False,
    )
    chunk_size: int = param(
        "integer",
        "Target characters per chunk.",
        2000,
        minimum=200,
        maximum=20000,
    )
    chunk_overlap: int = param(
        "integer",
        "Characters repeated from the previous chunk; at most half of chunk_size.",
        0,
        minimum=0,
        maximum=10000,
    )
    heading_aware: bool = param("boolean", "Start a new chunk at section headings.", True)
    heading_aware_level: int = param(
        "integer",
        "Heading level (1-6) at or above which a new chunk starts.",
        2,
        minimum=1,
        maximum=6,
    )
    max_chunks: int = param(
        "integer",
        "Most chunks returned; usage.chunk_count has the full count.",
        500,
        minimum=1,
        maximum=2000,
    )
    # Question matching.
    query: str | None = param(
        "string",
        "Keywords; implies chunking and returns only matching passages, best first. With "
        "format=markdown the body is those passages as Markdown: a '# Passages for \"...\"' "
        "title, then for each a '## Passage N · score S' line, its heading path quoted "
        "('> Section \u203a Subsection'; none before the first heading) and its text; a page "
        "with no match says so under the title.",
        max_length=512,
        example="pricing limits",
    )
    query_top_k: int = param(
        "integer",
        "Number of passages returned for a query.",
        5,
        minimum=1,
        maximum=2000,
    )
    # Structure.
    include_headings: bool = param(
        "boolean",
        "Heading outline plus tables_detected and code_blocks_detected.",
        False,
    )
    include_links: bool = param(
        "boolean",
        "Every link of the main content, absolute URLs.",
        False,
    )
    include_images: bool = param(
        "boolean",
        "Every image with its source and alt text.",
        False,
    )
    # Fetch controls.
    auto_render: bool = param(
        "boolean",
        "Detect a JavaScript app shell and re-fetch it rendered; not billed as a render.",
        True,
    )
    auto_proxy: bool = param("boolean", "Select a proxy for domains known to need one.", True)
    retry: bool = param(
        "boolean",
        "Retry a failed fetch, escalating the proxy tier each attempt.",
        True,
    )
    max_retries: int = param("integer", "Attempts, 1 to 4.", 4, minimum=1, maximum=4)
    retry_escalate: bool = param("boolean", "Whether each retry moves up a proxy tier.", True)
    full_render: bool = param(
        "boolean",
        "Always render in a browser first; billed.",
        False,
    )
    wait_for_selector: str | None = param(
        "string",
        "Wait for this CSS selector, at most wait_timeout after the page's load; turns "
        "rendering on.",
    )
    scroll_to_bottom: bool = param(
        "boolean",
        "Scroll to trigger lazy content; turns rendering on.",
        False,
    )
    load_more_selector: str | None = param(
        "string",
        "Click this selector up to 3 times, within wait_timeout; turns rendering on. The "
        f"button is looked for once the page is ready, for at most {SELECTOR_GRACE:g} s: "
        "without it, nothing more is loaded (no error).",
    )
    wait_timeout: int = param(
        "integer",
        f"Milliseconds to wait for wait_for_selector's element after the page's load, and "
        f"the most spent on load_more_selector's clicks; {WAIT_LEAST} to {WAIT_MOST}. An "
        "element that never comes answers 422 (-4003), naming the selector and the time "
        "waited. Never past the render's own time limit "
        f"(about {RENDER_TIMEOUT_MS // 1000} s).",
        WAIT_TIMEOUT_MS,
        minimum=WAIT_LEAST,
        maximum=WAIT_MOST,
    )
    use_proxy: bool = param("boolean", "Start with the standard proxy tier.", False)
    use_premium: bool = param(
        "boolean",
        "Start with the premium (residential) proxy tier; the plan must include it.",
        False,
    )
    use_superior: bool = param(
        "boolean",
        "Start with the superior (mobile) proxy tier; the plan must include it.",
        False,
    )
    proxy_country: str | None = param(
        "string",
        "Two-letter country code of the proxy; only alongside use_proxy, use_premium or "
        "use_superior.",
        example="de",
        pattern="[A-Za-z]{2}",
        pattern_words="a two-letter country code",
    )
    cache_ok: bool = param(
        "boolean",
        "Allow a cached result: a kept answer of the same page and parameters (X-Cache: hit), "
        "else a cached page. false fetches the page again and replaces the kept answer.",
        True,
        shapes_answer=False,
    )
    max_cache_age: int | None = param(
        "integer",
        "Milliseconds; the oldest cached result accepted (an answer is as old as the page it "
        "was converted from). Default: the server's cache.default_max_age.",
        minimum=0,
        shapes_answer=False,
    )
    accept_lang: str | None = param(
        "string",
        "Accept-Language header sent to the page.",
        example="en-US,en;q=0.8",
        max_length=256,
        pattern=r"[\x20-\x7e]*",
        pattern_words="printable ASCII (a header value)",
    )
    # Prompt-injection check.
    ai_sanitize: bool = param(
        "boolean",
        "Scan the page for prompt injection; 1 extra credit.",
        False,
    )
    ai_sanitize_mode: str = param(
        "string",
        "What a finding does: sanitize removes the risky text from the Markdown (the sentence or "
        "message found, hidden elements, invisible characters, exfiltration links) and reports "
        "it; warn reports it and changes nothing; block answers 422 -4001 on a high risk.",
        "sanitize",
        choices=SAFETY_MODES,
        lenient_choice=True,
    )
    # A screenshot from the same page load (never answered from a kept answer).
    screenshot: bool = param(
        "boolean",
        "Also a screenshot from the same page load (one render): screenshotUrl and screenshot "
        "in format=json, the X-Screenshot-Url header in format=markdown. A screenshot's price "
        "plus the Markdown base; never a kept answer.",
        False,
        shapes_answer=False,
    )
    screenshot_format: str = param(
        "string", "Its image format.", "jpeg", choices=("jpeg", "png", "webp"), shapes_answer=False
    )
    screenshot_quality: float = param(
        "number",
        "Its quality, 10 to 80, rounded to 10.",
        80,
        minimum=10,
        maximum=80,
        round_to=10,
        shapes_answer=False,
    )
    screenshot_full_page: bool = param(
        "boolean", "The whole scrollable page.", False, shapes_answer=False
    )
    screenshot_dimensions: str = param(
        "string",
        "Viewport of the render and the picture (as the screenshot's dimensions).",
        "md",
        choices=("xs", "sm", "md", "lg"),
        shapes_answer=False,
    )
    screenshot_dark_mode: bool = param(
        "boolean", "Ask the page for its dark color scheme.", False, shapes_answer=False
    )


JSON = one_of("format", "json")
CHUNKED = any_of(one_of("chunking", True), Given("query"))
"""Chunks are made: chunking asked, or a query to match."""
SCREENSHOT = one_of("screenshot", True)

MARKDOWN_INERT = (
    # What only the JSON envelope carries (a job's pages have no answer format: rules reading
    # format are not applied to them).
    Inert("chunking", any_of(JSON, Given("query"))),
    Inert("include_markdown", JSON),
    Inert("include_metadata", JSON),
    Inert("include_chunks", all_of(JSON, CHUNKED)),
    Inert("include_ai_safety", all_of(JSON, one_of("ai_sanitize", True))),
    Inert("include_headings", JSON),
    Inert("include_links", JSON),
    Inert("include_images", JSON),
    # How the page is chunked, matched, fetched and scanned.
    Inert("chunk_size", CHUNKED),
    Inert("chunk_overlap", CHUNKED),
    Inert("heading_aware", CHUNKED),
    Inert("heading_aware_level", all_of(one_of("heading_aware", True), CHUNKED)),
    Inert("max_chunks", CHUNKED),
    Inert("query_top_k", Given("query")),
    Inert("max_retries", one_of("retry", True)),
    Inert("retry_escalate", one_of("retry", True)),
    Inert("proxy_country", TIER_FORCED),
    Inert("max_cache_age", one_of("cache_ok", True)),
    Inert("ai_sanitize_mode", one_of("ai_sanitize", True)),
    # The screenshot of the same load.
    *(
        Inert(f"screenshot_{name}", SCREENSHOT)
        for name in ("format", "full_page", "dimensions", "dark_mode")
    ),
    Inert("screenshot_quality", all_of(SCREENSHOT, one_of("screenshot_format", "jpeg", "webp"))),
)
"""When a Markdown parameter does nothing: sent then, it is ignored with a warning."""

MARKDOWN_PARAMS = ParamTable.of(MarkdownParams, MARKDOWN_INERT)
