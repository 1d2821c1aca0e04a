"""Page metadata from what a reader sees, for the fields a page does not state in its head or
to check what it states: the visible headline, the byline under (or over) it with the author's
name and the date, the first meaningful paragraph and the largest content image. Each reader
looks at a bounded number of elements, so a large page costs no more than a small one. Pure;
the words and thresholds are data in :mod:`convert.metadata_rules`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from lxml import etree

from convert import metadata_rules as rules
from convert.hiding import is_hidden
from convert.metadata_values import author_name, clean_text, iso_date

_BLOCKS = frozenset({"br", "p", "div", "li", "ul", "ol", "section", "header"})
"""Children whose edges separate words in a headline (``<br>`` most of all)."""
_BYLINE_SKIP = re.compile(
    r"(?:comment|related|share|social|newsletter|breadcrumb|tag|categor)", re.I
)


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


# -- bylines ------------------------------------------------------------------------------------


@dataclass
class Byline:
    """The author and dates a page shows near its headline ("" when it shows none)."""

    author: str = ""
    published: str = ""
    """The date labelled as the publication's, else the first date shown."""
    updated: bool = False
    """Whether that first date is labelled as an update's ("Last updated ...")."""


def byline(headline: etree._Element, *, inside: bool = False) -> Byline:
    """The byline around ``headline``: the text after it (then a little before it) read chunk
    by chunk for a name behind "By", an author's link or element, and a date. ``inside``: the
    byline is at the start of ``headline`` (an ``<article>`` without a heading)."""
    found = Byline()
    first_date = ""
    regions = (_limited(_chunks(headline)),) if inside else (_after(headline), _before(headline))
    for chunks in regions:
        names = _Names()
        date_label = ""
        for element, text, own in _split(chunks):
            if len(text) > rules.BODY_TEXT_CHARS:
                break  # the article's prose has begun: its byline is not further on
            day, date_label = _date_in(element, text, own, date_label)
            if not found.author:
                found.author = names.read(element, text, own, dated=bool(day))
            if day and not found.published:
                if rules.PUBLISHED_LABEL.search(date_label):
                    found.published = day
                elif not first_date:
                    first_date = day
                    found.updated = bool(date_label)
            if found.author and found.published:
                return found
        found.author = found.author or names.done()
    if not found.published:
        found.published = first_date
    else:
        found.updated = False
    return found


_Chunk = tuple[etree._Element, str, bool]
"""An element, a piece of text, and whether the text is the element's own (not a child's
tail, which belongs to the element's flow but not to the element)."""


def _split(chunks: Iterator[_Chunk]) -> Iterator[_Chunk]:
    """The chunks, a short one holding separators ("Dec. 19, 2025 · Jane Doe") read as its
    parts, each after the whole (the element's own markers are asked once)."""
    for element, text, own in chunks:
        yield element, text, own
        if len(text) <= rules.DATE_TEXT_CHARS and rules.BYLINE_SEPARATOR.search(text):
            for part in rules.BYLINE_SEPARATOR.split(text):
                if part.strip():
                    yield element, part.strip(), False


class _Names:
    """Reads a byline's names chunk by chunk: a name behind a label ("By", "Written by"), in an
    author element or link; the names joined to the first ("A, B and C") are kept with it."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.labelled = False
        """The last chunk was a bare label: the next names the author."""
        self.joining = False
        """The last chunk joined names (",", "and"): the next may name one more."""
        self.bare = ""
        """The last chunk when it reads as a name without a label: a dateline beside it makes
        it the author's ("Jane Doe · 3 March 2024")."""
        self.dated = False

    def read(self, element: etree._Element, text: str, own: bool, *, dated: bool) -> str:
        """Read one chunk (``dated``: it holds a date); the names once the byline is over."""
        if self.names:
            return self._more(element, text, own)
        if dated and self.bare:
            self.names.append(self.bare)
            return ""
        name = ""
        if text and self.labelled:
            name = author_name(text)
        if not name and own:
            name = author_marker(element)
        if not name and text:
            label = rules.AUTHOR_LABEL.match(text)
            if label is not None and label.group(0).strip():
                if not text[label.end() :].strip(" :"):
                    self.labelled = True
                    return ""
                if rules.BYLINE_START.match(text):
                    name = author_name(text)
        if name:
            self.names.append(name)
        elif text:
            self.labelled = False
            maybe = len(text) <= rules.DATE_TEXT_CHARS and _TWO_CAPITALS.match(text)
            bare = author_name(text) if maybe else ""
            bare = bare if rules.BARE_NAME.match(bare) else ""
            if bare and self.dated:
                self.names.append(bare)
            self.bare = bare or ""
        if text or dated:
            self.dated = dated
        return ""

    def _more(self, element: etree._Element, text: str, own: bool) -> str:
        if not text:
            return ""
        if rules.NAME_JOINER.match(text):
            self.joining = True
            return ""
        if own and author_marker(element) in self.names:
            return ""  # the first name's own element, read again inside the byline
        name = author_name(text) if self.joining else ""
        if name and name not in self.names:
            self.names.append(name)
            self.joining = False
            return ""
        return self.done()

    def done(self) -> str:
        return ", ".join(self.names)


