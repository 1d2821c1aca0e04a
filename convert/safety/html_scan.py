"""The HTML scan: what Markdown rendering drops or hides (CSS-hidden elements, comments,
noscript, template, attributes, meta tags) and link and image URLs."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urljoin, urlsplit

from lxml import etree

from convert.css import (
    Color,
    first_color,
    parse_color,
    parse_declarations,
    same_color,
    stylesheet_styles,
)
from convert.hiding import can_hide, hidden_reason
from convert.safety.analysis import analyse, live_hits
from convert.safety.intent import LARGE_HIDDEN, STRIPPED_REQUEST, hiddenness, intent
from convert.safety.intent import severity as request_severity
from convert.safety.links import LONG_QUERY, STRIPPED_LINK, URL_SUSPECT_RE, judge_url, url_severity
from convert.safety.markdown import MIN_BROKEN_WORDS, obfuscation_findings
from convert.safety.normalise import collapse_space, sample_of
from convert.safety.page_elements import PageElements, page_elements
from convert.safety.signals import SEVERITY, Finding, HtmlScan
from convert.safety.unicode import INVISIBLE_RE, INVISIBLE_UTF8_RE, TAG_RUN_RE

# --------------------------------------------------------------------------------------------
# The HTML document
# --------------------------------------------------------------------------------------------

_NOT_RENDERED: Final = frozenset(
    {"script", "style", "template", "head", "svg", "math", "canvas", "iframe", "object",
     "embed"}
)  # fmt: skip
"""Where hidden elements are not looked for: nothing there is shown. ``noscript`` is not one:
its content is what a reader without scripts sees, and some pages keep their whole text there
(which the Markdown then holds), so an element hidden inside it is judged like any other."""
_NO_TEXT: Final = frozenset({"script", "style"})
_BLOCKS: Final = frozenset(
    {"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th",
     "section", "article", "header", "footer", "aside", "nav", "blockquote", "pre", "table",
     "dd", "dt", "dl", "figure", "figcaption", "main", "form", "hr"}
)  # fmt: skip
_TEXT_ATTRIBUTES: Final = ("alt", "title", "aria-label", "aria-description")
_META_NAMES: Final = frozenset({"description", "keywords", "abstract", "subject", "summary"})
_META_PREFIXES: Final = ("og:", "twitter:", "dc.", "dcterms.")
_ROLE_TAGS: Final = ("system", "system_prompt", "instructions", "instruction", "assistant")
_DEFAULT_PAINT: Final[tuple[Color, Color]] = ((0, 0, 0, 1.0), (255, 255, 255, 1.0))
_DESCRIBING_ATTRIBUTES: Final = frozenset({"alt", "aria-description"})
"""Attributes that describe rather than label: requests hidden in them count (a title or an
aria-label names a control, and reads like one: "Follow this answer", "Rate this recipe")."""
_MIN_TEXT: Final = 2
_WHITESPACE_RE: Final = re.compile(r"\s+")


def _element_text(element: Any, skip: Callable[[Any], bool] | None = None) -> str:
    """Text of an element and its descendants with HTML whitespace collapsed, blocks on their
    own lines, scripts and styles left out, and so are descendants for which ``skip`` holds."""
    parts: list[str] = []
    stack: list[tuple[Any, bool]] = [(element, False)]
    while stack:
        node, closing = stack.pop()
        tag = node.tag
        if closing:
            if tag in _BLOCKS:
                parts.append("\n")
            if node is not element and node.tail:
                parts.append(_WHITESPACE_RE.sub(" ", node.tail))
            continue
        skipped = skip is not None and node is not element and skip(node)
        if isinstance(tag, str) and tag not in _NO_TEXT and not skipped:
            if tag in _BLOCKS:
                parts.append("\n")
            if node.text:
                parts.append(_WHITESPACE_RE.sub(" ", node.text))
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(node))
        elif node is not element and node.tail:
            parts.append(_WHITESPACE_RE.sub(" ", node.tail))
    return "".join(parts)


def _element_style(element: Any, sheet: Mapping[Any, dict[str, str]]) -> dict[str, str]:
    """Declarations from the page's style rules, then the inline style."""
    inline = element.get("style")
    ruled = sheet.get(element) if sheet else None
    if not inline:
        return ruled or {}
    style = dict(ruled) if ruled else {}
    style.update(parse_declarations(inline))
    return style


