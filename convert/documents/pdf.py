"""A PDF as semantic HTML, for the Markdown pipeline: headings, paragraphs, lists and tables as
far as the PDF's text layout tells them.

pdfplumber (on pdfminer.six) reads each page's text lines with their characters' sizes and fonts,
and finds ruled tables. The body's font size is the size most of the text is set in; a short line
set clearly larger is a heading (the larger, the higher its level), a short bold line on its own
is a minor heading; a line opened by a bullet or a number is a list item; other lines join into
paragraphs until a gap wider than the line spacing, a change of size or a new item. Lines that
stand at the top or bottom of most pages with the same words (running heads, footers, page
numbers) are left out. Pure: bytes in, an HTML string out; a PDF over :data:`MAX_PAGES` is read
to that page and says so. pdfminer inflates compressed streams without a bound of its own: the
worker process's memory limit (``convert.worker_memory_mb``) is what stops a decompression bomb.
"""

from __future__ import annotations

import io
import re
import statistics
from collections import Counter
from dataclasses import dataclass
from html import escape
from typing import Any

import pdfplumber
from pdfminer.pdfdocument import PDFDocument
from pdfminer.pdfparser import PDFParser, PDFSyntaxError
from pdfminer.pdftypes import resolve1

MAX_PAGES = 200
"""Pages read from one PDF; the rest is left out (the conversion says it was cut)."""
HEADING_RATIO = 1.15
"""A line set at least this much larger than the body is a heading."""
HEADING_CHARS = 140
"""A heading is at most this long."""
HEADING_LEVELS = 4
"""Distinct heading sizes given their own level (h1 to h4); smaller ones share the last."""
PARAGRAPH_GAP = 1.6
"""A vertical gap above a line wider than this many line heights starts a new paragraph."""
EDGE_LINES = 3
"""Lines at a page's top and bottom that may be a running head or footer."""
RUNNING_SHARE = 0.5
"""A top or bottom line found on at least this share of the pages (of three or more) runs."""
BULLETS = "\u2022\u25e6\u25aa\u25ab\u25cf\u25cb\u25a0\u25a1\u2023\u2043\u2219\u00b7\u2013\u2014*-"
"""Characters that open a list item: bullets, middle dot, en and em dashes, star, hyphen."""
_BULLET = re.compile(rf"^\s*(?:[{re.escape(BULLETS)}]|\(?\d{{1,3}}[.)]|\(?[a-zA-Z][.)])\s+")
_NUMBERED = re.compile(r"^\s*\(?\d{1,3}[.)]\s+")
_DIGITS = re.compile(r"\d+")
MARK_SIZE = 7.0
"""Largest side, in points, of a shape drawn as a bullet."""
MARK_DISTANCE = 24.0
"""Farthest, in points, a drawn bullet stands left of its line."""


class PdfError(ValueError):
    """The bytes are not a PDF pdfplumber can read (damaged, encrypted, not a PDF)."""


@dataclass
class _Line:
    text: str
    size: float
    bold: bool
    top: float
    bottom: float
    page: int
    marked: bool = False
    """A bullet drawn as a shape (a small disc or square) just left of the line."""


@dataclass
class PdfDocument:
    """The PDF as HTML, with what the reading found."""

    html: str
    pages: int
    pages_read: int
    title: str = ""

    @property
    def cut(self) -> bool:
        return self.pages_read < self.pages


def pdf_to_html(data: bytes) -> PdfDocument:
    """The semantic HTML of the PDF ``data``; :class:`PdfError` when it cannot be read."""
    try:
        total = _page_count(data)
        with pdfplumber.open(io.BytesIO(data), pages=list(range(1, MAX_PAGES + 1))) as pdf:
            title = _title(pdf.metadata)
            pages = []
            for number, page in enumerate(pdf.pages):
                pages.append(_read_page(page, number))
                page.flush_cache()
    except (PDFSyntaxError, ValueError, KeyError, TypeError) as exc:
        raise PdfError("the PDF could not be read") from exc
    except Exception as exc:  # pdfminer raises its own types for damaged and encrypted files
        raise PdfError("the PDF could not be read") from exc
    lines = [line for page_lines, _ in pages for line in page_lines]
    running = _running_lines(pages)
    body = _body_size(lines)
    levels = _heading_levels(lines, body)
    blocks: list[str] = []
    for page_lines, tables in pages:
        kept = [line for line in page_lines if _key(line.text) not in running]
        blocks += _blocks(kept, tables, body, levels)
    if not title:
        title = next((_inner(b) for b in blocks if b.startswith("<h1>")), "")
    head = f"<title>{escape(title)}</title>" if title else ""
    html = f"<html><head><meta charset='utf-8'>{head}</head><body>{''.join(blocks)}</body></html>"
    return PdfDocument(html, max(total, len(pages)), len(pages), title)


