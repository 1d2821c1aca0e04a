"""Split Pagecast Markdown into chunks for LLM pipelines. Pure: (markdown, options) in, chunks out.

The document is first cut into blocks, line by line:

* an ATX heading (``#`` to ``######``, then a space and some text) is a block of its own;
* a fenced code block (three or more backticks or tildes up to a closing fence of the same kind,
  or the end of the document) is one block, blank lines and ``# lines`` inside included;
* consecutive lines starting with ``|`` form one table block;
* a list runs from its first item over further items (nested or not), indented continuation
  lines, lines continuing an item directly and blank lines followed by more of the list;
* everything else is a paragraph, ended by a blank line or by a line starting one of the above.

Blocks are packed in document order into chunks of at most ``size`` characters, measured from the
first to the last character of the chunk's own content (overlap not counted, blank lines between
blocks counted). A block that does not fit into the current chunk starts the next one. With
``heading_aware`` a heading of level ``heading_level`` or above (fewer ``#``) always starts a new
chunk; deeper headings flow with the text. Headings never end a chunk if they can help it: when
the block after them does not fit, they move to the new chunk with it (if both fit there).

A list longer than ``size`` is packed item by item (top-level items), so it is only divided
between items. Any other block longer than ``size``, and a list item longer than ``size``, is cut
into pieces of at most ``size`` characters and every chunk holding such a piece is marked
``split_mid_block``. A piece ends, in order of preference:

* code blocks and tables: at the last line break that fits;
* list items: at the last nested item that fits, else at the last line break;
* prose (also in list items): at the last sentence end (``.``, ``!`` or ``?`` before whitespace,
  or a CJK full stop) that keeps at least a quarter of the room in the piece;
* then at the last whitespace that fits, and only without any whitespace hard at ``size``.

The first piece starts a new chunk, opened by the headings right before the block if they take at
most half of ``size``; the last piece may take the blocks that follow.

Offsets, never text, are trimmed: a chunk's text is always ``markdown[start_offset:end_offset]``
and never starts or ends with whitespace. With ``overlap`` each chunk after the first starts up to
``overlap`` characters before its own content, moved forward to the next word start inside that
window when it would start mid-word (a window inside one long word keeps its mid-word start). The
overlap stays inside the previous chunk's content, never repeats all of it and never repeats a
heading that started it. ``heading_path`` holds the texts of all headings in effect where the
chunk's own content starts, outermost first.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Literal

from convert.markdown import estimate_tokens

_FENCE = re.compile(r"(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)")
_HEADING = re.compile(r" {0,3}(?P<hashes>#{1,6})[ \t]+(?P<text>.*)")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t])#+[ \t]*$")
_LIST_ITEM = re.compile(r"(?P<indent>[ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_TABLE_ROW = re.compile(r" {0,3}\|")
_NON_SPACE = re.compile(r"\S")
_SPACE_RUN = re.compile(r"\s+")
_LINE_BREAK = re.compile(r"\n")
_SENTENCE_END = re.compile(r"[.!?]+[\"'\u2019\u201d)\]]*(?=\s)|[\u3002\uff01\uff1f]+")
_WORD_START = re.compile(r"\s(?=\S)")

# Indentation from which a line belongs to the list item above it.
_CONTINUATION_INDENT = 2
# A sentence end is a piece end only if the piece keeps this share of the size.
_SENTENCE_MIN_FRACTION = 0.25
# Deepest indentation of a fence, heading, table or list outside a list.
_MAX_BLOCK_INDENT = 3

BlockKind = Literal["heading", "code", "table", "list", "paragraph"]


@dataclass(frozen=True)
class ChunkOptions:
    """How to chunk. The caller checks the ranges; a size below 1 counts as 1."""

    size: int = 2000
    overlap: int = 0
    heading_aware: bool = True
    heading_level: int = 2
    max_chunks: int = 500


@dataclass(frozen=True)
class Chunk:
    """One passage of the document; ``text == markdown[start_offset:end_offset]``."""

    index: int
    text: str
    heading_path: tuple[str, ...]
    start_offset: int
    end_offset: int
    overlap_character_count: int
    split_mid_block: bool
    character_count: int
    estimated_token_count: int


@dataclass(frozen=True)
class ChunkResult:
    """The first ``max_chunks`` chunks and how many the document produced."""

    chunks: tuple[Chunk, ...]
    total: int
    truncated: bool


@dataclass(frozen=True)
class _Block:
    """A trimmed block of the document. Lists carry the offsets of their item markers."""

    start: int
    end: int
    kind: BlockKind
    level: int = 0
    title: str = ""
    items: tuple[int, ...] = ()
    subitems: tuple[int, ...] = ()


@dataclass(frozen=True)
class _Span:
    """A chunk's own content; ``floor`` is where the next chunk's overlap may start at most."""

    start: int
    end: int
    split: bool
    path: tuple[str, ...]
    floor: int


@dataclass(frozen=True)
class _Held:
    """Headings that end the current chunk and move to the next one with the content after them.

    ``before`` is where the current chunk's content ends without them (None when they open it),
    ``path`` the heading path at ``start`` and ``floor`` the next chunk's overlap floor.
    """

    start: int
    path: tuple[str, ...]
    floor: int
    before: int | None


@dataclass(frozen=True)
class _Tier:
    """Candidate piece ends of one kind, sorted, and the shortest piece they may leave."""

    points: Sequence[int]
    min_fraction: float = 0.0


def chunk_markdown(markdown: str, options: ChunkOptions) -> ChunkResult:
    """Split ``markdown`` into chunks as described in the module docstring."""
    packer = _Packer(markdown, max(options.size, 1), options)
    spans = packer.pack(_Scanner(markdown).blocks())
    limit = max(options.max_chunks, 0)
    chunks = _chunks(markdown, spans[:limit], max(options.overlap, 0))
    return ChunkResult(chunks=chunks, total=len(spans), truncated=len(spans) > limit)


# -- blocks -----------------------------------------------------------------------------------


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _heading_title(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading line, or None. A heading without text is no heading."""
    match = _HEADING.match(line)
    if match is None:
        return None
    title = _CLOSING_HASHES.sub("", match["text"].strip()).strip()
    return (len(match["hashes"]), title) if title else None


