"""The Markdown chunker: examples for each rule and properties over generated documents."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from convert.markdown.chunks import Chunk, ChunkOptions, ChunkResult, chunk_markdown
from convert.markdown.length import estimate_tokens


def chunk(markdown: str, **options: int | bool) -> ChunkResult:
    return chunk_markdown(markdown, ChunkOptions(**options))  # type: ignore[arg-type]


def texts(result: ChunkResult) -> list[str]:
    return [c.text for c in result.chunks]


def content_start(c: Chunk) -> int:
    return c.start_offset + c.overlap_character_count


def sentence(number: int, words: int = 8) -> str:
    return " ".join(f"word{number}x{index}" for index in range(words)) + "."


# -- empty and trivial documents --------------------------------------------------------------


@pytest.mark.parametrize("markdown", ["", " ", "\n\n\n", " \t\r\n \u00a0\n"])
def test_empty_or_blank_document_gives_no_chunks(markdown: str) -> None:
    result = chunk(markdown)
    assert result.chunks == ()
    assert result.total == 0
    assert result.truncated is False


def test_short_document_is_one_chunk_with_trimmed_offsets() -> None:
    markdown = "\n\n  Hello world.\n\nSecond paragraph.  \n\n"
    result = chunk(markdown)
    assert result.total == 1
    (only,) = result.chunks
    assert only.text == "Hello world.\n\nSecond paragraph."
    assert (only.start_offset, only.end_offset) == (4, 4 + len(only.text))
    assert markdown[only.start_offset : only.end_offset] == only.text
    assert only.index == 0
    assert only.heading_path == ()
    assert only.overlap_character_count == 0
    assert only.split_mid_block is False
    assert only.character_count == len(only.text)
    assert only.estimated_token_count == estimate_tokens(only.text)


# -- headings ---------------------------------------------------------------------------------

GUIDE = """# Guide

Welcome to the guide.

## Install

Install it like this.

### Linux

Use the package manager.

### macOS

Use the installer.

## Usage

