"""The whole conversion of one page, as the Markdown endpoint runs it in a worker process:
metadata, prompt-injection scan, cleaning, selectors, main content, structure, Markdown,
sanitizing, truncation, chunks and query ranking.

Pure: (html, url, options) in, a picklable :class:`PageConversion` out. Chunking, ranking and
structure failures do not fail the conversion: they are reported in the result and the document
is still returned.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import lxml.html
from lxml import etree

from convert import safety
from convert.extract.comments import comment_count, comments_section
from convert.extract.page_type import markup_evidence
from convert.extract.product import add_missing_facts, product_facts
from convert.extract.reveal import reveal_scripted_content
from convert.extract.rules import COMMENTS_HEADING
from convert.extract.selection import main_content
from convert.html.appshell import detect_app_shell
from convert.html.document import (
    ParsedDocument,
    absolute_links,
    apply_selectors,
    body_of,
    check_selectors,
    clean_document,
    read_document,
    xml_safe,
)
from convert.html.elements import page_elements
from convert.html.hiding import hidden_among, hidden_in
from convert.html.size import MAX_ELEMENTS, keep_first_elements
from convert.markdown.chunks import Chunk, ChunkOptions, chunk_markdown
from convert.markdown.length import estimate_tokens, truncate
from convert.markdown.query import rank_chunks
from convert.markdown.render import render_markdown
from convert.markdown.structure import Structure, StructureLimits, page_structure
from convert.metadata.fields import PageMetadata
from convert.metadata.read import read_metadata
from convert.text.urls import registrable_domain

log = logging.getLogger(__name__)

METADATA_ONLY = "metadata"
"""``extraction`` of a page whose body holds no text: its title and description stand in."""
TOO_DEEP = "document_too_deep"
"""Truncation reason of a page nested too deep to read to its end, even flattened."""
TOO_MANY_ELEMENTS = "too_many_elements"
"""Truncation reason of a page with more visible elements than ``max_elements``: the rest was
dropped."""


@dataclass(frozen=True)
class StructureRequest:
    """Which structure lists to extract, and their caps."""

    headings: bool = False
    links: bool = False
    images: bool = False
    limits: StructureLimits = field(default_factory=StructureLimits)

    @property
    def wanted(self) -> bool:
        return self.headings or self.links or self.images


@dataclass(frozen=True)
class ConvertOptions:
    """What the caller asked for (validated by the caller)."""

    only_main_content: bool = True
    include_tags: tuple[str, ...] = ()
    exclude_tags: tuple[str, ...] = ()
    max_chars: int | None = None
    structure: StructureRequest = field(default_factory=StructureRequest)
    chunking: ChunkOptions | None = None
    """Chunk the document (``query`` implies it; the caller passes options then)."""
    query: str | None = None
    query_top_k: int = 5
    safety_mode: str | None = None
    """sanitize, warn or block: scan for prompt injection; None: no scan."""
    include_comments: bool = False
    """Readers' comments after the main content, under their own heading (they are never main
    content, but on a forum or Q&A page, where the posts are the content)."""
    max_elements: int | None = MAX_ELEMENTS
    """Elements of the page converted, in document order, once what a reader never sees is
    gone; None: all of them."""


@dataclass
class PageConversion:
    """Everything the endpoint reports about one converted page."""

    markdown: str
    metadata: dict[str, str]
    truncated: bool = False
    truncation_reason: str | None = None
    extraction: str = "whole_page"
    """How the main content was found: semantic, scored, whole_body, fallback, whole_page, or
    metadata (the body held no text; the title and description stand for it)."""
    fell_back: bool = False
    second_candidate: str | None = None
    """None when the selection was sure enough to stand alone; else ``primary`` or ``second``:
    which of two candidates was kept (:func:`~convert.extract.selection.main_content`)."""
    comment_count: int = 0
    """Readers' comments found beside the main content (given back with ``include_comments``)."""
    page_type: str | None = None
    """article, forum, product, collection, listing, documentation or service (None when main
    content was not extracted)."""
    extraction_confidence: float | None = None
    """How sure the main-content selection is, 0 to 1 (None when it was not extracted)."""
    app_shell: bool = False
    app_shell_reason: str = ""
    structure: Structure | None = None
    structure_error: str | None = None
    chunks: list[dict[str, Any]] | None = None
    chunk_count: int = 0
    chunks_truncated: bool = False
    chunk_error: str | None = None
    ai_safety: dict[str, Any] | None = None
    estimated_tokens: int = 0

    @property
    def fallback(self) -> str | None:
        """What the main content fell back to, if anything: ``whole_body`` (the selection was
        near-empty), ``metadata`` (the body held no text), ``second_candidate`` (the selection
        was unsure and a second one read better); None when the first selection stood."""
        if self.extraction == METADATA_ONLY:
            return METADATA_ONLY
        if self.fell_back:
            return "whole_body"
        return "second_candidate" if self.second_candidate == "second" else None

    @property
    def character_count(self) -> int:
        return len(self.markdown)

    @property
    def blocked(self) -> bool:
        """Whether block mode stops this page (risk is high)."""
        return bool(
            self.ai_safety
            and self.ai_safety.get("action_taken") == "block"
            and self.ai_safety.get("risk_level") == "high"
        )


