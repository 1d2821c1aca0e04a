"""A page's type, from what its markup says of itself, its address and what extraction finds."""

from __future__ import annotations

import lxml.html
import pytest

from convert.extract.page_type import decide, markup_evidence
from convert.markdown.pipeline import ConvertOptions, convert_page

ARTICLE = "<p>" + "A paragraph of an article's text, long enough to be read as prose. " * 8 + "</p>"


def evidence(head: str, url: str, body: str = ARTICLE) -> dict[str, float]:
    root = lxml.html.fromstring(f"<html><head>{head}</head><body>{body}</body></html>")
    return markup_evidence(root, url)


@pytest.mark.parametrize(
    ("head", "url", "kind"),
    [
        (
            '<script type="application/ld+json">{"@type": "BlogPosting"}</script>',
            "https://example.com/a",
            "article",
        ),
        ('<meta property="og:type" content="product">', "https://shop.example/x", "product"),
        ("", "https://forum.example.com/topic/123-a-question", "forum"),
        ("", "https://stackoverflow.com/questions/1/why", "forum"),
        (
            '<meta name="generator" content="Docusaurus v3">',
            "https://x.example/intro",
            "documentation",
        ),
        ("", "https://docs.example.com/start", "documentation"),
        ("", "https://shop.example/collections/sandals", "collection"),
        ("", "https://news.example/2024/05/a-story", "article"),
    ],
)
def test_the_markup_and_the_address_say_the_type(head: str, url: str, kind: str) -> None:
    assert decide(evidence(head, url)).kind == kind


def test_a_page_nothing_speaks_for_is_an_article_of_no_certainty() -> None:
    found = decide(evidence("", "https://example.com/a-page"))
    assert (found.kind, found.confidence) == ("article", 0.0)


def test_evidence_adds_up_and_the_lead_is_the_confidence() -> None:
    one = decide({"article": 3.0})
    close = decide({"article": 3.0, "forum": 2.5})
    assert one.confidence == 1.0 and 0 < close.confidence < 0.5 and close.kind == "article"


def test_what_extraction_finds_counts_too() -> None:
    assert decide({}, thread=True).kind == "forum"
    assert decide({"article": 2.0}, thread=True, thread_in_comments=True).kind == "article"
    assert decide({}, code_blocks=3).kind == "documentation"
    assert decide({}, product_facts=True).kind == "product"


def test_the_conversion_reports_the_type_and_its_confidence() -> None:
    html = (
        '<html><head><script type="application/ld+json">{"@type": "NewsArticle"}</script>'
        f"</head><body><nav><a href='/'>Home</a></nav><article><h1>Title</h1>{ARTICLE}"
        "</article></body></html>"
    )
    result = convert_page(html, "https://news.example/2024/05/a-story", ConvertOptions())
    assert result.page_type == "article"
    assert result.extraction_confidence is not None and result.extraction_confidence >= 0.8
    whole = convert_page(html, "https://news.example/", ConvertOptions(only_main_content=False))
    assert whole.page_type is None and whole.extraction_confidence is None
