"""Main-content selection on pages built the way real sites build them: the steps that fall
back when the first pass leaves too little, and the blocks it must keep or drop."""

from __future__ import annotations

import pytest

from convert.markdown.pipeline import ConvertOptions, convert_page
from tests.corpus import CORPUS

URL = "https://example.com/t/1"
PROSE = "The reply explains the setting step by step, with the options that worked for me. "


def main_content(html: str) -> str:
    return convert_page(html, URL, ConvertOptions()).markdown


def site(content: str, title: str = "Topic") -> str:
    nav = "".join(f"<li><a href='/c{i}'>Category {i}</a></li>" for i in range(12))
    return (
        f"<html><head><title>{title}</title></head><body>"
        f"<header><nav><ul>{nav}</ul></nav></header>{content}"
        "<footer><p>Copyright Example forum. All rights reserved.</p></footer></body></html>"
    )


def test_forum_posts_named_comments_are_kept() -> None:
    # Forum software names its posts "comment" (IPS: ipsComment): a name that usually marks
    # the thread below an article. When the named pass leaves little of the page, the pass
    # with only the declared furniture is taken.
    posts = "".join(
        f"<article class='ipsComment' id='comment-{i}'><div class='ipsComment_author'>user{i}"
        f"</div><div class='ipsComment_content'><p>Post {i}. {PROSE * 3}</p></div></article>"
        for i in range(6)
    )
    lead = f"<p class='ipsType_lead'>Asked by user0. {PROSE * 3}</p>"
    markdown = main_content(site(f"<div class='topic'><h1>Topic</h1>{lead}{posts}</div>"))
    for i in range(6):
        assert f"Post {i}." in markdown
    assert "Category 3" not in markdown and "Copyright" not in markdown


def test_a_long_comment_thread_below_a_full_article_goes() -> None:
    article = f"<article><h1>Topic</h1>{f'<p>{PROSE * 4}</p>' * 8}</article>"
    comments = "".join(
        f"<div class='comment'><p>Comment {i}: I disagree, and here is why. {PROSE * 2}</p></div>"
        for i in range(40)
    )
    markdown = main_content(site(f"{article}<div id='comments'>{comments}</div>"))
    assert "The reply explains" in markdown
    assert "Comment 3:" not in markdown


def test_content_in_blocks_named_widget_is_kept() -> None:
    # Page builders (Elementor) wrap every block, the article's too, in "...-widget" classes.
    blocks = "".join(
        f"<div class='elementor-widget elementor-widget-text-editor'>"
        f"<div class='elementor-widget-container'><p>Section {i}. {PROSE * 3}</p></div></div>"
        for i in range(5)
    )
    markdown = main_content(site(f"<div class='elementor-section'><h1>Topic</h1>{blocks}</div>"))
    for i in range(5):
        assert f"Section {i}." in markdown


def corpus_markdown(name: str) -> str:
    html = (CORPUS / f"{name}.html").read_text(encoding="utf-8")
    return main_content(html)


def test_every_reply_of_the_corpus_forum_thread_keeps_its_author_and_date() -> None:
    markdown = corpus_markdown("a_forum_thread")
    said = [
        ("**oakandiron** · 8 Jan 2026", "I've got a 14 inch bandsaw"),
        ("**Gary_T** · 8 Jan 2026", "Classic drift."),
        ("**Helen_W** · 8 Jan 2026", "To find the drift angle"),
        ("**splinterbob** · 9 Jan 2026", "Slightly different view"),
        ("**oakandiron** · 9 Jan 2026", "Thank you all."),
    ]
    at = 0
    for speaker, words in said:
        at = markdown.index(speaker, at)
        assert markdown.index(words, at) - at < 200, f"{speaker} is not above {words!r}"
    assert "Measure twice, cut once" not in markdown  # signatures still go


def test_the_question_and_every_answer_keep_their_authors() -> None:
    markdown = corpus_markdown("b_forum_qa")
    speakers = ["**Kofi Mensah** · asked", "**Annika Vos** · answered", "**lowell_p** · answered"]
    positions = [markdown.index(speaker) for speaker in speakers]
    assert positions == sorted(positions)
    assert "**M. Ishikawa** · answered yesterday" in markdown


