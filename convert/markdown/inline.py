"""Inline formatting made safe for html2text, which keeps the marks but not always the words.

html2text strips the spaces just inside an emphasis (``nos<strong> barbecues</strong>`` would
read "nos**barbecues**", two words run together), puts a space after an emphasis a letter
follows (a drop cap's ``<b>H</b>ello`` would read "**H** ello", the word split), and writes an
empty emphasis as a bare "****"; it also puts a space between an emphasis and the punctuation
after it ("**x** , y", "**Bob** 's"). So, before it runs: the spaces at an inline element's edges
move outside it (a link's too: ``[ link ]`` becomes ``[link]``), an emphasis holding no text
goes, and an emphasis inside a word (a letter or digit touching either edge) gives up its
marks and keeps its text, the words being worth more than the bold; and :class:`Converter`
writes punctuation right after the closing mark, where Markdown reads it as closed.
"""

from __future__ import annotations

import html2text
from lxml import etree

from convert.html.document import unwrap

EMPHASIS = ("em", "i", "u", "strong", "b", "del", "strike", "s")
"""The tags html2text writes as emphasis marks around their text."""
_EDGED = (*EMPHASIS, "a")
"""Inline elements whose edge spaces html2text keeps badly: its marks, a link's brackets."""
_BLOCKS = frozenset(
    {
        "p", "div", "li", "dd", "dt", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6",
        "blockquote", "section", "article", "header", "footer", "figcaption", "caption",
        "body", "main", "aside", "nav",
    }
)  # fmt: skip
"""Blocks: a space at their start or end is no space at all."""


class Converter(html2text.HTML2Text):
    """html2text without a space between a closing emphasis mark and the punctuation after it
    (a closing mark followed by punctuation still closes; before a letter, the space stays)."""

    closed = False
    """Whether the last thing read was the end of an emphasis (html2text's own flag is also
    set inside one, where its space stands for one the first piece of text lost)."""

    def handle_tag(self, tag: str, attrs: dict[str, str | None], start: bool) -> None:
        super().handle_tag(tag, attrs, start)
        self.closed = not start and tag in EMPHASIS

    def handle_data(self, data: str, entity_char: bool = False) -> None:
        if self.closed and self.preceding_stressed and data and _punctuation(data[0]):
            self.preceding_stressed = False
        self.closed = False
        super().handle_data(data, entity_char)


def _punctuation(character: str) -> bool:
    return not character.isalnum() and not character.isspace()


def safe_inline(root: etree._Element) -> None:
    """Make ``root``'s inline formatting safe to hand to html2text, in place."""
    # Innermost and last first, so an outer element sees the spaces its children moved out.
    for element in reversed(list(root.iter(*_EDGED))):
        _spaces_out(element)
    for element in list(root.iter(*EMPHASIS)):
        if element.getparent() is None:
            continue
        content = element.text_content()
        empty = not content.strip() and next(element.iter("img"), None) is None
        if empty or _inside_word(element, content):
            unwrap(element)


def _spaces_out(element: etree._Element) -> None:
    """Move the spaces at the start and the end of ``element``'s content outside it, as one
    space where none is already (none at the edge of a block)."""
    parent = element.getparent()
    if parent is None:
        return
    if _leading_spaces(element):
        previous = element.getprevious()
        before = parent.text if previous is None else previous.tail
        at_block_start = previous is None and parent.tag in _BLOCKS
        if before and not before[-1].isspace():
            if previous is None:
                parent.text = before + " "
            else:
                previous.tail = before + " "
        elif not before and not at_block_start:
            if previous is None:
                parent.text = " "
            else:
                previous.tail = " "
    if _trailing_spaces(element):
        after = element.tail or ""
        at_block_end = element.getnext() is None and parent.tag in _BLOCKS
        if not (after[:1].isspace() or (not after and at_block_end)):
            element.tail = " " + after


def _leading_spaces(element: etree._Element) -> bool:
    """Strip the spaces that start ``element``'s content (into its first descendants while
    they hold nothing else); whether there were any."""
    found = False
    node = element
    while True:
        text = node.text or ""
        stripped = text.lstrip()
        found = found or len(stripped) < len(text)
        if text:
            node.text = stripped or None
        if stripped or not len(node) or not isinstance(node[0].tag, str):
            return found
        node = node[0]


def _trailing_spaces(element: etree._Element) -> bool:
    """Strip the spaces that end ``element``'s content (into its last descendants while they
    end it); whether there were any."""
    found = False
    node = element
    while True:
        last = node[-1] if len(node) else None
        text = (node.text if last is None else last.tail) or ""
        stripped = text.rstrip()
        found = found or len(stripped) < len(text)
        if text:
            if last is None:
                node.text = stripped or None
            else:
                last.tail = stripped or None
        if stripped or last is None or not isinstance(last.tag, str):
            return found
        node = last


def _inside_word(element: etree._Element, content: str) -> bool:
    """Whether a letter or digit touches ``element`` on either side (its text being
    ``content``)."""
    previous = element.getprevious()
    if previous is not None:
        before = previous.tail or ""
    else:
        parent = element.getparent()
        before = (parent.text or "") if parent is not None else ""
    after = element.tail or ""
    # "".isalnum() is False: nothing beside the element is no letter.
    return (before[-1:].isalnum() and content[:1].isalnum()) or (
        content[-1:].isalnum() and after[:1].isalnum()
    )