def author_marker(element: etree._Element) -> str:
    """The name held by an author element (``itemprop="author"``, an author class or ``rel``)
    or an author's link: its first text that reads as a name; "" otherwise."""
    attributes = element.attrib
    if not attributes:
        return ""
    if element.tag == "a" and rules.AUTHOR_LINK.search(attributes.get("href") or ""):
        return first_name(element)
    names = " ".join(attributes.get(name) or "" for name in _MARKING if name in attributes)
    if not names or not marks_author(names):
        return ""
    if element.get("itemscope") is not None:
        for inner in element.iter():
            if inner.get("itemprop") == "name":
                return author_name(inner.get("content") or inner.text_content())
    content = element.get("content")
    return author_name(content) if content else first_name(element)


def marks_author(names: str) -> bool:
    """Whether class, ``rel``, ``itemprop`` or id words mark the element holding an author's
    name: a word naming the author whose last part does not name the picture or biography."""
    if not rules.AUTHOR_CLASS.search(names):
        return False
    marked = [word for word in names.split() if rules.AUTHOR_CLASS.search(word)]
    return any(not rules.AUTHOR_CLASS_SKIP.search(word) for word in marked)


_MARKING = ("class", "rel", "itemprop", "id")
"""The attributes whose words mark an author's element."""


def first_name(element: etree._Element) -> str:
    """The first text inside ``element`` that reads as a name, past a label ("By")."""
    for count, (_, text, _) in enumerate(_chunks(element)):
        if count > rules.NAME_CHUNKS:
            break
        if text and not rules.AUTHOR_LABEL.fullmatch(text):
            name = author_name(text)
            if name:
                return name
    return ""


def _date_in(element: etree._Element, text: str, own: bool, label: str) -> tuple[str, str]:
    """A date in this chunk (a ``<time>``, or a date written in a short text), and the label
    in force ("Published", "Updated": the chunk's own words, or the last label seen)."""
    short = bool(text) and len(text) <= rules.DATE_TEXT_CHARS
    if short and rules.DATE_LABEL.search(text):
        label = text
    if own and (element.tag == "time" or element.get("itemprop") in rules.DATE_ITEMPROPS):
        stamp = element.get("datetime") or element.get("content") or element.get("title") or ""
        day = iso_date(stamp) or iso_date(element.text_content(), loose=True)
        if day:
            return day, label
    if short and _YEAR.search(text):
        day = iso_date(text, loose=True)
        if day:
            return day, label
    return "", label


_TWO_CAPITALS = re.compile(r"[A-Z][\w'.\-]*\s+[A-Z]")
"""How a bare name starts (two capitalised words): cheaper to ask than reading the name."""
_YEAR = re.compile(r"\d{4}")
"""Every date a page writes has its year in four digits: a text without them holds none."""


def _after(headline: etree._Element) -> Iterator[_Chunk]:
    """Chunks after ``headline`` in page order, within
    :data:`~convert.metadata_rules.BYLINE_ELEMENTS` chunks and
    :data:`~convert.metadata_rules.BYLINE_CHARS` characters."""
    seen = chars = 0
    node: etree._Element | None = headline
    while node is not None:
        if node is not headline:
            for chunk in _chunks(node):
                seen += 1
                chars += len(chunk[1])
                yield chunk
                if seen >= rules.BYLINE_ELEMENTS or chars >= rules.BYLINE_CHARS:
                    return
        following = node.getnext()
        while following is None:
            parent = node.getparent()
            if parent is None or parent.tag == "body":
                return
            node = parent
            following = node.getnext()
        parent = following.getparent()
        tail = (node.tail or "").strip()
        if tail and parent is not None:
            yield parent, tail, False
        node = following