def _hidden_roots(
    page: PageElements, sheet: Mapping[Any, dict[str, str]]
) -> Iterator[tuple[Any, str, str]]:
    """Outermost rendered elements hidden by attributes or CSS, with the reason and the text.

    Only elements with a ``style``, ``hidden`` or ``aria-hidden`` attribute, or a page rule,
    can hide anything, so only those are judged. Inside a large hidden element (a page hidden
    until a script fades it in) hidden elements are judged on their own as well: a note
    planted there is short.
    """
    styled = set(page.styled) | set(sheet)
    if not styled:
        return
    hidden: set[Any] = set()
    for element in page.body:
        if element not in styled:
            continue
        style = _element_style(element, sheet)
        reason = hidden_reason(element, style)
        if reason is None and _paints(style) and _same_paint(element, styled, sheet):
            reason = "text colour matches background"
        if reason is None or _out_of_flow(element, hidden):
            continue
        text = _element_text(element)
        if reason != "aria-hidden" or text.strip():
            if len(text) <= LARGE_HIDDEN:
                hidden.add(element)
            yield element, reason, text


def _out_of_flow(element: Any, hidden: set[Any]) -> bool:
    """Inside an element already reported hidden, or one that is never rendered."""
    return (
        any(
            ancestor in hidden or ancestor.tag in _NOT_RENDERED
            for ancestor in element.iterancestors()
        )
        or element.tag in _NOT_RENDERED
    )


def _paints(style: Mapping[str, str]) -> bool:
    return "color" in style or "background" in style or "background-color" in style


def _same_paint(element: Any, styled: set[Any], sheet: Mapping[Any, dict[str, str]]) -> bool:
    """Text colour equals the background behind it (defaults: black on white)."""
    color: Color | None = None
    background: Color | None = None
    background_known = False
    for node in (element, *element.iterancestors()):
        if node not in styled:
            continue
        style = _element_style(node, sheet)
        if color is None and "color" in style:
            own = parse_color(style["color"])
            color = own if own is not None and own[3] >= 0.1 else None
        if not background_known:
            background, background_known = _background(style)
        if color is not None and background_known:
            break
    color = color or _DEFAULT_PAINT[0]
    background = background if background_known else _DEFAULT_PAINT[1]
    if background is None or not same_color(color, background):
        return False

    def repainted(node: Any) -> bool:
        return node in styled and _paints(_element_style(node, sheet))

    return bool(_element_text(element, repainted).strip())


def _background(style: Mapping[str, str]) -> tuple[Color | None, bool]:
    """(colour, known): ``(None, True)`` for an image or gradient, ``(None, False)`` if unset."""
    for name in ("background-color", "background"):
        value = style.get(name)
        if value is None:
            continue
        if "url(" in value or "gradient(" in value:
            return None, True
        own = first_color(value)
        if own is not None and own[3] >= 0.5:
            return own, True
    return None, False


def _comments(root: Any, page: PageElements) -> Iterator[Any]:
    yield from root.itersiblings(etree.Comment, preceding=True)
    yield from page.comments
    yield from root.itersiblings(etree.Comment)


def _meta_text(element: Any) -> str | None:
    name = element.get("name") or element.get("property") or element.get("itemprop") or ""
    name = name.strip().lower()
    if name in _META_NAMES or name.startswith(_META_PREFIXES):
        return element.get("content")
    return None


