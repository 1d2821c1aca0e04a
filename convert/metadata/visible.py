"""Page metadata from what a reader sees, for the fields a page does not state in its head or
to check what it states: the visible headline, the first dated ``<time>``, the first meaningful
paragraph, the largest content image, the article's first picture and the logo's text (the
byline is :mod:`convert.metadata.byline`'s). Each
reader looks at a bounded number of elements, so a large page costs no more than a small one.
Pure; the words and thresholds are data in :mod:`convert.metadata.rules`."""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from convert.html.hiding import is_hidden
from convert.metadata import rules
from convert.metadata import rules_bylines as byline_rules
from convert.metadata import rules_images as image_rules
from convert.metadata.values import URL_LIMIT, clean_text, iso_date

_BLOCKS = frozenset({"br", "p", "div", "li", "ul", "ol", "section", "header"})
"""Children whose edges separate words in a headline (``<br>`` most of all)."""
_UNSEEN = frozenset({"script", "style", "template", "svg", "button"})


def headline_text(element: etree._Element) -> str:
    """A heading's text as a reader reads it: line breaks and blocks are spaces, permalink signs
    ("¶") and hidden parts are gone."""
    parts: list[str] = []
    _collect(element, parts, 0)
    text = clean_text("".join(parts), 2000)
    return text.rstrip(rules.HEADING_ANCHORS + " ").strip()


def _collect(element: etree._Element, parts: list[str], depth: int) -> None:
    if element.text:
        parts.append(element.text)
    for child in element:
        tag = child.tag
        unseen = not isinstance(tag, str) or tag in _UNSEEN or is_hidden(child)
        if not unseen and depth < rules.HEADLINE_DEPTH:
            spaced = tag in _BLOCKS
            if spaced:
                parts.append(" ")
            _collect(child, parts, depth + 1)
            if spaced:
                parts.append(" ")
        if child.tail:
            parts.append(child.tail)


def in_furniture(element: etree._Element, tags: tuple[str, ...]) -> bool:
    """Whether ``element`` or its parent is hidden, or it is inside one of ``tags`` (page
    furniture). A ``<header>`` inside an ``<article>`` or ``<main>`` is the article's own
    header, not the site's. (Hidden ancestors further up are not asked: it costs a check per
    ancestor and changed nothing measured.)"""
    parent = element.getparent()
    if is_hidden(element) or (parent is not None and is_hidden(parent)):
        return True
    in_header = False
    for ancestor in element.iterancestors():
        tag = ancestor.tag
        if tag in ("article", "main"):
            in_header = False
            if "header" in tags:
                tags = tuple(name for name in tags if name != "header")
        elif tag == "header" and tag in tags:
            # The site's header holds its menu; a header without one is the article's.
            in_header = in_header or ancestor.find(".//nav") is not None
        elif tag in tags:
            return True
    return in_header


def headlines(h1s: list[etree._Element]) -> Iterator[tuple[etree._Element, str]]:
    """The page's visible ``<h1>`` headlines outside its furniture, with their texts."""
    for element in h1s[: rules.HEADLINES_READ * 2]:
        if in_furniture(element, rules.HEADLINE_FURNITURE):
            continue
        text = headline_text(element)
        if text:
            yield element, text


def first_time(times: list[etree._Element]) -> str:
    """The date of the first dated ``<time>`` element outside the page's furniture."""
    for element in times:
        stamp = element.get("datetime")
        text = "" if stamp else (element.text or "").strip()
        if (stamp or text) and not in_furniture(element, byline_rules.TIME_FURNITURE):
            day = iso_date(stamp) if stamp else ""
            if not day and text and len(text) <= byline_rules.DATE_TEXT_CHARS:
                day = iso_date(text, loose=True)
            if day:
                return day
    return ""


# -- paragraphs and images ------------------------------------------------------------------------


def first_paragraph(paragraphs: list[etree._Element]) -> str:
    """The first paragraph that reads as the page's prose: long enough, outside furniture, not a
    cookie or sign-up notice."""
    for element in paragraphs:
        text = clean_text(element.text_content(), 4000)
        if len(text) < rules.PARAGRAPH_MIN_CHARS or len(text.split()) < rules.PARAGRAPH_MIN_WORDS:
            continue
        if rules.PARAGRAPH_JUNK.search(text):
            continue
        if in_furniture(element, rules.PARAGRAPH_FURNITURE):
            continue
        return text
    return ""


