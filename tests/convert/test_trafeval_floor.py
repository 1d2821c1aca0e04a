"""The regression floor of article extraction on real news and blog pages: Pagecast's scores on
the fixed sample of trafilatura's evaluation set under ``tests/trafeval_sample`` must not fall
below today's, readers' comments stay out unless asked for and come back when they are, and the
scoring itself behaves as trafilatura's evaluation defines it.

The floors sit a little below the values measured when they were set; the conversion is
deterministic, so any drop past them is a change in extraction, not noise. Raise them when
extraction improves. ``python -m bench.extraction`` measures the whole set.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from convert.markdown.pipeline import ConvertOptions, convert_page
from tests.trafeval import (
    SAMPLE,
    EvalPage,
    SegmentScore,
    load_pages,
    precision_recall,
    score_page,
    segment_f1,
)
from tests.wcxb import markdown_to_text

SAMPLE_PAGES = 40
MIN_SEGMENT_F1 = 0.89
"""Measured 0.901 when set, 0.908 when last raised."""
MAX_WITHOUT_LEAKED = 0.10
"""Share of ``without`` segments leaked; measured 0.099 when set, 0.083 (10 of 121) when last
lowered."""
MAX_COMMENTS_LEAKED = 2
"""Comment segments found with comments left out (the default); measured 0 of 42 when set."""
MIN_COMMENTS_FOUND = 0.68
"""Share of comment segments found with ``include_comments``; measured 0.714 when last raised
(some annotated comments are not in the archived HTML at all: loaded by script)."""


@dataclass(frozen=True)
class Extraction:
    page: EvalPage
    score: SegmentScore
    with_comments: SegmentScore | None
    """The page converted with ``include_comments`` (only where its comments are annotated)."""


def scored(page: EvalPage, include_comments: bool) -> SegmentScore:
    converted = convert_page(page.html, page.url, ConvertOptions(include_comments=include_comments))
    return score_page(markdown_to_text(converted.markdown), page)


@pytest.fixture(scope="module")
def extractions() -> list[Extraction]:
    return [
        Extraction(page, scored(page, False), scored(page, True) if page.comments else None)
        for page in load_pages(SAMPLE)
    ]


def test_the_sample_holds_every_page_and_pages_with_comments(
    extractions: list[Extraction],
) -> None:
    assert len(extractions) == SAMPLE_PAGES
    assert sum(1 for extraction in extractions if extraction.page.comments) >= 10


def test_segment_f1_stays_above_the_floor(extractions: list[Extraction]) -> None:
    f1 = segment_f1(extraction.score for extraction in extractions)
    assert f1 >= MIN_SEGMENT_F1, f"segment F1 {f1:.3f}"


def test_without_segments_leaked_stay_below_the_ceiling(extractions: list[Extraction]) -> None:
    leaked = sum(extraction.score.without_leaked for extraction in extractions)
    total = sum(extraction.score.without_total for extraction in extractions)
    assert leaked / total <= MAX_WITHOUT_LEAKED, f"without leaked {leaked} of {total}"


def test_comments_stay_out_unless_asked_for(extractions: list[Extraction]) -> None:
    leaked = sum(extraction.score.comments_found for extraction in extractions)
    assert leaked <= MAX_COMMENTS_LEAKED, f"{leaked} comment segments in the main content"


def test_comments_come_back_when_asked_for(extractions: list[Extraction]) -> None:
    asked = [extraction.with_comments for extraction in extractions if extraction.with_comments]
    found = sum(score.comments_found for score in asked)
    total = sum(score.comments_total for score in asked)
    assert found / total >= MIN_COMMENTS_FOUND, f"comments found {found} of {total}"
    # Asking for the comments costs the article nothing.
    with_found = sum(score.with_found for score in asked)
    without = [extraction.score for extraction in extractions if extraction.with_comments]
    assert with_found >= sum(score.with_found for score in without)


def test_no_page_comes_back_empty(extractions: list[Extraction]) -> None:
    assert [extraction.page.file for extraction in extractions if extraction.score.empty] == []


# -- the scoring itself -----------------------------------------------------------------------


def page(with_segments: tuple[str, ...], without: tuple[str, ...] = ()) -> EvalPage:
    return EvalPage("https://example.com/", "x", "", with_segments, without, ("A comment",))


def test_segments_are_found_as_whitespace_normalised_substrings() -> None:
    score = score_page(
        "The first\n  line of the story. Share this. A comment",
        page(("The first line", "not there"), ("Share this", "Newsletter")),
    )
    assert (score.with_found, score.with_total) == (1, 2)
    assert (score.without_leaked, score.without_total) == (1, 2)
    assert (score.comments_found, score.comments_total) == (1, 1)
    assert not score.empty and score_page(" \n ", page(("x",))).empty


def test_segment_f1_is_trafilaturas_two_tp_over_two_tp_fp_fn() -> None:
    scores = [
        SegmentScore(3, 4, 1, 5, 0, 0, False),  # 3 found, 1 missed, 1 leaked
        SegmentScore(2, 2, 0, 3, 0, 0, False),
    ]
    assert segment_f1(scores) == pytest.approx(2 * 5 / (2 * 5 + 1 + 1))
    assert precision_recall(scores) == pytest.approx((5 / 6, 5 / 6))
    assert segment_f1([]) == 0.0
