"""Main-content extraction and Markdown fidelity on the golden corpus of realistic pages.

Every page must keep its must-include snippets and lose its boilerplate snippets; the mean
word-shingle F1 against the hand-labelled article text has a floor that fails on regressions,
and so does each page.
"""

from __future__ import annotations

import re
import statistics
from functools import cache

import pytest

from convert.markdown.pipeline import ConvertOptions, PageConversion, convert_page
from tests.corpus import CorpusPage, load_corpus, normalise_space, shingle_f1

FENCED = re.compile(r"^(`{3,}|~{3,}).*?^\1\s*$", re.M | re.S)
PAGES = load_corpus()
ARTICLES = [page for page in PAGES if not page.app_shell]
MEAN_F1_FLOOR = 0.95
PAGE_F1_FLOOR = 0.80


@cache
def converted(name: str) -> PageConversion:
    page = next(page for page in PAGES if page.name == name)
    return convert_page(page.html, page.url, ConvertOptions())


def test_the_corpus_is_big_and_varied() -> None:
    assert len(PAGES) >= 30
    kinds = {page.kind for page in PAGES}
    assert {"news", "blog", "forum", "product", "recipe", "wiki", "landing"} <= kinds
    assert any(page.app_shell for page in PAGES)
    assert any(page.language != "en" for page in PAGES)


@pytest.mark.parametrize("page", ARTICLES, ids=lambda page: page.name)
def test_main_content_keeps_the_article(page: CorpusPage) -> None:
    result = converted(page.name)
    flat = normalise_space(result.markdown)
    missing = [snippet for snippet in page.must_include if normalise_space(snippet) not in flat]
    assert not missing, f"lost from the article: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_main_content_drops_the_boilerplate(page: CorpusPage) -> None:
    flat = normalise_space(converted(page.name).markdown)
    kept = [snippet for snippet in page.must_exclude if normalise_space(snippet) in flat]
    assert not kept, f"boilerplate kept: {kept}"


@pytest.mark.parametrize(
    "page", [page for page in ARTICLES if page.markdown_checks], ids=lambda page: page.name
)
def test_markdown_fidelity(page: CorpusPage) -> None:
    markdown = converted(page.name).markdown
    missing = [check for check in page.markdown_checks if check not in markdown]
    assert not missing, f"Markdown lacks: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_app_shells_are_recognised(page: CorpusPage) -> None:
    result = converted(page.name)
    assert result.app_shell == page.app_shell, result.app_shell_reason


@pytest.mark.parametrize("page", ARTICLES, ids=lambda page: page.name)
def test_markdown_is_clean(page: CorpusPage) -> None:
    markdown = converted(page.name).markdown
    prose = FENCED.sub("(code)", markdown)  # code keeps its own blank lines
    assert "\n\n\n" not in prose
    assert "<script" not in markdown and "<div" not in markdown and "</" not in markdown
    assert "PCB" not in markdown or "PCB" in page.html
    assert "](/" not in markdown, "a relative link was left"


def test_extraction_f1_floor() -> None:
    scores = {
        page.name: shingle_f1(converted(page.name).markdown, page.article) for page in ARTICLES
    }
    low = {name: round(score, 3) for name, score in scores.items() if score < PAGE_F1_FLOOR}
    assert not low, f"pages below the per-page floor: {low}"
    mean = statistics.mean(scores.values())
    assert mean >= MEAN_F1_FLOOR, f"mean F1 {mean:.3f} fell below {MEAN_F1_FLOOR}"