def test_a_single_byline_is_not_a_thread() -> None:
    html = site(
        "<article><h1>Topic</h1><p class='byline'>By <a class='author' href='/a'>Jane Roe</a>"
        f"</p><p>{PROSE * 6}</p></article>"
    )
    assert "**Jane Roe**" not in main_content(html)


def test_json_ld_product_facts_missing_from_the_page_are_added() -> None:
    ld = (
        '{"@context": "https://schema.org", "@type": "Product", "name": "Trail Runner 2",'
        ' "description": "<p>A light shoe for rocky trails.</p><p>Grippy outsole.</p>",'
        ' "offers": {"@type": "Offer", "price": "129.00", "priceCurrency": "EUR"},'
        ' "additionalProperty": [{"@type": "PropertyValue", "name": "Weight", "value": "280 g"}]}'
    )
    html = site(
        f"<script type='application/ld+json'>{ld}</script>"
        f"<main><h1>Trail Runner 2</h1><p>{PROSE * 3}</p><div id='app'></div></main>",
        title="Trail Runner 2",
    )
    markdown = main_content(html)
    assert markdown.count("Trail Runner 2") == 1  # the name the page shows is not repeated
    assert "Price: 129.00 EUR" in markdown
    assert "A light shoe for rocky trails.\n\nGrippy outsole." in markdown
    assert "- Weight: 280 g" in markdown


def test_product_facts_the_page_shows_are_not_repeated() -> None:
    ld = (
        '{"@type": "Product", "name": "Desk Lamp", "description": "A warm lamp for late work.",'
        ' "offers": [{"price": 35, "priceCurrency": "USD"}]}'
    )
    html = site(
        f"<script type='application/ld+json'>{ld}</script><main><h1>Desk Lamp</h1>"
        f"<p>A warm lamp for late work. {PROSE * 3}</p><p>Price 35 USD</p></main>",
        title="Desk Lamp",
    )
    markdown = main_content(html)
    assert markdown.count("A warm lamp for late work.") == 1
    assert "Price:" not in markdown


def test_the_edges_of_an_article_lose_their_boilerplate() -> None:
    article = (
        "<article><div class='row'><a href='/'>Home</a> / <a href='/blog'>Blog</a></div>"
        "<h1>Topic</h1><div class='row'>By Jane Roe · 5 min read</div>"
        + "".join(f"<p>Part {i}. {PROSE * 2}</p>" for i in range(6))
        + "<div class='row'><a href='/x'>Follow us on X</a> <a href='/f'>Facebook</a></div>"
        "<div class='row'>Was this helpful?</div></article>"
    )
    markdown = main_content(site(article))
    assert "# Topic" in markdown and "Part 0." in markdown and "Part 5." in markdown
    for boilerplate in ("Home", "5 min read", "Follow us", "Was this helpful?"):
        assert boilerplate not in markdown


def test_a_listing_of_link_cards_keeps_every_card() -> None:
    cards = "".join(
        f"<div class='item'><h3><a href='/p/{i}'>Product number {i}</a></h3>"
        f"<a href='/p/{i}'>See the product {i}</a></div>"
        for i in range(12)
    )
    markdown = main_content(site(f"<main><h1>Topic</h1><p>{PROSE * 2}</p>{cards}</main>"))
    assert "Product number 0" in markdown and "Product number 11" in markdown


def test_a_price_under_a_product_name_is_kept() -> None:
    product = (
        f"<main><h1>Desk Lamp</h1><div class='s'>In stock</div><div class='p'>€35.00</div>"
        f"<p>{PROSE * 3}</p><p>{PROSE * 2}</p><p>{PROSE}</p><p>{PROSE}</p></main>"
    )
    markdown = main_content(site(product, title="Desk Lamp"))
    assert "€35.00" in markdown and "In stock" not in markdown


