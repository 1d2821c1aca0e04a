"""The scan's walk over a document's elements, the hidden-text reader's whitespace and the
style-rule index: the buckets, texts and names the faster code paths must keep."""

from __future__ import annotations

import re

import lxml.html
from lxml import etree

from convert.html.elements import page_elements
from convert.html.selectors import ElementIndex
from convert.safety.hidden import element_text


def test_buckets_follow_attribute_names_and_the_body() -> None:
    document = lxml.html.document_fromstring(
        "<html><head><title style='display:none' class='t'>T</title>"
        "<meta name='description' content='d'><style>.x{}</style></head>"
        "<body><!-- note --><div id='a' hidden>x</div><img alt='picture' src='/p.png'>"
        "<p class='c' aria-hidden='true'>y</p><a href='/l' title='go'>z</a>"
        "<noscript>n</noscript></body></html>"
    )
    found = page_elements(document)
    tags = lambda elements: [element.tag for element in elements]  # noqa: E731
    assert found.every == list(document.iter(etree.Element))
    assert tags(found.body) == ["body", "div", "img", "p", "a", "noscript"]
    assert tags(found.styled) == ["div", "p"]  # the head's styled title is no body text
    assert tags(found.labelled) == ["img", "a"]
    assert tags(found.keyed) == ["title", "div", "p"]
    assert tags(found.hideable) == ["title", "div", "p"]
    assert [comment.text for comment in found.comments] == [" note "]
    assert tags(found.tagged["links"]) == ["a"]
    assert tags(found.tagged["images"]) == ["img"]
    assert tags(found.tagged["styles"]) == ["style"]
    assert tags(found.tagged["metadata"]) == ["title", "meta"]
    assert tags(found.tagged["unrendered"]) == ["noscript"]


def test_a_document_without_a_body_is_all_body() -> None:
    root = etree.fromstring(
        "<html><div style='display:none'>x<span hidden='1'>y</span></div></html>"
    )
    found = page_elements(root)
    assert [element.tag for element in found.body] == ["html", "div", "span"]
    assert [element.tag for element in found.styled] == ["div", "span"]


def test_an_empty_body_is_its_own_bounds() -> None:
    document = lxml.html.document_fromstring(
        "<html><head><title>t</title></head><body></body></html>"
    )
    found = page_elements(document)
    assert [element.tag for element in found.body] == ["body"]


def test_whitespace_collapses_as_a_regular_expression_would() -> None:
    pieces = ["a \x85 b", "\x1c\x1d", " c\xa0\xa0d\u3000", "\n\t ", "e"]
    html = "<div>" + "".join(f"<span>{piece}</span>" for piece in pieces) + "</div>"
    element = lxml.html.fragment_fromstring(html)
    expected = "".join(re.sub(r"\s+", " ", piece) for piece in pieces)
    assert element_text(element) == "\n" + expected + "\n"
    assert element_text(lxml.html.fragment_fromstring("<span>   </span>")) == " "


def test_the_index_lists_wanted_names_once_each_in_document_order() -> None:
    document = lxml.html.document_fromstring(
        "<html><body><p class='a a b' id='one'>1</p><p class='b c' id='two'>2</p>"
        "<p class='a' id='three'>3</p></body></html>"
    )
    keyed = document.xpath("//*[@class or @id]")
    index = ElementIndex(document, keyed, frozenset({"a", "b"}), frozenset({"two"}))
    assert {name: [p.get("id") for p in found] for name, found in index.by_class.items()} == {
        "a": ["one", "three"],
        "b": ["one", "two"],
    }
    assert list(index.by_id) == ["two"]
    everything = ElementIndex(document, keyed)
    assert sorted(everything.by_class) == ["a", "b", "c"]
    assert sorted(everything.by_id) == ["one", "three", "two"]
    nothing = ElementIndex(document, keyed, frozenset(), frozenset())
    assert not nothing.by_class and not nothing.by_id
