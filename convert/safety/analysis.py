"""One analysis of a text shared by every channel: invisible characters, homoglyphs, phrase
hits, payloads and links, with the sentence and quotation context."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final

from convert.safety.links import STRIPPED_LINK, Link, find_links
from convert.safety.normalise import normalise
from convert.safety.payloads import MIN_BLOB, Payload, find_payloads
from convert.safety.phrases import (
    DISCUSSION_RE,
    IMPERATIVE_RE,
    NEGATION_RE,
    Hit,
    phrase_kinds,
    phrase_matches,
)
from convert.safety.signals import SEVERITY
from convert.safety.unicode import (
    GREEK_CYRILLIC_RE,
    INVISIBLE_RE,
    InvisibleRun,
    OffsetMap,
    find_homoglyph_words,
    find_invisible,
    non_ascii_chars,
    remove_runs,
)
from convert.text.blocks import fenced_lines
from convert.text.memo import small_key_cache

# --------------------------------------------------------------------------------------------
# Text analysis shared by every channel
# --------------------------------------------------------------------------------------------


@dataclass(eq=False)
class Analysis:
    """Shared between callers (remembered by :func:`analyse`): never changed."""

    source: str
    clean: str
    norm: str
    offsets: OffsetMap
    invisible: tuple[InvisibleRun, ...]
    hits: tuple[Hit, ...]
    homoglyph_words: tuple[tuple[int, int], ...]
    payloads: tuple[Payload, ...]
    links: tuple[Link, ...]
    evasions: frozenset[int] = field(default_factory=frozenset)

    @functools.cached_property
    def quoted(self) -> _Ranges:
        """Code and quotation ranges of the cleaned text (computed when first needed)."""
        return _quoted_ranges(self.clean)

    def is_quoted(self, hit: Hit) -> bool:
        """In code, a blockquote or quotation marks, or in a sentence discussing attacks."""
        if self.quoted.covers(hit.start):
            return True
        start, end = sentence_span(self.norm, hit.start, hit.end)
        return DISCUSSION_RE.search(self.norm, start, end) is not None

    def sentence(self, hit: Hit) -> str:
        return self.clean[slice(*sentence_span(self.clean, hit.start, hit.end))]

    def hidden_kinds(self) -> set[str]:
        """Instruction types carried by tag characters, encoded payloads or exfiltration URLs."""
        kinds: set[str] = set()
        for item in self.invisible:
            kinds |= phrase_kinds(item.decoded) if item.decoded else set()
        for payload in self.payloads:
            kinds |= payload.kinds
        if any(link.severity >= STRIPPED_LINK for link in self.links):
            kinds.add("exfiltration_link")
        return kinds


_SAME_PLACES: Final = OffsetMap()
"""The offsets of a text from which nothing was removed."""


@small_key_cache(4096)
def analyse(source: str) -> Analysis:
    """The analysis of ``source`` (remembered: pages repeat their labels and comments)."""
    if source.isascii():  # most texts: nothing invisible, no homoglyph
        invisible: list[InvisibleRun] = []
        clean, offsets, words, others = source, _SAME_PLACES, [], ""
    else:
        others = non_ascii_chars(source)  # what the searches below look at first
        invisible = find_invisible(source) if INVISIBLE_RE.search(others) else []
        clean, offsets = remove_runs(source, invisible)
        words = find_homoglyph_words(clean) if GREEK_CYRILLIC_RE.search(others) else []
    norm = normalise(clean, words, others)
    hits = phrase_matches(norm)
    if words:
        starts = [start for start, _ in words]
        hits = [
            Hit(hit.kind, hit.scope, hit.start, hit.end, _overlaps(starts, words, hit))
            for hit in hits
        ]
    evasions = _evasions(hits, offsets, invisible)
    return Analysis(
        source=source,
        clean=clean,
        norm=norm,
        offsets=offsets,
        invisible=tuple(invisible),
        hits=tuple(hits),
        homoglyph_words=tuple(words),
        payloads=tuple(find_payloads(clean)),
        links=tuple(find_links(clean)),
        evasions=evasions,
    )


@small_key_cache(4096)
def plainly_clear(source: str) -> bool:
    """Whether :func:`analyse` would find nothing in ``source`` (no phrase, invisible
    character, look-alike letter, payload or link: its ``clean`` text then is ``source``),
    known from the phrase scan alone: for an ASCII text too short for a payload and without a
    link, most labels and hidden snippets. Remembered like :func:`analyse`."""
    return (
        len(source) < MIN_BLOB
        and source.isascii()
        and "://" not in source
        and "](" not in source
        and not phrase_matches(source.lower())
    )


def _overlaps(starts: list[int], spans: list[tuple[int, int]], hit: Hit) -> bool:
    k = bisect.bisect_left(starts, hit.end) - 1
    return k >= 0 and spans[k][1] > hit.start


def _evasions(hits: list[Hit], offsets: OffsetMap, invisible: list[InvisibleRun]) -> frozenset[int]:
    """Indexes of hits whose source text has invisible characters inside."""
    if not invisible:
        return frozenset()
    runs = [item for item in invisible if item.variant != "tags"]
    ends = [item.end for item in runs]
    found: set[int] = set()
    for index, hit in enumerate(hits):
        start, end = offsets.source_span(hit.start, hit.end)
        k = bisect.bisect_right(ends, start)
        if k < len(runs) and runs[k].start < end:
            found.add(index)
    return frozenset(found)


_SENTENCE_START_RE: Final = re.compile(r"(?:[.!?\u3002\uff01\uff1f][\"'\u201d\u2019)\]]*\s+|\n)")
_SENTENCE_END_RE: Final = re.compile(r"[.!?\u3002\uff01\uff1f][\"'\u201d\u2019)\]]*(?=\s|$)|\n")
_LINE_PREFIX_RE: Final = re.compile(r"[ \t]*(?:(?:>|[*+-]|\d{1,9}[.)]|#{1,6})[ \t]+){0,4}")


def sentence_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence around ``text[start:end]``: from the last boundary before to the next."""
    low = max(0, start - 400)
    left = low
    for match in _SENTENCE_START_RE.finditer(text, low, start):
        left = match.end()
    if left == 0 or text[left - 1] == "\n":
        prefix = _LINE_PREFIX_RE.match(text, left)
        if prefix is not None and prefix.end() <= start:
            left = prefix.end()
    closing = _SENTENCE_END_RE.search(text, end, min(len(text), end + 600))
    if closing is None:
        right = min(len(text), end + 600)
    else:
        right = closing.start() if closing.group() == "\n" else closing.end()
    while right < len(text) and text[right] in " \t":
        right += 1
    return left, right