def test_a_page_whose_body_holds_no_text_gives_its_title_and_description() -> None:
    html = (
        "<html><head><title>Best first telescope?</title><meta name='description' "
        "content='I am new to astronomy and would like advice on a first telescope.'></head>"
        "<body><div id='app'></div><script>boot()</script></body></html>"
    )
    converted = convert_page(html, URL, ConvertOptions())
    assert converted.markdown.startswith("# Best first telescope?")
    assert "advice on a first telescope" in converted.markdown
    assert (converted.extraction, converted.fell_back) == ("metadata", True)


def test_an_article_of_several_text_modules_is_kept_whole() -> None:
    # Page builders put every section of an article in a module of its own; the best-scored
    # module is one part of the article.
    modules = "".join(
        f"<div class='fl-row'><div class='fl-col'><div class='fl-module-content'>"
        f"<div class='fl-rich-text'><h2>Section {i}</h2>"
        f"<p>{PROSE * (4 if i == 2 else 2)}</p><p>{PROSE}, with commas, and more, here.</p>"
        "</div></div></div></div>"
        for i in range(5)
    )
    markdown = main_content(site(f"<div class='page'><h1>Topic</h1>{modules}</div>"))
    for i in range(5):
        assert f"## Section {i}" in markdown


def test_an_index_page_keeps_its_lists_of_links() -> None:
    sections = "".join(
        f"<h2>{letter}</h2><ul>"
        + "".join(
            f"<li><a href='/wiki/{letter}{i}'>{letter}-language {i}</a></li>" for i in range(8)
        )
        + "</ul>"
        for letter in "ABCDE"
    )
    html = site(
        f"<main><h1>Topic</h1><p>An index of notable languages, old and new. {PROSE * 2}</p>"
        f"{sections}<ul><li><a href='/r1'>Related one</a></li><li><a href='/r2'>Two</a></li>"
        "<li><a href='/r3'>Three</a></li></ul></main>"
    )
    markdown = main_content(html)
    assert "A-language 0" in markdown and "E-language 7" in markdown


def test_a_link_farm_beside_an_article_goes() -> None:
    related = "".join(f"<li><a href='/p{i}'>Another story number {i}</a></li>" for i in range(8))
    html = site(f"<main><h1>Topic</h1>{f'<p>{PROSE * 3}</p>' * 5}<ul>{related}</ul></main>")
    markdown = main_content(html)
    assert "The reply explains" in markdown and "Another story" not in markdown


def test_recommendations_under_a_heading_of_their_own_go() -> None:
    grid = "".join(f"<div class='tile'>Other jacket {i} €39.99</div>" for i in range(6))
    html = site(
        f"<main><h1>Faux leather jacket</h1><p>{PROSE * 4}</p><h3>Care</h3><p>Wash at 30.</p>"
        f"<div class='t'><h3>How about these?</h3></div>{grid}</main>",
        title="Faux leather jacket",
    )
    markdown = main_content(html)
    assert "Wash at 30." in markdown
    assert "How about these" not in markdown and "Other jacket" not in markdown


def test_every_reply_of_a_thread_is_kept_whatever_its_software_calls_it() -> None:
    replies = "".join(
        f"<div class='comment'><div class='comment-meta'><span class='username'>user{i}</span>"
        f"<time datetime='2026-01-0{i + 1}'>{i + 1} Jan</time></div>"
        f"<div class='comment-content'><p>Reply {i}. {PROSE}</p></div></div>"
        for i in range(5)
    )
    html = site(f"<div class='thread'><h1>Topic</h1>{replies}</div>")
    markdown = main_content(html)
    for i in range(5):
        assert f"**user{i}** · {i + 1} Jan" in markdown
        assert f"Reply {i}." in markdown


def test_the_comments_under_an_article_go_even_with_their_authors() -> None:
    comments = "".join(
        f"<div class='comment'><span class='comment-author'>reader{i}</span>"
        f"<p>Comment {i}: {PROSE}</p></div>"
        for i in range(6)
    )
    html = site(
        f"<article><h1>Topic</h1><div class='byline'><span class='author'>Jane Roe</span></div>"
        f"{f'<p>{PROSE * 3}</p>' * 4}</article><section id='comments'>{comments}</section>"
    )
    markdown = main_content(html)
    assert "The reply explains" in markdown
    assert "Comment 2:" not in markdown and "reader2" not in markdown


