"""``GET /api/3.0/markdown/{encoded_url}``: a page as Markdown (SPEC 2.4, 4.4, 7.2)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from browser.farm.types import RenderOptions
from convert.html.document import SelectorError, check_selectors, split_selectors
from convert.markdown.chunks import ChunkOptions
from convert.markdown.pipeline import ConvertOptions, StructureRequest
from convert.markdown.structure import Structure, StructureLimits
from handlers.base import ApiHandler, params_error
from handlers.errors import ApiError
from handlers.markdown_params import MARKDOWN_PARAMS, MarkdownParams
from services.markdown import MarkdownAnswer, MarkdownJob
from services.pages import PageRequest

if TYPE_CHECKING:
    from app.config import Settings


class MarkdownHandler(ApiHandler):
    """Read the request, have the Markdown service fetch (or render) and convert the page,
    answer Markdown or the JSON envelope."""

    endpoint = "markdown"
    error_shape = "markdown"
    params = MARKDOWN_PARAMS
    target_prefix = re.compile(r"/api/3\.0/markdown/")

    async def get(self, encoded_url: str | None = None) -> None:
        params, problems = self.read_params(MarkdownParams)
        if "format" not in params.sent and prefers_json(self.request.headers.get("Accept", "")):
            params = replace(params, format="json")
        format_ok = not any(problem.name == "format" for problem in problems)
        if format_ok and (params.chunking or params.query) and params.format != "json":
            raise ApiError("chunking_needs_json")
        if problems:
            raise params_error(problems)
        options = self._options(params)  # the parameters' rules before the target's
        job = self._job(self.target(encoded_url, params.url), params, options)
        answer = await self.services.markdown_service.run(job)
        result = answer.result
        markdown_format = params.format == "markdown"
        safety_headers = {}
        if result.ai_safety is not None and markdown_format:
            safety_headers = {
                "X-AI-Safety-Score": str(result.ai_safety["risk_score"]),
                "X-AI-Safety-Level": str(result.ai_safety["risk_level"]),
            }
        if result.blocked:
            raise ApiError(
                "ai_blocked",
                "the page was blocked: high prompt-injection risk",
                extra={"ai_safety": result.ai_safety},
                headers=safety_headers,
            )
        self.bill(answer.credits)
        render = "full" if answer.full_render else "auto" if answer.auto_render else "no"
        self.log_fields.update(
            tier=answer.got.tier, render=render, cache="hit" if answer.got.cache_hit else "miss"
        )
        if answer.readiness is not None:
            self.set_header("X-Render-Timing", answer.readiness.header())
        if result.truncated:
            self.set_header("X-Markdown-Truncated", "true")
            self.set_header("X-Markdown-Truncation-Reason", result.truncation_reason or "")
        if not markdown_format:
            self.write_json(self._envelope(params, answer))
            return
        self.set_header("Content-Type", "text/markdown; charset=utf-8")
        self.set_header("X-Markdown-Character-Count", str(result.character_count))
        for name, value in safety_headers.items():
            self.set_header(name, value)
        self.finish(result.markdown)

    # -- reading the request ---------------------------------------------------------------------

    def _job(self, url: str, params: MarkdownParams, options: ConvertOptions) -> MarkdownJob:
        """The service's job, once every cross-parameter rule and selector has been checked."""
        tiers = self.plan.proxy_tiers() if self.plan else frozenset()
        return markdown_job(url, params, options, tiers, self.key_info.org if self.key_info else "")

    def _options(self, params: MarkdownParams) -> ConvertOptions:
        """Cross-parameter rules and selector checks, all before any fetch."""
        return convert_options(params, self.services.settings)

    # -- answering -------------------------------------------------------------------------------

    def _envelope(self, params: MarkdownParams, answer: MarkdownAnswer) -> dict[str, Any]:
        got, result = answer.got, answer.result
        body: dict[str, Any] = {}
        if params.include_markdown:
            body["markdown"] = result.markdown
        if params.include_metadata:
            body["metadata"] = result.metadata
        usage: dict[str, Any] = {
            "character_count": result.character_count,
            "estimated_token_count": result.estimated_tokens,
            "truncated": result.truncated,
            "truncation_reason": result.truncation_reason,
            "max_chars": params.max_chars,
            "chunk_count": result.chunk_count,
            "chunks_truncated": result.chunks_truncated,
        }
        if result.chunk_error:
            usage["chunk_error"] = result.chunk_error
        if result.structure_error:
            usage["structure_error"] = result.structure_error
        structure = result.structure
        if structure is None and result.structure_error:
            structure = Structure()  # the lists are present, empty, beside structure_error
        if structure is not None:
            for name in ("headings", "links", "images"):
                if getattr(params, f"include_{name}"):
                    usage[f"{name}_truncated"] = getattr(structure, f"{name}_truncated")
        body["usage"] = usage
        body["debug"] = {
            "full_render_used": answer.full_render,
            "auto_render_triggered": answer.auto_render,
            "proxy_used": None if got.cache_hit else got.proxy_used,
            "retry_used": got.attempts > 1,
            "retry_attempts": max(got.attempts - 1, 0),
            "final_status_code": got.fetch.status,
            "cache_hit": got.cache_hit,
            "main_content": result.extraction,
            "main_content_fallback": result.fell_back,
            "render": answer.readiness.as_dict() if answer.readiness else None,
            "render_note": answer.render_note,
        }
        body["request_id"] = self.request_id
        if result.ai_safety is not None and params.include_ai_safety:
            body["ai_safety"] = result.ai_safety
        if result.chunks is not None and params.include_chunks:
            body["chunks"] = result.chunks
        if structure is not None:
            if params.include_headings:
                body["headings"] = structure.headings
                body["tables_detected"] = structure.tables_detected
                body["code_blocks_detected"] = structure.code_blocks_detected
            if params.include_links:
                body["links"] = structure.links
            if params.include_images:
                body["images"] = structure.images
        return body


