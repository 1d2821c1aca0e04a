"""Content a page keeps out of sight until its scripts run: streamed React boundaries,
``<noscript>`` versions for crawlers, and blocks hidden for a reveal."""

from __future__ import annotations

import time

from lxml import etree

from convert.extract.reveal import reveal_scripted_content
from convert.html.document import clean_document, read_document
from convert.html.hiding import is_hidden
from convert.markdown.pipeline import ConvertOptions, convert_page

URL = "https://example.com/blog/post"
PROSE = "The paragraph explains the setting step by step, with the options that worked. "


def convert(html: str) -> str:
    return convert_page(html, URL, ConvertOptions(only_main_content=False)).markdown


def main_content(html: str) -> str:
    return convert_page(html, URL, ConvertOptions()).markdown


def test_a_streamed_boundary_replaces_its_fallback_in_place() -> None:
    html = (
        "<html><body><header><p>Site header</p></header><main>"
        "<h1>Query tuning</h1><!--$?--><template id='B:0'></template>"
        "<div class='spinner'>Loading the article...</div><!--/$-->"
        "<p>Closing words after the boundary.</p></main><footer>Footer</footer>"
        f"<div hidden id='S:0'><h2>Indexes</h2><p>{PROSE * 6}</p></div>"
        '<script>$RC("B:0","S:0")</script></body></html>'
    )
    markdown = convert(html)
    assert "Loading the article" not in markdown
    assert markdown.index("# Query tuning") < markdown.index("## Indexes")
    assert markdown.index("## Indexes") < markdown.index("Closing words") < markdown.index("Footer")


def test_a_streamed_segment_fills_its_placeholder() -> None:
    html = (
        "<html><body><article><h1>Title</h1><template id='P:1'></template>"
        "<p>After the placeholder.</p></article>"
        f"<div hidden id='S:1'><p>Streamed part. {PROSE * 4}</p></div>"
        '<script>$RS("S:1","P:1")</script></body></html>'
    )
    markdown = convert(html)
    assert markdown.index("# Title") < markdown.index("Streamed part.")
    assert markdown.index("Streamed part.") < markdown.index("After the placeholder.")


def test_a_segment_without_its_swap_call_is_shown_where_it_stands() -> None:
    html = f"<html><body><p>Intro.</p><div hidden id='S:2'><p>Late. {PROSE}</p></div></body></html>"
    assert "Late." in convert(html)


def test_segments_whose_swap_calls_are_missing_go_where_their_names_say() -> None:
    # A page saved without its inline scripts: P:x is filled by S:x, B:x by S:x.
    html = (
        "<html><body><article><h1>Title</h1><!--$?--><template id='B:0'></template>"
        "<div>Loading paragraph...</div><!--/$--><template id='P:5'></template>"
        "<p>Closing words.</p></article><footer>Footer</footer>"
        f"<div hidden id='S:5'><p>Second part. {PROSE}</p></div>"
        f"<div hidden id='S:0'><p>First part. {PROSE}</p></div></body></html>"
    )
    markdown = convert(html)
    assert "Loading" not in markdown
    assert markdown.index("First part.") < markdown.index("Second part.")
    assert markdown.index("Second part.") < markdown.index("Closing words.")
    assert markdown.index("Closing words.") < markdown.index("Footer")


def test_main_content_finds_an_article_streamed_into_a_boundary() -> None:
    # The segment is short: shown by the swap, not as a hidden block holding the page.
    nav = "".join(f"<a href='/p{i}'>Product {i}</a>" for i in range(20))
    html = (
        f"<html><head><title>Query tuning</title></head><body><nav>{nav}</nav>"
        "<main><h1>Query tuning</h1><!--$?--><template id='B:0'></template><p>Loading...</p>"
        f"<!--/$--><p>{PROSE * 4}</p></main>"
        "<div hidden id='S:0'><p>Indexes first, then the planner.</p></div>"
        '<script>$RC("B:0","S:0")</script></body></html>'
    )
    markdown = main_content(html)
    assert "Loading" not in markdown and "Product 3" not in markdown
    assert markdown.index("Indexes first") < markdown.index("The paragraph explains")


def test_a_text_fallback_goes_with_its_boundary() -> None:
    html = (
        "<html><body><article><h1>Title</h1><!--$?--><template id='B:1'></template>"
        "Loading...<!--/$--><p>After.</p></article>"
        "<div hidden id='S:1'><p>Streamed.</p></div><script>$RC('B:1','S:1')</script>"
        "</body></html>"
    )
    markdown = convert(html)
    assert "Loading" not in markdown
    assert markdown.index("Streamed.") < markdown.index("After.")


