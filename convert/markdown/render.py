"""Markdown rendering of a cleaned document tree.

html2text renders the flow (headings as ATX, paragraphs, nested lists, quotes, links, images,
emphasis, inline code). Three things it renders poorly are done here first and put back through
placeholders: fenced code blocks (with the language the page names and the whitespace kept), GFM
tables and definition lists; tables used for page layout are unwrapped into blocks instead
(both in :mod:`convert.markdown.tables`). Then the output is tidied: no runs of blank lines, no
trailing spaces, no empty links.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import lxml.html
from lxml import etree

from convert.markdown.block_links import move_block_links
from convert.markdown.inline import Converter, safe_inline
from convert.markdown.tables import gfm_table, unwrap_layout_tables, wrap_stray_cells
from convert.text.blocks import fenced_lines

_SAFE_SCHEMES = ("http", "https", "mailto", "tel", "ftp")
_WEB_PREFIXES = ("https://", "http://")
"""How nearly every link starts once made absolute: safe without parsing the URL."""
_TAG_LIKE = re.compile(r"<(?=[A-Za-z/!?])")
# Leftover Markdown from html2text on empty links and images: "[](url)".
_EMPTY_LINK = re.compile(r"(?<!!)\[\]\([^)]*\)")
_TOP_LIST_ITEM = re.compile(r"^  (?:[-*+]|\d+\.) ")
_LANGUAGE_CLASS = re.compile(
    r"(?:^|\s)(?:language|lang|highlight-source|highlight|brush:?|sourceCode)[-:\s]?"
    r"([A-Za-z0-9+#.]+)(?:\s|$)"
)
_LANGUAGE_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9+#.-]{0,30}$")
_NOT_LANGUAGES = frozenset(
    {"none", "text", "plain", "plaintext", "nohighlight", "source", "default"}
)
_WRAPPER_LANGUAGE = re.compile(r"(?:^|\s)highlight-([A-Za-z0-9+#.]+)(?:\s|$)")
"""The language a block two levels above a ``<pre>`` names (Sphinx's
``<div class="highlight-python3"><div class="highlight"><pre>``)."""
_INLINE_CODE = ("code", "kbd", "samp", "tt")
_READ_ATTRIBUTES = frozenset({"href", "title", "src", "alt", "start"})
"""The attributes html2text reads as it is set up here (links and their titles, images and their
text, where a numbered list starts)."""


@dataclass
class _Blocks:
    """Markdown rendered by Pagecast, standing in the html2text output as placeholders made of
    a per-document random nonce (page text cannot forge them) and an index."""

    nonce: str = field(default_factory=lambda: secrets.token_hex(6))
    rendered: list[str] = field(default_factory=list)

    def add(self, markdown: str) -> str:
        self.rendered.append(markdown)
        return f"PCB{self.nonce}X{len(self.rendered) - 1}X"

    @property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(f"PCB{self.nonce}X(\\d+)X")

    def get(self, index: str) -> str | None:
        number = int(index)
        return self.rendered[number] if number < len(self.rendered) else None


def render_markdown(root: lxml.html.HtmlElement) -> str:
    """The Markdown of a cleaned document whose URLs are already absolute (html2text is given
    no base URL: it would resolve every link a second time)."""
    blocks = _Blocks()
    _unsafe_links(root)
    _inline_images(root, cells=False)
    move_block_links(root)
    _drop_line_number_gutters(root)
    wrap_stray_cells(root)
    unwrap_layout_tables(root)
    for table in list(root.iter("table")):
        if (
            table.getparent() is not None
            and table.find(".//table") is None
            and next(table.iterancestors("pre"), None) is None  # preformatted: the code's text
        ):
            _replace(table, gfm_table(table), blocks)
    _inline_images(root)  # a data table's cell gave an image's alt text only when alone
    for pre in list(root.iter("pre")):
        if pre.getparent() is not None:
            _replace(pre, _fenced(pre), blocks)
    _flatten_inline_code(root)
    _definition_lists(root)
    for caption in root.iter("figcaption"):
        caption.tag = "p"  # html2text runs it on after the picture
    safe_inline(root)
    converter = Converter()
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
    _strip_unread_attributes(root)
    text = converter.handle(lxml.html.tostring(root, encoding="unicode"))
    return _tidy(text, blocks)


def _strip_unread_attributes(root: etree._Element) -> None:
    """Drop every attribute html2text does not read (classes, styles, data attributes...): less
    markup for its parser, in Python, to go through; in place."""
    names = {attribute.attrname for attribute in root.xpath("//@*")}
    unread = names - _READ_ATTRIBUTES
    if unread:
        etree.strip_attributes(root, *unread)


def _replace(element: etree._Element, markdown: str, blocks: _Blocks) -> None:
    """Swap ``element`` for a paragraph holding a placeholder of ``markdown``."""
    placeholder = lxml.html.Element("p")
    placeholder.text = blocks.add(markdown)
    placeholder.tail = element.tail
    parent = element.getparent()
    if parent is not None:
        parent.replace(element, placeholder)


def _unsafe_links(root: lxml.html.HtmlElement) -> None:
    """Links only to http(s), mail and phone addresses (a ``javascript:`` link keeps its
    text)."""
    for link in root.iter("a"):
        href = (link.get("href") or "").strip()
        if href and _scheme(href) not in _SAFE_SCHEMES:
            del link.attrib["href"]


def _inline_images(root: lxml.html.HtmlElement, *, cells: bool = True) -> None:
    """Images inlined as ``data:`` URIs become their alt text instead of kilobytes of base64;
    without ``cells``, not yet those in a table's cells (whose table, if it holds data, reads
    an image's alt text only when the cell has no words of its own)."""
    for image in list(root.iter("img")):
        src = (image.get("src") or "").strip()
        if not cells and next(image.iterancestors("td", "th"), None) is not None:
            continue
        if src and _scheme(src) not in ("http", "https"):
            alt = " ".join((image.get("alt") or "").split())
            span = lxml.html.Element("span")
            span.text, span.tail = alt, image.tail
            parent = image.getparent()
            if parent is not None:
                parent.replace(image, span)


