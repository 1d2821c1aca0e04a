"""The Markdown endpoint's parameter table (SPEC 4.4): validation, defaults, ``/openapi.json``
and the docs all come from it."""

from __future__ import annotations

from handlers.params import Param, ParamTable

MARKDOWN_PARAMS = ParamTable(
    [
        # Getting the page.
        Param(
            "app_id", "string", "API key (or send the api-key header).", required=False, secret=True
        ),
        Param("only_main_content", "boolean", "Strip navigation, sidebars and footers.", True),
        Param(
            "include_tags",
            "string",
            "Comma-separated CSS selectors to keep; everything else is dropped.",
            example="article,.post",
            max_length=2000,
        ),
        Param(
            "exclude_tags",
            "string",
            "Comma-separated CSS selectors to drop.",
            example="nav,.ads",
            max_length=2000,
        ),
        Param(
            "max_chars",
            "integer",
            "Cap on the Markdown length; truncation is reported in headers and usage.",
            minimum=1,
            example=20000,
            problem="invalid_max_chars",
        ),
        # Choosing what comes back.
        Param(
            "format",
            "string",
            "markdown: a text/markdown body; json: the JSON envelope.",
            "markdown",
            choices=("markdown", "json"),
            problem="invalid_format",
        ),
        Param("include_markdown", "boolean", "Include the markdown field (format=json).", True),
        Param("include_metadata", "boolean", "Include the metadata object (format=json).", True),
        Param(
            "include_chunks",
            "boolean",
            "When false, chunk counts are returned without chunk text.",
            True,
        ),
        Param(
            "include_ai_safety",
            "boolean",
            "Include the ai_safety object when ai_sanitize=true.",
            True,
        ),
        # Chunking.
        Param(
            "chunking",
            "boolean",
            "Split the document into chunks with heading paths; needs format=json.",
            False,
        ),
        Param(
            "chunk_size",
            "integer",
            "Target characters per chunk.",
            2000,
            minimum=200,
            maximum=20000,
        ),
        Param(
            "chunk_overlap",
            "integer",
            "Characters repeated from the previous chunk; at most half of chunk_size.",
            0,
            minimum=0,
            maximum=10000,
        ),
        Param("heading_aware", "boolean", "Start a new chunk at section headings.", True),
        Param(
            "heading_aware_level",
            "integer",
            "Heading level (1-6) at or above which a new chunk starts.",
            2,
            minimum=1,
            maximum=6,
        ),
        Param(
            "max_chunks",
            "integer",
            "Most chunks returned; usage.chunk_count has the full count.",
            500,
            minimum=1,
            maximum=2000,
        ),
        # Question matching.
        Param(
            "query",
            "string",
            "Keywords; implies chunking and returns only matching passages, best first.",
            max_length=512,
            example="pricing limits",
        ),
        Param(
            "query_top_k",
            "integer",
            "Number of passages returned for a query.",
            5,
            minimum=1,
            maximum=2000,
        ),
        # Structure.
        Param(
            "include_headings",
            "boolean",
            "Heading outline plus tables_detected and code_blocks_detected.",
            False,
        ),
        Param(
            "include_links",
            "boolean",
            "Every link of the main content, absolute URLs.",
            False,
        ),
        Param(
            "include_images",
            "boolean",
            "Every image with its source and alt text.",
            False,
        ),
        # Fetch controls.
        Param(
            "auto_render",
            "boolean",
            "Detect a JavaScript app shell and re-fetch it rendered; not billed as a render.",
            True,
        ),
        Param("auto_proxy", "boolean", "Select a proxy for domains known to need one.", True),
        Param(
            "retry",
            "boolean",
            "Retry a failed fetch, escalating the proxy tier each attempt.",
            True,
        ),
        Param("max_retries", "integer", "Attempts, 1 to 4.", 4, minimum=1, maximum=4),
        Param("retry_escalate", "boolean", "Whether each retry moves up a proxy tier.", True),
        Param(
            "full_render",
            "boolean",
            "Always render in a browser first; billed.",
            False,
        ),
        Param(
            "wait_for_selector",
            "string",
            "Wait for this CSS selector; turns rendering on.",
        ),
        Param(
            "scroll_to_bottom",
            "boolean",
            "Scroll to trigger lazy content; turns rendering on.",
            False,
        ),
        Param(
            "load_more_selector",
            "string",
            "Click this selector up to 3 times; turns rendering on.",
        ),
        Param("use_proxy", "boolean", "Start with the standard proxy tier.", False),
        Param(
            "use_premium",
            "boolean",
            "Start with the premium (residential) proxy tier; the plan must include it.",
            False,
        ),
        Param(
            "use_superior",
            "boolean",
            "Start with the superior (mobile) proxy tier; the plan must include it.",
            False,
        ),
        Param(
            "proxy_country",
            "string",
            "Two-letter country code of the proxy; only alongside use_proxy, use_premium or "
            "use_superior.",
            example="de",
            pattern="[A-Za-z]{2}",
            pattern_words="a two-letter country code",
        ),
        Param("cache_ok", "boolean", "Allow a cached result.", True),
        Param(
            "max_cache_age",
            "integer",
            "Milliseconds; the oldest cached result accepted.",
            minimum=0,
        ),
        Param(
            "accept_lang",
            "string",
            "Accept-Language header sent to the page.",
            example="en-US,en;q=0.8",
            max_length=256,
            pattern=r"[\x20-\x7e]*",
            pattern_words="printable ASCII (a header value)",
        ),
        # Prompt-injection check.
        Param(
            "ai_sanitize",
            "boolean",
            "Scan the page for prompt injection; 1 extra credit.",
            False,
        ),
        Param(
            "ai_sanitize_mode",
            "string",
            "sanitize, warn or block.",
            "sanitize",
            choices=("sanitize", "warn", "block"),
            lenient_choice=True,
        ),
    ]
)