def markdown_job(
    url: str,
    params: MarkdownParams,
    options: ConvertOptions,
    allowed_tiers: frozenset[str],
    org: str,
) -> MarkdownJob:
    """The Markdown service's job for ``url`` read with ``params`` by a key of ``org`` whose plan
    allows ``allowed_tiers`` (the endpoint's, and each page of a batch or crawl)."""
    max_cache_age = params.max_cache_age
    page = PageRequest(
        url=url,
        allowed_tiers=allowed_tiers,
        accept_lang=params.accept_lang,
        use_proxy=params.use_proxy,
        use_premium=params.use_premium,
        use_superior=params.use_superior,
        proxy_country=(params.proxy_country or "").strip().lower() or None,
        auto_proxy=params.auto_proxy,
        retry=params.retry,
        max_retries=params.max_retries,
        retry_escalate=params.retry_escalate,
        cache_ok=params.cache_ok,
        max_cache_age=None if max_cache_age is None else max_cache_age / 1000,
    )
    return MarkdownJob(
        url=url,
        page=page,
        options=options,
        render=RenderOptions(
            wait_for_selector=params.wait_for_selector or None,
            scroll_to_bottom=params.scroll_to_bottom,
            load_more_selector=params.load_more_selector or None,
            org=org,
        ),
        render_first=_render_first(params),
        render_tier=_forced_tier(params),
        auto_render=params.auto_render,
        ai_sanitize=params.ai_sanitize,
    )


def convert_options(params: MarkdownParams, settings: Settings) -> ConvertOptions:
    """The conversion options ``params`` ask for under ``settings``: cross-parameter rules and
    selector checks, all before any fetch (:class:`ApiError` for a broken rule)."""
    convert = settings.convert
    if params.chunk_overlap > params.chunk_size // 2:
        raise ApiError(
            "invalid_parameter",
            "invalid parameters: chunk_overlap must be at most half of chunk_size",
        )
    include = _selectors("include_tags", split_selectors(params.include_tags))
    exclude = _selectors("exclude_tags", split_selectors(params.exclude_tags))
    for name in ("wait_for_selector", "load_more_selector"):
        if getattr(params, name):
            _selectors(name, (getattr(params, name),))
    chunking = None
    if params.chunking or params.query:
        chunking = ChunkOptions(
            size=params.chunk_size,
            overlap=params.chunk_overlap,
            heading_aware=params.heading_aware,
            heading_level=params.heading_aware_level,
            max_chunks=params.max_chunks,
        )
    return ConvertOptions(
        only_main_content=params.only_main_content,
        include_tags=include,
        exclude_tags=exclude,
        max_chars=params.max_chars,
        structure=StructureRequest(
            headings=params.include_headings,
            links=params.include_links,
            images=params.include_images,
            limits=StructureLimits(
                headings=convert.max_headings,
                links=convert.max_links,
                images=convert.max_images,
            ),
        ),
        chunking=chunking,
        query=params.query or None,
        query_top_k=params.query_top_k,
        safety_mode=params.ai_sanitize_mode if params.ai_sanitize else None,
    )


MARKDOWN_TYPES = ("text/markdown", "text/plain", "text/*", "*/*")
"""Accept types a Markdown answer satisfies."""


def prefers_json(accept: str) -> bool:
    """Whether an Accept header asks for JSON over every type the Markdown answer could be
    (text/markdown, text/plain, text/*, */*), by its q-values: a client that accepts both
    alike (axios's ``application/json, text/plain, */*``) gets the default, Markdown."""
    quality: dict[str, float] = {}
    for item in accept.split(","):
        kind, *options = (part.strip() for part in item.split(";"))
        q = 1.0
        for option in options:
            name, _, value = option.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = min(max(float(value), 0.0), 1.0)
                except ValueError:
                    q = 0.0
        quality[kind.lower()] = max(q, quality.get(kind.lower(), 0.0))
    markdown = max(quality.get(kind, 0.0) for kind in MARKDOWN_TYPES)
    return quality.get("application/json", 0.0) > markdown


def _render_first(params: MarkdownParams) -> bool:
    """Whether the request asks for the browser from the start."""
    return bool(
        params.full_render
        or params.wait_for_selector
        or params.scroll_to_bottom
        or params.load_more_selector
    )


def _forced_tier(params: MarkdownParams) -> str:
    if params.use_superior:
        return "superior"
    if params.use_premium:
        return "premium"
    return "standard" if params.use_proxy else "direct"


def _selectors(name: str, selectors: tuple[str, ...]) -> tuple[str, ...]:
    try:
        check_selectors(name, selectors)
    except SelectorError as exc:
        raise ApiError(
            "invalid_parameter",
            f"invalid parameters: {exc.parameter} has an invalid CSS selector: "
            f"{exc.selector[:200]}",
        ) from exc
    return selectors


ROUTES = [
    (r"/api/3\.0/markdown/?", MarkdownHandler),
    (r"/api/3\.0/markdown/(.+)", MarkdownHandler),
]