def test_affiliate_disclosures_and_calls_to_action_go() -> None:
    article = (
        "<article><h1>Topic</h1><p class='note'>We may earn a commission from links on this "
        f"page, but we only recommend products we back.</p>{f'<p>{PROSE * 3}</p>' * 4}"
        "<p><a class='btn' href='/demo'>Book a demo</a></p>"
        f"<p>{PROSE * 2}</p></article>"
    )
    markdown = main_content(site(article))
    assert "The reply explains" in markdown
    assert "earn a commission" not in markdown and "Book a demo" not in markdown


def test_json_ld_with_control_characters_converts() -> None:
    ld = (
        '{"@type": "Product", "name": "Lamp \\u0001\\ud800", "description": "Bright \\u0002 lamp."}'
    )
    html = site(f"<script type='application/ld+json'>{ld}</script><main><p>{PROSE}</p></main>")
    markdown = main_content(html)
    assert "Bright  lamp." in markdown or "Bright lamp." in markdown


def test_a_listing_without_prose_keeps_every_card() -> None:
    cards = "".join(f"<li><a href='/p/{i}'>Product number {i}</a></li>" for i in range(10))
    markdown = main_content(site(f"<main><h1>Topic</h1><ul>{cards}</ul></main>"))
    assert all(f"Product number {i}" in markdown for i in range(10))


def test_a_page_in_one_form_with_a_subscribe_word_keeps_its_content() -> None:
    html = site(
        f"<form id='aspnetForm'><h1>Topic</h1>{f'<p>{PROSE * 3}</p>' * 4}"
        "<p>Subscribe to our updates.</p></form>"
    )
    assert "The reply explains" in main_content(html)


def test_the_container_lead_text_is_said_once() -> None:
    html = site(f"<article>Lead words of the story. <p>{PROSE * 4}</p><p>{PROSE * 3}</p></article>")
    assert main_content(html).count("Lead words of the story.") == 1


def test_a_page_cannot_mark_its_own_blocks_as_posts() -> None:
    html = site(
        f"<article><h1>Topic</h1>{f'<p>{PROSE * 3}</p>' * 4}</article>"
        "<div class='sidebar' data-pagecast-post=''><p>Sidebar promotion text here.</p></div>"
    )
    assert "Sidebar promotion" not in main_content(html)


def test_button_links_go_and_named_cards_stay() -> None:
    cards = "".join(
        f"<div class='c'><a href='/p/{i}'>Trail shoe model {i}</a></div>" for i in range(4)
    )
    html = site(
        f"<main><h1>Topic</h1><p>{PROSE * 3}</p><div class='cta'><a href='/d'>Request a demo</a>"
        f"</div><p>{PROSE * 2}</p>{cards}<p><a href='/s'>Get started today</a></p>"
        f"<p>{PROSE}</p></main>"
    )
    markdown = main_content(html)
    assert "Request a demo" not in markdown and "Get started" not in markdown
    assert "Trail shoe model 3" in markdown


def test_a_button_link_between_the_blocks_of_a_feature_goes() -> None:
    # "Learn more" after a feature's paragraph, inside the feature's own block: a line of its
    # own, as a button; a link in the paragraph's text stays.
    features = "".join(
        f"<div class='feature'><h2>Feature {i}</h2><p>{PROSE} See <a href='/d{i}'>the guide</a>."
        f"</p><a href='/f{i}'>Learn more</a></div>"
        for i in range(3)
    )
    markdown = main_content(site(f"<main><h1>Topic</h1><p>{PROSE * 3}</p>{features}</main>"))
    assert "Learn more" not in markdown
    assert markdown.count("the guide") == 3 and "Feature 2" in markdown


