"""Links that wrap blocks: a card whose whole body is one ``<a>`` (its heading, its byline, its
teaser) cannot be written as a Markdown link, which holds inline text only; html2text would open
it with ``[`` on one line and close it with ``](url)`` paragraphs later. Such a link is moved
into the first heading it holds (or its first block with text), where it is inline, and the
blocks it wrapped stay where they were, in order. Its text and address are kept."""

from __future__ import annotations

import lxml.html
from lxml import etree

from convert.html.document import text_of, unwrap

BLOCK_TAGS = frozenset(
    {"p", "div", "section", "article", "header", "footer", "aside", "main", "nav", "figure"}
    | {"ul", "ol", "li", "dl", "dt", "dd", "table", "blockquote", "pre", "form", "figcaption"}
    | {"h1", "h2", "h3", "h4", "h5", "h6"}
)
"""Elements html2text writes as blocks of their own."""
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def move_block_links(root: etree._Element) -> int:
    """Put every link that wraps blocks into its first heading (or first block with text),
    in place; returns how many were moved. A link whose blocks hold no text is unwrapped."""
    moved = 0
    for link in list(root.iter("a")):
        if link.getparent() is None or not _wraps_blocks(link):
            continue
        target = _target(link)
        if target is not None:
            inner = lxml.html.Element("a", dict(link.attrib))
            inner.text, target.text = target.text, None
            for child in list(target):
                inner.append(child)
            target.append(inner)
        unwrap(link)
        moved += 1
    return moved


def _wraps_blocks(link: etree._Element) -> bool:
    return any(
        isinstance(element.tag, str) and element.tag in BLOCK_TAGS
        for element in link.iterdescendants()
    )


def _target(link: etree._Element) -> etree._Element | None:
    """Where the link goes: its first heading with text, else its first block with text and
    no block inside it."""
    for heading in link.iter(*HEADINGS):
        if text_of(heading):
            return heading
    for element in link.iterdescendants():
        if (
            isinstance(element.tag, str)
            and element.tag in BLOCK_TAGS
            and not _wraps_blocks(element)
            and text_of(element)
        ):
            return element
    return None
