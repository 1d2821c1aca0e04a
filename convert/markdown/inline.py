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


class Converter(html2text.HTML2Text):
    """html2text without a space between an emphasis and the punctuation that follows it (a
    closing mark followed by punctuation still closes; before a letter, the space stays)."""

    def handle_data(self, data: str, entity_char: bool = False) -> None:
        if self.preceding_stressed and data and not data[0].isalnum() and not data[0].isspace():
            self.preceding_stressed = False
        super().handle_data(data, entity_char)


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
    """Move the spaces at the start and the end of ``element``'s text outside it."""
    text = element.text
    if text and text[0].isspace():
        stripped = text.lstrip()
        _put_before(element, text[: len(text) - len(stripped)])
        element.text = stripped
    last = element[-1] if len(element) else None
    end = element.text if last is None else last.tail
    if end and end[-1].isspace():
        stripped = end.rstrip()
        if last is None:
            element.text = stripped
        else:
            last.tail = stripped
        element.tail = end[len(stripped) :] + (element.tail or "")


def _put_before(element: etree._Element, spaces: str) -> None:
    previous = element.getprevious()
    if previous is not None:
        previous.tail = (previous.tail or "") + spaces
        return
    parent = element.getparent()
    if parent is not None:
        parent.text = (parent.text or "") + spaces


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
    return (_alnum(before[-1:]) and _alnum(content[:1])) or (
        _alnum(content[-1:]) and _alnum(after[:1])
    )


def _alnum(character: str) -> bool:
    """Whether ``character`` (one or none) is a letter or a digit."""
    return character.isalnum()