@dataclass
class _HtmlCollector:
    """Accumulates findings and strip targets while ``scan_html`` walks the document."""

    page_host: str
    findings: list[Finding] = field(default_factory=list)
    remove: list[Any] = field(default_factory=list)
    unwrap: list[Any] = field(default_factory=list)
    attributes: list[tuple[Any, str]] = field(default_factory=list)
    requests: set[str] = field(default_factory=set)
    scrub: list[Any] = field(default_factory=list)

    def container(
        self, text: str, location: str, *, hidden: bool, quotable: bool, place: str = ""
    ) -> bool:
        """Judge text from a place Markdown does not show (``place``: how it is hidden, for
        :func:`~convert.safety.intent.hiddenness`; none for text in plain sight such as meta
        tags); returns whether to strip it."""
        if len(text.strip()) < _MIN_TEXT:
            return False
        analysis = analyse(text)
        self.findings.extend(obfuscation_findings(analysis, location, quotable=quotable))
        live = live_hits(analysis)
        smuggled = analysis.hidden_kinds()
        kind = "hidden_instructions" if hidden else "comment_instructions"
        if not live and not smuggled:
            return self._request(analysis.clean, location, kind, place, hidden=hidden)
        kinds = {hit.kind for hit in live} | smuggled
        variant = kind if kinds - {"ai_addressed"} else f"{kind}/addressed"
        if quotable and not smuggled and all(analysis.is_quoted(hit) for hit in live):
            variant = "comment_instructions/quoted"
        severity = SEVERITY[variant]
        sample = sample_of(analysis.sentence(live[0]) if live else analysis.clean)
        self.findings.append(Finding(kind, severity, location, sample))
        return severity >= SEVERITY["comment_instructions/addressed"]

    def _first_time(self, text: str) -> bool:
        """Whether this request text is new on the page: a text repeated is a template's
        (one per product, per comment), counted once."""
        key = collapse_space(text).lower()
        if key in self.requests:
            return False
        self.requests.add(key)
        return True

    def _request(self, clean: str, location: str, kind: str, place: str, *, hidden: bool) -> bool:
        """Hidden text without override phrases: a request to an assistant, weighed by how
        hidden it is, or page furniture."""
        found = intent(clean) if place else None
        if found is not None and found.instruction and self._first_time(clean):
            severity = request_severity(found, hiddenness(place, len(clean)))
            sample = sample_of(clean[found.start : found.end])
            self.findings.append(Finding(kind, severity, location, sample))
            return severity >= STRIPPED_REQUEST
        if hidden:
            self.findings.append(
                Finding("hidden_text", SEVERITY["hidden_text"], location, sample_of(clean))
            )
        return False

    def url(self, element: Any, value: str | None, base: str, *, image: bool) -> None:
        if not value or (len(value) <= LONG_QUERY and not URL_SUSPECT_RE.search(value)):
            return
        try:
            absolute = urljoin(base, value.strip()) if base else value.strip()
        except ValueError:
            absolute = value.strip()
        variant = judge_url(absolute, self.page_host)
        if variant is None:
            return
        if image and variant == "data" and any(True for _ in element.iterancestors("noscript")):
            variant = "template"  # a tracking pixel's, shown to no model and no reader
        severity = url_severity(variant, image)
        location = "image" if image else "link"
        self.findings.append(Finding("exfiltration_link", severity, location, sample_of(value)))
        if severity >= STRIPPED_LINK:
            (self.remove if image else self.unwrap).append(element)