Run it.
"""


def test_heading_paths_three_levels() -> None:
    result = chunk(GUIDE, heading_level=3)
    paths = [(c.heading_path, c.text.split("\n")[0]) for c in result.chunks]
    assert paths == [
        (("Guide",), "# Guide"),
        (("Guide", "Install"), "## Install"),
        (("Guide", "Install", "Linux"), "### Linux"),
        (("Guide", "Install", "macOS"), "### macOS"),
        (("Guide", "Usage"), "## Usage"),
    ]


def test_heading_aware_level_two_lets_level_three_flow() -> None:
    result = chunk(GUIDE)
    assert [c.heading_path for c in result.chunks] == [
        ("Guide",),
        ("Guide", "Install"),
        ("Guide", "Usage"),
    ]
    assert "### Linux" in result.chunks[1].text and "### macOS" in result.chunks[1].text


def test_heading_paths_carry_the_headings_text_not_its_markdown() -> None:
    markdown = "# 1\\. Guide\n\nIntro.\n\n## [Install](https://x.example/i) \\*nix\n\nRun it.\n"
    result = chunk(markdown)
    assert [c.heading_path for c in result.chunks] == [
        ("1. Guide",),
        ("1. Guide", "Install *nix"),
    ]


def test_heading_level_one_only_splits_at_top_headings() -> None:
    markdown = GUIDE + "\n# Appendix\n\nMore.\n"
    result = chunk(markdown, heading_level=1)
    assert [c.heading_path for c in result.chunks] == [("Guide",), ("Appendix",)]
    assert result.chunks[0].text.endswith("Run it.")


def test_heading_aware_off_packs_by_size_only() -> None:
    result = chunk(GUIDE, heading_aware=False)
    assert texts(result) == [GUIDE.strip()]
    assert result.chunks[0].heading_path == ("Guide",)


def test_heading_path_is_taken_where_the_content_starts() -> None:
    body = " ".join(sentence(n) for n in range(6))  # about 390 characters
    markdown = f"# Top\n\n{body}\n\n## Section\n\n{body}\n\n### Deeper\n\n{body}\n"
    result = chunk(markdown, size=600, heading_aware=False)
    assert [c.heading_path for c in result.chunks] == [
        ("Top",),
        ("Top", "Section"),
        ("Top", "Section", "Deeper"),
    ]
    assert result.chunks[1].text == f"## Section\n\n{body}"
    assert result.chunks[2].text == f"### Deeper\n\n{body}"


def test_a_new_heading_replaces_deeper_ones() -> None:
    markdown = "# A\n\n### C\n\ntext\n\n## B\n\nmore\n\n#### D\n\nend\n"
    result = chunk(markdown, heading_level=6)
    assert [c.heading_path for c in result.chunks] == [
        ("A",),
        ("A", "C"),
        ("A", "B"),
        ("A", "B", "D"),
    ]


def test_heading_text_drops_closing_hashes_and_space() -> None:
    markdown = "##   Install   ##  \n\ntext\n\n### C# tips\n\nmore\n\n#hashtag is no heading\n"
    result = chunk(markdown, heading_level=3)
    assert [c.heading_path for c in result.chunks] == [("Install",), ("Install", "C# tips")]
    assert result.chunks[1].text.endswith("#hashtag is no heading")


def test_heading_interrupts_a_paragraph() -> None:
    result = chunk("first line\n## Next\nbody\n")
    assert texts(result) == ["first line", "## Next\nbody"]
    assert result.chunks[1].heading_path == ("Next",)


def test_heading_ending_a_chunk_moves_to_the_next_with_its_content() -> None:
    body = " ".join(sentence(n) for n in range(5))  # about 320 characters
    markdown = f"{body}\n\n### Detail\n\n{body}\n"
    result = chunk(markdown, size=500)
    assert texts(result) == [body, f"### Detail\n\n{body}"]
    assert result.chunks[1].heading_path == ("Detail",)


def test_heading_stays_when_it_cannot_fit_with_the_next_block() -> None:
    body = " ".join(sentence(n) for n in range(5))
    long_body = ("y" * 99 + " ") * 4 + "y" * 94  # 494 characters: fits alone, not with the heading
    result = chunk(f"{body}\n\n### Detail\n\n{long_body}\n", size=500)
    assert texts(result) == [f"{body}\n\n### Detail", long_body]
    assert [c.heading_path for c in result.chunks] == [(), ("Detail",)]


def test_crlf_line_endings() -> None:
    markdown = "# Title\r\n\r\nSome text.\r\n\r\n## Part\r\n\r\nMore text.\r\n"
    result = chunk(markdown)
    assert texts(result) == ["# Title\r\n\r\nSome text.", "## Part\r\n\r\nMore text."]
    assert result.chunks[1].heading_path == ("Title", "Part")


# -- code, tables, lists ----------------------------------------------------------------------


def test_code_fence_with_blank_lines_and_hash_lines_is_one_block() -> None:
    code = "```python\n# a comment, not a heading\n\nx = 1\n\n\n## also not a heading\ny = 2\n```"
    intro = sentence(1, 20)
    markdown = f"## Code\n\n{intro}\n\n{code}\n\nAfter.\n"
    result = chunk(markdown, size=200)
    assert [c.heading_path for c in result.chunks] == [("Code",), ("Code",)]
    assert texts(result)[1] == f"{code}\n\nAfter."
    assert not any(c.split_mid_block for c in result.chunks)


def test_tilde_fence_and_unclosed_fence() -> None:
    markdown = "~~~\n# inside\n\n~~~\n\n## Real\n\n```\n# open until the end\n\n## still code\n"
    result = chunk(markdown)
    assert texts(result) == [
        "~~~\n# inside\n\n~~~",
        "## Real\n\n```\n# open until the end\n\n## still code",
    ]
    assert result.chunks[1].heading_path == ("Real",)


def test_backtick_line_with_backticks_after_is_not_a_fence() -> None:
    markdown = "```inline``` code\n\n# Heading\n\ntext\n"
    result = chunk(markdown)
    assert texts(result) == ["```inline``` code", "# Heading\n\ntext"]


def test_fence_right_after_a_list_ends_the_list() -> None:
    intro = sentence(1, 12)
    items = "- first item\n- second item"
    code = "```\n" + "\n".join(f"line_{n} = {n}" for n in range(8)) + "\n```"
    result = chunk(f"{intro}\n\n{items}\n{code}\n", size=200)
    assert texts(result) == [f"{intro}\n\n{items}", code]


def test_table_is_kept_whole() -> None:
    table = "\n".join(
        ["| name | value |", "|------|-------|", *(f"| key{n} | value{n} |" for n in range(9))]
    )
    assert 150 < len(table) < 200
    intro = sentence(1, 12)
    result = chunk(f"{intro}\n\n{table}\n", size=200)
    assert texts(result) == [intro, table]


def test_list_is_kept_together_when_it_fits_a_chunk() -> None:
    items = "\n".join(f"- item {n} with some words" for n in range(6))
    intro = sentence(1, 12)
    result = chunk(f"{intro}\n\n{items}\n\nOutro.\n", size=200)
    assert texts(result) == [intro, f"{items}\n\nOutro."]


def test_long_list_splits_between_items_only() -> None:
    items = [f"- item {n} " + " ".join(["word"] * 12) + f"\n  - nested {n}" for n in range(12)]
    markdown = "\n\n".join(items)
    result = chunk(markdown, size=250)
    assert result.total > 2
    for c in result.chunks:
        assert c.text.startswith("- item ")
        assert c.text.endswith(tuple(f"nested {n}" for n in range(12)))
        assert not c.split_mid_block
    assert "".join(texts(result)).replace("\n", "") == markdown.replace("\n", "")


def test_list_with_blank_lines_continuation_and_nested_items_is_one_block() -> None:
    # Outside a list "  # ..." would be a heading; inside an item it is the item's text.
    items = "- one\n\n  still one\n\n  # not a heading here\n\n  - nested\n\n      more\n- two"
    result = chunk(f"## List\n\n{items}\n\n# After\n")
    assert texts(result) == [f"## List\n\n{items}", "# After"]
    assert [c.heading_path for c in result.chunks] == [("List",), ("After",)]


# -- oversized blocks -------------------------------------------------------------------------


def test_long_paragraph_splits_at_sentence_boundaries() -> None:
    paragraph = " ".join(sentence(n) for n in range(30))
    result = chunk(f"## Long\n\n{paragraph}\n\nShort after.\n", size=300)
    assert result.total >= 6
    assert result.chunks[0].text.startswith("## Long\n\nword0x0 ")
    assert all(c.split_mid_block for c in result.chunks)
    assert all(c.text.endswith(".") for c in result.chunks)
    assert all(c.character_count <= 300 for c in result.chunks)
    assert all(c.heading_path == ("Long",) for c in result.chunks)
    assert result.chunks[-1].text.endswith(".\n\nShort after.")
    assert " ".join(texts(result)) == f"## Long\n\n{paragraph}\n\nShort after."


def test_paragraph_without_sentences_splits_at_words() -> None:
    paragraph = " ".join(f"w{n:03d}" for n in range(200))
    result = chunk(paragraph, size=200)
    assert all(c.split_mid_block and len(c.text) <= 200 for c in result.chunks)
    assert all(re.fullmatch(r"w\d{3}( w\d{3})*", c.text) for c in result.chunks)
    assert " ".join(texts(result)) == paragraph


def test_single_long_word_splits_hard_at_size() -> None:
    word = "x" * 1000
    result = chunk(f"{word}\n\nnext", size=300)
    assert [len(t) for t in texts(result)] == [300, 300, 300, 100 + len("\n\nnext")]
    assert all(c.split_mid_block for c in result.chunks)


def test_oversized_code_block_splits_at_line_boundaries() -> None:
    lines = [f"    statement_{n} = compute({n}, {n * 2})" for n in range(40)]
    code = "```\n" + "\n".join(lines) + "\n```"
    result = chunk(code, size=300)
    assert result.total > 3
    for c in result.chunks:
        assert c.split_mid_block
        assert c.end_offset == len(code) or code[c.end_offset] == "\n"
        assert c.start_offset == 0 or code[c.start_offset - 1] == " "
    assert result.chunks[0].text.startswith("```\n")
    assert result.chunks[-1].text.endswith("\n```")


def test_sentence_end_too_early_falls_back_to_words() -> None:
    paragraph = "Short. " + " ".join(["longword"] * 60)
    result = chunk(paragraph, size=200)
    assert not result.chunks[0].text.endswith("Short.")
    assert len(result.chunks[0].text) > 150


def test_cjk_text_splits_at_full_stops() -> None:
    sentence_zh = "这是一个关于安装软件的句子。"
    markdown = "## 安装\n\n" + sentence_zh * 40
    result = chunk(markdown, size=200)
    assert result.chunks[0].heading_path == ("安装",)
    pieces = [c for c in result.chunks if c.split_mid_block]
    assert len(pieces) >= 3
    assert all(c.text.endswith("。") for c in result.chunks)
    assert all(c.heading_path == ("安装",) for c in result.chunks)
    assert result.chunks[1].estimated_token_count > result.chunks[1].character_count // 2


# -- overlap ----------------------------------------------------------------------------------


def test_overlap_repeats_the_end_of_the_previous_chunk_from_a_word_start() -> None:
    paragraphs = [" ".join(f"p{n}w{index}" for index in range(25)) for n in range(6)]
    markdown = "\n\n".join(paragraphs)
    plain = chunk(markdown, size=250)
    overlapped = chunk(markdown, size=250, overlap=40)
    assert plain.total == overlapped.total > 2
    assert overlapped.chunks[0].overlap_character_count == 0
    for before, without, after in zip(
        overlapped.chunks, plain.chunks[1:], overlapped.chunks[1:], strict=False
    ):
        assert 0 < after.overlap_character_count <= 40
        assert content_start(after) == without.start_offset
        assert after.text.endswith(without.text)
        assert after.start_offset >= content_start(before)
        assert markdown[after.start_offset - 1] == " "
        repeated = after.text[: after.overlap_character_count]
        assert before.text.endswith(repeated.rstrip())


def test_overlap_does_not_repeat_a_section_heading() -> None:
    markdown = "## One\n\nShort.\n\n## Two\n\nAlso short."
    result = chunk(markdown, overlap=100)
    assert texts(result) == ["## One\n\nShort.", "Short.\n\n## Two\n\nAlso short."]
    assert result.chunks[1].overlap_character_count == len("Short.\n\n")
    only_heading = chunk("## One\n\n## Two\n\ntext", overlap=100)
    assert [c.overlap_character_count for c in only_heading.chunks] == [0, 0]


def test_overlap_inside_one_long_word_starts_mid_word() -> None:
    result = chunk("y" * 500, size=200, overlap=50)
    assert [c.overlap_character_count for c in result.chunks] == [0, 50, 50]
    assert [len(c.text) for c in result.chunks] == [200, 250, 150]


# -- truncation and speed ---------------------------------------------------------------------


def test_max_chunks_truncates_but_reports_the_total() -> None:
    markdown = "\n\n".join(f"## Part {n}\n\ntext {n}" for n in range(10))
    result = chunk(markdown, max_chunks=3)
    assert result.total == 10
    assert result.truncated is True
    assert [c.heading_path for c in result.chunks] == [("Part 0",), ("Part 1",), ("Part 2",)]
    assert [c.index for c in result.chunks] == [0, 1, 2]
    exact = chunk(markdown, max_chunks=10)
    assert (len(exact.chunks), exact.total, exact.truncated) == (10, 10, False)


def test_one_megabyte_document_chunks_quickly() -> None:
    section = (
        "## Section\n\n"
        + " ".join(sentence(n) for n in range(20))
        + "\n\n```\ncode line\n\n# comment\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        + "\n".join(f"- item {n}" for n in range(10))
        + "\n\n"
        + "z" * 3000
        + "\n\n"
    )
    markdown = section * (1_000_000 // len(section) + 1)
    started = time.process_time()
    result = chunk(markdown, size=500, overlap=100, max_chunks=2000)
    elapsed = time.process_time() - started
    assert result.total > 2000 and result.truncated
    assert elapsed < 1.5


# -- properties -------------------------------------------------------------------------------

WORDS = (
    "alpha",
    "beta",
    "gamma",
    "data",
    "install",
    "packages",
    "x",
    "42",
    "Straße",
    "café",
    "naïve",
    "über",
    "漢字",
    "日本語",
    "한국어",
    "emoji😀",
    "non\u00a0breaking",
    "e.g.",
    "(paren)",
    "[link](https://example.com/a_b)",
    "**bold**",
    "`code`",
    "a-b",
)


@dataclass
class Document:
    """A generated document and what the generator knows about it."""

    text: str = ""
    headings: list[tuple[int, int, str]] = field(default_factory=list)
    code_blocks: list[tuple[int, int]] = field(default_factory=list)


def phrase(count: int, seed: int) -> str:
    """``count`` words picked by a cheap hash of ``seed``: two draws per phrase, not one a word."""
    return " ".join(WORDS[(seed * 7919 + index * 104729) % len(WORDS)] for index in range(count))


words = st.builds(phrase, st.integers(1, 14), st.integers(0, 10**6))


@st.composite
def sentences(draw: st.DrawFn) -> str:
    body = draw(words)
    if draw(st.integers(0, 9)) == 0:
        body += " " + "q" * draw(st.integers(150, 700))
    return body + draw(st.sampled_from([".", "!", "?", "", "。"]))


@st.composite
def paragraphs(draw: st.DrawFn) -> str:
    parts = draw(st.lists(sentences(), min_size=1, max_size=6))
    text = "".join(part + draw(st.sampled_from([" ", " ", "\n", "  "])) for part in parts)
    return text.rstrip() * draw(st.sampled_from([1, 1, 1, 4, 12]))


@st.composite
def code_blocks(draw: st.DrawFn) -> str:
    fence = draw(st.sampled_from(["```", "~~~", "````"]))
    line = st.one_of(words, st.just(""), st.just("# comment"), words.map(lambda w: "    " + w))
    lines = draw(st.lists(line, max_size=12)) * draw(st.sampled_from([1, 1, 8]))
    return "\n".join([fence + draw(st.sampled_from(["", "python"])), *lines, fence])


@st.composite
def tables(draw: st.DrawFn) -> str:
    columns = draw(st.integers(1, 4))
    row = st.lists(words, min_size=columns, max_size=columns).map(
        lambda c: "| " + " | ".join(c) + " |"
    )
    rows = draw(st.lists(row, min_size=1, max_size=8))
    return "\n".join([rows[0], "|" + "---|" * columns, *rows[1:]])


@st.composite
def lists(draw: st.DrawFn) -> str:
    item = st.one_of(
        words.map(lambda w: "- " + w),
        words.map(lambda w: "1. " + w),
        words.map(lambda w: "  - " + w),
        words.map(lambda w: "  " + w),
    )
    items = draw(st.lists(item, min_size=1, max_size=10))
    first = "- " + draw(words)
    return first + "".join(draw(st.sampled_from(["\n", "\n\n"])) + i for i in items)


@st.composite
def documents(draw: st.DrawFn) -> Document:
    document = Document()
    pieces: list[str] = [draw(st.sampled_from(["", "\n", "\n\n  \n", " "]))]
    offset = len(pieces[0])
    kinds = draw(
        st.lists(st.sampled_from(["heading", "paragraph", "code", "table", "list"]), max_size=25)
    )
    for kind in kinds:
        if kind == "heading":
            level = draw(st.integers(1, 6))
            title = draw(words)
            text = (
                "#" * level + " " + title + draw(st.sampled_from(["", "", " #", " " + "#" * level]))
            )
            document.headings.append((offset, level, title))
        elif kind == "code":
            text = draw(code_blocks())
            document.code_blocks.append((offset, offset + len(text)))
        else:
            text = draw({"paragraph": paragraphs(), "table": tables(), "list": lists()}[kind])
        separator = draw(st.sampled_from(["\n", "\n\n", "\n\n\n", "\n \n", "\r\n\r\n", " \n\t\n"]))
        pieces += [text, separator]
        offset += len(text) + len(separator)
    document.text = "".join(pieces)
    return document


@st.composite
def options(draw: st.DrawFn) -> ChunkOptions:
    size = draw(st.one_of(st.integers(200, 600), st.integers(200, 20000)))
    return ChunkOptions(
        size=size,
        overlap=draw(st.one_of(st.just(0), st.integers(0, size // 2))),
        heading_aware=draw(st.booleans()),
        heading_level=draw(st.integers(1, 6)),
        max_chunks=draw(st.one_of(st.just(2000), st.integers(1, 4))),
    )


def expected_path(document: Document, offset: int) -> tuple[str, ...]:
    stack: list[tuple[int, str]] = []
    for start, level, title in document.headings:
        if start <= offset:
            stack = [entry for entry in stack if entry[0] < level] + [(level, plain(title))]
    return tuple(title for _, title in stack)


def plain(title: str) -> str:
    """A heading's text as a reader sees it: a link as its text, an escaped character as itself."""
    title = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", title)
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", title).strip()


