"""The HTML scan: what Markdown rendering drops or hides (CSS-hidden elements, comments,
noscript, template, attributes, meta tags) and link and image URLs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urljoin, urlsplit

from lxml import etree

from convert.html.css import stylesheet_styles
from convert.html.elements import PageElements, page_elements
from convert.html.hiding import can_hide
from convert.safety.analysis import analyse, live_hits, plainly_clear
from convert.safety.form import asked_for
from convert.safety.hidden import BLOCKS, NO_TEXT, element_text, hidden_texts
from convert.safety.intent import LARGE_HIDDEN, STRIPPED_REQUEST, hiddenness, intent
from convert.safety.intent import severity as request_severity
from convert.safety.links import (
    STRIPPED_LINK,
    judge_url,
    suspect_url,
    suspect_urls,
    url_severity,
)
from convert.safety.markdown import MIN_BROKEN_WORDS, obfuscation_findings
from convert.safety.normalise import collapse_space, sample_of
from convert.safety.own import PageText, page_own, without_controls
from convert.safety.signals import SEVERITY, Finding, HtmlScan
from convert.safety.unicode import INVISIBLE_RE, TAG_RUN_RE, has_invisible, non_ascii_chars

# --------------------------------------------------------------------------------------------
# The HTML document
# --------------------------------------------------------------------------------------------

_TEXT_ATTRIBUTES: Final = ("alt", "title", "aria-label", "aria-description")
_META_NAMES: Final = frozenset({"description", "keywords", "abstract", "subject", "summary"})
_META_PREFIXES: Final = ("og:", "twitter:", "dc.", "dcterms.")
_ROLE_TAGS: Final = ("system", "system_prompt", "instructions", "instruction", "assistant")
_DESCRIBING_ATTRIBUTES: Final = frozenset({"alt", "aria-description"})
"""Attributes that describe rather than label: requests hidden in them count (a title or an
aria-label names a control, and reads like one: "Follow this answer", "Rate this recipe")."""
_MIN_TEXT: Final = 2
_MIN_ATTRIBUTE: Final = 8
"""Shorter attribute values are labels ("Close", "Search"), not judged."""


def _comments(root: Any, page: PageElements) -> Iterator[Any]:
    yield from root.itersiblings(etree.Comment, preceding=True)
    yield from page.comments
    yield from root.itersiblings(etree.Comment)


def _meta_text(element: Any) -> str | None:
    name = element.get("name") or element.get("property") or element.get("itemprop") or ""
    name = name.strip().lower()
    if name in _META_NAMES or name.startswith(_META_PREFIXES):
        content = element.get("content")
        return None if content is None else str(content)
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
    page_text: PageText = field(default_factory=lambda: PageText(None))

    def container(
        self,
        text: str,
        location: str,
        *,
        hidden: bool,
        quotable: bool,
        place: str = "",
        length: int | None = None,
        at_least: float = 0.0,
        element: Any = None,
    ) -> bool:
        """Judge text from a place Markdown does not show (``place``: how it is hidden, for
        :func:`~convert.safety.intent.hiddenness`; none for text in plain sight such as meta
        tags; ``length``: of the whole hidden text, when ``text`` leaves parts of it out;
        ``at_least``: how hidden the text is at least, when an element around it hides it
        too; ``element``: the element the text is of, when it has one); returns whether to
        strip it."""
        if len(text.strip()) < _MIN_TEXT:
            return False
        kind = "hidden_instructions" if hidden else "comment_instructions"
        # Most texts have nothing for the full analysis to find; the phrase scan alone says so.
        analysis = None if plainly_clear(text) else analyse(text)
        if analysis is not None:
            self.findings.extend(obfuscation_findings(analysis, location, quotable=quotable))
        live = [] if analysis is None else live_hits(analysis)
        smuggled = set() if analysis is None else analysis.hidden_kinds()
        if analysis is None or (not live and not smuggled):
            clean = text if analysis is None else analysis.clean
            size = len(clean) + (0 if length is None else max(0, length - len(text)))
            weight = max(hiddenness(place, size), at_least)
            return self._request(
                clean, location, kind, place, hidden=hidden, weight=weight, element=element
            )
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

    def _request(
        self,
        clean: str,
        location: str,
        kind: str,
        place: str,
        *,
        hidden: bool,
        weight: float,
        element: Any = None,
    ) -> bool:
        """Hidden text without override phrases: a request to an assistant, weighed by how
        hidden it is (``weight``), or page furniture."""
        found = intent(clean) if place else None
        if (
            found is not None
            and found.instruction
            and page_own(
                self.page_text,
                clean,
                clean[found.start : found.end],
                location,
                element,
                form=found.form,
                asked=found.form and asked_for(clean[found.start : found.end], found.cues),
            )
        ):
            found = None
        if found is not None and found.instruction and self._first_time(clean):
            severity = request_severity(found, weight)
            sample = sample_of(clean[found.start : found.end])
            self.findings.append(Finding(kind, severity, location, sample, form=found.form))
            return severity >= STRIPPED_REQUEST
        if hidden:
            self.findings.append(
                Finding("hidden_text", SEVERITY["hidden_text"], location, sample_of(clean))
            )
        return False

    def url(self, element: Any, value: str | None, base: str, *, image: bool) -> None:
        if not value or not suspect_url(value):
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


def scan_html(root: Any, url: str, page: PageElements | None = None) -> HtmlScan:
    """Scan the raw document ``root`` (not modified) for injection outside the rendered text
    (``page``: its :func:`~convert.html.elements.page_elements`, when the caller has
    them)."""
    collector = _HtmlCollector(page_host=_host(url), page_text=PageText(root))
    page = page_elements(root) if page is None else page
    sheet = stylesheet_styles(root, can_hide, page.keyed, page.tagged["styles"])
    for hidden in hidden_texts(page, sheet):
        flagged = collector.container(
            hidden.text,
            "hidden_text",
            hidden=True,
            quotable=False,
            place=hidden.reason,
            length=hidden.length,
            at_least=hiddenness(*hidden.enclosing) if hidden.enclosing else 0.0,
            element=hidden.element,
        )
        if flagged and hidden.length <= LARGE_HIDDEN:
            collector.remove.append(hidden.element)
    _scan_invisible_text(root, collector)
    for comment in _comments(root, page):
        text = without_controls(collapse_space(comment.text or ""))
        if collector.container(
            text, "html_comment", hidden=False, quotable=False, place="html_comment"
        ):
            collector.remove.append(comment)
    for element in page.tagged["unrendered"]:
        text = element_text(element)
        if collector.container(text, element.tag, hidden=False, quotable=False, place=element.tag):
            collector.remove.append(element)
    _scan_attributes(page, collector)
    _scan_metadata(page, collector)
    _scan_urls(page, collector, url)
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


def _scan_urls(page: PageElements, collector: _HtmlCollector, base: str) -> None:
    """Link and image URLs: the few worth parsing found by one search of them all."""
    found: list[tuple[Any, str, bool]] = []
    for element in page.tagged["links"]:
        href = element.get("href")
        if href:
            found.append((element, href, False))
    for element in page.tagged["images"]:
        for name in ("src", "data-src"):
            source = element.get(name)
            if source:
                found.append((element, source, True))
    for index in suspect_urls([value for _, value, _ in found]):
        element, value, image = found[index]
        collector.url(element, value, base, image=image)


def _scan_invisible_text(root: Any, collector: _HtmlCollector) -> None:
    """Page text carrying invisible characters (tag characters, words broken up by zero-width
    characters), wherever it is: judged per block, its invisible characters scrubbed when it
    carries a request (the block removed when the whole of it is one)."""
    body = root.find("body")
    scope = body if body is not None else root
    text = etree.tostring(scope, method="text", encoding="utf-8", with_tail=False)
    if not has_invisible(text):
        return
    judged: set[Any] = set()
    for node in _carrying_invisible(scope):
        block = node if node.tag in BLOCKS else _block_of(node)
        if block in judged:
            continue
        judged.add(block)
        if not _may_hide_words(block):
            continue
        text = element_text(block)
        if not TAG_RUN_RE.search(text) and len(_BROKEN_WORD_RE.findall(text)) < MIN_BROKEN_WORDS:
            continue
        before = len(collector.findings)
        if collector.container(text, "page_text", hidden=True, quotable=True, place="zero_width"):
            whole = len(text) <= LARGE_HIDDEN and not TAG_RUN_RE.search(text)
            (collector.remove if whole else collector.scrub).append(block)
        elif not TAG_RUN_RE.search(text):
            del collector.findings[before:]  # ordinary text; the Markdown scan reports it


_BREAK: Final = "[\u200b-\u200d\u2060-\u2064\ufeff]"
_BROKEN_WORD_RE: Final = re.compile(f"[^\\W\\d_]{_BREAK}+(?=[^\\W\\d_])")
_BREAK_RE: Final = re.compile(_BREAK)


_NARROWED_LEVELS: Final = 12
"""How many levels of branches are passed over by their serialized text; below, each
element's text is looked at (each level serializes the page's text once more)."""


def _carrying_invisible(scope: Any) -> Iterator[Any]:
    """The elements of ``scope`` (itself included, scripts and styles left out) whose own text
    or tail holds an invisible character, in document order. Down to ``_NARROWED_LEVELS``
    levels, a branch whose text (serialized by libxml2, in C) holds none is passed over whole:
    a page with invisible characters most often has a few, and a look at each element's text
    from Python costs ten times more."""
    stack = [(scope, 0)]
    while stack:
        node, level = stack.pop()
        if level >= _NARROWED_LEVELS:
            yield from (element for element in node.iter(etree.Element) if _carries(element))
            continue
        if _carries(node):
            yield node
        stack.extend(
            (child, level + 1)
            for child in node.iterchildren(etree.Element, reversed=True)
            if has_invisible(etree.tostring(child, method="text", encoding="utf-8"))
        )


def _carries(element: Any) -> bool:
    """Whether the element's own text or tail holds an invisible character (a script's or a
    style's is not page text)."""
    return element.tag not in NO_TEXT and any(
        INVISIBLE_RE.search(part) for part in (element.text, element.tail) if part
    )


