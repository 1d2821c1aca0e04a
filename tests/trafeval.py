"""How main-content extraction is scored on trafilatura's evaluation set.

The set (Adrien Barbaresi's, from trafilatura's repository, Apache-2.0) holds real pages, mostly
news and blog articles in German and English, each with text segments annotated where
extraction goes wrong: ``with`` (the first and last lines of the main text, quotes, lists: what
a correct extraction contains), ``without`` (navigation, bylines, dates, share bars, "related"
blocks, comment forms, footers: what it must not) and, on some pages, ``comments`` (text of the
readers' comments, which belongs in the output only when comments are asked for). A directory
holds ``evaldata.json`` (page URL -> ``file``, ``with``, ``without``, ``comments``) beside
``html/<file>.gz``. The full set lives outside the repository; ``tests/trafeval_sample`` is a
small fixed sample of it, for the regression floor.

The scores are trafilatura's own (its ``tests/eval_common.py``): at most :data:`MAX_SEGMENTS`
segments per side of a page; a segment counts as found when its whitespace-normalised text is a
substring of the whitespace-normalised extracted text (Markdown syntax removed first, by
:func:`tests.wcxb.markdown_to_text`); over all pages, a ``with`` found is a true positive, a
``with`` missing a false negative, a ``without`` found a false positive, and F1 = 2 TP / (2 TP +
FP + FN). Comment segments are counted apart: leaked (found with comments off) or found (with
comments on).

Nothing here imports an extractor: the bench scores Pagecast and its peers with these functions,
and the regression floor imports them without the peers installed.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from browser.fetch.charset import decode_text

SAMPLE = Path(__file__).parent / "trafeval_sample"
MAX_SEGMENTS = 6
"""Segments of one side of a page that count (trafilatura's evaluation takes the first six)."""


@dataclass(frozen=True)
class EvalPage:
    """One annotated page."""

    url: str
    file: str
    html: str
    with_segments: tuple[str, ...]
    without_segments: tuple[str, ...]
    comments: tuple[str, ...]


@dataclass(frozen=True)
class SegmentScore:
    """One extraction of one page, scored by segments."""

    with_found: int
    with_total: int
    without_leaked: int
    without_total: int
    comments_found: int
    comments_total: int
    empty: bool
    """Nothing at all was extracted."""


def _segments(values: Iterable[str] | None) -> tuple[str, ...]:
    return tuple(value for value in values or () if value.strip())[:MAX_SEGMENTS]


def load_labels(directory: Path) -> dict[str, dict[str, object]]:
    """The annotations, by page URL."""
    labels: dict[str, dict[str, object]] = json.loads(
        (directory / "evaldata.json").read_text("utf-8")
    )
    return labels


def load_page(directory: Path, url: str, label: dict[str, object]) -> EvalPage:
    """One page: its HTML decoded as a browser would (byte order mark, ``<meta>`` charset,
    detection, UTF-8), and its segments."""
    name = str(label["file"])
    raw = gzip.decompress((directory / "html" / f"{name}.gz").read_bytes())
    text, _ = decode_text(raw)
    return EvalPage(
        url=url,
        file=name,
        html=text,
        with_segments=_segments(label.get("with")),  # type: ignore[arg-type]
        without_segments=_segments(label.get("without")),  # type: ignore[arg-type]
        comments=_segments(label.get("comments")),  # type: ignore[arg-type]
    )


def load_pages(directory: Path) -> list[EvalPage]:
    """Every annotated page whose HTML the directory holds, in the order of the annotations."""
    pages = []
    for url, label in load_labels(directory).items():
        if (directory / "html" / f"{label['file']}.gz").is_file():
            pages.append(load_page(directory, url, label))
    return pages


def normalised(text: str) -> str:
    """Whitespace runs as one space, as trafilatura's evaluation compares."""
    return " ".join(text.split())


def found_in(text: str, segments: tuple[str, ...]) -> int:
    """How many of ``segments`` occur in ``text`` (already :func:`normalised`)."""
    return sum(1 for segment in segments if normalised(segment) in text)


def score_page(extracted_text: str, page: EvalPage) -> SegmentScore:
    """Score one extraction, given as plain text (Markdown already through
    :func:`tests.wcxb.markdown_to_text`)."""
    text = normalised(extracted_text)
    return SegmentScore(
        with_found=found_in(text, page.with_segments),
        with_total=len(page.with_segments),
        without_leaked=found_in(text, page.without_segments),
        without_total=len(page.without_segments),
        comments_found=found_in(text, page.comments),
        comments_total=len(page.comments),
        empty=not text,
    )


def segment_f1(scores: Iterable[SegmentScore]) -> float:
    """Trafilatura's F1 over many pages: 2 TP / (2 TP + FP + FN)."""
    picked = list(scores)
    true = sum(score.with_found for score in picked)
    missed = sum(score.with_total - score.with_found for score in picked)
    leaked = sum(score.without_leaked for score in picked)
    denominator = 2 * true + leaked + missed
    return 2 * true / denominator if denominator else 0.0


def precision_recall(scores: Iterable[SegmentScore]) -> tuple[float, float]:
    """Precision TP / (TP + FP) and recall TP / (TP + FN) over many pages."""
    picked = list(scores)
    true = sum(score.with_found for score in picked)
    leaked = sum(score.without_leaked for score in picked)
    total = sum(score.with_total for score in picked)
    precision = true / (true + leaked) if true + leaked else 0.0
    return precision, (true / total if total else 0.0)
