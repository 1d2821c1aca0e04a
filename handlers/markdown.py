"""``GET /api/3.0/markdown/{encoded_url}``: a page as Markdown (SPEC 2.4, 4.4, 7.2)."""

from __future__ import annotations

from typing import Any

from browser.charset import HTML_TYPES
from browser.fetch import FetchError, FetchResult
from browser.pages import PageRequest, PageRequestError, PageResult
from convert.markdown import (
    MarkdownOptions,
    MarkdownResult,
    SelectorError,
    check_selectors,
    estimate_tokens,
    html_to_markdown,
    split_selectors,
)
from convert.pool import ConversionTimeoutError, PoolBusyError
from handlers.base import ApiHandler, params_error
from handlers.errors import ApiError
from handlers.params import Param, ParamTable, ParsedParams
from handlers.target import decode_target

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
            available=False,
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
            available=False,
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
            available=False,
        ),
        Param(
            "include_links",
            "boolean",
            "Every link of the main content, absolute URLs.",
            False,
            available=False,
        ),
        Param(
            "include_images",
            "boolean",
            "Every image with its source and alt text.",
            False,
            available=False,
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
            available=False,
        ),
        Param(
            "wait_for_selector",
            "string",
            "Wait for this CSS selector; turns rendering on.",
            available=False,
        ),
        Param(
            "scroll_to_bottom",
            "boolean",
            "Scroll to trigger lazy content; turns rendering on.",
            False,
            available=False,
        ),
        Param(
            "load_more_selector",
            "string",
            "Click this selector up to 3 times; turns rendering on.",
            available=False,
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
            available=False,
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

_FETCH_ERRORS = {
    FetchError.invalid_url: "invalid_url",
    FetchError.dns: "fetch_dns",
    FetchError.connect: "fetch_connect",
    FetchError.timeout: "fetch_timeout",
    FetchError.blocked: "fetch_blocked",
    FetchError.tls: "fetch_tls",
    FetchError.too_many_redirects: "fetch_redirects",
    FetchError.address_not_allowed: "fetch_not_allowed",
    FetchError.too_large: "fetch_too_large",
    FetchError.http_status: "fetch_status",
    FetchError.invalid_response: "fetch_invalid_response",
}


class MarkdownHandler(ApiHandler):
    """Fetch the target, convert it in the worker pool, answer Markdown or the JSON envelope."""

    endpoint = "markdown"
    error_shape = "markdown"
    params = MARKDOWN_PARAMS

    async def get(self, encoded_url: str) -> None:
        params, problems = self.read_params()
        format_ok = not any(problem.name == "format" for problem in problems)
        if format_ok and (params["chunking"] or params["query"]) and params["format"] != "json":
            raise ApiError("chunking_needs_json")
        if problems:
            raise params_error(problems)
        options = _options(params)
        url = decode_target(encoded_url)
        try:
            got = await self.services.pages.get(self._page_request(url, params))
        except PageRequestError as exc:
            raise ApiError(exc.kind, exc.message) from exc
        page = got.fetch
        _raise_for_fetch(page)
        try:
            result: MarkdownResult = await self.services.pool.run(
                html_to_markdown, page.text or "", page.final_url, options
            )
        except PoolBusyError as exc:
            raise ApiError(
                "busy", "all conversion workers are busy; retry shortly", retry_after=5
            ) from exc
        except ConversionTimeoutError as exc:
            raise ApiError("conversion_failed", "conversion took too long") from exc
        except Exception as exc:
            raise ApiError("conversion_failed") from exc
        credits = self.services.settings.credits
        self.bill(credits.markdown + (0 if got.cache_hit else credits.proxy_addon(got.tier)))
        if params["format"] == "json":
            self.write_json(self._envelope(params, got, result))
            return
        self.set_header("Content-Type", "text/markdown; charset=utf-8")
        self.set_header("X-Markdown-Character-Count", str(result.character_count))
        if result.truncated:
            self.set_header("X-Markdown-Truncated", "true")
            self.set_header("X-Markdown-Truncation-Reason", result.truncation_reason or "")
        self.finish(result.markdown)

    def _page_request(self, url: str, params: ParsedParams) -> PageRequest:
        max_cache_age = params["max_cache_age"]
        return PageRequest(
            url=url,
            allowed_tiers=self.plan.proxy_tiers() if self.plan else frozenset(),
            accept_lang=params["accept_lang"],
            use_proxy=params["use_proxy"],
            use_premium=params["use_premium"],
            use_superior=params["use_superior"],
            proxy_country=(params["proxy_country"] or "").strip().lower() or None,
            auto_proxy=params["auto_proxy"],
            retry=params["retry"],
            max_retries=params["max_retries"],
            retry_escalate=params["retry_escalate"],
            cache_ok=params["cache_ok"],
            max_cache_age=None if max_cache_age is None else max_cache_age / 1000,
        )

    def _envelope(
        self, params: ParsedParams, got: PageResult, result: MarkdownResult
    ) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if params["include_markdown"]:
            body["markdown"] = result.markdown
        if params["include_metadata"]:
            body["metadata"] = result.metadata
        body["usage"] = {
            "character_count": result.character_count,
            "estimated_token_count": estimate_tokens(result.markdown),
            "truncated": result.truncated,
            "truncation_reason": result.truncation_reason,
            "max_chars": params["max_chars"],
            "chunk_count": 0,
            "chunks_truncated": False,
        }
        body["debug"] = {
            "full_render_used": False,
            "auto_render_triggered": False,
            "proxy_used": None if got.cache_hit else got.proxy_used,
            "retry_used": got.attempts > 1,
            "retry_attempts": max(got.attempts - 1, 0),
            "final_status_code": got.fetch.status,
            "cache_hit": got.cache_hit,
        }
        body["request_id"] = self.request_id
        return body


def _options(params: ParsedParams) -> MarkdownOptions:
    """Cross-parameter rules and selector checks, all before any fetch."""
    if params["chunk_overlap"] > params["chunk_size"] // 2:
        raise ApiError(
            "invalid_parameter",
            "invalid parameters: chunk_overlap must be at most half of chunk_size",
        )
    include = split_selectors(params["include_tags"])
    exclude = split_selectors(params["exclude_tags"])
    try:
        check_selectors("include_tags", include)
        check_selectors("exclude_tags", exclude)
    except SelectorError as exc:
        raise ApiError(
            "invalid_parameter",
            f"invalid parameters: {exc.parameter} has an invalid CSS selector: "
            f"{exc.selector[:200]}",
        ) from exc
    return MarkdownOptions(
        max_chars=params["max_chars"], include_tags=include, exclude_tags=exclude
    )


def _raise_for_fetch(page: FetchResult) -> None:
    if page.error is not None:
        raise ApiError(_FETCH_ERRORS[page.error], page.message or None)
    if page.is_html and not (page.text or "").strip():
        raise ApiError("no_html", "the target returned an empty document")
    if not page.is_html:
        kind = page.content_type or "no content type"
        if page.content_type in HTML_TYPES:
            kind = f"binary data labelled {page.content_type}"
        raise ApiError("no_html", f"the target returned {kind}, not HTML")


ROUTES = [(r"/api/3\.0/markdown/(.+)", MarkdownHandler)]