def convert_page(html: str, url: str, options: ConvertOptions) -> PageConversion:
    """Convert one page; raises :class:`~convert.html.document.SelectorError` for a bad selector."""
    check_selectors("include_tags", options.include_tags)
    check_selectors("exclude_tags", options.exclude_tags)
    parsed = read_document(html)
    root = parsed.root
    # Every element's Python proxy, held for the whole conversion: each pass over the tree
    # then reuses them instead of creating (and classifying) one per element again. With the
    # safety scan, its walk over the elements holds them, and lists the few that may be hidden.
    index = page_elements(root) if options.safety_mode is not None else None
    _held = list(root.iter()) if index is None else index.every
    read = read_metadata(root, url)
    metadata = read.as_dict()
    shell = detect_app_shell(root)
    html_scan = None
    if options.safety_mode is not None:
        html_scan = safety.scan_html(root, url, index)
        if options.safety_mode == "sanitize":
            safety.strip_html(root, html_scan)
    # The elements hidden now, found once: reveal and cleaning (which hide nothing) test no
    # other. Only those with a hiding attribute are tested, those with a class alone once per
    # class value (found by XPath, or by the scan's walk).
    hidden = hidden_in(root) if index is None else hidden_among(index.hideable, index.class_only)
    root, found = _content(root, url, parsed, read, options, hidden=hidden)
    result = PageConversion(
        markdown="",
        metadata=metadata,
        extraction=found.method,
        fell_back=found.fell_back,
        second_candidate=found.second_candidate,
        comment_count=found.comment_count,
        page_type=found.page_type,
        extraction_confidence=found.confidence,
        app_shell=shell.is_shell,
        app_shell_reason=shell.reason,
    )
    if parsed.cut:
        result.truncated, result.truncation_reason = True, TOO_DEEP
    elif found.too_large:
        result.truncated, result.truncation_reason = True, TOO_MANY_ELEMENTS
    if options.structure.wanted:
        try:
            result.structure = page_structure(root, url, options.structure.limits)
        except Exception as exc:  # reported in usage; the document is still returned
            log.warning("structure extraction failed: %s", exc)
            result.structure_error = "structure extraction failed"
    finish(result, render_markdown(root), html_scan, options)
    return result


def finish(result: PageConversion, markdown: str, html_scan: Any, options: ConvertOptions) -> None:
    """The steps on the Markdown, whatever it came from: the safety scan of the text (with the
    document's scan, when there was one), truncation, the token estimate and the chunks."""
    if html_scan is not None and options.safety_mode is not None:
        text_scan = safety.scan_markdown(markdown)
        if options.safety_mode == "sanitize":
            markdown = safety.strip_markdown(markdown, text_scan)
        result.ai_safety = safety.report(html_scan, text_scan, options.safety_mode)
    if options.max_chars is not None and len(markdown) > options.max_chars:
        markdown = truncate(markdown, options.max_chars)
        result.truncated, result.truncation_reason = True, "max_chars_exceeded"
    result.markdown = markdown
    result.estimated_tokens = estimate_tokens(markdown)
    if options.chunking is not None:
        _chunk(result, options)