def check_text_and_counts(markdown: str, opts: ChunkOptions, result: ChunkResult) -> None:
    assert len(result.chunks) == min(result.total, opts.max_chunks)
    assert result.truncated == (result.total > opts.max_chunks)
    assert (result.total == 0) == (not markdown.strip())
    for index, c in enumerate(result.chunks):
        assert c.index == index
        assert c.text == markdown[c.start_offset : c.end_offset]
        assert c.text and not c.text[0].isspace() and not c.text[-1].isspace()
        assert c.character_count == len(c.text)
        assert c.estimated_token_count == estimate_tokens(c.text)
        assert 0 <= c.overlap_character_count <= opts.overlap
        assert not markdown[content_start(c)].isspace()
        assert c.end_offset - content_start(c) <= opts.size
        assert all(part and part == part.strip() for part in c.heading_path)
    assert not result.chunks or result.chunks[0].overlap_character_count == 0


def check_coverage(markdown: str, result: ChunkResult) -> None:
    """Own contents are in order, disjoint, and only whitespace lies between them."""
    previous_end, previous_start = 0, -1
    for c in result.chunks:
        assert content_start(c) >= previous_end
        assert c.start_offset > previous_start
        assert not markdown[previous_end : content_start(c)].strip()
        previous_end, previous_start = c.end_offset, c.start_offset
    if not result.truncated:
        assert not markdown[previous_end:].strip()


