"""Parsing and tidying an HTML document before extraction: lenient parsing, CSS selector lists,
removal of what a reader never sees (scripts, styles, hidden elements), absolute URLs and the
real source of lazy-loaded images. Pure functions over lxml trees."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urljoin

import lxml.html
from cssselect import SelectorSyntaxError
from lxml import etree

from convert.html.depth import flatten_source, flatten_tree, too_deep
from convert.html.hiding import is_hidden

# Elements whose content is never text a reader sees.
INVISIBLE_TAGS = (
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "canvas",
    "object",
    "embed",
    "iframe",
    "link",
    "meta",
    "base",
    "map",
    "audio",
    "video",
    "source",
    "track",
    "dialog",
)
RUBY_ANNOTATIONS = ("rt", "rp")
"""A ruby's reading (furigana over kanji) and its fallback parentheses: set above the text, not
in its line, so read inline they would split every word ("子こども")."""
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_NOT_XML_BYTES = bytes(range(0x20)).translate(None, b"\t\n\r")
"""The control characters of :data:`_NOT_XML`, as UTF-8 bytes (each one byte)."""
_NOT_XML_UTF8 = (b"\xef\xbf\xbe", b"\xef\xbf\xbf")
"""U+FFFE and U+FFFF in UTF-8 (lone surrogates do not encode)."""
_PARSER = lxml.html.HTMLParser(huge_tree=True)
"""Lenient HTML parsing that keeps documents nested deeper than libxml2's default 255 levels
(old sites leave hundreds of <font> tags open); huge_tree allows about 2,000, and deeper documents
are flattened first (:mod:`convert.html.depth`)."""
_UTF8_PARSER = lxml.html.HTMLParser(huge_tree=True, encoding="utf-8")
""":data:`_PARSER` for the page as UTF-8 bytes: the same tree, parsed quicker than from a
``str`` (which libxml2 would convert from Python's internal form first)."""
_LAZY_SOURCES = ("data-src", "data-lazy-src", "data-original", "data-lazy", "data-url")


class SelectorError(ValueError):
    """A CSS selector in include_tags or exclude_tags could not be parsed."""

    def __init__(self, parameter: str, selector: str) -> None:
        self.parameter = parameter
        self.selector = selector
        super().__init__(f"{parameter}: invalid CSS selector {selector!r}")


def split_selectors(value: str | None) -> tuple[str, ...]:
    """Split a comma-separated selector list, keeping commas inside brackets or parentheses."""
    if not value:
        return ()
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in value:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(depth - 1, 0)
        if char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    parts.append("".join(current).strip())
    return tuple(part for part in parts if part)


def check_selectors(parameter: str, selectors: tuple[str, ...]) -> None:
    """Raise :class:`SelectorError` for the first selector cssselect cannot translate."""
    for selector in selectors:
        try:
            lxml.html.fromstring("<p></p>").cssselect(selector)
        except (SelectorSyntaxError, etree.XPathError, ValueError, RecursionError) as exc:
            raise SelectorError(parameter, selector) from exc


@dataclass
class ParsedDocument:
    """A parsed page. ``flattened``: it was nested deeper than the limit, so its deepest text
    was gathered at the limit; ``cut``: even flattened, the parser gave up before its end, so
    text after that point is missing."""

    root: lxml.html.HtmlElement
    flattened: bool = False
    cut: bool = False


def parse_document(html: str) -> lxml.html.HtmlElement:
    """Parse HTML leniently; an empty or unparsable document becomes an empty <html>."""
    return read_document(html).root


def read_document(html: str) -> ParsedDocument:
    """Parse HTML leniently (see :func:`parse_document`), no element nested deeper than
    :data:`~convert.html.depth.MAX_DEPTH`: a deeper document is flattened, its text kept."""
    if not html or html.isspace():
        return ParsedDocument(empty_document())
    # lxml refuses str input that carries an XML encoding declaration.
    cleaned = re.sub(r"^\s*<\?xml[^>]*>", "", html, count=1)
    # Characters XML cannot hold (controls, lone surrogates) would break edits of the tree later.
    cleaned, source = _xml_safe_source(cleaned)
    root, cut = _parse(source)
    flattened = root is not None and too_deep(root)
    if flattened:
        root, cut = _parse(flatten_source(cleaned, hiding_tags=INVISIBLE_TAGS))
        if root is not None:
            flatten_tree(root, unseen=_unseen)
    if root is None:
        return ParsedDocument(empty_document())
    if root.find("body") is None:
        root.append(lxml.html.Element("body"))
    return ParsedDocument(root, flattened=flattened, cut=cut)


def _xml_safe_source(html: str) -> tuple[str, bytes]:
    """``html`` without the characters XML cannot hold (:data:`_NOT_XML`), and as UTF-8. Most
    pages hold none: encoding tells it quicker than the pattern's search would."""
    try:
        source = html.encode("utf-8")  # a lone surrogate does not encode
    except UnicodeEncodeError:
        source = b""
    if (
        not source
        or len(source.translate(None, _NOT_XML_BYTES)) != len(source)
        or any(character in source for character in _NOT_XML_UTF8)
    ):
        html = _NOT_XML.sub("", html)
        source = html.encode("utf-8")
    return html, source


def _parse(html: str | bytes) -> tuple[lxml.html.HtmlElement | None, bool]:
    """The document (None when unparsable), and whether the parser gave up at its depth limit.
    ``html`` as text, or as UTF-8 bytes."""
    parser = _UTF8_PARSER if isinstance(html, bytes) else _PARSER
    try:
        root = lxml.html.document_fromstring(html, parser=parser)
    except (etree.ParserError, ValueError):
        return None, False
    cut = any(
        error.type == etree.ErrorTypes.ERR_RESOURCE_LIMIT and "depth" in error.message
        for error in parser.error_log
    )
    return root, cut


def _unseen(element: etree._Element) -> bool:
    return element.tag in INVISIBLE_TAGS or is_hidden(element)


def empty_document() -> lxml.html.HtmlElement:
    """``<html><body></body></html>``."""
    return lxml.html.document_fromstring("<html><body></body></html>")


def body_of(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """The document's body (parse_document guarantees there is one)."""
    body = root.find("body")
    return body if body is not None else root


def drop(element: etree._Element) -> None:
    """Remove an element but keep its tail text in place."""
    parent = element.getparent()
    if parent is None:
        return
    tail = element.tail
    previous = element.getprevious()
    parent.remove(element)
    if tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail


def unwrap(element: etree._Element) -> None:
    """Replace an element by its children and text."""
    parent = element.getparent()
    if parent is None:
        return
    index = parent.index(element)
    text, tail = element.text or "", element.tail or ""
    children = list(element)
    previous = element.getprevious()
    if text:
        if previous is not None:
            previous.tail = (previous.tail or "") + text
        else:
            parent.text = (parent.text or "") + text
    parent.remove(element)
    for offset, child in enumerate(children):
        parent.insert(index + offset, child)
    if tail:
        if children:
            last = children[-1]
            last.tail = (last.tail or "") + tail
        elif index > 0:
            before = parent[index - 1]
            before.tail = (before.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail


# Empty elements in HTML5 that libxml2 (HTML 4 rules) opens as containers: what follows them in
# the same parent lands inside, and must not go when they do.
_VOID_AS_CONTAINER = ("embed", "source", "track", "wbr")


def clean_document(
    root: lxml.html.HtmlElement, url: str, hidden: Sequence[etree._Element] | None = None
) -> str:
    """Remove comments, invisible elements, ruby readings, hidden elements and the head (content
    hidden until scripts run is put in sight first by :mod:`convert.extract.reveal`). Returns the
    URL the page's relative links resolve against (its ``<base href>``, else ``url``): links are
    made absolute by :func:`absolute_links` once extraction has left only what is kept, which is
    cheaper.

    ``hidden``: the elements :func:`~convert.html.hiding.is_hidden` found hidden before the
    document was changed, in document order, when the caller has them: no other element is
    tested (the changes since, :mod:`convert.extract.reveal`'s included, hide nothing; what they
    showed is tested again)."""
    for element in list(root.iter(*_VOID_AS_CONTAINER)):
        if len(element) or (element.text or "").strip():
            element.drop_tag()  # keeps the text and elements the parser put inside
    _lazy_images(root)
    base = base_url_of(root, url)  # before removing <head>, where <base href> lives
    doomed: list[etree._Element] = list(root.iter(etree.Comment, etree.ProcessingInstruction))
    doomed += [element for element in root.iter(*INVISIBLE_TAGS, *RUBY_ANNOTATIONS)]
    doomed += [
        element
        for element in (root.iter() if hidden is None else hidden)
        if isinstance(element.tag, str) and element.tag != "html" and is_hidden(element)
    ]
    doomed += list(root.iter("head"))
    for element in doomed:
        drop(element)
    return base


def absolute_links(root: lxml.html.HtmlElement, base: str) -> None:
    """Make every link and image source in ``root`` absolute against ``base``; those that
    cannot be resolved are dropped."""
    root.make_links_absolute(base, resolve_base_href=False, handle_failures="discard")


def base_url_of(root: lxml.html.HtmlElement, url: str) -> str:
    """The URL relative links of the page at ``url`` resolve against: its first ``<base href>``
    (itself resolved against ``url``), else ``url``."""
    for element in root.iter("base"):
        href = str(element.get("href") or "").strip()
        if href:
            try:
                return urljoin(url, href)
            except ValueError:
                return url
    return url


def _lazy_images(root: lxml.html.HtmlElement) -> None:
    """Give lazy-loaded images their real source (``data-src`` and friends, else srcset)."""
    for image in root.iter("img"):
        src = image.get("src", "")
        if src and not src.startswith("data:"):
            continue
        for name in _LAZY_SOURCES:
            if image.get(name):
                image.set("src", image.get(name, ""))
                break
        else:
            srcset = image.get("srcset") or image.get("data-srcset") or ""
            first = srcset.split(",", 1)[0].strip().split(" ", 1)[0]
            if first:
                image.set("src", first)


def apply_selectors(
    root: lxml.html.HtmlElement, include: tuple[str, ...], exclude: tuple[str, ...]
) -> lxml.html.HtmlElement:
    """Drop what ``exclude`` matches; with ``include``, a new document of only what it matches
    (outermost matches, in document order)."""
    for selector in exclude:
        for element in root.cssselect(selector):
            drop(element)
    if not include:
        return root
    matches: set[etree._Element] = set()
    for selector in include:
        matches.update(root.cssselect(selector))
    kept = [
        element
        for element in root.iter()
        if element in matches and not any(a in matches for a in element.iterancestors())
    ]
    doc = empty_document()
    body = body_of(doc)
    for element in kept:
        element.tail = None
        body.append(element)
    return doc


def xml_safe(text: str) -> str:
    """``text`` without the characters an XML tree cannot hold (control characters, lone
    surrogates): for text that comes from elsewhere than the parsed page (its JSON-LD)."""
    return _NOT_XML.sub("", text)


def text_of(element: etree._Element) -> str:
    """The element's text with whitespace collapsed."""
    # An element without children holds its text alone: read without an XPath evaluation.
    if len(element) or not isinstance(element.tag, str):
        text = element.text_content()
    else:
        text = element.text or ""
    return " ".join(text.split())