def _content(
    root: lxml.html.HtmlElement,
    url: str,
    parsed: ParsedDocument,
    metadata: PageMetadata,
    options: ConvertOptions,
    *,
    hidden: Sequence[etree._Element] | None = None,
) -> tuple[lxml.html.HtmlElement, _Found]:
    """Reduce the parsed page to what is converted (cleaned, selected, its main content, and the
    readers' comments after it when asked); returns the document and what the extraction found
    (how the content was found: :attr:`PageConversion.extraction`).
    The title as the page states it (site name and all) tells extraction the headline from a
    logo and the site's name from a heading. ``hidden``: see
    :func:`~convert.html.document.clean_document`."""
    main_only = options.only_main_content and not options.include_tags
    # Comments hidden behind a button are shown only where extraction sets them apart.
    reveal_scripted_content(root, hidden, comments=options.include_comments and main_only)
    # Before cleaning drops the scripts (and their JSON-LD).
    product = product_facts(root) if main_only else None
    evidence = markup_evidence(root, url) if main_only else None
    base = clean_document(root, url, hidden)
    # What a reader sees, bounded: the passes from here on cost the most per element.
    too_large = options.max_elements is not None and keep_first_elements(root, options.max_elements)
    if options.include_tags or options.exclude_tags:
        absolute_links(root, base)  # selectors may match on absolute hrefs, as the page resolves
        root = apply_selectors(root, options.include_tags, options.exclude_tags)
    out = _Found(too_large=too_large)
    if main_only:
        # A flattened page's paragraphs no longer sit where the page put them: scoring would
        # crown the block they were gathered in and drop the rest.
        site = registrable_domain(urlsplit(base).hostname or "")
        found = main_content(
            root,
            metadata.stated_title,
            scoring=not parsed.flattened,
            site=site,
            evidence=evidence,
            product=product is not None,
        )
        out = _Found(
            found.method,
            found.fell_back,
            comment_count(list(found.comments)),
            found.page_type.kind,
            found.confidence,
            found.second_candidate,
            too_large,
        )
        if product is not None:
            add_missing_facts(root, product)
        if options.include_comments and found.comments:
            body_of(root).append(comments_section(list(found.comments), COMMENTS_HEADING))
    if not (options.include_tags or options.exclude_tags):
        absolute_links(root, base)  # only what is kept: cheaper than the whole page
    if not options.include_tags and _from_metadata(root, metadata):
        out.method, out.fell_back = METADATA_ONLY, True
    return root, out


@dataclass
class _Found:
    """What :func:`_content` found: how (:attr:`PageConversion.extraction`), the comments, the
    page's type and how sure the selection is (None without main-content extraction)."""

    method: str = "whole_page"
    fell_back: bool = False
    comment_count: int = 0
    page_type: str | None = None
    confidence: float | None = None
    second_candidate: str | None = None
    too_large: bool = False
    """The page had more elements than ``max_elements`` once cleaned: the rest was dropped."""


def _from_metadata(root: lxml.html.HtmlElement, metadata: PageMetadata) -> bool:
    """When the page's body holds no text at all (a forum whose posts the served HTML lacks),
    its title and description are its content: written into the empty body. Returns whether
    that was done."""
    body = body_of(root)
    if "".join(body.itertext()).strip():
        return False
    title = xml_safe(metadata.title)
    description = xml_safe(metadata.description)
    if not (title or description):
        return False
    if title:
        etree.SubElement(body, "h1").text = title
    if description:
        etree.SubElement(body, "p").text = description
    return True


def _chunk(result: PageConversion, options: ConvertOptions) -> None:
    assert options.chunking is not None
    try:
        chunked = chunk_markdown(result.markdown, options.chunking)
        result.chunk_count, result.chunks_truncated = chunked.total, chunked.truncated
        if options.query:
            # Ranking looks at every chunk of the page, not only the first max_chunks.
            every = chunked.chunks
            if chunked.truncated:
                every = chunk_markdown(
                    result.markdown, _all_chunks(options.chunking, chunked.total)
                ).chunks
            matches = rank_chunks(every, options.query, options.query_top_k)
            result.chunks = [
                _chunk_json(match.chunk, score=match.score, offsets=False) for match in matches
            ]
        else:
            result.chunks = [_chunk_json(chunk) for chunk in chunked.chunks]
    except Exception as exc:  # reported in usage; the document is still returned
        log.warning("chunking failed: %s", exc)
        result.chunks, result.chunk_error = None, "chunking failed"


def _all_chunks(options: ChunkOptions, total: int) -> ChunkOptions:
    return ChunkOptions(
        size=options.size,
        overlap=options.overlap,
        heading_aware=options.heading_aware,
        heading_level=options.heading_level,
        max_chunks=max(total, options.max_chunks),
    )


def _chunk_json(
    chunk: Chunk, *, score: float | None = None, offsets: bool = True
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "index": chunk.index,
        "text": chunk.text,
        "heading_path": list(chunk.heading_path),
        "character_count": chunk.character_count,
        "estimated_token_count": chunk.estimated_token_count,
    }
    if offsets:
        out["start_offset"] = chunk.start_offset
        out["end_offset"] = chunk.end_offset
        out["overlap_character_count"] = chunk.overlap_character_count
    out["split_mid_block"] = chunk.split_mid_block
    if score is not None:
        out["relevance_score"] = score
    return out


__all__ = [
    "ConvertOptions",
    "PageConversion",
    "StructureRequest",
    "convert_page",
    "estimate_tokens",
]