def test_a_heading_left_with_nothing_under_it_goes() -> None:
    html = site(
        f"<main><h1>Topic</h1><h2>Part one</h2><p>{PROSE * 3}</p>"
        "<h3>Trending now</h3><h2>Part two</h2>"
        f"<p>{PROSE * 3}</p><h3>Item A</h3><h3>Item B</h3><p>{PROSE}</p></main>"
    )
    markdown = main_content(html)
    assert "Trending now" not in markdown
    assert "## Part two" in markdown and "### Item A" in markdown


def test_a_footer_holding_most_of_the_text_still_goes() -> None:
    terms = "".join(
        f"<p>Term {i}: these terms of use apply to every purchase, always.</p>" for i in range(60)
    )
    html = (
        "<html><head><title>Wool Runner</title></head><body><div class='product'>"
        f"<h1>Wool Runner</h1><p>{PROSE * 4}</p></div>"
        f"<footer><div class='modal'>{terms}</div></footer></body></html>"
    )
    markdown = main_content(html)
    assert "The reply explains" in markdown and "Term 7:" not in markdown


def test_user_stats_pagination_and_stock_lines_go() -> None:
    html = site(
        f"<article><h1>Topic</h1><p>{PROSE * 3}</p><dl class='stats'><dt>Posts:</dt>"
        "<dd>116</dd></dl><p>Page 1 of 8</p><div>Out of stock</div>"
        f"<p>{PROSE * 3}</p><p>{PROSE}</p></article>"
    )
    markdown = main_content(html)
    assert "The reply explains" in markdown
    for line in ("Posts:", "Page 1 of 8", "Out of stock"):
        assert line not in markdown


def test_call_to_action_headings_go() -> None:
    html = site(
        f"<main><h1>Topic</h1><p>{PROSE * 3}</p><h3>Get started today</h3>"
        f"<h2>Details</h2><p>{PROSE * 3}</p><h4>Talk to a specialist</h4><p>{PROSE}</p></main>"
    )
    markdown = main_content(html)
    assert "Get started" not in markdown and "Talk to a specialist" not in markdown
    assert "## Details" in markdown


def test_a_newsletter_pitch_goes() -> None:
    html = site(
        f"<article><h1>Topic</h1><p>{PROSE * 3}</p><p>Want more? Sign up for our newsletter, "
        f"The Weekly, and get the best stories.</p><p>{PROSE * 3}</p><p>{PROSE}</p></article>"
    )
    markdown = main_content(html)
    assert "The reply explains" in markdown and "Sign up for our newsletter" not in markdown


@pytest.mark.parametrize(
    "pitch",
    [
        "Follow The Coast News on Twitter and Instagram @coastnews.",
        "For the latest stories download our apps for iOS and Android.",
        "Subscribe now to our digital edition for the full story.",
        "Síguenos en Telegram, Instagram, Facebook y Twitter.",
    ],
)
def test_a_pitch_to_follow_or_subscribe_goes(pitch: str) -> None:
    html = site(
        f"<article><h1>Topic</h1><p>{PROSE * 3}</p><p>{pitch}</p><p>{PROSE * 3}</p>"
        f"<p>{PROSE}</p></article>"
    )
    markdown = main_content(html)
    assert "The reply explains" in markdown and pitch[:20] not in markdown


def test_an_author_box_after_the_article_goes() -> None:
    box = (
        "<div id='author-info'><div id='author-description'><h2>About Ann Reporter</h2>"
        "<p>Ann covers the harbour, the council and the weather for the paper since 2010, and "
        "teaches writing at the community college.</p></div></div>"
    )
    markdown = main_content(site(f"<article><h1>Topic</h1><p>{PROSE * 6}</p>{box}</article>"))
    assert "The reply explains" in markdown and "Ann covers the harbour" not in markdown


