"""Targets that are not HTML, as Markdown: plain text as it is, JSON in a fenced block, a PDF
through its semantic HTML (:mod:`convert.documents.pdf`) and the page pipeline. Other types are not
converted; :func:`document_kind` tells which are.

Pure, like :mod:`convert.markdown.pipeline`: (bytes, text, content type, URL, options) in, a
:class:`~convert.markdown.pipeline.PageConversion` out, with the same Markdown steps after (the
safety scan, truncation, chunks and ranking).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from enum import StrEnum
from html import escape
from typing import Any
from urllib.parse import unquote, urlsplit

import lxml.html

from convert import safety
from convert.documents.pdf import PdfError, pdf_to_html
from convert.markdown.pipeline import ConvertOptions, PageConversion, convert_page, finish
from convert.metadata.read import page_metadata

TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown", "text/csv"})
"""Served as they are: their text is the Markdown."""
JSON_TYPES = frozenset({"application/json", "text/json", "application/ld+json"})
"""Pretty-printed in a fenced block (and any ``application/...+json``)."""
PDF_TYPES = frozenset({"application/pdf", "application/x-pdf"})
PDF_MAGIC = b"%PDF-"
"""How a PDF served as ``application/octet-stream`` (or without a type) is known."""
JSON_PRETTY_LIMIT = 2_000_000
"""Characters of JSON re-indented for reading; a larger document is shown as it came."""
JSON_DEPTH = 64
"""Nesting beyond which JSON is shown as it came (its indentation would dwarf it)."""
JSON_GROWTH = 3
"""Times its own size the indentation of JSON may add before it is shown as it came."""
_BACKTICKS = re.compile(r"`{3,}")


class DocumentKind(StrEnum):
    """A kind of non-HTML target the Markdown endpoint converts."""

    text = "text"
    json = "json"
    pdf = "pdf"


def document_kind(content_type: str, body: bytes) -> DocumentKind | None:
    """The kind of a non-HTML target by its media type (a PDF also by its first bytes); None
    for a type that is not converted."""
    if content_type in PDF_TYPES or (
        content_type in ("", "application/octet-stream", "binary/octet-stream")
        and body.startswith(PDF_MAGIC)
    ):
        return DocumentKind.pdf
    if content_type in JSON_TYPES or (
        content_type.startswith("application/") and content_type.endswith("+json")
    ):
        return DocumentKind.json
    if content_type in TEXT_TYPES:
        return DocumentKind.text
    return None


def convert_document(
    kind: DocumentKind, body: bytes, text: str | None, url: str, options: ConvertOptions
) -> PageConversion:
    """Convert one non-HTML target; :class:`~convert.documents.pdf.PdfError` for an unreadable
    PDF."""
    if kind is DocumentKind.pdf:
        return _pdf(body, url, options)
    source = text if text is not None else body.decode("utf-8", "replace")
    source = source.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    markdown = _fenced(_pretty(source), "json") if kind is DocumentKind.json else source.strip()
    result = PageConversion(
        markdown="", metadata=_metadata(url), extraction=f"document:{kind.value}"
    )
    html_scan = None
    if options.safety_mode is not None:
        html_scan = safety.scan_html(lxml.html.fromstring("<html><body></body></html>"), url)
    finish(result, markdown, html_scan, options)
    return result


def _pdf(body: bytes, url: str, options: ConvertOptions) -> PageConversion:
    """A PDF through its HTML: all of it is content (no main-content selection)."""
    document = pdf_to_html(body)
    result = convert_page(document.html, url, replace(options, only_main_content=False))
    result.extraction = "document:pdf"
    result.app_shell = False
    if document.cut and not result.truncated:
        result.truncated = True
        result.truncation_reason = "pdf_pages_exceeded"
    return result


def _pretty(source: str) -> str:
    """JSON re-indented for reading; as it came when it is not JSON, too large, too deep, or
    would grow too much with its indentation."""
    if len(source) > JSON_PRETTY_LIMIT:
        return source.strip()
    try:
        value: Any = json.loads(source)
    except (ValueError, RecursionError):
        return source.strip()
    if _indented_size(value) > JSON_GROWTH * len(source) + 1000:
        return source.strip()
    return json.dumps(value, indent=2, ensure_ascii=False)


def _indented_size(value: Any) -> float:
    """About how many characters of indentation ``value`` would get (every item on a line of
    its own, two spaces a level); infinite past JSON_DEPTH levels. One walk, no recursion."""
    total = 0
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if depth > JSON_DEPTH:
            return float("inf")
        total += 2 * depth + 1
        if isinstance(item, dict):
            pending += [(child, depth + 1) for child in item.values()]
        elif isinstance(item, list):
            pending += [(child, depth + 1) for child in item]
    return total


def _fenced(text: str, language: str) -> str:
    """``text`` in a code fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def _metadata(url: str) -> dict[str, str]:
    """What a document without markup says of itself (its file name as the title), in the
    fields every page's metadata has."""
    name = unquote(urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1])[:300]
    head = f"<title>{escape(name)}</title>" if name.strip() else ""
    return page_metadata(lxml.html.fromstring(f"<html><head>{head}</head></html>"), url)


__all__ = ["PDF_TYPES", "DocumentKind", "PdfError", "convert_document", "document_kind"]