# --------------------------------------------------------------------------------------------
# Quoted and code context in Markdown
# --------------------------------------------------------------------------------------------

_INLINE_CODE_RE: Final = re.compile(r"`[^`\n]+`")
_QUOTE_RES: Final = tuple(
    re.compile(pattern)
    for pattern in (
        r"\"[^\"\n]{1,500}\"",
        "\u201c[^\u201d\n]{1,500}\u201d",
        "\u00ab[^\u00bb\n]{1,500}\u00bb",
        "\u201e[^\u201c\u201d\n]{1,500}[\u201c\u201d]",
        "\u2018[^\u2019\n]{1,500}\u2019",
    )
)
_LIST_ITEM_RE: Final = re.compile(r"[ \t]*(?:[*+-]|\d{1,9}[.)])[ \t]")


@dataclass(frozen=True)
class _Ranges:
    """Sorted, merged ``[start, end)`` ranges."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]

    @classmethod
    def of(cls, spans: Iterable[tuple[int, int]]) -> _Ranges:
        merged: list[list[int]] = []
        for start, end in sorted(spans):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        return cls(tuple(s for s, _ in merged), tuple(e for _, e in merged))

    def covers(self, position: int) -> bool:
        k = bisect.bisect_right(self.starts, position) - 1
        return k >= 0 and position < self.ends[k]


def _block_ranges(text: str) -> Iterator[tuple[int, int]]:
    """Fenced and indented code blocks, and blockquote lines."""
    position = 0
    previous_blank = True
    previous_code = False
    for line, fenced in fenced_lines(text.split("\n")):
        stripped = line.strip()
        if fenced or stripped.startswith(">"):
            code = True
        else:
            code = (
                bool(stripped)
                and line.startswith(("    ", "\t"))
                and (previous_blank or previous_code)
                and not _LIST_ITEM_RE.match(line)
            )
        if code:
            yield position, position + len(line)
        previous_code = code or (previous_code and not stripped)
        previous_blank = not stripped
        position += len(line) + 1


def _quoted_ranges(text: str) -> _Ranges:
    spans = list(_block_ranges(text))
    spans.extend(m.span() for m in _INLINE_CODE_RE.finditer(text))
    if any(q in text for q in '"\u201c\u00ab\u201e\u2018'):
        for pattern in _QUOTE_RES:
            spans.extend(m.span() for m in pattern.finditer(text))
    return _Ranges.of(spans)


def _is_negated(analysis: Analysis, hit: Hit) -> bool:
    start, _ = sentence_span(analysis.norm, hit.start, hit.end)
    window_start = max(start, hit.start - 40)
    return NEGATION_RE.search(analysis.norm, window_start, hit.start) is not None


def _ai_variant(analysis: Analysis, hit: Hit) -> str:
    """How strongly an address to an AI reads as an instruction."""
    low, high = max(0, hit.start - 200), min(len(analysis.norm), hit.end + 300)
    if any(
        other.kind != "ai_addressed" and other.start < high and other.end > low
        for other in analysis.hits
    ):
        return "ai_addressed/combined"
    if IMPERATIVE_RE.search(analysis.norm, hit.start, high):
        return "ai_addressed"
    return "ai_addressed/mention"


def hit_severity(analysis: Analysis, hit: Hit) -> float:
    if hit.kind == "ai_addressed":
        return SEVERITY[_ai_variant(analysis, hit)]
    return SEVERITY[hit.kind]


def live_hits(analysis: Analysis) -> list[Hit]:
    """Hits that are not negated requests ("never send your password to...")."""
    return [
        hit
        for hit in analysis.hits
        if not (hit.kind == "data_request" and _is_negated(analysis, hit))
    ]