def test_a_short_post_among_named_widgets_keeps_only_the_post() -> None:
    # Too short a post for the first pass: the whole page stands in, less what its markup
    # names as furniture (the blog's widgets, its share bar, its comment form).
    widgets = "".join(
        f"<li class='widget widget_archive'><h2>Archive {i}</h2><ul>"
        + "".join(f"<li><a href='/{i}/{m}'>Month {m}</a></li>" for m in range(12))
        + "</ul></li>"
        for i in range(4)
    )
    html = (
        "<html><head><title>Nothing to do - Blog</title></head><body><div id='wrapper'>"
        "<div id='content'><h2>Nothing to do</h2><p>Doing nothing is a choice too.</p>"
        "<div class='sharedaddy'><h3>Share this:</h3><a href='/s'>Twitter</a></div>"
        "<div id='respond' class='comment-respond'><h3>Leave a comment</h3></div></div>"
        f"<div id='sidebar'><ul>{widgets}</ul></div></div></body></html>"
    )
    markdown = main_content(html)
    assert "Doing nothing is a choice too." in markdown
    assert "Month 3" not in markdown and "Leave a comment" not in markdown


def test_a_page_the_parser_nests_inside_a_menu_button_keeps_its_article() -> None:
    # A <div> left open inside the header's menu button: browsers close both at </button>, the
    # HTML parser nests the rest of the page in the button, which is furniture to remove.
    html = site(
        "<main><article><h1>Topic</h1>" + f"<p>{PROSE * 4}</p>" * 6 + "</article></main>"
    ).replace(
        "<header>",
        "<header role='banner'><button class='menu-button'><div class='inner'><div></button>",
    )
    markdown = main_content(html)
    assert markdown.count("The reply explains") == 6 * 4
    assert "Category 3" not in markdown and "Copyright" not in markdown


def test_sections_a_table_of_contents_links_to_are_kept() -> None:
    # The sections are named after the table of contents that links to them ("toc_...").
    toc = "".join(f"<li><a href='#toc_part-{i}'>Part {i}</a></li>" for i in range(4))
    sections = "".join(
        f"<div id='toc_part-{i}'><h2>Part {i}</h2><p>Part {i} says. {PROSE * 3}</p></div>"
        for i in range(4)
    )
    lead = f"<p>{PROSE * 30}</p>"  # enough for the first pass to stand without the sections
    markdown = main_content(site(f"<main><h1>Topic</h1>{lead}<ul>{toc}</ul>{sections}</main>"))
    for i in range(4):
        assert f"Part {i} says." in markdown


def test_a_questions_and_answers_section_of_the_page_is_kept() -> None:
    faq = f"<section><h2>Questions and Answers</h2><p><b>What is it?</b> {PROSE * 3}</p></section>"
    reviews = f"<section><h2>Customer questions & answers</h2><p>Q: Size? {PROSE}</p></section>"
    markdown = main_content(site(f"<main><h1>Topic</h1><p>{PROSE * 4}</p>{faq}{reviews}</main>"))
    assert "What is it?" in markdown and "Q: Size?" not in markdown


def test_replies_in_a_section_headed_comments_are_kept_when_the_page_is_the_thread() -> None:
    # Vanilla forums: the first post, then the replies under an <h2>Comments</h2>.
    def post(i: int) -> str:
        return (
            f"<span class='Author'><a href='/u/{i}'>user{i}</a></span>"
            f"<div class='Message'><p>Post {i}. {PROSE * (30 if i == 0 else 2)}</p></div>"
        )

    replies = "".join(f"<li class='ItemComment'>{post(i)}</li>" for i in range(1, 4))
    html = site(
        f"<main><div class='Discussion'><h1>Topic</h1>{post(0)}</div><div class='Comments'>"
        f"<h2>Comments</h2><ul>{replies}</ul></div></main>"
    )
    markdown = main_content(html)
    for i in range(4):
        assert f"**user{i}**" in markdown and f"Post {i}." in markdown


def test_a_heading_with_the_sites_part_of_the_title_goes() -> None:
    body = f"<p>{PROSE * 6}</p>"
    book = site(
        f"<main><h1 class='menu-title'>The Example Book</h1><h2>Defining Traits</h2>{body}</main>",
        title="Defining Traits - The Example Book",
    )
    markdown = main_content(book)
    assert "Defining Traits" in markdown and "Example Book" not in markdown
    # The site's part first, the page's heading alone: the heading stays.
    docs = site(
        f"<main><h1>Creating Types</h1>{body}</main>", title="Documentation - Creating Types"
    )
    assert "# Creating Types" in main_content(docs)


