"""``GET /api/3.0/markdown/{encoded_url}``: a page as Markdown (SPEC 2.4, 4.4, 7.2)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, cast

from handlers import json_text
from handlers.base import ApiHandler, params_error
from handlers.errors import ApiError
from handlers.params.markdown import MARKDOWN_PARAMS, MarkdownParams
from handlers.params.table import P
from handlers.screenshot_requests import link
from services.markdown import MarkdownAnswer, MarkdownOptions, MarkdownRequest, passages_markdown
from services.screenshots import ScreenshotOptions, Shot


class MarkdownHandler(ApiHandler):
    """Read the request, have the Markdown service fetch (or render) and convert the page,
    answer Markdown (with a query: the matched passages) or the JSON envelope."""

    endpoint = "markdown"
    error_shape = "markdown"
    params = MARKDOWN_PARAMS
    target_prefix = re.compile(r"/api/3\.0/markdown/")
    server_timing = True

    async def get(self, encoded_url: str | None = None) -> None:
        params, problems = self.read_params(MarkdownParams)
        if problems:
            raise params_error(problems)
        service = self.services.markdown_service
        options = MarkdownOptions.of(params)
        service.check(options)  # the parameters' rules before the target's
        caller = self.caller
        request = MarkdownRequest(
            self.target(encoded_url, params.url), caller.org, caller.proxy_tiers, options
        )
        variant = MARKDOWN_PARAMS.answer_variant(params)
        obtained = await self._obtain(params, request, variant)
        if obtained is None:
            return
        answer, shot = obtained
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
        self._warn_if_nothing_selected(params, result.character_count)
        render = "full" if answer.full_render else "auto" if answer.auto_render else "no"
        self.log_fields.update(
            tier=answer.got.tier, render=render, cache="hit" if answer.got.cache_hit else "miss"
        )
        base_url = self.services.server.public_base_url()
        headers = answer_headers(answer, shot if markdown_format else None, base_url)
        if markdown_format:
            headers["Content-Type"] = "text/markdown; charset=utf-8"
            body = result.markdown
            if params.query and result.chunks is not None:
                body = passages_markdown(params.query, result.chunks)
                headers["X-Markdown-Passage-Count"] = str(len(result.chunks))
            elif params.query:
                self.warn(f"{result.chunk_error or 'matching failed'}: the whole page is answered")
            headers["X-Markdown-Character-Count"] = str(
                len(body) if body is not result.markdown else result.character_count
            )
            headers.update(safety_headers)
        else:
            envelope = self._envelope(params, answer)
            if shot is not None:
                envelope.update(screenshot_fields(shot, base_url))
            body = await json_text.encode(envelope)
        if shot is None:
            service.keep(request, variant, answer, body, headers)
        await self._answer(params, body, headers, hit=False)

    async def head(self, encoded_url: str | None = None) -> None:
        """GET's answer without its body (HTTP): the same work, headers and credits, charged
        once; the answer is kept, so the GET that follows reuses it."""
        await self.get(encoded_url)

    async def _obtain(
        self, params: MarkdownParams, request: MarkdownRequest, variant: Mapping[str, str]
    ) -> tuple[MarkdownAnswer, Shot | None] | None:
        """The answer to make, with the screenshot taken in the same load when one is asked;
        None when a kept answer was answered already."""
        if params.screenshot:  # one render for both; never a kept answer (its link would age)
            both = await self.services.one_load_service.markdown_with_screenshot(
                request, picture(params), self.caller.org_id
            )
            return both.answer, both.shot
        service = self.services.markdown_service
        reused = await service.reuse(request, variant)
        if reused is not None:
            self.bill(reused.credits)
            self.log_fields.update(cache="answer")
            await self._answer(params, reused.answer.body, reused.answer.headers, hit=True)
            return None
        return await service.run(request), None

    async def _answer(
        self, params: MarkdownParams, body: str, headers: Mapping[str, str], *, hit: bool
    ) -> None:
        """Write the answer: its headers, then the Markdown, or the envelope with the warnings;
        a kept envelope (``hit``) is read again for this request's own fields (request_id,
        debug.cache)."""
        for name, value in headers.items():
            self.set_header(name, value)
        self.set_header("X-Cache", "hit" if hit else "miss")
        if params.format == "markdown":
            if hit:
                self._warn_if_nothing_selected(params, len(body.strip()))
            self.finish(body)
            return
        if hit:
            envelope = await json_text.decode(body)
            self._warn_if_nothing_selected(params, envelope["usage"]["character_count"])
            envelope["debug"]["cache"] = "hit"
            envelope["request_id"] = self.request_id
            body = await json_text.reencode(envelope, body)
        self.write_json_text(body)

    def _warn_if_nothing_selected(self, params: MarkdownParams, character_count: int) -> None:
        """Warn that ``include_tags`` kept nothing when the answer is empty because of it (the
        request is answered, and billed, as any other)."""
        if params.include_tags and character_count == 0:
            self.warn(
                "include_tags matched nothing on the page (or only elements without text): "
                "the answer is empty"
            )

    def adjust(self, values: P) -> P:
        # Without a format parameter, an Accept header preferring JSON asks for the envelope.
        if (
            isinstance(values, MarkdownParams)
            and "format" not in values.sent
            and prefers_json(self.request.headers.get("Accept", ""))
        ):
            return cast(P, replace(values, format="json"))
        return values

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
            "comment_count": result.comment_count,
        }
        if result.chunk_error:
            usage["chunk_error"] = result.chunk_error
        if result.structure_error:
            usage["structure_error"] = result.structure_error
        structure = answer.structure
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
            "main_content_fallback": result.fallback,
            "page_type": result.page_type,
            "extraction_confidence": result.extraction_confidence,
            "render": answer.readiness.as_dict() if answer.readiness else None,
            "render_note": answer.render_note,
            "cache": "miss",
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


def answer_headers(answer: MarkdownAnswer, shot: Shot | None, base_url: str) -> dict[str, str]:
    """The headers every answer made of ``answer`` carries (how the page was rendered, the
    truncation), and ``shot``'s link when it is told in a header."""
    headers: dict[str, str] = {}
    if answer.readiness is not None:
        headers["X-Render-Timing"] = answer.readiness.header()
    if answer.result.truncated:
        headers["X-Markdown-Truncated"] = "true"
        headers["X-Markdown-Truncation-Reason"] = answer.result.truncation_reason or ""
    if shot is not None:
        headers["X-Screenshot-Url"] = link(shot.record, base_url)
    return headers


def picture(params: MarkdownParams) -> ScreenshotOptions:
    """The screenshot a Markdown request asks beside its page (``screenshot_*``)."""
    return ScreenshotOptions(
        format=params.screenshot_format,
        quality=params.screenshot_quality,
        full_page=params.screenshot_full_page,
        dimensions=params.screenshot_dimensions,
        dark_mode=params.screenshot_dark_mode,
    )


def screenshot_fields(shot: Shot, base_url: str) -> dict[str, Any]:
    """What the envelope tells of the screenshot taken in the same load: its 24-hour link, and
    its size and expiry."""
    record = shot.record
    return {
        "screenshotUrl": link(record, base_url),
        "screenshot": {
            "dimensions": {"width": record.width, "height": record.height},
            "expiresAt": record.expires_at.isoformat().replace("+00:00", "Z"),
        },
    }


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


ROUTES = [
    (r"/api/3\.0/markdown/?", MarkdownHandler),
    (r"/api/3\.0/markdown/(.+)", MarkdownHandler),
]