def _fence_opening(line: str, max_indent: int | None) -> tuple[str, int] | None:
    """(fence character, fence length) when ``line`` opens a fenced code block."""
    match = _FENCE.match(line)
    if match is None or (max_indent is not None and len(match["indent"]) > max_indent):
        return None
    fence = match["fence"]
    if fence[0] == "`" and "`" in match["info"]:
        return None
    return fence[0], len(fence)


def _closes_fence(line: str, char: str, length: int) -> bool:
    stripped = line.strip()
    return len(stripped) >= length and stripped == char * len(stripped)


def _is_list_item(line: str, max_indent: int | None) -> bool:
    match = _LIST_ITEM.match(line)
    return match is not None and (max_indent is None or len(match["indent"]) <= max_indent)


def _interrupts_paragraph(line: str) -> bool:
    return (
        _fence_opening(line, _MAX_BLOCK_INDENT) is not None
        or _heading_title(line) is not None
        or _TABLE_ROW.match(line) is not None
        or _is_list_item(line, _MAX_BLOCK_INDENT)
    )


class _Scanner:
    """Cuts a document into blocks; one pass over its lines."""

    def __init__(self, markdown: str) -> None:
        self.markdown = markdown
        self.lines = markdown.split("\n")
        self.starts: list[int] = []
        offset = 0
        for line in self.lines:
            self.starts.append(offset)
            offset += len(line) + 1

    def blocks(self) -> list[_Block]:
        blocks: list[_Block] = []
        index = 0
        while index < len(self.lines):
            line = self.lines[index]
            if not line.strip():
                index += 1
                continue
            block, index = self._block(index, line)
            blocks.append(block)
        return blocks

    def _block(self, index: int, line: str) -> tuple[_Block, int]:
        fence = _fence_opening(line, _MAX_BLOCK_INDENT)
        if fence is not None:
            end = self._fence_end(index, *fence)
            return self._make(index, end, "code"), end
        heading = _heading_title(line)
        if heading is not None:
            level, title = heading
            return self._make(index, index + 1, "heading", level, title), index + 1
        if _TABLE_ROW.match(line):
            end = index + 1
            while end < len(self.lines) and _TABLE_ROW.match(self.lines[end]):
                end += 1
            return self._make(index, end, "table"), end
        if _is_list_item(line, _MAX_BLOCK_INDENT):
            return self._list(index)
        end = index + 1
        while end < len(self.lines):
            following = self.lines[end]
            if not following.strip() or _interrupts_paragraph(following):
                break
            end += 1
        return self._make(index, end, "paragraph"), end

    def _fence_end(self, index: int, char: str, length: int) -> int:
        """The line index after the closing fence, or the number of lines if there is none."""
        for end in range(index + 1, len(self.lines)):
            if _closes_fence(self.lines[end], char, length):
                return end + 1
        return len(self.lines)

    def _next_filled(self, index: int) -> int:
        while index < len(self.lines) and not self.lines[index].strip():
            index += 1
        return index

    def _continues_list(self, line: str) -> bool:
        """After blank lines: does ``line`` still belong to the list?"""
        return _is_list_item(line, None) or _indent(line) >= _CONTINUATION_INDENT

    def _list(self, first: int) -> tuple[_Block, int]:
        base = _indent(self.lines[first])
        items: list[int] = []
        subitems: list[int] = []
        index = first + 1
        while index < len(self.lines):
            line = self.lines[index]
            if not line.strip():
                following = self._next_filled(index)
                if following == len(self.lines) or not self._continues_list(self.lines[following]):
                    break
                index = following
                continue
            indent = _indent(line)
            fence = _fence_opening(line, None)
            if fence is not None:
                if indent < _CONTINUATION_INDENT:
                    break
                index = self._fence_end(index, *fence)
                continue
            if indent < _CONTINUATION_INDENT and (
                _heading_title(line) is not None or _TABLE_ROW.match(line)
            ):
                break
            if _is_list_item(line, None):
                marker = self.starts[index] + indent
                (items if indent <= base else subitems).append(marker)
            index += 1
        block = self._make(first, index, "list")
        return replace(block, items=tuple(items), subitems=tuple(subitems)), index

    def _make(
        self, first: int, end: int, kind: BlockKind, level: int = 0, title: str = ""
    ) -> _Block:
        """The block of lines ``first`` to ``end`` (exclusive), its offsets trimmed."""
        start = self.starts[first]
        stop = self.starts[end - 1] + len(self.lines[end - 1])
        start, stop = _trim(self.markdown, start, stop)
        return _Block(start, stop, kind, level, title)