def test_small_print_notices_and_furniture_labels_go() -> None:
    html = site(
        f"<article><h1>Topic</h1><p>{PROSE * 4}</p>"
        "<ul class='post-meta'><li>Reply with quote</li><li>Posts: 116</li></ul>"
        f"<p>{PROSE * 4}</p><p>Taxes and shipping calculated at checkout.</p>"
        "<p>Jane Doe is a freelance writer who covers home networks and routers.</p>"
        "<div><h3>Get the weekly letter</h3><p>We will never sell your information. "
        "Modify your preferences or unsubscribe at any time.</p></div></article>"
    )
    markdown = main_content(html)
    assert "The reply explains" in markdown
    for gone in ("Reply with quote", "Posts: 116", "calculated at checkout", "freelance writer"):
        assert gone not in markdown
    assert "never sell your information" not in markdown


def test_a_rail_of_related_posts_outweighing_a_short_article_goes() -> None:
    cards = "".join(
        f"<li><h2><a href='/p{i}'>Another post about yoga number {i}</a></h2>"
        f"<p>{PROSE}</p><p>Author Name</p></li>"
        for i in range(12)
    )
    html = site(
        f"<main><div class='columns'><div class='column'><h1>Topic</h1><p>{PROSE * 4}</p></div>"
        f"<div class='column'><aside><ul class='wp-block-post-template'>{cards}</ul></aside>"
        "</div></div></main>"
    )
    markdown = main_content(html)
    assert "The reply explains" in markdown
    assert "Another post about yoga" not in markdown


def test_a_list_of_references_to_other_sites_stays_and_a_related_list_goes() -> None:
    patches = "".join(
        f"<li><a href='https://forge.example.org/pulls/{i}'>libgccjit: add support for "
        f"attribute number {i}</a></li>"
        for i in range(6)
    )
    related = "".join(
        f"<li><a href='https://example.com/t/{i}'>Topic {i} of the forum</a></li>" for i in range(6)
    )
    html = site(
        f"<article><h1>Topic</h1><p>{PROSE * 4}</p><p>Patches sent for review:</p>"
        f"<ul>{patches}</ul><p>{PROSE * 4}</p><ul>{related}</ul><p>{PROSE * 2}</p></article>"
    )
    markdown = main_content(html)
    assert "attribute number 5" in markdown
    assert "Topic 3 of the forum" not in markdown


def test_ordinary_content_that_resembles_small_print_stays() -> None:
    html = site(
        "<article><h1>Stephen King</h1><p>Stephen King is an American author of horror, "
        f"suspense and fantasy novels.</p><p>{PROSE * 4}</p>"
        "<p>\u201cWe will never sell your data,\u201d the company said in a statement.</p>"
        "<ul class='features'><li>Loading dock</li><li>Privacy</li><li>Cookies</li>"
        "<li>A quiet garden behind the house, with old trees</li></ul>"
        "<dl><dt>Availability</dt><dd>In stock</dd></dl>"
        "<div class='price'>$29.99 Taxes and shipping calculated at checkout.</div>"
        f"<p>{PROSE * 4}</p></article>"
    )
    markdown = main_content(html)
    for kept in ("American author of horror", "never sell your data", "Loading dock", "Privacy"):
        assert kept in markdown
    assert "Cookies" in markdown and "In stock" in markdown and "$29.99" in markdown


def shop_cards(count: int) -> str:
    return "".join(
        f"<li><img src='/i/{i}.jpg' alt=''><h3><a href='/p/{i}'>Other lamp model {i}</a></h3>"
        f"<span>Warm light, brass foot, 40 cm tall</span><span>${20 + i}.00</span></li>"
        for i in range(count)
    )


