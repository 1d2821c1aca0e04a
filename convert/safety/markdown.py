"""The Markdown scan: findings in the text a model reads, and the edits that remove them."""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable
from typing import Final

from convert.safety.analysis import Analysis, analyse, hit_severity, live_hits, sentence_span
from convert.safety.intent import Intent, hiddenness, intent
from convert.safety.intent import severity as request_severity
from convert.safety.links import REPORTED_LINK, STRIPPED_LINK
from convert.safety.normalise import sample_of
from convert.safety.phrases import Hit, phrase_kinds
from convert.safety.signals import QUOTED_FACTOR, SEVERITY, Edit, Finding, TextScan
from convert.safety.unicode import InvisibleRun

MIN_BROKEN_WORDS: Final = 3
"""Zero-width characters inside words, in one sentence, that make it an evasion (a long word
broken for line wrapping has one or two)."""

# --------------------------------------------------------------------------------------------
# Findings shared by every channel: invisible characters, homoglyphs, encoded payloads
# --------------------------------------------------------------------------------------------


def obfuscation_findings(analysis: Analysis, location: str, *, quotable: bool) -> list[Finding]:
    """Invisible characters, homoglyphs and encoded payloads; ``quotable`` channels report those
    inside quotes or code as quoted examples."""
    findings = _invisible_findings(analysis, location)
    findings.extend(_homoglyph_findings(analysis, location, quotable=quotable))
    for payload in analysis.payloads:
        severity = SEVERITY["encoded_payload" if payload.kinds else "encoded_payload/text"]
        where = location
        if quotable and payload.kinds and analysis.quoted.covers(payload.start):
            severity, where = severity * QUOTED_FACTOR, "quoted"
        findings.append(Finding("encoded_payload", severity, where, sample_of(payload.decoded)))
    return findings


def _invisible_findings(analysis: Analysis, location: str) -> list[Finding]:
    findings: list[Finding] = []
    counts: dict[str, int] = {}
    for item in analysis.invisible:
        if item.variant == "tags":
            findings.extend(_tag_findings(item, location))
        else:
            counts[item.variant] = counts.get(item.variant, 0) + item.count
    for variant, count in sorted(counts.items()):
        severity = SEVERITY[f"invisible_unicode/{variant}"]
        sample = f"{count} invisible {variant.replace('_', '-')} character(s)"
        findings.append(Finding("invisible_unicode", severity, location, sample, count))
    for index in sorted(analysis.evasions):
        sample = sample_of(analysis.sentence(analysis.hits[index]))
        findings.append(
            Finding("invisible_unicode", SEVERITY["invisible_unicode"], location, sample)
        )
    return findings


def _tag_findings(item: InvisibleRun, location: str) -> list[Finding]:
    sample = sample_of(f"tag characters: {item.decoded}")
    findings = [Finding("invisible_unicode", SEVERITY["invisible_unicode/tags"], location, sample)]
    found = intent(item.decoded) if not phrase_kinds(item.decoded) else None
    if found is not None and found.instruction:
        severity = request_severity(found, hiddenness("unicode_tags", len(item.decoded)))
        findings.append(
            Finding("hidden_instructions", severity, "unicode_tags", sample_of(item.decoded))
        )
    elif found is None:
        severity = SEVERITY["hidden_instructions"]
        findings.append(
            Finding("hidden_instructions", severity, "unicode_tags", sample_of(item.decoded))
        )
    return findings


def _homoglyph_findings(analysis: Analysis, location: str, *, quotable: bool) -> list[Finding]:
    findings: list[Finding] = []
    strong_spans: list[tuple[int, int]] = []
    for hit in analysis.hits:
        if hit.homoglyph:
            span = sentence_span(analysis.norm, hit.start, hit.end)
            strong_spans.append(span)
            severity, where = SEVERITY["homoglyph"], location
            if quotable and analysis.is_quoted(hit):
                severity, where = severity * QUOTED_FACTOR, "quoted"
            findings.append(
                Finding("homoglyph", severity, where, sample_of(analysis.norm[slice(*span)]))
            )
    weak = [
        (start, end)
        for start, end in analysis.homoglyph_words
        if not any(s <= start < e for s, e in strong_spans)
    ]
    if weak:
        start, end = weak[0]
        sample = sample_of(f"{analysis.clean[start:end]} ({analysis.norm[start:end]})")
        findings.append(
            Finding("homoglyph", SEVERITY["homoglyph/weak"], location, sample, len(weak))
        )
    return findings


# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------