def _trim(markdown: str, start: int, end: int) -> tuple[int, int]:
    """Offsets moved inwards past whitespace; the range must hold a non-space character."""
    match = _NON_SPACE.search(markdown, start, end)
    if match is None:
        return start, start
    start = match.start()
    while end > start and markdown[end - 1].isspace():
        end -= 1
    return start, end


# -- packing ----------------------------------------------------------------------------------


class _Packer:
    """Packs blocks into spans of own content, tracking the headings in effect."""

    def __init__(self, markdown: str, size: int, options: ChunkOptions) -> None:
        self.markdown = markdown
        self.size = size
        self.heading_aware = options.heading_aware
        self.heading_level = options.heading_level
        self.spans: list[_Span] = []
        self.current: _Span | None = None
        self.held: _Held | None = None
        self.headings: list[tuple[int, str]] = []

    def pack(self, blocks: Sequence[_Block]) -> list[_Span]:
        for block in blocks:
            if block.kind == "heading":
                self._heading(block)
            elif block.end - block.start <= self.size:
                self._add(block.start, block.end)
            elif block.kind == "list":
                self._list(block)
            else:
                self._split(block.start, block.end, self._tiers(block))
        self._flush()
        return self.spans

    def _path(self) -> tuple[str, ...]:
        return tuple(title for _, title in self.headings)

    def _flush(self) -> None:
        if self.current is not None:
            self.spans.append(self.current)
            self.current = None

    def _add(self, start: int, end: int) -> None:
        """Add whole content to the current chunk, or start a new chunk when it does not fit.

        A new chunk takes along the headings that ended the current one, if they fit with it.
        """
        current, held = self.current, self.held
        self.held = None
        if current is not None and end - current.start <= self.size:
            self.current = replace(current, end=end)
            return
        before = held.before if held is not None and end - held.start <= self.size else None
        if current is not None and held is not None and before is not None:
            self.current = replace(current, end=before)
            self._flush()
            self.current = _Span(held.start, end, False, held.path, held.floor)
            return
        self._flush()
        self.current = _Span(start, end, False, self._path(), start)

    def _heading(self, block: _Block) -> None:
        self.headings = [entry for entry in self.headings if entry[0] < block.level]
        self.headings.append((block.level, block.title))
        starts_chunk = self.heading_aware and block.level <= self.heading_level
        if block.end - block.start > self.size:
            self.held = None
            self._split(
                block.start, block.end, self._tiers(block), keep_out_of_overlap=starts_chunk
            )
        elif starts_chunk:
            self._flush()
            self.current = _Span(block.start, block.end, False, self._path(), block.end)
            self.held = _Held(block.start, self._path(), block.end, None)
        else:
            self._flowing(block)

    def _flowing(self, block: _Block) -> None:
        """Add a heading that does not start a chunk and hold it until content follows.

        Headings right under a held heading stay with it.
        """
        held, current = self.held, self.current
        extends = current is not None and block.end - current.start <= self.size
        self._add(block.start, block.end)
        if held is not None and extends:
            self.held = held
        elif held is not None and self.current is not None and self.current.start == held.start:
            self.held = replace(held, before=None)
        else:
            before = current.end if current is not None and extends else None
            self.held = _Held(block.start, self._path(), block.start, before)

    def _list(self, block: _Block) -> None:
        """An oversized list, packed item by item; an oversized item is split."""
        bounds = [block.start, *(item for item in block.items if item > block.start), block.end]
        for first, after in pairwise(bounds):
            start, end = _trim(self.markdown, first, after)
            if end - start <= self.size:
                self._add(start, end)
            else:
                tiers = (_Tier(block.subitems), *self._tiers(replace(block, start=start, end=end)))
                self._split(start, end, tiers)

    def _split(
        self, start: int, end: int, tiers: Sequence[_Tier], keep_out_of_overlap: bool = False
    ) -> None:
        """Cut an oversized block into pieces; each piece but the last is a chunk of its own.

        Headings that ended the current chunk open the first piece if they take at most half
        of the size.
        """
        held, current = self.held, self.current
        self.held = None
        first, path, floor = start, self._path(), start
        if held is not None and current is not None and start - held.start <= self.size // 2:
            first, path, floor = held.start, held.path, held.floor
            self.current = None if held.before is None else replace(current, end=held.before)
        self._flush()
        pieces = _pieces(self.markdown, start, end, first=first, size=self.size, tiers=tiers)
        for number, (piece_start, piece_end) in enumerate(pieces):
            if number > 0:
                floor = piece_start
            elif keep_out_of_overlap:
                floor = piece_end
            self.current = _Span(piece_start, piece_end, True, path, floor)
            if number < len(pieces) - 1:
                self._flush()
            path = self._path()

    def _tiers(self, block: _Block) -> tuple[_Tier, ...]:
        """Where pieces of an oversized block may end, most preferred first."""
        text = self.markdown
        spaces = _Tier([m.start() for m in _SPACE_RUN.finditer(text, block.start, block.end)])
        sentences = _Tier(
            [m.end() for m in _SENTENCE_END.finditer(text, block.start, block.end)],
            _SENTENCE_MIN_FRACTION,
        )
        if block.kind in ("code", "table"):
            return (self._line_breaks(block), spaces)
        if block.kind == "list":
            return (self._line_breaks(block), sentences, spaces)
        return (sentences, spaces)

    def _line_breaks(self, block: _Block) -> _Tier:
        found = _LINE_BREAK.finditer(self.markdown, block.start, block.end)
        return _Tier([m.start() for m in found])


