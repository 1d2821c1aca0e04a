"""The cap on the elements of a page converted: the first ones in document order are kept, all
that follows them goes (siblings, descendants, the text after each end tag), and a page cut so
says it was truncated; pages under the cap convert as before."""

from __future__ import annotations

import lxml.html
import pytest

from convert.html.size import MAX_ELEMENTS, keep_first_elements
from convert.markdown.pipeline import TOO_MANY_ELEMENTS, ConvertOptions, convert_page
from tests.corpus import load_corpus

URL = "https://example.com/list"


def tags(root: lxml.html.HtmlElement) -> list[str]:
    return [str(element.tag) for element in root.iter()]


def test_keeps_the_first_elements_in_document_order_and_no_text_after_them() -> None:
    root = lxml.html.document_fromstring(
        "<html><body><div><p>one <b>two</b> three</p> after p</div> after div"
        "<p>four</p></body></html>"
    )
    assert keep_first_elements(root, 4)  # html, body, div, p: <b> is the first to go
    assert tags(root) == ["html", "body", "div", "p"]
    assert root.text_content() == "one "


def test_text_before_the_first_element_dropped_stays() -> None:
    root = lxml.html.document_fromstring(
        "<html><body><div><p>one <b>two</b> three</p> after p</div> after div"
        "<p>four</p></body></html>"
    )
    assert keep_first_elements(root, 5)  # the second <p> is the first to go
    assert root.text_content() == "one two three after p after div"


def test_a_document_within_the_limit_is_untouched() -> None:
    html = "<html><body><p>one</p><p>two</p></body></html>"
    root = lxml.html.document_fromstring(html)
    assert not keep_first_elements(root, 4)
    assert lxml.html.tostring(root, encoding="unicode") == html


@pytest.mark.parametrize("limit", [1, 2, 3, 7])
def test_the_cut_leaves_exactly_the_limit(limit: int) -> None:
    root = lxml.html.document_fromstring(
        "<html><body>" + "<div><p>x</p><ul><li>y</li></ul></div>" * 5 + "</body></html>"
    )
    keep_first_elements(root, limit)
    assert sum(1 for _ in root.iter()) == limit


def test_a_page_over_the_cap_is_cut_and_says_so() -> None:
    links = "".join(f'<p><a href="/item/{number}">Item {number}</a></p>' for number in range(3000))
    html = f"<html><head><title>List</title></head><body>{links}</body></html>"
    result = convert_page(html, URL, ConvertOptions(only_main_content=False, max_elements=1000))
    assert result.truncated and result.truncation_reason == TOO_MANY_ELEMENTS
    assert "[Item 0](https://example.com/item/0)" in result.markdown
    assert "Item 2999" not in result.markdown
    assert result.metadata["title"] == "List"

    whole = convert_page(html, URL, ConvertOptions(only_main_content=False))
    assert not whole.truncated and "[Item 2999](https://example.com/item/2999)" in whole.markdown


def test_max_chars_reports_its_own_reason_on_a_cut_page() -> None:
    html = "<html><body>" + "<p>A line of text.</p>" * 3000 + "</body></html>"
    result = convert_page(html, URL, ConvertOptions(max_elements=1000, max_chars=500))
    assert result.truncated and result.truncation_reason == "max_chars_exceeded"


def test_corpus_pages_are_far_under_the_cap() -> None:
    for page in load_corpus():
        root = lxml.html.document_fromstring(page.html)
        assert sum(1 for _ in root.iter()) < MAX_ELEMENTS // 10, page.name
