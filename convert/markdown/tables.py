"""Tables in Markdown: a table that lays out the page is unwrapped into blocks; a data table
becomes a GFM table (a header row, pipes escaped, a cell spanning columns padded with empty
ones, its caption above it)."""

from __future__ import annotations

import re

from lxml import etree

from convert.html.document import text_of, unwrap

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_CELL_BLOCKS = (*_HEADINGS, "pre", "blockquote")
"""Blocks that a data table's cells do not hold (but for a heading labelling a column, and a
one-line ``<pre>``: a value set as code)."""
_PRE_CELL_LIMIT = 120
"""Characters up to which a one-line ``<pre>`` in a cell is a value set as code (a directive's
default), written as inline code."""
_TABLE_CELL_LIMIT = 400
"""Average characters per cell above which a table is prose laid out in cells, not data."""
_HEADING_CELL_LIMIT = 80
"""Characters up to which a body cell holding a heading and nothing else is a label styled as a
heading (a column's title), not a section laid out in a cell."""
_LINK_UNSAFE = str.maketrans({"|": "%7C", " ": "%20", "(": "%28", ")": "%29"})
"""Characters of an address that would end a cell or the link's parentheses, as escapes."""
_CODE = frozenset({"code", "kbd", "samp", "tt", "pre"})
"""Code in a cell (a ``<pre>`` there is one line, or the table is laid out)."""
_STRONG = frozenset({"strong", "b"})
_EMPHASIS = frozenset({"em", "i"})
_CELL_BREAKS = frozenset({"p", "div", "li", "ul", "ol", "dl", "dt", "dd", *_HEADINGS})
"""Blocks inside a cell: a space apart from what is beside them (the cell is one line)."""
_CELL_ESCAPES = str.maketrans({"\\": "\\\\", "|": "\\|", "*": "\\*"})
_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
"""Zero-width and direction marks: invisible, dropped from a cell's text."""


def is_layout_table(table: etree._Element) -> bool:
    """A table that lays out the page rather than holding data."""
    if table.get("role") in ("presentation", "none"):
        return True
    if table.find(".//table") is not None:
        return True
    rows = _rows(table)
    cells = [cell for row in rows for cell in row]
    if len(rows) < 2 and table.find(".//th") is None:
        return True
    if not cells or max(len(row) for row in rows) < 2:
        return True
    if any(
        _holds_block(cell)
        for cell in cells
        if not _header_cell(cell) and not _heading_label(cell)  # a title may be a heading
    ):
        return True
    characters = sum(len(text_of(cell)) for cell in cells)
    return characters / len(cells) > _TABLE_CELL_LIMIT


def _holds_block(cell: etree._Element) -> bool:
    """Whether ``cell`` holds a block other than a one-line ``<pre>``."""
    return any(
        block.tag != "pre" or not _one_line_pre(block)
        for block in cell.iterdescendants(*_CELL_BLOCKS)
    )


def _one_line_pre(pre: etree._Element) -> bool:
    """A ``<pre>`` holding one short line (no block inside): a value, not a listing."""
    text = pre.text_content().strip()
    return (
        "\n" not in text
        and len(text) <= _PRE_CELL_LIMIT
        and next(pre.iterdescendants(*_CELL_BLOCKS, "br"), None) is None
    )


def _header_cell(cell: etree._Element) -> bool:
    """A ``<th>``, or any cell of the table's ``<thead>``."""
    parent = cell.getparent()
    return cell.tag == "th" or (
        parent is not None and parent.getparent() is not None and parent.getparent().tag == "thead"
    )


def _heading_label(cell: etree._Element) -> bool:
    """A short cell whose only content is one heading (a column's title set as ``<h4>``)."""
    headings = list(cell.iter(*_HEADINGS))
    if len(headings) != 1:
        return False
    text = text_of(cell)
    return len(text) <= _HEADING_CELL_LIMIT and text == text_of(headings[0])


def wrap_stray_cells(root: etree._Element) -> None:
    """Cells written without their row (``<tbody><td>..</td><td>..</td></tr>``, which a
    browser reads as rows) put back in rows as wide as the table's widest one, in place; the
    parser keeps them loose in the body, their closing ``</tr>`` lost."""
    for table in list(root.iter("table")):
        for part in (table, *table.iterchildren("tbody", "thead", "tfoot")):
            if next(part.iterchildren("td", "th"), None) is not None:
                _wrap_cells(table, part)


