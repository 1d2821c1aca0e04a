"""An unsure selection gets a second candidate, and the better of the two is kept by a measure
of reading text (:func:`convert.extract.selection.candidate_value`); ``fallback`` says which."""

from __future__ import annotations

import lxml.html
import pytest

from convert.extract import rules
from convert.extract.selection import candidate_value
from convert.markdown.pipeline import ConvertOptions, PageConversion, convert_page

SENTENCE = (
    "the water was held back at high tide and let out through the wheel as it fell, which gave "
    "four to six hours of work each tide"
)
PROSE = "".join(f"<p>Paragraph {n} of the report on tide mills: {SENTENCE}.</p>" for n in range(8))
LINKS = "".join(f"<li><a href='/s/{n}'>Another story {n}</a></li>" for n in range(10))
PAGE = (
    "<html><head><title>Tide mills report</title></head><body>"
    f"<article><h1>Tide mills report</h1><p>By the news desk, 5 May.</p><ul>{LINKS}</ul>"
    f"</article><div class='text'>{PROSE}</div></body></html>"
)


def convert() -> PageConversion:
    return convert_page(PAGE, "https://news.example/tide-mills", ConvertOptions())


def test_reading_text_is_worth_more_than_links_and_labels() -> None:
    prose = lxml.html.fromstring(f"<div>{PROSE}</div>")
    links = lxml.html.fromstring(f"<div><ul>{LINKS}</ul></div>")
    both = lxml.html.fromstring(f"<div>{PROSE}<ul>{LINKS}</ul></div>")
    assert candidate_value(links) < 0 < candidate_value(both) < candidate_value(prose)
    # A block of paragraphs counts them once.
    nested = lxml.html.fromstring(f"<div><blockquote>{PROSE}</blockquote></div>")
    assert candidate_value(nested) == pytest.approx(candidate_value(prose))


def test_a_sure_selection_stands_alone() -> None:
    result = convert()
    assert result.extraction_confidence is not None
    assert result.extraction_confidence >= rules.SECOND_CANDIDATE_BELOW
    assert (result.second_candidate, result.fallback) == (None, None)


def test_an_unsure_selection_keeps_the_better_of_two(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "SECOND_CANDIDATE_BELOW", 1.01)  # every selection unsure
    result = convert()
    assert (result.second_candidate, result.fallback) == ("primary", None)
    assert "Paragraph 7 of the report on" in result.markdown
    # A second candidate worth more than the first is taken, and said so.
    monkeypatch.setattr(rules, "SECOND_CANDIDATE_GAIN", 0.0)
    monkeypatch.setattr(rules, "SECOND_CANDIDATE_MIN_SHARE", 0.0)
    result = convert()
    assert (result.second_candidate, result.fallback) == ("second", "second_candidate")
    assert "Paragraph 7 of the report on" in result.markdown
