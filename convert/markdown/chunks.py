"""Split Pagecast Markdown into chunks for LLM pipelines. Pure: (markdown, options) in, chunks out.

The document is first cut into blocks by ``convert.text.blocks`` (headings, fenced code, tables,
lists, paragraphs).

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

from convert.markdown.length import estimate_tokens
from convert.text.blocks import Block, scan_blocks, trim

_NON_SPACE = re.compile(r"\S")
_SPACE_RUN = re.compile(r"\s+")
_LINE_BREAK = re.compile(r"\n")
_SENTENCE_END = re.compile(r"[.!?]+[\"'\u2019\u201d)\]]*(?=\s)|[\u3002\uff01\uff1f]+")
_WORD_START = re.compile(r"\s(?=\S)")

# A sentence end is a piece end only if the piece keeps this share of the size.
_SENTENCE_MIN_FRACTION = 0.25


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
    spans = packer.pack(scan_blocks(markdown))
    limit = max(options.max_chunks, 0)
    chunks = _chunks(markdown, spans[:limit], max(options.overlap, 0))
    return ChunkResult(chunks=chunks, total=len(spans), truncated=len(spans) > limit)


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

    def pack(self, blocks: Sequence[Block]) -> list[_Span]:
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

    def _heading(self, block: Block) -> None:
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

    def _flowing(self, block: Block) -> None:
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

    def _list(self, block: Block) -> None:
        """An oversized list, packed item by item; an oversized item is split."""
        bounds = [block.start, *(item for item in block.items if item > block.start), block.end]
        for first, after in pairwise(bounds):
            start, end = trim(self.markdown, first, after)
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

    def _tiers(self, block: Block) -> tuple[_Tier, ...]:
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

    def _line_breaks(self, block: Block) -> _Tier:
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
        _, piece_end = trim(markdown, piece_start, cut)
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