def _page_count(data: bytes) -> int:
    """The page count the PDF's page tree states (0 when it states none), read without
    building a page object for every page."""
    parser = PDFParser(io.BytesIO(data))
    document = PDFDocument(parser)
    pages = resolve1(document.catalog.get("Pages"))
    count = resolve1(pages.get("Count")) if isinstance(pages, dict) else None
    return count if isinstance(count, int) else 0


def _title(metadata: dict[str, Any]) -> str:
    value = metadata.get("Title")
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return " ".join(str(value or "").split())[:300]


def _read_page(page: Any, number: int) -> tuple[list[_Line], list[tuple[float, str]]]:
    """The page's text lines outside its tables, and its tables as (top, HTML)."""
    tables: list[tuple[float, str]] = []
    boxes = []
    for table in page.find_tables():
        rows = table.extract()
        if rows and len(rows) > 1 and max(len(row) for row in rows) > 1:
            boxes.append(table.bbox)
            tables.append((table.bbox[1], _table_html(rows)))
    outside = page.filter(lambda obj: not any(_inside(obj, box) for box in boxes))
    marks = [shape for shape in (*outside.curves, *outside.rects) if _is_mark(shape)]
    lines = []
    for raw in outside.extract_text_lines(strip=True, return_chars=True):
        chars = [c for c in raw["chars"] if c.get("text", "").strip()]
        if not chars or not raw["text"].strip():
            continue
        size = statistics.median(round(float(c.get("size", 0)), 1) for c in chars)
        bold = sum("bold" in str(c.get("fontname", "")).lower() for c in chars) > len(chars) / 2
        line = _Line(
            raw["text"].strip(), size, bold, float(raw["top"]), float(raw["bottom"]), number
        )
        line.marked = any(_marks(shape, float(raw["x0"]), line) for shape in marks)
        lines.append(line)
    return lines, tables


def _is_mark(shape: dict[str, Any]) -> bool:
    """Whether a drawn shape could be a bullet: small, filled, about as wide as high."""
    width, height = float(shape.get("width", 0)), float(shape.get("height", 0))
    return (
        bool(shape.get("fill"))
        and 1 <= width <= MARK_SIZE
        and 1 <= height <= MARK_SIZE
        and abs(width - height) <= 1.5
    )


def _marks(shape: dict[str, Any], x0: float, line: _Line) -> bool:
    """Whether ``shape`` stands as the bullet of ``line`` (which starts at ``x0``)."""
    middle = (float(shape["top"]) + float(shape["bottom"])) / 2
    before = x0 - float(shape["x1"])
    return 0 <= before <= MARK_DISTANCE and line.top <= middle <= line.bottom


def _inside(obj: dict[str, Any], box: tuple[float, float, float, float]) -> bool:
    x0, top, x1, bottom = box
    middle_x = (obj.get("x0", 0) + obj.get("x1", 0)) / 2
    middle_y = (obj.get("top", 0) + obj.get("bottom", 0)) / 2
    return bool(x0 <= middle_x <= x1 and top <= middle_y <= bottom)


def _table_html(rows: list[list[str | None]]) -> str:
    width = max(len(row) for row in rows)

    def cells(row: list[str | None], tag: str) -> str:
        padded = [*row, *([None] * (width - len(row)))]
        return "".join(f"<{tag}>{escape(' '.join((c or '').split()))}</{tag}>" for c in padded)

    head = f"<thead><tr>{cells(rows[0], 'th')}</tr></thead>"
    body = "".join(f"<tr>{cells(row, 'td')}</tr>" for row in rows[1:])
    return f"<table>{head}<tbody>{body}</tbody></table>"


def _key(text: str) -> str:
    """A line's words with its numbers blanked: a running footer's page number changes."""
    return _DIGITS.sub("#", " ".join(text.lower().split()))