def check_whole_blocks(markdown: str, result: ChunkResult) -> None:
    """A chunk not marked split_mid_block starts and ends on line boundaries."""
    for c in result.chunks:
        if c.split_mid_block:
            continue
        line_start = markdown.rfind("\n", 0, content_start(c)) + 1
        assert not markdown[line_start : content_start(c)].strip()
        line_end = markdown.find("\n", c.end_offset)
        assert not markdown[c.end_offset : len(markdown) if line_end < 0 else line_end].strip()


def check_structure(document: Document, opts: ChunkOptions, result: ChunkResult) -> None:
    markdown = document.text
    for c in result.chunks:
        assert c.heading_path == expected_path(document, content_start(c))
    covered_to = result.chunks[-1].end_offset if result.chunks else 0
    starts = {content_start(c) for c in result.chunks}
    if opts.heading_aware:
        for offset, level, _ in document.headings:
            if level > opts.heading_level or offset >= covered_to:
                continue
            assert offset in starts, markdown[offset : offset + 40]
            for c in result.chunks:
                assert not (c.start_offset <= offset < c.end_offset) or offset == content_start(c)
    for start, end in document.code_blocks:
        if end - start <= opts.size and end <= covered_to:
            assert any(content_start(c) <= start and end <= c.end_offset for c in result.chunks)


@settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(document=documents(), opts=options())
def test_invariants_hold_for_generated_documents(document: Document, opts: ChunkOptions) -> None:
    result = chunk_markdown(document.text, opts)
    check_text_and_counts(document.text, opts, result)
    check_coverage(document.text, result)
    check_whole_blocks(document.text, result)
    check_structure(document, opts, result)


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(
    text=st.text(alphabet=st.sampled_from("ab #|`~-*1.\n \t>!?。漢"), max_size=600), opts=options()
)
def test_invariants_hold_for_arbitrary_text(text: str, opts: ChunkOptions) -> None:
    result = chunk_markdown(text, opts)
    check_text_and_counts(text, opts, result)
    check_coverage(text, result)
    check_whole_blocks(text, result)
