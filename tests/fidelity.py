"""How faithfully an extraction's Markdown keeps a page's structure, against a reference Markdown
(WCXB's ``main_content_markdown``): its tables cell by cell, its code blocks line by line, its
lists item by item with their nesting.

- A table is the rows of a GFM table (a header row, a ``---`` separator row, body rows); its
  cells are compared as text (Markdown syntax removed, case folded, whitespace and asterisks
  dropped: the references often run a cell's lines or blocks together, "450+free" for "450+
  free", and escape a literal asterisk or not, "\\* top panel" beside "* top panel"). A
  reference table's share is the largest share of its non-empty cells that one table of the
  output holds (as a multiset).
- A code block is a fenced block (backticks or tildes); its lines are compared without their
  whitespace and without the Markdown the references' converter wrote into code: backslash
  escapes, emphasis asterisks and backticks (``%(*levelname*)s``), links reduced to their text,
  and a heading's ``#`` marks opening the line (a comment ``# Step 1`` is written "Step 1");
  typographic quotes count as straight ones. Both sides are read the same way, so what is
  forgiven is forgiven to every system. A reference block's share is the share of its
  non-empty lines that the output's code blocks hold (as a multiset).
- A list item is a line opening with ``-``, ``*``, ``+`` or a number; its depth is its place
  among the indentations of its list (0 for the outermost). A reference list's share is the
  share of its items the output holds as list items at the same depth, text compared as for
  cells but with whitespace runs folded, not dropped.

A table or code block is *reproduced* when its share is at least :data:`REPRODUCED`. Nothing
here imports an extractor.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from tests.wcxb import QUOTES, comparable, markdown_to_text

REPRODUCED = 0.95
"""The share of its cells or lines at which a table or a code block counts as reproduced."""

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})[^\n]*$")
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])\s+(.*)$")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~<])")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_CODE_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\s]*(?:\s\"[^\"]*\")?\)")
_CODE_HEADING = re.compile(r"^#{1,6}\s+")
_CODE_MARKS = str.maketrans("", "", "*`")


@dataclass(frozen=True)
class Structure:
    """The tables, code blocks and list items of one Markdown document."""

    tables: tuple[tuple[str, ...], ...]
    """Each table's non-empty cells, compared text."""
    code_blocks: tuple[tuple[str, ...], ...]
    """Each fenced block's non-empty lines, compared text."""
    lists: tuple[tuple[tuple[int, str], ...], ...]
    """Each list's items: (depth, compared text)."""


def _cell_text(cell: str) -> str:
    return "".join(comparable(markdown_to_text(cell.strip())).split()).replace("*", "")


def _item_text(item: str) -> str:
    return comparable(markdown_to_text(item.strip()))


def _code_line(line: str) -> str:
    line = _CODE_LINK.sub(r"\1", _ESCAPE.sub(r"\1", line).strip())
    line = _CODE_HEADING.sub("", line).translate(_CODE_MARKS).translate(QUOTES)
    return "".join(line.split())


def read_structure(markdown: str) -> Structure:
    """The tables, code blocks and lists of ``markdown`` (code is never read as the others)."""
    tables: list[tuple[str, ...]] = []
    blocks: list[tuple[str, ...]] = []
    lists: list[tuple[tuple[int, str], ...]] = []
    lines = markdown.split("\n")
    table: list[str] | None = None
    items: list[tuple[int, str]] = []
    indents: list[int] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence:
            marker = fence.group(2)
            body = []
            index += 1
            while index < len(lines) and not lines[index].strip().startswith(marker):
                body.append(lines[index])
                index += 1
            blocks.append(tuple(text for text in map(_code_line, body) if text))
            index += 1
            continue
        if table is None and "|" in line and _opens_table(lines, index):
            table = _cells(line)
            index += 2
            continue
        if table is not None:
            if line.strip().startswith("|") or (line.count("|") >= 1 and line.strip()):
                table += _cells(line)
                index += 1
                continue
            tables.append(tuple(cell for cell in table if cell))
            table = None
        item = _ITEM.match(line)
        if item:
            indent = len(item.group(1).expandtabs(4))
            while indents and indent < indents[-1]:
                indents.pop()
            if not indents or indent > indents[-1]:
                indents.append(indent)
            items.append((len(indents) - 1, _item_text(item.group(2))))
        elif items and ((line.strip() and not line[:1].isspace()) or _list_ends(lines, index)):
            lists.append(tuple(items))  # a paragraph at the margin, or a gap before one, ends it
            items, indents = [], []
        index += 1
    if table is not None:
        tables.append(tuple(cell for cell in table if cell))
    if items:
        lists.append(tuple(items))
    return Structure(tuple(tables), tuple(blocks), tuple(lists))


def _opens_table(lines: list[str], index: int) -> bool:
    """Whether the line at ``index`` is a table's header: a separator row follows it."""
    following = lines[index + 1] if index + 1 < len(lines) else ""
    return "|" in following and bool(_SEPARATOR.match(following))


def _cells(line: str) -> list[str]:
    text = line.strip()
    text = text.removeprefix("|").removesuffix("|")
    return [_cell_text(cell) for cell in _CELL_SPLIT.split(text)]


def _list_ends(lines: list[str], index: int) -> bool:
    """Whether the blank line at ``index`` ends a list: the next line with text is neither an
    item nor indented under one."""
    if lines[index].strip():
        return False
    for line in lines[index + 1 :]:
        if line.strip():
            return not (_ITEM.match(line) or line[:1].isspace())
    return True


def _share(wanted: Iterable[object], held: Counter[object]) -> float:
    want = Counter(wanted)
    total = sum(want.values())
    return sum((want & held).values()) / total if total else 1.0


def table_shares(reference: Structure, output: Structure) -> list[float]:
    """Each reference table's share: the most of its cells one output table holds."""
    held = [Counter(table) for table in output.tables]
    return [
        max((_share(table, cells) for cells in held), default=0.0)
        for table in reference.tables
        if table
    ]


def code_shares(reference: Structure, output: Structure) -> list[float]:
    """Each reference code block's share of lines held by the output's code blocks."""
    held: Counter[object] = Counter(line for block in output.code_blocks for line in block)
    return [_share(block, held) for block in reference.code_blocks if block]


def list_shares(reference: Structure, output: Structure) -> list[float]:
    """Each reference list's share of items the output holds at the same depth."""
    held: Counter[object] = Counter(item for items in output.lists for item in items)
    return [_share(items, held) for items in reference.lists if items]