def _running_lines(pages: list[tuple[list[_Line], list[tuple[float, str]]]]) -> set[str]:
    """The keys of lines at the top or bottom of most pages (running heads, footers)."""
    if len(pages) < 3:
        return set()
    seen: Counter[str] = Counter()
    for lines, _ in pages:
        edges = {_key(line.text) for line in (*lines[:EDGE_LINES], *lines[-EDGE_LINES:])}
        seen.update(edges)
    needed = max(2, int(len(pages) * RUNNING_SHARE))
    return {key for key, count in seen.items() if count >= needed}


def _body_size(lines: list[_Line]) -> float:
    """The size most characters are set in."""
    weight: Counter[float] = Counter()
    for line in lines:
        weight[line.size] += len(line.text)
    return weight.most_common(1)[0][0] if weight else 0.0


def _heading_levels(lines: list[_Line], body: float) -> dict[float, int]:
    """Heading sizes (larger than the body) to levels, the largest first."""
    sizes = sorted(
        {
            line.size
            for line in lines
            if line.size >= body * HEADING_RATIO and len(line.text) <= HEADING_CHARS
        },
        reverse=True,
    )
    return {size: min(index + 1, HEADING_LEVELS) for index, size in enumerate(sizes)}


def _blocks(
    lines: list[_Line], tables: list[tuple[float, str]], body: float, levels: dict[float, int]
) -> list[str]:
    """The page's blocks in reading order: headings, list items, paragraphs, tables."""
    out: list[str] = []
    pending = sorted(tables)
    paragraph: list[_Line] = []
    items: list[str] = []
    ordered = False

    def flush() -> None:
        nonlocal ordered
        if paragraph:
            out.append(f"<p>{escape(_joined(paragraph))}</p>")
            paragraph.clear()
        if items:
            tag = "ol" if ordered else "ul"
            out.append(f"<{tag}>{''.join(f'<li>{escape(i)}</li>' for i in items)}</{tag}>")
            items.clear()

    previous: _Line | None = None
    for line in lines:
        while pending and pending[0][0] <= line.top:
            flush()
            out.append(pending.pop(0)[1])
        level = _heading_level(line, body, levels)
        bullet = _BULLET.match(line.text)
        if level:
            flush()
            out.append(f"<h{level}>{escape(line.text)}</h{level}>")
        elif bullet or line.marked:
            if paragraph:
                flush()
            if not items:
                ordered = bool(_NUMBERED.match(line.text)) and not line.marked
            items.append(line.text[bullet.end() :].strip() if bullet else line.text)
        elif items and previous is not None and not _new_paragraph(previous, line):
            items[-1] = _join_words(items[-1], line.text)  # an item's wrapped line
        else:
            if items or (paragraph and _new_paragraph(paragraph[-1], line)):
                flush()
            paragraph.append(line)
        previous = line
    flush()
    out += [html for _, html in pending]
    return out


def _heading_level(line: _Line, body: float, levels: dict[float, int]) -> int:
    if line.size in levels:
        return levels[line.size]
    short = len(line.text) <= HEADING_CHARS // 2 and not line.text.endswith((".", ",", ";", ":"))
    if line.bold and short and abs(line.size - body) < 0.5 and not _BULLET.match(line.text):
        return min(len(levels) + 1, HEADING_LEVELS + 1, 6)
    return 0


def _new_paragraph(previous: _Line, line: _Line) -> bool:
    height = max(previous.bottom - previous.top, 1.0)
    gap = line.top - previous.bottom
    if line.page != previous.page:
        return previous.text.endswith((".", "!", "?", ":"))
    return gap > height * (PARAGRAPH_GAP - 1) or abs(line.size - previous.size) >= 0.5


def _joined(lines: list[_Line]) -> str:
    text = lines[0].text
    for line in lines[1:]:
        text = _join_words(text, line.text)
    return text


def _join_words(before: str, after: str) -> str:
    """Two wrapped lines as one text: a word hyphenated at the break is mended."""
    if before.endswith("-") and after[:1].islower() and not before.endswith(" -"):
        return before[:-1] + after
    return f"{before} {after}"


def _inner(block: str) -> str:
    return re.sub(r"<[^>]+>", "", block)
