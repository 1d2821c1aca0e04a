"""Keyword ranking of chunks: tokens, stemming, BM25 with heading and phrase boosts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convert.markdown.chunks import Chunk, ChunkOptions, chunk_markdown
from convert.markdown.length import estimate_tokens
from convert.markdown.query import Match, rank_chunks, stem, tokenize

MANUAL = """# Pagecast manual

Pagecast turns web pages into screenshots, embeds and Markdown for many uses.

## Installation

Install the packages with pip. Installing from source needs a compiler.

## Screenshots

Screenshots are rendered by Chromium. Set the viewport width and height in pixels.

## Pricing

The free plan has rate limits. Paid plans raise the limits for every key.

## Markdown

The Markdown endpoint returns clean text for language models, see
[the docs](https://docs.example.com/pricing/limits/viewport).

## 安装

使用软件包管理器安装。
"""


def manual() -> list[Chunk]:
    return list(chunk_markdown(MANUAL, ChunkOptions()).chunks)


def make_chunk(index: int, text: str, *path: str) -> Chunk:
    return Chunk(index, text, path, 0, len(text), 0, False, len(text), estimate_tokens(text))


def raw(match: Match) -> float:
    """Undo the documented squashing relevance = raw / (raw + 1)."""
    return match.score / (1 - match.score)


def headings(matches: list[Match]) -> list[str]:
    return [m.chunk.heading_path[-1] for m in matches]


# -- tokens -----------------------------------------------------------------------------------


def test_tokenize_folds_case_drops_stop_words_and_markdown_noise() -> None:
    text = "The __Quick__ brown_fox and **THE** `lazy` dog!"
    assert tokenize(text) == ["quick", "brown", "fox", "lazy", "dog"]
    assert tokenize(text, keep_stop_words=True)[:2] == ["the", "quick"]


def test_tokenize_ignores_link_and_image_targets_and_autolinks() -> None:
    text = (
        'See [the guide](https://example.com/secret/path_(x) "Title here") and '
        "![a chart](/img/hidden.png) or <https://autolink.example/also> please.\n"
        "[ref]: https://reference.example/gone"
    )
    assert tokenize(text) == ["see", "guid", "chart", "pleas", "ref"]


def test_tokenize_splits_cjk_into_characters_and_normalises_width() -> None:
    assert tokenize("安装Pagecast软件") == ["安", "装", "pagecast", "软", "件"]
    assert tokenize("ひらがな한국") == ["ひ", "ら", "が", "な", "한", "국"]
    full_width = "\uff30\uff21\uff27\uff25\uff23\uff21\uff33\uff34"  # PAGECAST
    assert tokenize(full_width) == ["pagecast"]


def test_tokenize_drops_german_french_spanish_function_words() -> None:
    assert tokenize("der Hund und die Katze") == ["hund", "katz"]
    assert tokenize("le chat et la souris") == ["chat", "souris"]
    assert tokenize("el perro y los gatos") == ["perro", "gato"]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("packages", "packag"),
        ("package", "packag"),
        ("libraries", "library"),
        ("classes", "class"),
        ("boxes", "box"),
        ("installation", "install"),
        ("installations", "install"),
        ("installing", "install"),
        ("installed", "install"),
        ("deployments", "deploy"),
        ("quickly", "quick"),
        ("running", "run"),
        ("stopped", "stop"),
        ("passing", "pass"),
        ("string", "string"),
        ("used", "used"),
        ("status", "status"),
        ("analysis", "analysis"),
        ("use", "use"),
        ("größe", "größe"),
    ],
)
def test_stemmer(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_word_forms_meet_at_the_same_stem() -> None:
    assert tokenize("packages") == tokenize("package")
    assert tokenize("installing") == tokenize("installation") == tokenize("install")


# -- ranking ----------------------------------------------------------------------------------


def test_chunk_about_the_query_ranks_first_and_scores_high() -> None:
    matches = rank_chunks(manual(), "viewport width", 5)
    assert headings(matches) == ["Screenshots"]
    assert matches[0].score > 0.5


def test_only_chunks_with_a_query_term_are_returned() -> None:
    matches = rank_chunks(manual(), "chromium compiler", 10)
    assert headings(matches) == ["Installation", "Screenshots"]
    assert rank_chunks(manual(), "kubernetes", 10) == []


def test_link_targets_do_not_match() -> None:
    # "pricing", "limits" and "viewport" occur in the Markdown section only inside a URL.
    assert headings(rank_chunks(manual(), "limits", 10)) == ["Pricing"]
    assert "Markdown" not in headings(rank_chunks(manual(), "viewport", 10))
    assert headings(rank_chunks(manual(), "docs", 10)) == ["Markdown"]


def test_stemming_matches_other_word_forms() -> None:
    assert headings(rank_chunks(manual(), "package", 10)) == ["Installation"]
    assert headings(rank_chunks(manual(), "installations", 10)) == ["Installation"]


def test_stop_word_only_query_falls_back_to_stop_words() -> None:
    matches = rank_chunks(manual(), "the", 10)
    assert matches
    assert all("the" in m.chunk.text.casefold().split() for m in matches)
    assert "安装" not in headings(matches)


def test_query_without_words_returns_nothing() -> None:
    assert rank_chunks(manual(), "?! -- ...", 10) == []
    assert rank_chunks(manual(), "", 10) == []
    assert rank_chunks([], "pricing", 10) == []
    assert rank_chunks(manual(), "pricing", 0) == []


def test_heading_path_boosts_a_term() -> None:
    chunks = [
        make_chunk(0, "Limits are listed below for each plan.", "Plans"),
        make_chunk(1, "Limits are listed below for each plan.", "Limits"),
        make_chunk(2, "Nothing relevant in this chunk at all.", "Other"),
    ]
    matches = rank_chunks(chunks, "limits", 5)
    assert [m.chunk.index for m in matches] == [1, 0]
    assert matches[0].score > matches[1].score


def test_heading_only_match_counts() -> None:
    chunks = [make_chunk(0, "Nothing here.", "Pricing"), make_chunk(1, "Other text.", "Else")]
    assert [m.chunk.index for m in rank_chunks(chunks, "pricing", 5)] == [0]


def test_phrase_multiplies_the_score_by_one_and_a_half() -> None:
    chunks = [
        make_chunk(0, "rate apply limits here daily"),
        make_chunk(1, "rate limits apply here daily"),
        make_chunk(2, "unrelated words only here"),
        make_chunk(3, "something else entirely now"),
    ]
    phrase, scattered = rank_chunks(chunks, "rate limits", 5)
    assert (phrase.chunk.index, scattered.chunk.index) == (1, 0)
    assert raw(phrase) / raw(scattered) == pytest.approx(1.5, rel=1e-3)


def test_bigrams_of_a_longer_query_boost_partially() -> None:
    chunks = [
        make_chunk(0, "api rate limits reset hourly"),  # bigrams: (api, rate), (rate, limit)
        make_chunk(1, "api limits rate reset hourly"),  # no query bigram
        make_chunk(2, "rate api reset limits hourly"),
        make_chunk(3, "filler text without terms"),
    ]
    matches = rank_chunks(chunks, "api rate limits reset", 5)
    assert [m.chunk.index for m in matches] == [0, 1, 2]
    by_index = {m.chunk.index: raw(m) for m in matches}
    # Chunk 0 holds the whole query: every bigram (+0.25) and the phrase (+0.25).
    assert by_index[0] / by_index[1] == pytest.approx(1.5, rel=1e-3)
    assert by_index[1] == pytest.approx(by_index[2], rel=1e-3)


def test_common_term_scores_low_and_rare_phrase_scores_high() -> None:
    chunks = [make_chunk(n, f"data point {n} with data tables and data rows") for n in range(6)]
    chunks.append(make_chunk(6, "data retention policy keeps data for thirty days"))
    common = rank_chunks(chunks, "data", 10)
    assert len(common) == 7
    assert all(m.score < 0.2 for m in common)
    strong = rank_chunks(chunks, "retention policy", 10)
    assert [m.chunk.index for m in strong] == [6]
    assert strong[0].score > 0.7


def test_ties_keep_document_order_and_top_k_is_respected() -> None:
    chunks = [make_chunk(n, "identical text about caching") for n in range(5)]
    matches = rank_chunks(chunks, "caching", 3)
    assert [m.chunk.index for m in matches] == [0, 1, 2]
    assert len({m.score for m in matches}) == 1


def test_scores_are_rounded_in_range_and_sorted() -> None:
    matches = rank_chunks(manual(), "screenshots markdown pages limits install", 10)
    assert len(matches) >= 4
    scores = [m.score for m in matches]
    assert scores == sorted(scores, reverse=True)
    assert all(0 <= s <= 1 and s == round(s, 4) for s in scores)


def test_cjk_query_matches_cjk_chunk() -> None:
    matches = rank_chunks(manual(), "安装软件", 3)
    assert headings(matches)[0] == "安装"
    assert matches[0].score > 0.5


# -- properties -------------------------------------------------------------------------------

VOCABULARY = ("cache", "caches", "limit", "the", "rate", "plan", "安", "装", "x", "data", "and")
texts = st.lists(st.sampled_from(VOCABULARY), max_size=12).map(" ".join)


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(
    bodies=st.lists(st.tuples(texts, texts), min_size=1, max_size=8),
    query=texts,
    top_k=st.integers(1, 10),
)
def test_ranking_invariants(bodies: list[tuple[str, str]], query: str, top_k: int) -> None:
    chunks = [make_chunk(n, body, heading) for n, (body, heading) in enumerate(bodies)]
    matches = rank_chunks(chunks, query, top_k)
    terms = set(tokenize(query)) or set(tokenize(query, keep_stop_words=True))
    keep = not tokenize(query)

    def tokens(c: Chunk) -> set[str]:
        words = c.text + " " + " ".join(c.heading_path)
        return set(tokenize(words, keep_stop_words=keep))

    matching = [c.index for c in chunks if terms & tokens(c)]
    assert len(matches) == min(top_k, len(matching))
    assert {m.chunk.index for m in matches} <= set(matching)
    scores = [m.score for m in matches]
    assert scores == sorted(scores, reverse=True)
    assert all(0 < s < 1 for s in scores)
    assert len({m.chunk.index for m in matches}) == len(matches)