def _may_hide_words(block: Any) -> bool:
    """Whether the block's text (:func:`element_text`) may hold tag characters or
    ``MIN_BROKEN_WORDS`` words broken by zero-width characters: its text as libxml2 serializes
    it holds every character of that text (and scripts' and styles'), so fewer there means
    fewer in it."""
    others = non_ascii_chars(
        etree.tostring(block, method="text", encoding="unicode", with_tail=False)
    )
    return bool(TAG_RUN_RE.search(others)) or len(_BREAK_RE.findall(others)) >= MIN_BROKEN_WORDS


def _block_of(node: Any) -> Any:
    for ancestor in node.iterancestors():
        if ancestor.tag in BLOCKS:
            return ancestor
    return node


def _scan_attributes(page: PageElements, collector: _HtmlCollector) -> None:
    """Text attributes; a value repeated on the page (a template's label) is judged once."""
    judged: dict[tuple[str, str], bool] = {}
    for element in page.labelled:
        for name in _TEXT_ATTRIBUTES:
            value = element.get(name)
            if value is None or len(value) < _MIN_ATTRIBUTE:
                continue  # collapsing its spaces would only make it shorter
            value = collapse_space(value)
            if len(value) < _MIN_ATTRIBUTE:
                continue
            strip = judged.get((name, value))
            if strip is None:
                describing = name in _DESCRIBING_ATTRIBUTES
                # A label in plain sight without a phrase holds nothing to judge.
                strip = judged[name, value] = (describing or not plainly_clear(value)) and (
                    collector.container(
                        value,
                        f"attribute:{name}",
                        hidden=False,
                        quotable=True,
                        place=f"attribute:{name}" if describing else "",
                        element=element,
                    )
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