def _limited(chunks: Iterator[_Chunk]) -> Iterator[_Chunk]:
    """The first chunks, within the byline's limits."""
    chars = 0
    for seen, chunk in enumerate(chunks, 1):
        chars += len(chunk[1])
        yield chunk
        if seen >= rules.BYLINE_ELEMENTS or chars >= rules.BYLINE_CHARS:
            return


def _before(headline: etree._Element) -> Iterator[_Chunk]:
    """Chunks of the few elements just before ``headline`` (its preceding siblings and those of
    its parents), nearest first."""
    seen = 0
    node: etree._Element | None = headline
    for _ in range(3):
        if node is None:
            return
        for sibling in node.itersiblings(preceding=True):
            for chunk in _chunks(sibling):
                seen += 1
                yield chunk
                if seen >= rules.BYLINE_BEFORE:
                    return
        node = node.getparent()


def _chunks(node: etree._Element) -> Iterator[_Chunk]:
    """``node``'s text and its descendants' texts and tails in page order, without furniture,
    hidden parts, and comment or sharing blocks."""
    if not isinstance(node.tag, str):
        return
    walker = etree.iterwalk(node, events=("start", "end", "comment"))
    for event, element in walker:
        if event != "start":  # a tail: after an element's end, or after a comment
            tail = element.tail
            if element is not node and tail and not tail.isspace():
                parent = element.getparent()
                if parent is not None:
                    yield parent, tail.strip(), False
        elif _skipped(element):
            walker.skip_subtree()
        else:
            text = (element.text or "").strip()
            if text or element.attrib or element.tag == "time":  # else nothing to read
                yield element, text, True


def _skipped(element: etree._Element) -> bool:
    """Whether a byline is never inside ``element`` (furniture, comments, sharing, hidden by
    its attributes; a byline hidden by a style or class is still the page's own, and asking
    costs a check per element)."""
    if element.tag in _UNREAD:
        return True
    attributes = element.attrib
    if not attributes:
        return False
    names = attributes.get("class")
    if names and _BYLINE_SKIP.search(names) and not rules.AUTHOR_CLASS.search(names):
        return True
    return "hidden" in attributes or attributes.get("aria-hidden") == "true"


_UNREAD = frozenset({"script", "style", "template", "svg", "noscript", *rules.BYLINE_FURNITURE})


def first_time(times: list[etree._Element]) -> str:
    """The date of the first dated ``<time>`` element outside the page's furniture."""
    for element in times:
        stamp = element.get("datetime")
        text = "" if stamp else (element.text or "").strip()
        if (stamp or text) and not in_furniture(element, rules.TIME_FURNITURE):
            day = iso_date(stamp) if stamp else ""
            if not day and text and len(text) <= rules.DATE_TEXT_CHARS:
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
    (a logo, an icon, an avatar) nor smaller than :data:`~convert.metadata_rules.CONTENT_IMAGE_MIN`;
    ("", 0, 0) when there is none."""
    best: tuple[str, int, int] = ("", 0, 0)
    for element in images:
        width, height = pixels(element.get("width")), pixels(element.get("height"))
        if not width or not height:
            continue
        if width < rules.CONTENT_IMAGE_MIN[0] or height < rules.CONTENT_IMAGE_MIN[1]:
            continue
        src = element.get("src") or ""
        if not src or src.startswith("data:"):
            src = element.get("data-src") or element.get("data-lazy-src") or ""
        words = " ".join((element.get("class") or "", element.get("alt") or "", src))
        if not src or rules.CONTENT_IMAGE_SKIP.search(words):
            continue
        if in_furniture(element, rules.HEADLINE_FURNITURE):
            continue
        if width * height > best[1] * best[2]:
            best = (src, width, height)
    return best


def pixels(value: str | None) -> int:
    """A declared pixel size ("640", "640px"); 0 when absent, relative or out of bounds."""
    text = (value or "").strip().lower().removesuffix("px").strip()
    if not text.isdigit():
        return 0
    number = int(text)
    return number if 0 < number <= rules.IMAGE_SIZE_LIMIT else 0
