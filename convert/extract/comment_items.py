"""One readers' comment of a comment section (:mod:`convert.extract.comments`): which elements
of the section are comments, and how each is written back: its author and date line
(``**author** · date``, where the page shows them), the title its writer gave it, and its text
less its replies, avatar, controls and attribution."""

from __future__ import annotations

import re

import lxml.html
from lxml import etree

from convert.extract import rules
from convert.extract.measures import copy_element
from convert.extract.posts import ATTRIBUTION_CLASS
from convert.html.document import drop, text_of


def items_of(section: etree._Element) -> list[etree._Element]:
    """The comments of a section, nested replies included, in document order: the elements its
    markup names a comment (an id ``comment-123``, a class ``comment``...). An element named
    after the same comment as the item around it (``li#comment-12 > div#div-comment-12``), or
    without a number and made otherwise than it, is that comment's body, not a reply."""
    named = [
        element
        for element in section.iter()
        if isinstance(element.tag, str)
        and element is not section
        and element.tag not in rules.COMMENT_NOISE_TAGS
        and (
            rules.COMMENT_ITEM_ID.search(element.get("id", ""))
            or any(
                rules.COMMENT_ITEM_CLASS.match(name) for name in element.get("class", "").split()
            )
            or element.get("itemprop") in rules.COMMENT_ITEMPROPS
        )
        and not _inside_any(element, section, rules.COMMENT_CONTENT_CLASS)
    ]
    items: list[etree._Element] = []
    for element in named:
        number = _number(element)
        around = next((item for item in reversed(items) if inside(element, item)), None)
        if around is not None and (
            number == _number(around) if number is not None else not _alike(element, around)
        ):
            continue  # the body of the comment around it
        items.append(element)
    return items


def _alike(element: etree._Element, around: etree._Element) -> bool:
    """Whether an element without a comment number is made as the comment around it (the same
    tag and a class of it): a reply nested in it (``li.comment > ul > li.comment``), not its
    body."""
    classes = set(around.get("class", "").split())
    return element.tag == around.tag and bool(classes & set(element.get("class", "").split()))


def _number(element: etree._Element) -> str | None:
    """The comment number in an element's id ("comment-8354" -> "8354")."""
    found = rules.COMMENT_NUMBER.search(element.get("id", ""))
    return found.group(0) if found else None


def _inside_any(element: etree._Element, section: etree._Element, names: re.Pattern[str]) -> bool:
    """Whether an ancestor of ``element`` below ``section`` has a class ``names`` matches."""
    for ancestor in element.iterancestors():
        if ancestor is section:
            return False
        if has_class(ancestor, names):
            return True
    return False


def has_class(element: etree._Element, names: re.Pattern[str]) -> bool:
    """Whether one of the element's classes matches ``names`` from its start."""
    return any(names.match(name) for name in element.get("class", "").split())


def write_comment(item: etree._Element, items: list[etree._Element]) -> etree._Element:
    """One comment as Pagecast writes it: its author and date, then its own text (without the
    replies nested in it): the element its markup names the comment's text, else the item less
    its replies, its author and date line and its controls."""
    nested = [other for other in items if other is not item and inside(other, item)]
    own = [element for element in item.iter() if not any(inside(element, n) for n in nested)]
    author, date = _author(own), _date(own)
    out = lxml.html.Element("div")
    if author or date:
        line = etree.SubElement(out, "p", {"class": ATTRIBUTION_CLASS})
        strong = etree.SubElement(line, "strong")
        strong.text = author or "Anonymous"
        if date:
            strong.tail = f" · {date}"
    body = next(
        (
            element
            for element in own
            if has_class(element, rules.COMMENT_CONTENT_CLASS)
            or element.get("itemprop") in ("text", "commentText")
        ),
        None,
    )
    if body is not None and not any(inside(other, body) for other in nested):
        for title in _titles(own, body):
            line = etree.SubElement(out, "p")
            etree.SubElement(line, "strong").text = title
        copy = _own_text(body, [])  # less an author and date line it may hold
    else:
        copy = _own_text(item, nested)
    tidy(copy)
    copy.tail = None
    if copy.tag == "li":
        copy.tag = "div"  # one comment of its list, not a list item of its own
    out.append(copy)
    return out


