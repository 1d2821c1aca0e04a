"""How main-content extraction is scored on WCXB pages (the Web Content eXtraction Benchmark).

A WCXB directory holds ``html/NNNN.html.gz`` (the page as served) beside
``ground-truth/NNNN.json`` (``url``, ``_internal.page_type.primary``, and under ``ground_truth``
the hand-reviewed ``main_content`` with its ``with`` and ``without`` snippets). The full
development split lives outside the repository; ``tests/wcxb_sample`` is a small fixed sample of
it, for the regression floor.

The scores are the benchmark's own:

- word F1: tokens are ``\\w+`` in lower case, counted as a multiset, the extracted text against
  ``main_content``;
- ``with`` snippets found and ``without`` snippets leaked: case-insensitive substring match on
  the extracted text with Markdown syntax removed. Whitespace runs count as one space and
  typographic quotes as straight ones on both sides (the labels straightened some quotes that
  the pages still curl), so a line break or an apostrophe's shape never decides a match.

Nothing here imports an extractor: the bench scores Pagecast and its peers with these functions,
and the regression floor imports them without the peers installed.
"""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

SAMPLE = Path(__file__).parent / "wcxb_sample"
PAGE_TYPES = ("article", "forum", "product", "collection", "listing", "documentation", "service")
READABLE_WORDS = 10
"""A page whose main content has at least this many words has readable text: an extraction
with no word at all on it is an empty result."""

_WORD = re.compile(r"\w+")
QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
                       "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"'})  # fmt: skip

# Markdown syntax, in the order it is removed: images (their alt text is not page text), link
# targets (the text stays), code fence lines, rules, table separator rows, then line prefixes
# (headings, quotes, list markers), emphasis and code marks, table pipes, backslash escapes.
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]*)>")
_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,}).*$", re.M)
_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$", re.M)
_TABLE_SEPARATOR = re.compile(r"^\s*\|?(?:\s*:?-+:?\s*\|)+\s*:?-*:?\s*$", re.M)
_PREFIX = re.compile(
    r"^[ \t]*(?:(?:>|[-*+](?=[ \t])|\d+[.)](?=[ \t])|#{1,6}(?=[ \t]|$))[ \t]*)*", re.M
)
_EMPHASIS = re.compile(r"(?<!\\)(?:\*+|~~|`+|(?<!\w)_+|_+(?!\w))")
_PIPE = re.compile(r"(?<!\\)\|")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~<])")


@dataclass(frozen=True)
class WcxbPage:
    """One labelled page."""

    file_id: str
    url: str
    page_type: str
    html: str
    main_content: str
    with_snippets: tuple[str, ...]
    without_snippets: tuple[str, ...]

    @property
    def readable(self) -> bool:
        """Whether the page has readable main content (see :data:`READABLE_WORDS`)."""
        return len(words(self.main_content)) >= READABLE_WORDS


@dataclass(frozen=True)
class PageScore:
    """One extraction of one page, scored."""

    f1: float
    with_found: int
    with_total: int
    without_leaked: int
    without_total: int
    empty: bool
    """No word at all was extracted."""


def file_ids(directory: Path) -> list[str]:
    """The ids of every labelled page under ``directory``, sorted."""
    return sorted(path.stem for path in (directory / "ground-truth").glob("*.json"))


def read_label(directory: Path, file_id: str) -> dict:
    return json.loads((directory / "ground-truth" / f"{file_id}.json").read_text("utf-8"))


def page_type(label: dict) -> str:
    return str(label["_internal"]["page_type"]["primary"])


def load_page(directory: Path, file_id: str) -> WcxbPage:
    """One page: its HTML decoded as UTF-8 with replacement, and its labels."""
    label = read_label(directory, file_id)
    truth = label["ground_truth"]
    raw = gzip.decompress((directory / "html" / f"{file_id}.html.gz").read_bytes())
    return WcxbPage(
        file_id=file_id,
        url=str(label.get("url") or truth.get("url") or ""),  # one page of the set has none
        page_type=page_type(label),
        html=raw.decode("utf-8", errors="replace"),
        main_content=truth.get("main_content") or "",
        with_snippets=tuple(s for s in truth.get("with") or () if s.strip()),
        without_snippets=tuple(s for s in truth.get("without") or () if s.strip()),
    )


def words(text: str) -> list[str]:
    """The benchmark's tokens: ``\\w+`` in lower case."""
    return _WORD.findall(text.lower())


def word_f1(extracted: str, reference: str) -> float:
    """F1 of the extracted text's word multiset against the reference's (1.0 when both have no
    word, 0.0 when only one has none)."""
    got, want = Counter(words(extracted)), Counter(words(reference))
    if not got and not want:
        return 1.0
    overlap = sum((got & want).values())
    if overlap == 0:
        return 0.0
    precision = overlap / sum(got.values())
    recall = overlap / sum(want.values())
    return 2 * precision * recall / (precision + recall)


def markdown_to_text(markdown: str) -> str:
    """The text of a Markdown document: images, link targets and Markdown syntax dropped."""
    text = _IMAGE.sub(" ", markdown)
    text = _LINK.sub(r"\1", text)
    text = _AUTOLINK.sub(r"\1", text)
    text = _FENCE.sub("", text)
    text = _RULE.sub("", text)
    text = _TABLE_SEPARATOR.sub("", text)
    text = _PREFIX.sub("", text)
    text = _EMPHASIS.sub("", text)
    text = _PIPE.sub(" ", text)
    return _ESCAPE.sub(r"\1", text)


def comparable(text: str) -> str:
    """Text as snippets are matched: lower case, straight quotes, whitespace runs as one space."""
    return " ".join(text.translate(QUOTES).lower().split())


def snippets_in(text: str, snippets: tuple[str, ...]) -> int:
    """How many of ``snippets`` occur in ``text`` (already :func:`comparable`)."""
    return sum(1 for snippet in snippets if comparable(snippet) in text)


def score_page(extracted_text: str, page: WcxbPage) -> PageScore:
    """Score one extraction, given as plain text (Markdown already through
    :func:`markdown_to_text`)."""
    text = comparable(extracted_text)
    return PageScore(
        f1=word_f1(extracted_text, page.main_content),
        with_found=snippets_in(text, page.with_snippets),
        with_total=len(page.with_snippets),
        without_leaked=snippets_in(text, page.without_snippets),
        without_total=len(page.without_snippets),
        empty=not words(extracted_text),
    )