def _scheme(url: str) -> str:
    """The lower-cased scheme of ``url`` ("" when it has none or cannot be parsed)."""
    if url.startswith(_WEB_PREFIXES):
        return url[: url.index(":")]
    try:
        return urlsplit(url).scheme.lower()
    except ValueError:
        return ""


def _tidy(text: str, blocks: _Blocks) -> str:
    text = _EMPTY_LINK.sub("", text)
    lines: list[str] = []
    pattern = None  # compiled for the first placeholder (most pages have none)
    mark = f"PCB{blocks.nonce}"
    for raw in text.split("\n"):
        # Line by line: a regular expression over long runs of spaces would be quadratic.
        line = raw.rstrip(" \t")
        if mark not in line:
            lines.append(line)
            continue
        pattern = pattern or blocks.pattern
        lines += _expand(line, pattern, blocks)
    text = "\n".join(_outside_fences(lines, _tidy_text))
    text = _dedent_lists(text)
    return text.strip("\n") + "\n" if text.strip() else ""


def _expand(line: str, pattern: re.Pattern[str], blocks: _Blocks) -> list[str]:
    """A line holding placeholders, with each block on its own lines. A placeholder alone
    after a list marker or quote prefix keeps that prefix on the block's first line."""
    out: list[str] = []
    position = 0
    for match in pattern.finditer(line):
        block = blocks.get(match[1])
        before = line[position : match.start()]
        position = match.end()
        if block is None:
            out.append(before + match[0])
            continue
        if before.strip():
            out += [before.rstrip(), ""]
        out += ["", *block.split("\n"), ""]
    rest = line[position:].strip()
    if rest:
        out.append(rest)
    return out


def _outside_fences(lines: list[str], tidy: Callable[[list[str]], list[str]]) -> list[str]:
    """Apply ``tidy`` to the runs of lines outside fenced code; code is kept as it is."""
    out: list[str] = []
    run: list[str] = []
    for line, code in fenced_lines(lines):
        if code:
            out += tidy(run)
            run = []
            out.append(line)
        else:
            run.append(line)
    return out + tidy(run)


