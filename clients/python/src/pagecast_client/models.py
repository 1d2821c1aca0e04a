"""Typed results: dataclasses with the fields of Pagecast's answers.

Every result keeps the answer's JSON as ``raw`` (fields a newer server adds are there before
this client names them), its ``request_id`` and the ``credits`` it cost
(``X-BILLING-REQUESTS``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


def pick(cls: type[T], data: Any, **nested: Any) -> T:
    """An instance of the dataclass ``cls`` from the keys of ``data`` it names (others are
    ignored); ``nested`` gives already-built values for some fields."""
    known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values = {k: v for k, v in (data or {}).items() if k in known}
    return cls(**{**values, **nested})


@dataclass
class Metadata:
    """What the page says about itself (every field a string, ``""`` when it says nothing)."""

    title: str = ""
    description: str = ""
    canonical_url: str = ""
    site_name: str = ""
    image: str = ""
    language: str = ""
    final_url: str = ""
    author: str = ""
    published_at: str = ""


@dataclass
class Usage:
    """Sizes and caps of a Markdown answer."""

    character_count: int = 0
    estimated_token_count: int = 0
    truncated: bool = False
    truncation_reason: str | None = None
    max_chars: int | None = None
    chunk_count: int | None = None
    chunks_truncated: bool = False
    comment_count: int = 0
    chunk_error: Any = None
    structure_error: Any = None
    headings_truncated: bool = False
    links_truncated: bool = False
    images_truncated: bool = False


@dataclass
class Debug:
    """How a Markdown answer was fetched."""

    full_render_used: bool = False
    auto_render_triggered: bool = False
    proxy_used: str | None = None
    retry_used: bool = False
    retry_attempts: int = 0
    final_status_code: int | None = None
    cache_hit: bool | None = None
    main_content: str | None = None
    main_content_fallback: str | None = None
    """None, or what the main content fell back to: ``whole_body``, ``metadata`` or
    ``second_candidate``."""
    page_type: str | None = None
    extraction_confidence: float | None = None


@dataclass
class SafetySignal:
    type: str = ""
    severity: float = 0.0
    count: int = 0
    sample: str = ""
    location: str = ""


@dataclass
class AiSafety:
    """The prompt-injection report (``ai_sanitize=true``)."""

    risk_score: float = 0.0
    risk_level: str = "low"
    action_taken: str = ""
    signals: list[SafetySignal] = field(default_factory=list)
    recommendation: str = ""


@dataclass
class Chunk:
    """A piece of the Markdown under its headings (or a passage matched to a query)."""

    index: int
    text: str
    heading_path: list[str] = field(default_factory=list)
    character_count: int = 0
    estimated_token_count: int = 0
    start_offset: int | None = None
    end_offset: int | None = None
    overlap_character_count: int | None = None
    split_mid_block: bool = False
    relevance_score: float | None = None
    """0-1, only with a query."""


@dataclass
class Heading:
    level: int
    text: str


@dataclass
class Link:
    url: str
    text: str = ""
    rel: str | None = None
    internal: bool = False


@dataclass
class Image:
    url: str
    alt: str = ""


@dataclass
class MarkdownResult:
    """A page as Markdown: the envelope of ``format=json``, or with ``format=markdown`` the text
    and what its headers say (``usage.character_count``, truncation, the safety score)."""

    request_id: str
    credits: int
    markdown: str | None = None
    metadata: Metadata | None = None
    usage: Usage = field(default_factory=Usage)
    debug: Debug | None = None
    ai_safety: AiSafety | None = None
    chunks: list[Chunk] | None = None
    headings: list[Heading] | None = None
    links: list[Link] | None = None
    images: list[Image] | None = None
    tables_detected: int | None = None
    code_blocks_detected: int | None = None
    screenshot_url: str | None = None
    """``screenshot=true``: the 24-hour link of the screenshot taken in the same page load
    (``screenshotUrl``; the ``X-Screenshot-Url`` header with ``format=markdown``)."""
    screenshot: dict[str, Any] | None = None
    """``screenshot=true`` with ``format=json``: the screenshot's ``dimensions`` and
    ``expiresAt``."""
    warnings: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, body: dict[str, Any], credits: int) -> MarkdownResult:
        def listed(name: str, item: type[T]) -> list[T] | None:
            values = body.get(name)
            return None if values is None else [pick(item, value) for value in values]

        safety = body.get("ai_safety")
        return pick(
            cls,
            body,
            credits=credits,
            metadata=pick(Metadata, body["metadata"]) if "metadata" in body else None,
            usage=pick(Usage, body.get("usage")),
            debug=pick(Debug, body["debug"]) if "debug" in body else None,
            ai_safety=None
            if safety is None
            else pick(
                AiSafety,
                safety,
                signals=[pick(SafetySignal, signal) for signal in safety.get("signals", [])],
            ),
            chunks=listed("chunks", Chunk),
            headings=listed("headings", Heading),
            links=listed("links", Link),
            images=listed("images", Image),
            screenshot_url=body.get("screenshotUrl"),
            warnings=list(body.get("warnings", [])),
            raw=body,
        )


@dataclass
class Screenshot:
    """A capture: its link (``response_type=json``, the default) or its bytes
    (``response_type=image``)."""

    request_id: str
    credits: int
    screenshot_url: str | None = None
    """Valid for 24 hours; :meth:`Pagecast.download` fetches it."""
    image: bytes | None = None
    content_type: str = ""
    width: int | None = None
    height: int | None = None
    host: str | None = None
    response_code: int | None = None
    expires_at: str | None = None
    cached: bool | None = None
    pages: int | None = None
    timing: dict[str, Any] | None = None
    markdown: str | None = None
    """``include_markdown=true``: the page's Markdown from the same page load."""
    metadata: Metadata | None = None
    """``include_metadata=true``: the page's metadata from the same page load."""
    raw: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, body: dict[str, Any], request_id: str, credits: int) -> Screenshot:
        dimensions = body.get("dimensions") or {}
        info = body.get("requestInfo") or {}
        return cls(
            request_id=request_id,
            credits=credits,
            screenshot_url=body.get("screenshotUrl"),
            content_type="application/json",
            width=dimensions.get("width"),
            height=dimensions.get("height"),
            host=info.get("host"),
            response_code=info.get("responseCode"),
            expires_at=body.get("expiresAt"),
            cached=body.get("cached"),
            pages=body.get("pages"),
            timing=body.get("timing"),
            markdown=body.get("markdown"),
            metadata=pick(Metadata, body["metadata"]) if "metadata" in body else None,
            raw=body,
        )


@dataclass
class Embed:
    """An oEmbed answer; ``embed_id`` and ``frame_url`` when ``source`` is ``og_frame``."""

    type: str
    version: str
    html: str
    source: str
    request_id: str = ""
    credits: int = 0
    provider_name: str | None = None
    width: int | None = None
    height: int | None = None
    embed_id: str | None = None
    frame_url: str | None = None
    title: str | None = None
    author_name: str | None = None
    provider_url: str | None = None
    thumbnail_url: str | None = None
    thumbnail_width: int | None = None
    thumbnail_height: int | None = None
    warnings: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass
class Frame:
    """A hosted card the oEmbed endpoint made, as the frames API stores it."""

    embed_id: str
    url: str
    frame_url: str
    template: str | None = None
    theme: str | None = None
    orientation: str | None = None
    width: int | None = None
    height: int | None = None
    maxwidth: int | None = None
    maxheight: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    html: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    refreshed_at: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> Frame:
        return pick(cls, body, raw=body)


@dataclass
class FramePage:
    """One page of the frames list, newest first."""

    frames: list[Frame]
    next_cursor: str | None
    total: int