def largest_image(images: list[etree._Element]) -> tuple[str, int, int]:
    """(src, width, height) of the largest image by its declared size that is not furniture
    (a logo, an icon, an avatar) nor smaller than
    :data:`~convert.metadata.rules_images.CONTENT_IMAGE_MIN`; ("", 0, 0) when there is none."""
    best: tuple[str, int, int] = ("", 0, 0)
    for element in images:
        width, height = pixels(element.get("width")), pixels(element.get("height"))
        if not width or not height:
            continue
        if width < image_rules.CONTENT_IMAGE_MIN[0] or height < image_rules.CONTENT_IMAGE_MIN[1]:
            continue
        src = image_src(element)
        if not src or furniture_image(src, element):
            continue
        if in_furniture(element, rules.HEADLINE_FURNITURE):
            continue
        if width * height > best[1] * best[2]:
            best = (src, width, height)
    return best


def image_src(element: etree._Element) -> str:
    """An ``<img>``'s picture: its ``src``, or the lazy loader's attribute when the ``src`` is
    a data URI or missing."""
    src = element.get("src") or ""
    if not src or src.startswith("data:"):
        src = element.get("data-src") or element.get("data-lazy-src") or ""
    return "" if len(src) > URL_LIMIT else src.strip()  # a longer URL is refused anyway


def furniture_image(src: str, element: etree._Element | None = None) -> bool:
    """Whether an image is a logo, an icon, an avatar or the like, by its file name and, for an
    ``<img>``, its class and alt text."""
    marks = ("", "") if element is None else (element.get("class") or "", element.get("alt") or "")
    words = " ".join((*marks, src))
    name = src.split("?", 1)[0].rsplit("/", 1)[-1]
    return bool(
        image_rules.CONTENT_IMAGE_SKIP.search(words)
        or image_rules.CONTENT_IMAGE_FILE_SKIP.search(name)
    )


def article_image(containers: list[etree._Element]) -> str:
    """The first picture of the page's ``<article>`` or ``<main>`` (what a reader sees first in
    it): not furniture, not a drawing or animation, not declared small; "" when there is none."""
    for number, container in enumerate(containers):
        if any(outer in container.iterancestors() for outer in containers[:number]):
            continue  # its pictures were read with the container around it
        for count, element in enumerate(container.iter("img")):
            if count >= image_rules.ARTICLE_IMAGES_READ:
                break
            src = image_src(element)
            if not src or image_rules.ARTICLE_IMAGE_SKIP.search(src):
                continue
            width, height = pixels(element.get("width")), pixels(element.get("height"))
            if (width and width < image_rules.ARTICLE_IMAGE_MIN) or (
                height and height < image_rules.ARTICLE_IMAGE_MIN
            ):
                continue
            if furniture_image(src, element) or in_furniture(element, rules.HEADLINE_FURNITURE):
                continue
            return src
    return ""


def logo_texts(images: list[etree._Element]) -> Iterator[str]:
    """The alt texts of the page's first logo images (among its first
    :data:`~convert.metadata.rules_images.LOGO_IMAGES_READ`: a logo is in the page's header),
    the word "logo" removed."""
    found = 0
    for element in images[: image_rules.LOGO_IMAGES_READ]:
        alt = element.get("alt")
        if not alt or len(alt) > image_rules.LOGO_ALT_MAX_CHARS:
            continue  # no name, or a sentence rather than a logo's name
        if not _marked_logo(element):
            continue
        found += 1
        text = image_rules.LOGO_WORD.sub(" ", alt).strip()
        if text:
            yield text
        if found >= image_rules.LOGOS_READ:
            return


def _marked_logo(element: etree._Element) -> bool:
    """Whether an ``<img>`` or one of its two nearest ancestors names a logo."""
    marks = [element.get("class"), element.get("id"), element.get("alt"), element.get("src")]
    parent = element.getparent()
    for _ in range(2):
        if parent is None:
            break
        marks += (parent.get("class"), parent.get("id"))
        parent = parent.getparent()
    return any(mark and "logo" in mark.lower() for mark in marks)


def pixels(value: str | None) -> int:
    """A declared pixel size ("640", "640px"); 0 when absent, relative or out of bounds."""
    text = (value or "").strip().lower().removesuffix("px").strip()
    if not text.isdigit():
        return 0
    number = int(text)
    return number if 0 < number <= image_rules.IMAGE_SIZE_LIMIT else 0