def _wrap_cells(table: etree._Element, part: etree._Element) -> None:
    width = max((sum(_span(cell) for cell in row) for row in _rows(table)), default=0)
    row: etree._Element | None = None
    for child in list(part):
        if child.tag not in ("td", "th"):
            row = None
            continue
        if row is None or (width and sum(_span(cell) for cell in row) >= width):
            row = etree.Element("tr")
            child.addprevious(row)
        row.append(child)  # its tail goes with it


def _span(cell: etree._Element) -> int:
    try:
        return min(max(int(cell.get("colspan", "1")), 1), 50)
    except ValueError:
        return 1


def unwrap_layout_tables(root: etree._Element) -> None:
    for table in list(root.iter("table")):
        if table.getparent() is None or not is_layout_table(table):
            continue
        for element in list(table.iter("tbody", "thead", "tfoot", "tr", "td", "th", "caption")):
            if element.tag in ("td", "th", "caption", "tr"):
                element.tag = "div"
            else:
                unwrap(element)
        table.tag = "div"


def _rows(table: etree._Element) -> list[list[etree._Element]]:
    rows = [
        row
        for row in table.iter("tr")
        if next((a for a in row.iterancestors("table")), None) is table
    ]
    return [[cell for cell in row if cell.tag in ("td", "th")] for row in rows]


def _cell_text(cell: etree._Element) -> str:
    """A cell's content on one line: its words with their inline code, emphasis and links, a
    line break or a block inside it as a space, pipes escaped. A cell all in bold or italics
    (a header row styled so) is its words alone: the emphasis says nothing there."""
    text = " ".join(_INVISIBLE.sub("", _inline(_unstyled(cell))).split())
    images = list(cell.iter("img"))
    if not text and len(images) == 1:  # an icon alone ("Yes", "Included"): its alternative
        text = _escaped(" ".join(str(images[0].get("alt") or "").split()))
    return text or " "


def _unstyled(cell: etree._Element) -> etree._Element:
    """The one emphasis that holds all of ``cell``, or the cell."""
    children = [child for child in cell if isinstance(child.tag, str)]
    if len(children) == 1 and children[0].tag in _STRONG | _EMPHASIS:
        only = children[0]
        if not (cell.text or "").strip() and not (only.tail or "").strip():
            return only
    return cell


def _inline(element: etree._Element) -> str:
    parts = [_escaped(element.text)]
    for child in element:
        if isinstance(child.tag, str):
            parts.append(_marked(child))
        parts.append(_escaped(child.tail))
    return "".join(parts)


def _marked(element: etree._Element) -> str:
    """An element inside a cell in Markdown, the spaces at its edges kept outside its marks."""
    tag = element.tag
    if tag == "br":
        return " "
    if tag in _CODE:
        code = " ".join(_INVISIBLE.sub("", element.text_content()).split())
        fence = "``" if "`" in code else "`"
        return fence + code.replace("|", "\\|") + fence if code else ""
    inner = _inline(element)
    words = " ".join(inner.split())
    before = " " if inner[:1].isspace() or tag in _CELL_BREAKS else ""
    after = " " if inner[-1:].isspace() or tag in _CELL_BREAKS else ""
    if not words:
        return before or after
    href = element.get("href") or ""
    if tag in _STRONG:
        words = f"**{words}**"
    elif tag in _EMPHASIS:
        words = f"_{words}_"
    elif tag == "a" and href.startswith(("https://", "http://")):
        words = f"[{words}]({href.translate(_LINK_UNSAFE)})"
    return f"{before}{words}{after}"


def _escaped(text: str | None) -> str:
    """A cell's text with what Markdown would read there escaped: the backslash, the pipe that
    ends a cell, the asterisk that opens emphasis ("$2,640.22*" footnoted)."""
    return (text or "").translate(_CELL_ESCAPES)


def gfm_table(table: etree._Element) -> str:
    rows = _rows(table)
    grid: list[list[str]] = []
    for row in rows:
        line: list[str] = []
        for cell in row:
            line.append(_cell_text(cell))
            line += [" "] * (_span(cell) - 1)
        grid.append(line)
    grid = [line for line in grid if any(cell.strip() for cell in line)]
    if not grid:
        return ""
    width = max(len(line) for line in grid)
    grid = [line + [" "] * (width - len(line)) for line in grid]
    out = ["| " + " | ".join(grid[0]) + " |", "|" + "|".join(["---"] * width) + "|"]
    out += ["| " + " | ".join(line) + " |" for line in grid[1:]]
    caption = table.find("caption")
    if caption is not None and text_of(caption):
        out.insert(0, text_of(caption) + "\n")
    return "\n".join(out)