def _checksum(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def scan_markdown(markdown: str) -> TextScan:
    """Signals in the Markdown a model will read, and the edits that would remove them."""
    analysis = analyse(markdown)
    findings = obfuscation_findings(analysis, "markdown", quotable=True)
    edits = [Edit(item.start, item.end) for item in analysis.invisible]
    for hit in live_hits(analysis):
        in_quote = analysis.is_quoted(hit)
        if hit.homoglyph and not in_quote:
            edits.append(_sentence_edit(analysis, hit))
            continue
        severity = hit_severity(analysis, hit)
        location = "markdown"
        if in_quote:
            severity, location = severity * QUOTED_FACTOR, "quoted"
        elif severity >= SEVERITY["ai_addressed"]:
            edits.append(_hit_edit(analysis, hit))
        sample = sample_of(analysis.sentence(hit))
        findings.append(Finding(hit.kind, round(severity, 4), location, sample))
    for link in analysis.links:
        if link.severity < REPORTED_LINK or analysis.quoted.covers(link.start):
            continue
        sample = sample_of(analysis.clean[link.start : link.end])
        findings.append(Finding("exfiltration_link", link.severity, "markdown", sample))
        if link.severity >= STRIPPED_LINK:
            start, end = analysis.offsets.source_span(link.start, link.end)
            edits.append(Edit(start, end, "" if link.image else link.text))
    for payload in analysis.payloads:
        if payload.kinds and not analysis.quoted.covers(payload.start):
            edits.append(Edit(*analysis.offsets.source_span(payload.start, payload.end)))
    for start, end, found in _broken_requests(analysis):
        sample = sample_of(analysis.clean[start:end])
        severity = request_severity(found, hiddenness("zero_width", end - start))
        findings.append(Finding("invisible_unicode", severity, "markdown", sample))
        edits.append(Edit(*analysis.offsets.source_span(start, end)))
    return TextScan(tuple(findings), tuple(edits), _checksum(markdown))


def _broken_requests(analysis: Analysis) -> list[tuple[int, int, Intent]]:
    """Sentences (in the cleaned text) whose words are broken up by zero-width characters
    (``MIN_BROKEN_WORDS`` or more breaks inside words: a keyword filter's evasion) and that
    read as a request to an assistant, with what was found."""
    source = analysis.source
    breaks: dict[tuple[int, int], int] = {}
    removed = 0
    for item in analysis.invisible:
        inside = (
            item.variant == "zero_width"
            and item.start > 0
            and item.end < len(source)
            and source[item.start - 1].isalpha()
            and source[item.end].isalpha()
        )
        position = item.start - removed
        removed += item.end - item.start
        if inside:
            span = sentence_span(analysis.clean, position, position)
            breaks[span] = breaks.get(span, 0) + 1
    found: list[tuple[int, int, Intent]] = []
    for (start, end), count in breaks.items():
        if count >= MIN_BROKEN_WORDS:
            request = intent(analysis.clean[start:end])
            if request.instruction:
                found.append((start, end, request))
    return found


def _sentence_edit(analysis: Analysis, hit: Hit) -> Edit:
    start, end = sentence_span(analysis.clean, hit.start, hit.end)
    return Edit(*analysis.offsets.source_span(start, end))


def _hit_edit(analysis: Analysis, hit: Hit) -> Edit:
    if hit.scope == "token":
        end = _framed_end(analysis.clean, hit) if hit.kind == "role_marker" else hit.end
        return Edit(*analysis.offsets.source_span(hit.start, end))
    return _sentence_edit(analysis, hit)


_CLOSING_ROLE_RE: Final = re.compile(
    r"<\|\s*(?:im_end|end|eot_id|endoftext)\s*\|>|\[/inst\]|<</sys>>|</s>|<end_of_turn>"
    r"|\[/system\]|<\s*/\s*(?:system|system_prompt|im_start|im_end)\s*>",
    re.IGNORECASE,
)


def _framed_end(clean: str, hit: Hit) -> int:
    """Where the message a role marker opens ends: its closing marker on the same line, or the
    end of the line (a role marker that closes frames nothing after it)."""
    token = clean[hit.start : hit.end].lower()
    if _CLOSING_ROLE_RE.fullmatch(token.strip()) or "/" in token[:3]:
        return hit.end
    line_end = clean.find("\n", hit.end)
    line_end = len(clean) if line_end < 0 else line_end
    closing = _CLOSING_ROLE_RE.search(clean, hit.end, line_end)
    return closing.end() if closing is not None else line_end


_MARKER_ONLY_RE: Final = re.compile(r"[ \t]*(?:(?:>|[*+-]|\d{1,9}[.)]|#{1,6}|\*\*|__|`|:)[ \t]*)*")
_BLANK_LINE_RE: Final = re.compile(r"\n[ \t]+(?=\n)")
_BLANK_RUNS_RE: Final = re.compile(r"\n{3,}")


def _apply_edits(source: str, edits: Iterable[Edit]) -> tuple[str, list[int]]:
    """Apply non-overlapping edits (overlaps merge); returns the text and edit positions."""
    ordered = sorted(edits, key=lambda edit: (edit.start, -edit.end))
    pieces: list[str] = []
    marks: list[int] = []
    cursor = 0
    length = 0
    for edit in ordered:
        if edit.end <= cursor and edit.start < cursor:
            continue
        start = max(edit.start, cursor)
        pieces.append(source[cursor:start])
        length += start - cursor
        marks.append(length)
        pieces.append(edit.text)
        length += len(edit.text)
        cursor = max(cursor, edit.end)
    pieces.append(source[cursor:])
    return "".join(pieces), marks


def _drop_emptied_lines(text: str, marks: list[int]) -> str:
    if not marks:
        return text
    lines = text.split("\n")
    kept: list[str] = []
    position = 0
    k = 0
    for line in lines:
        end = position + len(line)
        touched = False
        while k < len(marks) and marks[k] <= end:
            touched = touched or marks[k] >= position
            k += 1
        if not (touched and _MARKER_ONLY_RE.fullmatch(line)):
            kept.append(line)
        elif kept and kept[-1].strip():
            kept.append("")
        position = end + 1
    return "\n".join(kept)


def _tidy(text: str) -> str:
    return _BLANK_RUNS_RE.sub("\n\n", _BLANK_LINE_RE.sub("\n", text))


def strip_markdown(markdown: str, scan: TextScan) -> str:
    """Remove the risky spans ``scan`` found: invisible characters, role markers, instruction
    sentences outside code and quotes, encoded instructions and exfiltration links."""
    if scan.checksum != _checksum(markdown):
        scan = scan_markdown(markdown)
    text, marks = _apply_edits(markdown, scan.edits)
    return _tidy(_drop_emptied_lines(text, marks))
