"""Markdown rendering of a cleaned document tree.

html2text renders the flow (headings as ATX, paragraphs, nested lists, quotes, links, images,
emphasis, inline code). Three things it renders poorly are done here first and put back through
placeholders: fenced code blocks (with the language the page names and the whitespace kept), GFM
tables (a header row, pipes escaped) and definition lists. Tables used for page layout are
unwrapped into blocks instead. Then the output is tidied: no runs of blank lines, no trailing
spaces, no empty links.
"""

from __future__ import annotations

import re

import html2text
import lxml.html
from lxml import etree

from convert.document import text_of, unwrap

_PLACEHOLDER = "PAGECASTBLOCK{}END"
_PLACEHOLDER_LINE = re.compile(r"^(?P<prefix>.*?)PAGECASTBLOCK(?P<index>\d+)END(?P<rest>.*)$")
_BLANK_RUNS = re.compile(r"\n{3,}")
# Leftover Markdown from html2text on empty links and images: "[](url)".
_EMPTY_LINK = re.compile(r"(?<!!)\[\]\([^)]*\)")
_TOP_LIST_ITEM = re.compile(r"^  (?:[-*+]|\d+\.) ")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_LANGUAGE_CLASS = re.compile(
    r"(?:^|\s)(?:language|lang|highlight-source|highlight|brush:?|sourceCode)[-:\s]?"
    r"([A-Za-z0-9+#.]+)(?:\s|$)"
)
_LANGUAGE_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9+#.-]{0,30}$")
_NOT_LANGUAGES = frozenset({"none", "text", "plain", "plaintext", "nohighlight", "source"})
_BLOCK_TAGS = ("p", "div", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote")
_TABLE_CELL_LIMIT = 400
"""Average characters per cell above which a table is prose laid out in cells, not data."""


def render_markdown(root: lxml.html.HtmlElement, url: str) -> str:
    """The Markdown of a cleaned document (URLs already absolute)."""
    blocks: list[str] = []
    _unwrap_layout_tables(root)
    for table in list(root.iter("table")):
        if table.getparent() is not None and table.find(".//table") is None:
            _replace(table, _gfm_table(table), blocks)
    for pre in list(root.iter("pre")):
        if pre.getparent() is not None:
            _replace(pre, _fenced(pre), blocks)
    _definition_lists(root)
    converter = html2text.HTML2Text(baseurl=url)
    converter.body_width = 0
    converter.unicode_snob = True
    converter.protect_links = False
    converter.ignore_images = False
    converter.ignore_tables = True
    converter.mark_code = False
    converter.single_line_break = False
    converter.ul_item_mark = "-"
    converter.emphasis_mark = "_"
    converter.strong_mark = "**"
    text = converter.handle(lxml.html.tostring(root, encoding="unicode"))
    return _tidy(text, blocks)


def _replace(element: etree._Element, markdown: str, blocks: list[str]) -> None:
    """Swap ``element`` for a paragraph holding a placeholder of ``markdown``."""
    placeholder = lxml.html.Element("p")
    placeholder.text = _PLACEHOLDER.format(len(blocks))
    placeholder.tail = element.tail
    blocks.append(markdown)
    parent = element.getparent()
    if parent is not None:
        parent.replace(element, placeholder)


def _tidy(text: str, blocks: list[str]) -> str:
    text = _EMPTY_LINK.sub("", text)
    lines: list[str] = []
    for raw in text.split("\n"):
        # Line by line: a regular expression over long runs of spaces would be quadratic.
        line = raw.rstrip(" \t")
        match = _PLACEHOLDER_LINE.match(line) if "PAGECASTBLOCK" in line else None
        if match is None:
            lines.append(line)
            continue
        prefix, block = match["prefix"], blocks[int(match["index"])]
        if prefix.strip():
            lines += [prefix.rstrip(), ""]
            prefix = ""
        lines += ["", *(prefix + part if part else part for part in block.split("\n")), ""]
        if match["rest"].strip():
            lines.append(match["rest"].strip())
    text = _dedent_lists("\n".join(lines))
    text = _BLANK_RUNS.sub("\n\n", text)
    return text.strip("\n") + "\n" if text.strip() else ""


def _dedent_lists(text: str) -> str:
    """html2text indents top-level list items by two spaces; lists start at the margin."""
    out: list[str] = []
    in_list = False
    in_fence = False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        if in_fence:
            out.append(line)
            continue
        if _TOP_LIST_ITEM.match(line):
            in_list = True
        elif line and not line.startswith("  "):
            in_list = False
        out.append(line[2:] if in_list and line.startswith("  ") else line)
    return "\n".join(out)


# -- code -------------------------------------------------------------------------------------


def code_language(pre: etree._Element) -> str:
    """The language a ``<pre>`` block names in its classes or data attributes, or ""."""
    candidates = [pre, *pre.iterchildren("code")]
    parent = pre.getparent()
    if parent is not None:
        candidates.append(parent)
    for element in candidates:
        for name in ("data-lang", "data-language", "lang"):
            value = element.get(name, "")
            if _LANGUAGE_OK.match(value) and value.lower() not in _NOT_LANGUAGES:
                return value.lower()
        match = _LANGUAGE_CLASS.search(element.get("class", ""))
        if match and _LANGUAGE_OK.match(match[1]) and match[1].lower() not in _NOT_LANGUAGES:
            return match[1].lower()
    return ""


def _fenced(pre: etree._Element) -> str:
    code = pre.text_content().replace("\r\n", "\n").replace("\t", "    ")
    code = code.strip("\n").rstrip()
    longest = max((len(run) for run in re.findall(r"`{3,}", code)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{code_language(pre)}\n{code}\n{fence}"


# -- tables -----------------------------------------------------------------------------------


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
    if any(cell.find(f".//{tag}") is not None for cell in cells for tag in _BLOCK_TAGS[4:]):
        return True
    characters = sum(len(text_of(cell)) for cell in cells)
    return characters / len(cells) > _TABLE_CELL_LIMIT


def _unwrap_layout_tables(root: etree._Element) -> None:
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
    text = text_of(cell).replace("\\", "\\\\").replace("|", "\\|")
    return text or " "


def _gfm_table(table: etree._Element) -> str:
    rows = _rows(table)
    grid: list[list[str]] = []
    for row in rows:
        line: list[str] = []
        for cell in row:
            line.append(_cell_text(cell))
            try:
                span = int(cell.get("colspan", "1"))
            except ValueError:
                span = 1
            line += [" "] * (min(max(span, 1), 50) - 1)
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


# -- definition lists -------------------------------------------------------------------------


def _definition_lists(root: etree._Element) -> None:
    """``<dt>`` becomes a bold paragraph, ``<dd>`` a paragraph (html2text would indent ``dd``
    four spaces, which Markdown reads as code)."""
    for dl in list(root.iter("dl")):
        for term in dl.iter("dt"):
            term.tag = "p"
            strong = lxml.html.Element("strong")
            strong.text, term.text = term.text, None
            for child in list(term):
                strong.append(child)
            term.append(strong)
        for definition in dl.iter("dd"):
            definition.tag = "p"
        dl.tag = "div"


# -- length -----------------------------------------------------------------------------------


def truncate(markdown: str, max_chars: int) -> str:
    """Cut ``markdown`` to at most ``max_chars``, at a block boundary when one is near."""
    head = markdown[:max_chars]
    for boundary in ("\n\n", "\n"):
        cut = head.rfind(boundary)
        if cut >= max_chars // 2:
            return head[:cut].rstrip() + "\n"
    return head


def estimate_tokens(text: str) -> int:
    """Estimate LLM tokens: one per CJK character, one per four other characters (rounded up).

    Tokenizers differ; this errs high for CJK, where a character is often a token or more, and
    matches the common four-characters-a-token rule for Latin text.
    """
    cjk = len(_CJK.findall(text))
    other = len(text) - cjk
    return cjk + (other + 3) // 4