def test_other_products_cards_on_a_product_page_go() -> None:
    ld = (
        '{"@type": "Product", "name": "Desk Lamp", "offers": {"price": 35, "priceCurrency": "USD"}}'
    )
    product = (
        f"<script type='application/ld+json'>{ld}</script>"
        f"<main><h1>Desk Lamp</h1><div class='p'>$35.00</div><p>{PROSE * 3}</p>"
        f"<ul>{shop_cards(6)}</ul></main>"
    )
    markdown = main_content(site(product, title="Desk Lamp"))
    assert "$35.00" in markdown and "step by step" in markdown
    assert "Other lamp model" not in markdown


def test_a_shops_category_taken_for_a_product_keeps_its_cards() -> None:
    # og:type "product" on a category page: no price besides the cards', so they are its content.
    page = f"<main><h1>Desk lamps</h1><p>{PROSE}</p><ul>{shop_cards(8)}</ul></main>"
    html = site(page, title="Desk lamps").replace(
        "<head>", "<head><meta property='og:type' content='product'>"
    )
    markdown = main_content(html)
    assert "Other lamp model 0" in markdown and "Other lamp model 7" in markdown


def test_a_listings_entries_named_like_boilerplate_are_kept() -> None:
    # Entries a listing's software names "meta" (a byline's name elsewhere), many of them
    # holding most of the page's text, are its items.
    entries = "".join(
        f"<dt><a href='/abs/{i}'>Paper {i}</a></dt><dd><div class='meta'>"
        f"<div>Title: A study of method {i}</div><div>Authors: Ann Lee, Bo Chen</div>"
        f"<p>Subjects: Artificial Intelligence; Machine Learning (entry {i})</p></div></dd>"
        for i in range(10)
    )
    intro = f"<p>{PROSE * 6}</p>"
    markdown = main_content(site(f"<main><h1>Recent papers</h1>{intro}<dl>{entries}</dl></main>"))
    assert "A study of method 5" in markdown and "A study of method 9" in markdown


def test_a_posts_bylines_named_meta_still_go() -> None:
    posts = "".join(
        f"<div class='post'><h2>Post {i}</h2><div class='meta'>By Jane Roe</div>"
        f"<p>{PROSE * 2}</p></div>"
        for i in range(6)
    )
    markdown = main_content(site(f"<main><h1>Blog</h1>{posts}</main>"))
    assert "Post 5" in markdown and "By Jane Roe" not in markdown


def test_testimonials_in_a_carousel_are_kept() -> None:
    # "carousel" says how a block is shown, not what it is: a company's page shows what its
    # customers say in one.
    quotes = "".join(
        f"<div class='item'><blockquote>Customer {i} says: {PROSE}</blockquote></div>"
        for i in range(4)
    )
    page = (
        f"<main><h1>Team training</h1><p>{PROSE * 2}</p>"
        f"<div class='owl-carousel testimonials-slider'>{quotes}</div><p>{PROSE}</p></main>"
    )
    markdown = main_content(site(page, title="Team training"))
    assert "Customer 0 says" in markdown and "Customer 3 says" in markdown


TEASER_BOX = (
    "<div class='teaser'><h2><a href='/news/other-story.html'>The ferry timetable changes for "
    "the summer</a></h2><p>What changes on the coast routes from June, and which crossings are "
    "added. <a href='/news/other-story.html' class='cta'>{more}</a></p></div>"
)


def test_a_teaser_box_of_another_story_inside_the_article_goes() -> None:
    html = site(
        f"<article><h1>Harbour reopens</h1><p>{'The harbour reopened this week. ' * 12}</p>"
        + TEASER_BOX.format(more="mehr")
        + f"<p>{'The ferries return next month. ' * 12}</p></article>"
    )
    markdown = main_content(html)
    assert "The harbour reopened" in markdown and "The ferries return" in markdown
    assert "ferry timetable" not in markdown and "coast routes" not in markdown


def test_a_card_without_a_more_link_stays() -> None:
    # A shop's card links its picture and its name to one product: a collection's content.
    html = site(
        f"<article><h1>Harbour reopens</h1><p>{'The harbour reopened this week. ' * 12}</p>"
        + TEASER_BOX.format(more="the timetable")
        + f"<p>{'The ferries return next month. ' * 12}</p></article>"
    )
    assert "coast routes" in main_content(html)
