"""The byline a page shows around its headline: the author's name behind "By" or "Written by",
in an author element or link, or alone beside a date, and the date labelled as the publication's
(or the first date shown, and whether it is labelled as an update's). The text after the
headline (then a little before it) is read chunk by chunk within bounds, so a large page costs
no more than a small one. Pure; the words and thresholds are data in
:mod:`convert.metadata.rules_bylines`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from lxml import etree

from convert.metadata import rules_bylines as byline_rules
from convert.metadata.values import author_name, iso_date

_BYLINE_SKIP = re.compile(
    r"(?:comment|related|share|social|newsletter|breadcrumb|tag|categor)", re.I
)


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
        for element, text, own in _split(_others_left_out(chunks)):
            if len(text) > byline_rules.BODY_TEXT_CHARS:
                break  # the article's prose has begun: its byline is not further on
            day, date_label = _date_in(element, text, own, date_label)
            if not found.author:
                found.author = names.read(element, text, own, dated=bool(day))
            if day and not found.published:
                if byline_rules.PUBLISHED_LABEL.search(date_label):
                    found.published = day
                elif not first_date:
                    first_date = day
                    found.updated = bool(date_label) or _marked_update(element)
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


def _others_left_out(chunks: Iterator[_Chunk]) -> Iterator[_Chunk]:
    """The chunks without those that name another person than the author and their date: a
    thread's "last post by" and its poster, a "Last edited by" note (up to and including the
    date after the label, at most :data:`~convert.metadata.rules_bylines.OTHERS_CHUNKS` chunks)."""
    left = 0
    for chunk in chunks:
        element, text, _ = chunk
        if left:
            left -= 1
            if element.tag == "time" or _YEAR.search(text):
                left = 0
        elif (
            text
            and len(text) <= byline_rules.DATE_TEXT_CHARS
            and byline_rules.OTHERS_LABEL.search(text)
        ):
            left = byline_rules.OTHERS_CHUNKS
        else:
            yield chunk


def _split(chunks: Iterator[_Chunk]) -> Iterator[_Chunk]:
    """The chunks, a short one holding separators ("Dec. 19, 2025 · Jane Doe") read as its
    parts, each after the whole (the element's own markers are asked once)."""
    for element, text, own in chunks:
        yield element, text, own
        if len(text) <= byline_rules.DATE_TEXT_CHARS and byline_rules.BYLINE_SEPARATOR.search(text):
            for part in byline_rules.BYLINE_SEPARATOR.split(text):
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
            label = byline_rules.AUTHOR_LABEL.match(text)
            if label is not None and label.group(0).strip():
                if not text[label.end() :].strip(" :"):
                    self.labelled = True
                    return ""
                if byline_rules.BYLINE_START.match(text):
                    name = author_name(text)
        if name:
            self.names.append(name)
        elif text:
            self.labelled = False
            maybe = len(text) <= byline_rules.DATE_TEXT_CHARS and _TWO_CAPITALS.match(text)
            bare = author_name(text) if maybe else ""
            bare = bare if byline_rules.BARE_NAME.match(bare) else ""
            if bare and self.dated:
                self.names.append(bare)
            self.bare = bare or ""
        if text or dated:
            self.dated = dated
        return ""

    def _more(self, element: etree._Element, text: str, own: bool) -> str:
        if not text:
            return ""
        if byline_rules.NAME_JOINER.match(text):
            self.joining = True
            return ""
        if own and (author_marker(element) or author_name(text)) in self.names:
            self.joining = False
            return ""  # a name's own element, read again inside the byline
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
    if element.tag == "a" and byline_rules.AUTHOR_LINK.search(attributes.get("href") or ""):
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
    if not byline_rules.AUTHOR_CLASS.search(names):
        return False
    marked = [word for word in names.split() if byline_rules.AUTHOR_CLASS.search(word)]
    return any(not byline_rules.AUTHOR_CLASS_SKIP.search(word) for word in marked)


_MARKING = ("class", "rel", "itemprop", "id")
"""The attributes whose words mark an author's element."""


def first_name(element: etree._Element) -> str:
    """The first text inside ``element`` that reads as a name, past a label ("By"): a name
    before a label is not the author's ("Guide by Jane Doe")."""
    found = ""
    for count, (_, text, _) in enumerate(_chunks(element)):
        if count > byline_rules.NAME_CHUNKS:
            break
        if not text:
            continue
        if byline_rules.AUTHOR_LABEL.fullmatch(text):
            found = ""
            continue
        name = "" if found else author_name(text)
        if name and count == 0:
            return name  # the element's own text: a name before anything else
        found = found or name
    return found


def _date_in(element: etree._Element, text: str, own: bool, label: str) -> tuple[str, str]:
    """A date in this chunk (a ``<time>``, or a date written in a short text), and the label
    in force ("Published", "Updated": the chunk's own words, or the last label seen)."""
    short = bool(text) and len(text) <= byline_rules.DATE_TEXT_CHARS
    if short and byline_rules.DATE_LABEL.search(text):
        label = text
    if own and (element.tag == "time" or element.get("itemprop") in byline_rules.DATE_ITEMPROPS):
        stamp = element.get("datetime") or element.get("content") or element.get("title") or ""
        day = iso_date(stamp) or iso_date(element.text_content(), loose=True)
        if day:
            return day, label
    if short and _YEAR.search(text):
        day = iso_date(text, loose=True)
        if day:
            return day, label
    return "", label


def _marked_update(element: etree._Element) -> bool:
    """Whether the markup of a date's element (or, when it says neither or both, its parent's)
    marks the date as an update's: a class or ``itemprop`` word "updated", "modified" or
    "dateModified" without a publication's beside it ("entry-date published updated" says
    both)."""
    for node in (element, element.getparent()):
        if node is None:
            break
        marks = f"{node.get('class') or ''} {node.get('itemprop') or ''}"
        update = bool(byline_rules.UPDATE_CLASS.search(marks))
        publish = bool(byline_rules.PUBLISH_CLASS.search(marks))
        if update != publish:
            return update
    return False


_TWO_CAPITALS = re.compile(r"[A-Z][\w'.\-]*\s+[A-Z]")
"""How a bare name starts (two capitalised words): cheaper to ask than reading the name."""
_YEAR = re.compile(r"\d{4}")
"""Every date a page writes has its year in four digits: a text without them holds none."""


def _after(headline: etree._Element) -> Iterator[_Chunk]:
    """Chunks after ``headline`` in page order, within
    :data:`~convert.metadata.rules_bylines.BYLINE_ELEMENTS` chunks and
    :data:`~convert.metadata.rules_bylines.BYLINE_CHARS` characters."""
    seen = chars = 0
    node: etree._Element | None = headline
    while node is not None:
        if node is not headline:
            for chunk in _chunks(node):
                seen += 1
                chars += len(chunk[1])
                yield chunk
                if seen >= byline_rules.BYLINE_ELEMENTS or chars >= byline_rules.BYLINE_CHARS:
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
        if seen >= byline_rules.BYLINE_ELEMENTS or chars >= byline_rules.BYLINE_CHARS:
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
                if seen >= byline_rules.BYLINE_BEFORE:
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
    if names and _BYLINE_SKIP.search(names) and not byline_rules.AUTHOR_CLASS.search(names):
        return True
    return "hidden" in attributes or attributes.get("aria-hidden") == "true"


_UNREAD = frozenset(
    {"script", "style", "template", "svg", "noscript", *byline_rules.BYLINE_FURNITURE}
)
