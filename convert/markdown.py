"""HTML to Markdown: clean the document, apply include/exclude selectors, convert with html2text,
tidy the result and cut it at ``max_chars``. Pure: (html, url, options) in, a result out."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import html2text
import lxml.html
from cssselect import SelectorSyntaxError
from lxml import etree

from convert.metadata import page_metadata

# Elements whose content is never text a reader sees.
_DROP = ("script", "style", "noscript", "template", "svg", "canvas", "object", "embed", "iframe")
_BLANK_RUNS = re.compile(r"\n{3,}")
# Leftover Markdown from html2text on empty links and images: "[](url)".
_EMPTY_LINK = re.compile(r"(?<!!)\[\]\([^)]*\)")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


class SelectorError(ValueError):
    """A CSS selector in include_tags or exclude_tags could not be parsed."""

    def __init__(self, parameter: str, selector: str) -> None:
        self.parameter = parameter
        self.selector = selector
        super().__init__(f"{parameter}: invalid CSS selector {selector!r}")


@dataclass(frozen=True)
class MarkdownOptions:
    """What the caller asked for."""

    max_chars: int | None = None
    include_tags: tuple[str, ...] = ()
    exclude_tags: tuple[str, ...] = ()


@dataclass
class MarkdownResult:
    """The converted document and what was done to it."""

    markdown: str
    truncated: bool = False
    truncation_reason: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)

    @property
    def character_count(self) -> int:
        return len(self.markdown)


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


def html_to_markdown(html: str, url: str, options: MarkdownOptions) -> MarkdownResult:
    """Convert a whole HTML document to Markdown."""
    check_selectors("include_tags", options.include_tags)
    check_selectors("exclude_tags", options.exclude_tags)
    root = parse_document(html)
    metadata = page_metadata(root, url)
    # Before cleaning: <base href> lives in <head>, which cleaning drops.
    root.make_links_absolute(url, resolve_base_href=True, handle_failures="discard")
    _clean(root)
    if options.exclude_tags:
        for selector in options.exclude_tags:
            for element in root.cssselect(selector):
                _drop(element)
    if options.include_tags:
        root = _keep_only(root, options.include_tags)
    markdown = _render(root, url)
    result = MarkdownResult(markdown=markdown, metadata=metadata)
    if options.max_chars is not None and len(markdown) > options.max_chars:
        result.markdown = truncate(markdown, options.max_chars)
        result.truncated = True
        result.truncation_reason = "max_chars_exceeded"
    return result


def parse_document(html: str) -> lxml.html.HtmlElement:
    """Parse HTML leniently; an empty or unparsable document becomes an empty <html>."""
    if not html.strip():
        return lxml.html.document_fromstring("<html><body></body></html>")
    # lxml refuses str input that carries an XML encoding declaration.
    cleaned = re.sub(r"^\s*<\?xml[^>]*>", "", html, count=1)
    try:
        return lxml.html.document_fromstring(cleaned)
    except (etree.ParserError, ValueError):
        return lxml.html.document_fromstring("<html><body></body></html>")


def _clean(root: lxml.html.HtmlElement) -> None:
    for element in root.iter(etree.Comment, etree.ProcessingInstruction):
        _drop(element)
    for tag in _DROP:
        for element in root.iter(tag):
            _drop(element)
    for head in root.iter("head"):
        _drop(head)


def _drop(element: etree._Element) -> None:
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


def _keep_only(root: lxml.html.HtmlElement, selectors: tuple[str, ...]) -> lxml.html.HtmlElement:
    """A new document whose body holds the matching elements in document order, outermost only."""
    matches: set[etree._Element] = set()
    for selector in selectors:
        matches.update(root.cssselect(selector))
    kept = [
        element
        for element in root.iter()
        if element in matches and not any(a in matches for a in element.iterancestors())
    ]
    doc = lxml.html.document_fromstring("<html><body></body></html>")
    body = doc.find("body")
    for element in kept:
        element.tail = None
        body.append(element)
    return doc


def _render(root: lxml.html.HtmlElement, url: str) -> str:
    converter = html2text.HTML2Text(baseurl=url)
    converter.body_width = 0
    converter.unicode_snob = True
    converter.protect_links = False
    converter.ignore_images = False
    converter.ignore_tables = False
    converter.mark_code = False
    converter.pad_tables = False
    converter.single_line_break = False
    text = converter.handle(lxml.html.tostring(root, encoding="unicode"))
    text = _EMPTY_LINK.sub("", text)
    # Line by line: a regular expression over long runs of spaces would be quadratic.
    text = "\n".join(line.rstrip(" \t") for line in text.split("\n"))
    text = _BLANK_RUNS.sub("\n\n", text)
    return text.strip("\n") + "\n" if text.strip() else ""


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