def test_a_marker_inside_its_own_segment_is_left_alone() -> None:
    html = (
        "<html><body><div hidden id='S:0'><div><template id='B:0'></template>"
        '<p>Inside.</p></div></div><script>$RC("B:0","S:0")</script></body></html>'
    )
    assert "Inside." in convert(html)


def test_a_hidden_menu_holding_most_of_the_text_stays_hidden() -> None:
    menu = "".join(
        f"<li><a href='/c{i}'>Category number {i} of the shop</a></li>" for i in range(40)
    )
    html = (
        f"<html><body><ul style='display:none'>{menu}</ul><h1>Guide</h1>"
        f"<p>{PROSE * 5}</p></body></html>"
    )
    assert "Category number" not in convert(html)


def test_a_block_hidden_for_a_reveal_is_shown_when_it_holds_the_page() -> None:
    html = (
        "<html><body><nav><a href='/'>Home</a></nav>"
        f"<div style='display:none' class='fade-in'><h1>Guide</h1><p>{PROSE * 12}</p></div>"
        "</body></html>"
    )
    assert "The paragraph explains" in main_content(html)


def test_a_small_hidden_block_stays_hidden() -> None:
    html = (
        f"<html><body><article><h1>Guide</h1><p>{PROSE * 12}</p></article>"
        "<div style='display:none'><p>Hidden menu entry one, hidden menu entry two.</p></div>"
        "<div hidden><p>Another hidden thing.</p></div></body></html>"
    )
    markdown = convert(html)
    assert "Hidden menu entry" not in markdown and "Another hidden thing" not in markdown


def test_content_served_only_in_noscript_is_kept() -> None:
    # A script-built forum's version for crawlers: the posts live inside <noscript>.
    posts = "".join(
        f"<div class='post'><span class='author'>user{i}</span><p>Reply number {i} explains "
        "the configuration step by step, with the options that worked.</p></div>"
        for i in range(8)
    )
    html = (
        "<html><body><div id='app'></div><script>var data = {\"x\": 1};</script>"
        f"<noscript><h1>Topic title</h1>{posts}</noscript></body></html>"
    )
    markdown = convert(html)
    assert "Reply number 0" in markdown and "Reply number 7" in markdown
    assert "user7" in markdown


def test_a_noscript_notice_is_still_dropped() -> None:
    body = "<p>" + "A paragraph of the article itself. " * 30 + "</p>"
    markdown = convert(
        f"<html><body><article>{body}</article>"
        "<noscript>Please enable JavaScript to see the comments.</noscript></body></html>"
    )
    assert "A paragraph of the article itself." in markdown
    assert "enable JavaScript" not in markdown


def test_hidden_tab_panels_and_accordion_answers_are_kept() -> None:
    html = (
        "<html><body><article><h1>Quickstart</h1><div role='tablist'>"
        "<button role='tab'>Python</button><button role='tab'>Node.js</button></div>"
        "<div role='tabpanel'><pre><code>pip install client</code></pre></div>"
        "<div role='tabpanel' hidden><pre><code>npm install client</code></pre></div>"
        "<h2>FAQ</h2><div class='faq-item'><h3>Is there a free tier?</h3>"
        "<div class='accordion-content' style='display:none'><p>Yes, for small projects.</p>"
        "</div></div></article>"
        "<ul role='menu' hidden><li>Hidden menu entry</li></ul></body></html>"
    )
    markdown = convert(html)
    assert "pip install client" in markdown and "npm install client" in markdown
    assert "Yes, for small projects." in markdown
    assert "Hidden menu entry" not in markdown


def test_blocks_hidden_by_a_frameworks_class_stay_hidden() -> None:
    html = (
        f"<html><body><article><h1>Guide</h1><p>{PROSE * 12}</p>"
        "<div class='promo-bar hide'><p>Spend 50 and shipping is on us this week.</p></div>"
        "<dl class='productView-info d-none'><dt>cat_thumb_Bone:</dt><dd>thumb.jpg</dd></dl>"
        "<ul class='hidden lg:flex'><li><a href='/a'>Desktop menu entry</a></li></ul>"
        "</article></body></html>"
    )
    markdown = convert(html)
    assert "The paragraph explains" in markdown
    for hidden in ("shipping is on us", "cat_thumb_Bone", "Desktop menu entry"):
        assert hidden not in markdown


