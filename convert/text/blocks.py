"""Markdown read as blocks, line by line: the one scanner behind chunking, the renderer's tidying
and the safety scan's code ranges. Pure.

* an ATX heading (``#`` to ``######``, then a space and some text) is a block of its own;
* a fenced code block (three or more backticks or tildes up to a closing fence of the same kind,
  or the end of the document) is one block, blank lines and ``# lines`` inside included;
* consecutive lines starting with ``|`` form one table block;
* a list runs from its first item over further items (nested or not), indented continuation
  lines, lines continuing an item directly and blank lines followed by more of the list;
* everything else is a paragraph, ended by a blank line or by a line starting one of the above.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Literal

_FENCE = re.compile(r"(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)")
_HEADING = re.compile(r" {0,3}(?P<hashes>#{1,6})[ \t]+(?P<text>.*)")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t])#+[ \t]*$")
_TITLE_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_TITLE_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_LIST_ITEM = re.compile(r"(?P<indent>[ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_TABLE_ROW = re.compile(r" {0,3}\|")
_NON_SPACE = re.compile(r"\S")

# Indentation from which a line belongs to the list item above it.
CONTINUATION_INDENT = 2
# Deepest indentation of a fence, heading, table or list outside a list.
MAX_BLOCK_INDENT = 3

BlockKind = Literal["heading", "code", "table", "list", "paragraph"]


def scan_blocks(markdown: str) -> list[Block]:
    """The document's blocks in order, each trimmed to its text."""
    return _Scanner(markdown).blocks()


def fenced_lines(lines: Sequence[str], max_indent: int | None = None) -> Iterator[tuple[str, bool]]:
    """Each line with whether it belongs to a fenced code block, its fences included."""
    fence: tuple[str, int] | None = None
    for line in lines:
        if fence is not None:
            yield line, True
            if closes_fence(line, *fence):
                fence = None
            continue
        fence = fence_opening(line, max_indent)
        yield line, fence is not None


@dataclass(frozen=True)
class Block:
    """A trimmed block of the document. Lists carry the offsets of their item markers."""

    start: int
    end: int
    kind: BlockKind
    level: int = 0
    title: str = ""
    items: tuple[int, ...] = ()
    subitems: tuple[int, ...] = ()


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def heading_title(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading line, or None. A heading without text is no heading."""
    match = _HEADING.match(line)
    if match is None:
        return None
    title = _plain(_CLOSING_HASHES.sub("", match["text"].strip()).strip())
    return (len(match["hashes"]), title) if title else None


def _plain(title: str) -> str:
    """A heading's text as a reader sees it: links and pictures as their text, Markdown's
    backslash escapes undone ("1\\. Intro" -> "1. Intro")."""
    title = _TITLE_LINK.sub(r"\1", title)
    return _TITLE_ESCAPE.sub(r"\1", title).strip()


def fence_opening(line: str, max_indent: int | None) -> tuple[str, int] | None:
    """(fence character, fence length) when ``line`` opens a fenced code block."""
    match = _FENCE.match(line)
    if match is None or (max_indent is not None and len(match["indent"]) > max_indent):
        return None
    fence = match["fence"]
    if fence[0] == "`" and "`" in match["info"]:
        return None
    return fence[0], len(fence)


def closes_fence(line: str, char: str, length: int) -> bool:
    stripped = line.strip()
    return len(stripped) >= length and stripped == char * len(stripped)


def is_list_item(line: str, max_indent: int | None) -> bool:
    match = _LIST_ITEM.match(line)
    return match is not None and (max_indent is None or len(match["indent"]) <= max_indent)


def _interrupts_paragraph(line: str) -> bool:
    return (
        fence_opening(line, MAX_BLOCK_INDENT) is not None
        or heading_title(line) is not None
        or _TABLE_ROW.match(line) is not None
        or is_list_item(line, MAX_BLOCK_INDENT)
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

    def blocks(self) -> list[Block]:
        blocks: list[Block] = []
        index = 0
        while index < len(self.lines):
            line = self.lines[index]
            if not line.strip():
                index += 1
                continue
            block, index = self._block(index, line)
            blocks.append(block)
        return blocks

    def _block(self, index: int, line: str) -> tuple[Block, int]:
        fence = fence_opening(line, MAX_BLOCK_INDENT)
        if fence is not None:
            end = self._fence_end(index, *fence)
            return self._make(index, end, "code"), end
        heading = heading_title(line)
        if heading is not None:
            level, title = heading
            return self._make(index, index + 1, "heading", level, title), index + 1
        if _TABLE_ROW.match(line):
            end = index + 1
            while end < len(self.lines) and _TABLE_ROW.match(self.lines[end]):
                end += 1
            return self._make(index, end, "table"), end
        if is_list_item(line, MAX_BLOCK_INDENT):
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
            if closes_fence(self.lines[end], char, length):
                return end + 1
        return len(self.lines)

    def _next_filled(self, index: int) -> int:
        while index < len(self.lines) and not self.lines[index].strip():
            index += 1
        return index

    def _continues_list(self, line: str) -> bool:
        """After blank lines: does ``line`` still belong to the list?"""
        return is_list_item(line, None) or indent_of(line) >= CONTINUATION_INDENT

    def _list(self, first: int) -> tuple[Block, int]:
        base = indent_of(self.lines[first])
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
            indent = indent_of(line)
            fence = fence_opening(line, None)
            if fence is not None:
                if indent < CONTINUATION_INDENT:
                    break
                index = self._fence_end(index, *fence)
                continue
            if indent < CONTINUATION_INDENT and (
                heading_title(line) is not None or _TABLE_ROW.match(line)
            ):
                break
            if is_list_item(line, None):
                marker = self.starts[index] + indent
                (items if indent <= base else subitems).append(marker)
            index += 1
        block = self._make(first, index, "list")
        return replace(block, items=tuple(items), subitems=tuple(subitems)), index

    def _make(
        self, first: int, end: int, kind: BlockKind, level: int = 0, title: str = ""
    ) -> Block:
        """The block of lines ``first`` to ``end`` (exclusive), its offsets trimmed."""
        start = self.starts[first]
        stop = self.starts[end - 1] + len(self.lines[end - 1])
        start, stop = trim(self.markdown, start, stop)
        return Block(start, stop, kind, level, title)


def trim(markdown: str, start: int, end: int) -> tuple[int, int]:
    """Offsets moved inwards past whitespace; the range must hold a non-space character."""
    match = _NON_SPACE.search(markdown, start, end)
    if match is None:
        return start, start
    start = match.start()
    while end > start and markdown[end - 1].isspace():
        end -= 1
    return start, end