def _tidy_text(lines: list[str]) -> list[str]:
    """Prose lines: tag-like ``<`` escaped (Markdown must not carry live HTML; inline code is
    left alone) and runs of blank lines collapsed."""
    out: list[str] = []
    for line in lines:
        if not line and out and not out[-1]:
            continue
        out.append(_escape_tags(line) if "<" in line else line)
    return out


def _escape_tags(line: str) -> str:
    parts = line.split("`")
    # Even parts are outside inline code spans (an unmatched backtick leaves the rest as text).
    for index in range(0, len(parts), 2):
        parts[index] = _TAG_LIKE.sub("&lt;", parts[index])
    return "`".join(parts)


def _dedent_lists(text: str) -> str:
    """html2text indents top-level list items by two spaces; lists start at the margin."""
    out: list[str] = []
    in_list = False
    for line, code in fenced_lines(text.split("\n")):
        if code:
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
    found = _language(candidates)
    grandparent = parent.getparent() if parent is not None else None
    if not found and grandparent is not None:
        wrapper = _WRAPPER_LANGUAGE.search(grandparent.get("class", ""))
        value = wrapper[1].lower() if wrapper else ""
        found = value if _LANGUAGE_OK.match(value) and value not in _NOT_LANGUAGES else ""
    return found


def _language(candidates: list[etree._Element]) -> str:
    for element in candidates:
        for name in ("data-lang", "data-language", "lang"):
            value = str(element.get(name, ""))
            if _LANGUAGE_OK.match(value) and value.lower() not in _NOT_LANGUAGES:
                return value.lower()
        match = _LANGUAGE_CLASS.search(element.get("class", ""))
        if match and _LANGUAGE_OK.match(match[1]) and match[1].lower() not in _NOT_LANGUAGES:
            return match[1].lower()
    return ""


def _fenced(pre: etree._Element) -> str:
    code = _code_text(pre).replace("\r\n", "\n").replace("\t", "    ")
    code = code.strip("\n").rstrip()
    longest = max((len(run) for run in re.findall(r"`{3,}", code)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{code_language(pre)}\n{code}\n{fence}"


def _drop_line_number_gutters(root: etree._Element) -> None:
    """A ``<pre>`` holding only consecutive line numbers in a table cell beside one holding the
    code they number (a highlighter's gutter) goes: it is not code."""
    for pre in list(root.iter("pre")):
        if pre.getparent() is None or not _line_numbers(pre.text_content()):
            continue
        cell = next(pre.iterancestors("td", "th"), None)
        row = cell.getparent() if cell is not None else None
        if row is not None and any(
            other is not cell and next(other.iter("pre"), None) is not None for other in row
        ):
            pre.getparent().remove(pre)  # the gutter's tail is whitespace


def _line_numbers(text: str) -> bool:
    lines = text.split()
    return (
        bool(lines)
        and all(line.isdigit() for line in lines)
        and [int(line) for line in lines] == list(range(int(lines[0]), int(lines[0]) + len(lines)))
    )


def _flatten_inline_code(root: etree._Element) -> None:
    """Inline code is literal text: the emphasis, links and nested code inside it give up their
    tags and keep their words (html2text would write their marks inside the backticks); a line
    break stays one."""
    for code in list(root.iter(*_INLINE_CODE)):
        if len(code) and next(code.iterancestors(*_INLINE_CODE), None) is None:
            inner = {
                element.tag
                for element in code.iterdescendants()
                if isinstance(element.tag, str) and element.tag != "br"
            }
            if inner:
                etree.strip_tags(code, *inner)


def _code_text(pre: etree._Element) -> str:
    """The text of a code block with ``<br>`` and per-line block elements as line breaks."""
    for element in pre.iter():
        if element is pre or not isinstance(element.tag, str):
            continue
        if element.tag == "br":
            element.tail = "\n" + (element.tail or "")
        elif element.tag in ("div", "p", "li", "tr"):
            text = element.text_content()
            if text and not text.endswith("\n"):
                element.tail = "\n" + (element.tail or "")
    return str(pre.text_content())


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