def _pieces(
    markdown: str, start: int, end: int, *, first: int, size: int, tiers: Sequence[_Tier]
) -> list[tuple[int, int]]:
    """Trimmed pieces of ``markdown[start:end]``, each at most ``size`` characters long.

    The first piece starts at ``first`` (at or before ``start``), so it has less room.
    """
    pieces: list[tuple[int, int]] = []
    piece_start, position = first, start
    while end - piece_start > size:
        cut = _cut(tiers, position, size - (position - piece_start))
        _, piece_end = _trim(markdown, piece_start, cut)
        pieces.append((piece_start, piece_end))
        following = _NON_SPACE.search(markdown, cut, end)
        piece_start = position = following.start() if following is not None else end
    pieces.append((piece_start, end))
    return pieces


def _cut(tiers: Sequence[_Tier], position: int, room: int) -> int:
    """The latest preferred piece end in ``(position, position + room]``, else a hard cut."""
    limit = position + room
    for tier in tiers:
        found = bisect.bisect_right(tier.points, limit) - 1
        if found >= 0 and tier.points[found] > position + int(room * tier.min_fraction):
            return tier.points[found]
    return limit


# -- chunks -----------------------------------------------------------------------------------


def _chunks(markdown: str, spans: Sequence[_Span], overlap: int) -> tuple[Chunk, ...]:
    chunks: list[Chunk] = []
    previous: _Span | None = None
    for index, span in enumerate(spans):
        start = span.start
        if previous is not None and overlap > 0:
            start = _overlap_start(markdown, previous.floor, span.start, overlap)
            if start == previous.start:
                # Repeating the whole previous chunk is no overlap; start at its next word.
                start = _next_word(markdown, start, span.start)
        text = markdown[start : span.end]
        chunks.append(
            Chunk(
                index=index,
                text=text,
                heading_path=span.path,
                start_offset=start,
                end_offset=span.end,
                overlap_character_count=span.start - start,
                split_mid_block=span.split,
                character_count=len(text),
                estimated_token_count=estimate_tokens(text),
            )
        )
        previous = span
    return tuple(chunks)


def _overlap_start(markdown: str, floor: int, content_start: int, overlap: int) -> int:
    """Where a chunk starts when it repeats up to ``overlap`` characters before its content."""
    start = max(floor, content_start - overlap)
    if start >= content_start:
        return content_start
    if start > floor and not markdown[start - 1].isspace() and not markdown[start].isspace():
        boundary = _WORD_START.search(markdown, start, content_start)
        return boundary.end() if boundary is not None else start
    following = _NON_SPACE.search(markdown, start, content_start)
    return following.start() if following is not None else content_start


def _next_word(markdown: str, position: int, content_start: int) -> int:
    """The next word start after ``position`` and before ``content_start``, else the latter."""
    boundary = _WORD_START.search(markdown, position, content_start)
    return boundary.end() if boundary is not None else content_start
