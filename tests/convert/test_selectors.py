"""The small selector matcher against cssselect's XPath translation on the same documents."""

from __future__ import annotations

import pytest
from cssselect import HTMLTranslator
from lxml import etree

from convert.html.css import stylesheet_styles
from convert.html.document import parse_document
from convert.html.selectors import MAX_COMPOUNDS, ElementIndex, parse_selector

PAGE = """<html><head><title>t</title></head><body>
<div id="top" class="nav main">
  <ul class="menu"><li class="item"><a href="/a" class="link">A</a></li>
  <li class="item open" data-state="on"><a href="/b">B</a><ul class="menu sub">
    <li class="item"><span class="label Mixed">deep</span></li></ul></li></ul>
</div>
<section class="main"><p class="note">x</p><div><p class="note" hidden>y</p></div>
<!-- a comment between siblings --><p title="hi there" class="note">z</p>
<h2 class="head">h</h2><p>after</p><p class="late">later</p></section>
<footer><div class="nav"><a class="link" aria-hidden="true">f</a></div></footer>
</body></html>"""

SELECTORS = (
    "li",
    "*",
    ".item",
    ".item.open",
    "li.item",
    "#top",
    "div#top.nav",
    ".nav a",
    ".nav > ul > li",
    ".menu .item .label",
    ".menu > .item > .label",
    "ul .menu li",
    "section p",
    "section > p",
    "section > div > p.note",
    "[hidden]",
    "p[hidden]",
    "[data-state=on]",
    '[data-state="on"] a',
    "[title='hi there']",
    "a[aria-hidden=true]",
    ".label.Mixed",
    "body .nav .link",
    "div div a",
    ".missing a",
    "#top .menu.sub > li > span",
    "div + p",
    "div ~ p",
    "p + p",
    ".note + .note",
    ".note ~ .late",
    "h2+p",
    "h2 ~ p.late",
    ".main .head ~ p",
    ".main div + p.note",
    ".item + .item a",
    ".item ~ li span",
    "li ~ li > a",
    "section > p ~ p ~ p",
    ".nav ul li a",
    ".menu li span",
    ".main p",
    "#top li a",
    ".main > div > [hidden]",
    "[title]",
    "[data-state]",
    ".menu [data-state] .label",
)


@pytest.fixture(scope="module")
def document() -> etree._Element:
    return parse_document(PAGE)


@pytest.mark.parametrize("selector", SELECTORS)
def test_matches_what_cssselect_matches(document: etree._Element, selector: str) -> None:
    parsed = parse_selector(selector)
    assert parsed is not None, selector
    index = ElementIndex(document, document.xpath("//*[@class or @id]"))
    reference = document.xpath(HTMLTranslator().css_to_xpath(selector))
    assert list(index.select(parsed)) == reference  # the same elements, in document order


@pytest.mark.parametrize(
    "selector", ["a[href^=x]", "a[title~=x]", "a:hover", ".a\\:b", "> a", "a >", "#a#b x", ""]
)
def test_selectors_outside_the_subset_are_left_to_the_caller(selector: str) -> None:
    assert parse_selector(selector) is None


def test_deep_nesting_with_descendant_chains_stays_linear() -> None:
    depth = 400
    html = "<html><body>" + "<div class='a'>" * depth + "<b>x</b>" + "</div>" * depth
    document = parse_document(html + "</body></html>")
    parsed = parse_selector(".a " * 8 + "b")
    assert parsed is not None
    index = ElementIndex(document, document.xpath("//*[@class]"))
    memo: dict[tuple[object, int], bool] = {}
    assert len(list(index.select(parsed))) == 1
    bold = document.find(".//b")
    assert parsed.matches(bold, memo)
    assert len(memo) <= depth * 8


def test_page_rules_reach_the_elements_they_select() -> None:
    document = parse_document(
        "<html><head><style>.menu .hide { display: none } section > p { color: #fff }"
        "a + b { display: none } .x[hidden] { opacity: 0 }</style></head><body>"
        "<div class='menu'><span class='hide'>h</span></div><section><p>w</p></section>"
        "<a>a</a><b>b</b><i class='x' hidden>i</i></body></html>"
    )
    styles = {element.tag: style for element, style in stylesheet_styles(document).items()}
    assert styles == {
        "span": {"display": "none"},
        "p": {"color": "#fff"},
        "b": {"display": "none"},
        "i": {"opacity": "0"},
    }


def test_matches_below_nested_matches_are_found_once_in_document_order() -> None:
    depth = 300
    html = "<html><body>" + "<div class='a'><b>x</b>" * depth + "</div>" * depth
    document = parse_document(html + "</body></html>")
    index = ElementIndex(document, document.xpath("//*[@class]"))
    for selector in (".a b", ".a > b", ".a div b", "body .a .a b"):
        parsed = parse_selector(selector)
        assert parsed is not None
        reference = document.xpath(HTMLTranslator().css_to_xpath(selector))
        assert list(index.select(parsed)) == reference, selector


def test_chains_longer_than_real_rules_are_left_to_the_caller() -> None:
    """Matching recurses once per compound: a hostile page's chain of hundreds is not taken."""
    assert parse_selector(" + ".join(["p"] * MAX_COMPOUNDS)) is not None
    assert parse_selector(" + ".join(["p"] * (MAX_COMPOUNDS + 1))) is None
    document = parse_document(
        "<html><head><style>"
        + "+".join(["p"] * 500)
        + "{display:none}</style></head><body>"
        + "<p>x</p>" * 500
        + "</body></html>"
    )
    stylesheet_styles(document)  # no RecursionError