def test_a_page_wrapped_in_a_hidden_class_until_its_script_runs_is_shown() -> None:
    html = (
        "<html><body><nav><a href='/'>Home</a></nav>"
        f"<div class='root hide'><h1>Guide</h1><p>{PROSE * 12}</p></div></body></html>"
    )
    assert "The paragraph explains" in main_content(html)


def test_an_accordion_answer_after_its_button_is_kept_and_a_menu_is_not() -> None:
    menu = "".join(f"<li><a href='/c{i}'>Category {i}</a></li>" for i in range(8))
    html = (
        f"<html><body><article><h1>Questions</h1><p>{PROSE * 6}</p>"
        "<div class='flex'><button type='button'><h3>How long does delivery take?</h3></button>"
        "<div class='text-sm hidden'><p>Two to four working days in most regions.</p></div></div>"
        f"<div><button aria-expanded='false'>Menu</button><ul class='hidden'>{menu}</ul></div>"
        "</article></body></html>"
    )
    markdown = main_content(html)
    assert "Two to four working days" in markdown
    assert "Category 3" not in markdown


def test_nested_hidden_panels_behind_buttons_are_read_in_bounded_time() -> None:
    depth = 1500
    html = (
        "<html><body>"
        + "<button>open</button><div class='hidden'>" * depth
        + "<p>"
        + "word " * 200_000
        + "</p>"
        + "</div>" * depth
        + f"<article><h1>Guide</h1><p>{PROSE * 6}</p></article></body></html>"
    )
    started = time.process_time()
    markdown = main_content(html)
    assert time.process_time() - started < 20
    assert "The paragraph explains" in markdown


def test_a_panel_named_by_an_expanding_controls_aria_controls_is_kept() -> None:
    # The WAI-ARIA accordion: the trigger names its panel; the panel is hidden until opened.
    html = (
        f"<html><body><article><h1>Benefits</h1><p>{PROSE * 6}</p>"
        "<button aria-expanded='false' aria-controls='p1 p2'>Workspace</button><h4>x</h4>"
        "<section id='p1' aria-hidden='true'><p>Give agents a single workspace.</p></section>"
        "<section id='p2' class='hidden'><p>Grow your service operation.</p></section>"
        "<section id='p3' aria-hidden='true'><p>Nobody opens this one.</p></section>"
        "</article></body></html>"
    )
    markdown = main_content(html)
    assert "single workspace" in markdown and "Grow your service" in markdown
    assert "Nobody opens this one" not in markdown


def test_many_chains_of_hidden_panels_behind_buttons_are_read_in_bounded_time() -> None:
    chain = "<button>open</button><div class='hidden'>" * 500 + "<p>x</p>" + "</div>" * 500
    html = f"<html><body>{chain * 100}<article><h1>Guide</h1><p>{PROSE * 6}</p></article>"
    started = time.process_time()
    markdown = main_content(html + "</body></html>")
    assert time.process_time() - started < 20
    assert "The paragraph explains" in markdown


def test_told_which_elements_are_hidden_reveal_and_cleaning_do_as_they_do_on_their_own() -> None:
    html = (
        "<html><body><nav class='hidden'><a href='/a'>Menu link</a></nav><main><h1>Topic</h1>"
        "<template id='B:0'></template><p>Loading</p><!--/$-->"
        "<div role='tabpanel' hidden><p>Tab two's text.</p></div>"
        "<button aria-expanded='false'>More</button><div style='display:none'><p>Answer.</p></div>"
        f"<div class='d-none' id='reveal'><p>{PROSE * 12}</p></div>"
        "<span aria-hidden='true'>Icon</span></main>"
        "<div hidden id='S:0'><p>Streamed paragraph.</p></div>"
        '<script>$RC("B:0","S:0")</script></body></html>'
    )

    def cleaned(told: bool) -> bytes:
        root = read_document(html).root
        hidden = [e for e in root.iter() if isinstance(e.tag, str) and is_hidden(e)]
        reveal_scripted_content(root, hidden if told else None)
        clean_document(root, URL, hidden if told else None)
        return etree.tostring(root)

    told = cleaned(True)
    assert told == cleaned(False)
    for shown in (b"Tab two", b"Answer.", b"Streamed paragraph", b"step by step"):
        assert shown in told
    assert b"Menu link" not in told and b"Icon" not in told
