"""Markdown that keeps the page's structure: links around blocks written as valid links, and the
fidelity measure the extraction bench reports (``tests/fidelity.py``)."""

from __future__ import annotations

from convert.markdown.pipeline import ConvertOptions, convert_page
from tests.fidelity import code_shares, list_shares, read_structure, table_shares

URL = "https://news.example/a"


def markdown_of(body: str) -> str:
    html = f"<html><body>{body}</body></html>"
    return convert_page(html, URL, ConvertOptions(only_main_content=False)).markdown


def test_a_link_around_a_card_is_written_on_its_heading() -> None:
    markdown = markdown_of(
        '<a href="/story-2" title="Second"><div class="card"><h3>Second story</h3>'
        "<ul><li>By Ann</li><li>May 3</li></ul><p>Teaser text here.</p></div></a>"
    )
    assert '### [Second story](https://news.example/story-2 "Second")' in markdown
    assert "- By Ann\n- May 3" in markdown and "Teaser text here." in markdown
    assert "\n[\n" not in markdown and "\n](" not in markdown


def test_a_link_around_paragraphs_is_written_on_the_first() -> None:
    markdown = markdown_of('<a href="/s"><div><p>Only a paragraph</p><p>And another</p></div></a>')
    assert "[Only a paragraph](https://news.example/s)" in markdown
    assert "And another" in markdown and "](https://news.example/s)\n" not in markdown.replace(
        "[Only a paragraph](https://news.example/s)", ""
    )


def test_an_inline_link_stays_as_it_is() -> None:
    assert "[the report](https://news.example/r)" in markdown_of(
        '<p>Read <a href="/r">the <b>report</b></a> now.</p>'
    ).replace("**", "")


def test_the_fidelity_measure_reads_tables_code_and_nested_lists() -> None:
    reference = read_structure(
        "| a | b |\n|---|---|\n| **1** | 2 |\n\n- one\n- two\n  - two a\n\n"
        "```python\nx = 1\nprint( x )\n```\n"
    )
    same = read_structure(
        "| A | B |\n| --- | --- |\n| 1 | 2 |\n\n- one\n- two\n    - two a\n\n"
        "```\nx = 1\nprint(  x )\n```\n"
    )
    flat = read_structure("- one\n- two\n- two a\n\n```\nx = 1\n```\n")
    assert table_shares(reference, same) == [1.0] and table_shares(reference, flat) == [0.0]
    assert code_shares(reference, same) == [1.0] and code_shares(reference, flat) == [0.5]
    assert list_shares(reference, same) == [1.0]
    assert list_shares(reference, flat) == [2 / 3], "a nested item read flat is not reproduced"