def _titles(own: list[etree._Element], body: etree._Element) -> list[str]:
    """The title a commenter gave the comment: a heading of the comment outside its text."""
    return [
        text
        for element in own
        if element.tag in rules.COMMENT_TITLE_TAGS
        and not inside(element, body)
        and 0 < len(text := text_of(element)) <= rules.COMMENT_TITLE_MAX_CHARS
    ]


def _own_text(item: etree._Element, nested: list[etree._Element]) -> etree._Element:
    """A copy of ``item`` without its replies and the lines that name its author or date (an
    element named a date holds no more than one)."""
    skipped = set(nested)
    skipped.update(
        element
        for element in item.iter()
        if element is not item
        and (
            has_class(element, rules.COMMENT_AUTHOR_CLASS)
            or has_class(element, rules.COMMENT_META_CLASS)
            or element.get("itemprop") == "author"
            or element.tag in rules.COMMENT_ATTRIBUTION_TAGS
            or (
                any(rules.DATE_CLASS.search(name) for name in element.get("class", "").split())
                and len(text_of(element)) <= rules.DATE_MAX_CHARS
            )
        )
        and len(text_of(element)) <= rules.COMMENT_AUTHOR_MAX_CHARS * 4
        and not _holds_saying(element)
    )
    copy = copy_element(item)
    for original, copied in zip(list(item.iter()), list(copy.iter()), strict=True):
        if original in skipped and copied.getparent() is not None:
            drop(copied)
    return copy


def _holds_saying(element: etree._Element) -> bool:
    """Whether an author or date line holds a paragraph of the comment itself (a theme that
    puts the text inside its author block): a paragraph without the name or date in it. Only
    the attribution inside it goes then."""
    for block in element.iter(*rules.COMMENT_SAYING_TAGS):
        text = text_of(block)
        linked = "".join(text_of(link) for link in block.iter("a"))
        if block is element or not text or len(linked) >= len(text) / 2:
            continue  # empty, or a control ("Reply")
        if not any(
            has_class(inner, rules.COMMENT_AUTHOR_CLASS)
            or inner.tag in rules.COMMENT_ATTRIBUTION_TAGS
            for inner in block.iter()
        ):
            return True
    return False


def _author(own: list[etree._Element]) -> str:
    for element in own:
        if element.get("itemprop") == "author" or has_class(element, rules.COMMENT_AUTHOR_CLASS):
            named = element.find('.//*[@class="fn"]')
            text = text_of(named if named is not None else element)
            text = rules.SAYS.sub("", text).strip()
            if 0 < len(text) <= rules.COMMENT_AUTHOR_MAX_CHARS:
                return text
    return ""


def _date(own: list[etree._Element]) -> str:
    """The comment's date: a ``<time>`` or an element named a date, else its meta line (which
    may hold more than the date)."""
    dated = [
        element
        for element in own
        if element.tag == "time"
        or any(rules.DATE_CLASS.search(name) for name in element.get("class", "").split())
    ]
    for element in dated + [e for e in own if has_class(e, rules.COMMENT_META_CLASS)]:
        text = text_of(element) or element.get("datetime", "")
        if text and len(text) <= rules.DATE_MAX_CHARS and rules.DATE_WORDS.search(text):
            return text
    return ""


def tidy(element: etree._Element) -> None:
    """Drop what a comment shows beside its text: pictures (avatars), controls, forms, and the
    short links that reply, like or report."""
    for child in list(element.iter(*rules.COMMENT_NOISE_TAGS)):
        if child is not element and child.getparent() is not None:
            drop(child)
    for link in list(element.iter("a")):
        if link.getparent() is not None and rules.COMMENT_ACTION.match(text_of(link)):
            drop(link)
    for block in list(element.iter()):
        text = text_of(block)
        if block is not element and text and rules.COMMENT_SEPARATORS.match(text):
            drop(block)  # what stood between the controls gone


def inside(element: etree._Element, section: etree._Element) -> bool:
    return any(ancestor is section for ancestor in element.iterancestors())