def _host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def scan_html(root: Any, url: str) -> HtmlScan:
    """Scan the raw document ``root`` (not modified) for injection outside the rendered text."""
    collector = _HtmlCollector(page_host=_host(url))
    page = page_elements(root)
    sheet = stylesheet_styles(root, can_hide, page.keyed, page.tagged["styles"])
    for element, reason, text in _hidden_roots(page, sheet):
        flagged = collector.container(
            text, "hidden_text", hidden=True, quotable=False, place=reason
        )
        if flagged and len(text) <= LARGE_HIDDEN:
            collector.remove.append(element)
    _scan_invisible_text(root, collector)
    for comment in _comments(root, page):
        text = collapse_space(comment.text or "")
        if collector.container(
            text, "html_comment", hidden=False, quotable=False, place="html_comment"
        ):
            collector.remove.append(comment)
    for element in page.tagged["unrendered"]:
        text = _element_text(element)
        if collector.container(text, element.tag, hidden=False, quotable=False, place=element.tag):
            collector.remove.append(element)
    _scan_attributes(page, collector)
    _scan_metadata(page, collector)
    for element in page.tagged["links"]:
        collector.url(element, element.get("href"), url, image=False)
    for element in page.tagged["images"]:
        for name in ("src", "data-src"):
            collector.url(element, element.get(name), url, image=True)
    for element in root.iter(*_ROLE_TAGS):
        collector.findings.append(
            Finding(
                "role_marker", SEVERITY["role_marker"], "html_tag", sample_of(f"<{element.tag}>")
            )
        )
    return HtmlScan(
        findings=tuple(collector.findings),
        remove=tuple(dict.fromkeys(collector.remove)),
        unwrap=tuple(dict.fromkeys(collector.unwrap)),
        attributes=tuple(dict.fromkeys(collector.attributes)),
        scrub=tuple(dict.fromkeys(collector.scrub)),
    )


def _scan_invisible_text(root: Any, collector: _HtmlCollector) -> None:
    """Page text carrying invisible characters (tag characters, words broken up by zero-width
    characters), wherever it is: judged per block, its invisible characters scrubbed when it
    carries a request (the block removed when the whole of it is one)."""
    body = root.find("body")
    scope = body if body is not None else root
    text = etree.tostring(scope, method="text", encoding="utf-8", with_tail=False)
    if not INVISIBLE_UTF8_RE.search(text):
        return
    judged: set[Any] = set()
    for node in scope.iter(etree.Element):
        if node.tag in _NO_TEXT or not any(
            INVISIBLE_RE.search(part) for part in (node.text, node.tail) if part
        ):
            continue
        block = node if node.tag in _BLOCKS else _block_of(node)
        if block in judged:
            continue
        judged.add(block)
        text = _element_text(block)
        if not TAG_RUN_RE.search(text) and len(_BROKEN_WORD_RE.findall(text)) < MIN_BROKEN_WORDS:
            continue
        before = len(collector.findings)
        if collector.container(text, "page_text", hidden=True, quotable=True, place="zero_width"):
            whole = len(text) <= LARGE_HIDDEN and not TAG_RUN_RE.search(text)
            (collector.remove if whole else collector.scrub).append(block)
        elif not TAG_RUN_RE.search(text):
            del collector.findings[before:]  # ordinary text; the Markdown scan reports it


_BROKEN_WORD_RE: Final = re.compile("[^\\W\\d_][\u200b-\u200d\u2060-\u2064\ufeff]+(?=[^\\W\\d_])")


def _block_of(node: Any) -> Any:
    for ancestor in node.iterancestors():
        if ancestor.tag in _BLOCKS:
            return ancestor
    return node


def _scan_attributes(page: PageElements, collector: _HtmlCollector) -> None:
    """Text attributes; a value repeated on the page (a template's label) is judged once."""
    judged: dict[tuple[str, str], bool] = {}
    for element in page.labelled:
        for name in _TEXT_ATTRIBUTES:
            value = collapse_space(element.get(name) or "")
            if len(value) < 8:
                continue
            strip = judged.get((name, value))
            if strip is None:
                strip = judged[name, value] = collector.container(
                    value,
                    f"attribute:{name}",
                    hidden=False,
                    quotable=True,
                    place=f"attribute:{name}" if name in _DESCRIBING_ATTRIBUTES else "",
                )
            if strip:
                collector.attributes.append((element, name))


def _scan_metadata(page: PageElements, collector: _HtmlCollector) -> None:
    for element in page.tagged["metadata"]:
        text = collapse_space(
            (element.text if element.tag == "title" else _meta_text(element)) or ""
        )
        if text and collector.container(text, "meta", hidden=False, quotable=True):
            collector.remove.append(element)
