"""The edges of the kept content: what ends or opens an article goes, the lead-in sentences of
its text stay."""

from __future__ import annotations

import pytest

from convert.extract import edges
from convert.markdown.pipeline import ConvertOptions, convert_page

DOCS = (
    "<html><head><title>Install - SDK docs</title></head><body>"
    "<nav><a href=/>Home</a> <a href=/docs>Docs</a></nav><main>"
    "<p>Install the SDK with pip:</p><pre><code>pip install pagecast-client</code></pre>"
    "<p>Then create a client with your key and call it; every method returns typed results, "
    "and errors are raised as exceptions with the API's code.</p>"
    "<pre><code>from pagecast_client import Pagecast\nclient = Pagecast(key)</code></pre>"
    "<p>That is all you need to start converting pages to Markdown with the library.</p>"
    "</main></body></html>"
)


def test_the_sentence_that_leads_into_the_first_code_block_stays() -> None:
    markdown = convert_page(DOCS, "https://d.example/docs/install", ConvertOptions()).markdown
    assert markdown.startswith("Install the SDK with pip:\n\n```")


def test_without_the_lead_in_rule_the_sentence_is_trimmed(monkeypatch: pytest.MonkeyPatch) -> None:
    # What the rule mends: a short block before the content's first prose goes as an edge.
    monkeypatch.setattr(edges, "_leads_in", lambda leaf, following: False)
    markdown = convert_page(DOCS, "https://d.example/docs/install", ConvertOptions()).markdown
    assert "Install the SDK with pip:" not in markdown


@pytest.mark.parametrize(
    "follows",
    [
        "<ul><li>Python 3.11 or newer</li><li>An API key</li></ul>",
        "<table><tr><th>Plan</th><th>Credits</th></tr><tr><td>free</td><td>100</td></tr></table>",
    ],
)
def test_a_lead_in_before_a_list_or_a_table_stays(follows: str) -> None:
    html = DOCS.replace(
        "<p>Install the SDK with pip:</p><pre><code>pip install pagecast-client</code></pre>",
        f"<p>You need:</p>{follows}",
    )
    markdown = convert_page(html, "https://d.example/docs/install", ConvertOptions()).markdown
    assert markdown.startswith("You need:")


STORY = (
    "<html><head><title>Harbour reopens - Coast News</title></head><body><article>"
    "<h1>Harbour reopens after storm repairs</h1>"
    + "".join(
        f"<p>Paragraph {n} of the story tells how the harbour was rebuilt after the winter "
        "storms, who paid for the new breakwater and when the ferries will return.</p>"
        for n in range(6)
    )
    + "<figure><img src=/quay.jpg><figcaption>The new quay. Photo: J. Smith</figcaption></figure>"
    "<p>This entry was posted in Local and tagged harbour, storms.</p>"
    "{tail}</article></body></html>"
)
RELATED = (
    "<h3>{heading}</h3><ul><li><a href=/a>Ferry timetable changes for the summer</a></li>"
    "<li><a href=/b>Council approves the budget for the coast road</a></li></ul>"
)


@pytest.mark.parametrize("heading", ["Related stories", "Read more", "Lesen Sie auch", "Lue myös"])
def test_what_follows_the_article_goes(heading: str) -> None:
    html = STORY.replace("{tail}", RELATED.format(heading=heading))
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "Paragraph 5 of the story" in markdown
    assert heading not in markdown and "Ferry timetable" not in markdown
    assert "This entry was posted" not in markdown  # the line that files the post
    assert "Photo: J. Smith" not in markdown  # the picture's caption and credit


def test_a_long_section_titled_so_is_content_all_the_same() -> None:
    # Past the share of the content a tail may hold, the heading titles the article's own text.
    section = "<h2>Related work</h2>" + "".join(
        f"<p>Earlier study {n} measured the same breakwater design under winter loads and "
        "found the armour units moved less than the models had predicted by a wide margin.</p>"
        for n in range(8)
    )
    html = STORY.replace("{tail}", section)
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "Related work" in markdown and "Earlier study 7" in markdown


def card(n: int, href: str) -> str:
    return (
        f"<p class='byline'>By Reporter {n} · May {n}, 2024</p>"
        f"<h4><a href='{href}'>Other story number {n} on the coast</a></h4>"
        f"<p>A teaser for the other story {n}, short enough to be read as one.</p>"
    )


def test_other_stories_cards_after_the_article_go() -> None:
    cards = "".join(card(n, f"/2024/05/story-{n}") for n in range(3))
    html = STORY.replace("{tail}", cards)
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "Paragraph 5 of the story" in markdown
    assert "Other story number" not in markdown and "A teaser for the other" not in markdown


def teaser_card(n: int) -> str:
    teaser = f"A longer teaser for other story {n}, which tells what it is about. " * 3
    return (
        f"<p>News</p><h3><a href='/2024/05/story-{n}'>Other story number {n}</a></h3>"
        f"<p>{teaser}</p>"
    )


def test_announced_cards_go_however_long_the_run_is() -> None:
    # Twenty cards under "More on this topic" hold more prose than the story: they go all the
    # same, since nothing but cards follows the heading.
    cards = "".join(teaser_card(n) for n in range(20))
    html = STORY.replace("{tail}", f"<h2>More on this topic</h2>{cards}")
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "Paragraph 5 of the story" in markdown
    assert "More on this topic" not in markdown and "Other story number" not in markdown


def test_prose_under_the_announcing_heading_keeps_the_run() -> None:
    # Two paragraphs of the article's own after the heading: what follows is not only cards.
    cards = "".join(teaser_card(n) for n in range(20))
    prose = "<p>" + "The harbour master added a word on the new pier and its lights. " * 4 + "</p>"
    html = STORY.replace("{tail}", f"<h2>More on this topic</h2>{prose}{prose}{cards}")
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "The harbour master added" in markdown


def test_cards_of_resources_elsewhere_stay() -> None:
    # A list of readings on other sites, each a linked title and a note, is the article's own.
    cards = "".join(card(n, f"https://press{n}.example/report") for n in range(3))
    html = STORY.replace("{tail}", cards)
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "Other story number 2" in markdown and "A teaser for the other story 2" in markdown


def test_a_listing_of_cards_keeps_them() -> None:
    cards = "".join(card(n, f"/2024/05/story-{n}") for n in range(8))
    html = (
        "<html><head><title>Latest - Coast News</title></head><body><main><h1>Latest</h1>"
        f"{cards}</main></body></html>"
    )
    markdown = convert_page(html, "https://n.example/latest", ConvertOptions()).markdown
    assert "Other story number 7" in markdown and "Other story number 0" in markdown


def test_a_listing_read_as_an_article_keeps_its_last_cards() -> None:
    # However the page is typed, cards that follow cards are the content, not its tail.
    cards = "".join(card(n, f"/2024/05/story-{n}") for n in range(8))
    html = (
        "<html><head><title>Latest - Coast News</title>"
        '<meta property="og:type" content="article"></head><body><article><h1>Latest</h1>'
        f"<p>The week's stories from the coast, newest first.</p>{cards}</article></body></html>"
    )
    converted = convert_page(html, "https://n.example/latest", ConvertOptions())
    assert converted.page_type == "article"
    assert "Other story number 7" in converted.markdown
    assert "A teaser for the other story 7" in converted.markdown


MASTHEAD = (
    "<html><head><title>Harbour reopens - Coast News</title></head><body><article>"
    "<h1>Harbour reopens after storm repairs</h1>"
    "<p><a href='/local'>Local</a></p><p>By <a href='/people/ann'>Ann Reporter</a></p>"
    "<p>Updated May 6, 2024 · 10:45</p>{lines}"
    + "".join(
        f"<p>Paragraph {n} of the story tells how the harbour was rebuilt after the winter "
        "storms, who paid for the new breakwater and when the ferries will return.</p>"
        for n in range(4)
    )
    + "<p>By the author of the harbour guide.</p></article></body></html>"
)


def test_the_byline_the_dateline_and_the_section_under_a_headline_go() -> None:
    html = MASTHEAD.replace("{lines}", "<p>By 2030 the port expects twice the ferries.</p>")
    converted = convert_page(html, "https://n.example/harbour", ConvertOptions())
    markdown = converted.markdown
    assert markdown.startswith("# Harbour reopens after storm repairs")
    for gone in ("Ann Reporter", "Updated May 6, 2024", "[Local]"):
        assert gone not in markdown, gone
    # A sentence that starts like a byline, and a byline past the start of the text, stay.
    assert "By 2030 the port expects twice the ferries." in markdown
    assert "By the author of the harbour guide." in markdown and "Paragraph 3" in markdown


def test_a_collections_items_under_its_headline_stay() -> None:
    items = "".join(f"<p><a href='/p/{n}'>Desk drawer {n}</a></p><p>$ {n}9 +</p>" for n in range(6))
    html = (
        "<html><head><title>Accessories - Desks</title></head><body><article>"
        f"<h1>Accessories</h1>{items}</article></body></html>"
    )
    markdown = convert_page(html, "https://d.example/accessories", ConvertOptions()).markdown
    # (The first link, before any price, is trimmed as the leading edge's.)
    assert all(f"Desk drawer {n}" in markdown and f"$ {n}9 +" in markdown for n in range(1, 6))


@pytest.mark.parametrize(
    "note",
    [
        "<p>Ann Reporter writes about the coast, its harbours and the people who work them, "
        "from the paper's bureau in the port town, where she has lived for twenty years.</p>",
        "<h2>Author</h2><p>Ann Reporter</p><p>Ann has worked on the harbour desk since 2004 and "
        "edits the weekly tide tables.</p>",
        "<p>Anna Muster ist freie Journalistin und schreibt über die Küste.</p>",
    ],
)
def test_a_note_about_the_writer_after_the_article_goes(note: str) -> None:
    html = STORY.replace("{tail}", note)
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "Paragraph 5 of the story" in markdown
    assert "Reporter" not in markdown and "Muster" not in markdown


def test_cards_titled_by_lines_under_their_label_go() -> None:
    cards = "<h2>From the desk</h2>" + "".join(
        f"<div><a href='/2024/05/story-{n}'>Other story number {n} on the coast</a></div>"
        f"<p>{n}.05.2024 A teaser for the other story {n}, short enough to be read as one.</p>"
        for n in range(3)
    )
    html = STORY.replace("{tail}", cards)
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "Paragraph 5 of the story" in markdown
    assert "From the desk" not in markdown and "Other story number" not in markdown


def test_a_section_of_the_article_before_the_cards_stays() -> None:
    section = "<h2>What comes next</h2><p>The ferries return in June, the council says.</p>"
    cards = "".join(card(n, f"/2024/05/story-{n}") for n in range(3))
    html = STORY.replace("{tail}", section + "<p>" + "More words. " * 30 + "</p>" + cards)
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "What comes next" in markdown and "The ferries return in June" in markdown
    assert "Other story number" not in markdown


def test_related_links_among_the_paragraphs_go() -> None:
    box = (
        "<h6>Mehr zum Thema</h6>"
        "<p><a href='/a'>Grundeinkommen</a> Geld vom Staat für alle?</p>"
        "<p><a href='/b'>Experiment in Finnland</a> Grundeinkommen im Test</p>"
        "<p>Lue myös: <a href='/c'>Brexit kasvattaa maksuja Suomelle</a></p>"
    )
    html = STORY.replace("{tail}", "").replace("<p>Paragraph 3", box + "<p>Paragraph 3")
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    for gone in ("Mehr zum Thema", "Grundeinkommen", "Finnland", "Lue myös", "Brexit"):
        assert gone not in markdown, gone
    assert "Paragraph 2 of the story" in markdown and "Paragraph 3 of the story" in markdown


def test_a_section_titled_like_related_links_keeps_its_prose() -> None:
    section = (
        "<h2>Weitere Informationen</h2><p>Die Fähre fährt ab Juni wieder stündlich, sagt die "
        "Stadt, und die <a href='/plan'>Fahrpläne</a> hängen am Hafen aus.</p>"
    )
    html = STORY.replace("{tail}", "").replace("<p>Paragraph 3", section + "<p>Paragraph 3")
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "Weitere Informationen" in markdown and "Die Fähre fährt ab Juni" in markdown


def unlinked_card(n: int) -> str:
    return (
        f"<h3>Other story number {n}</h3>"
        f"<p>A teaser for the other story {n}, which tells in two lines what it is about.</p>"
        f"<p><a href='/2024/05/story-{n}'>Read more</a></p>"
    )


def test_announced_cards_titled_without_a_link_go() -> None:
    # Each card's title is a plain heading; its link is the "Read more" under the teaser.
    cards = "".join(unlinked_card(n) for n in range(6))
    linked = "".join(teaser_card(n) for n in range(6, 8))
    html = STORY.replace("{tail}", f"<h2>You might also like</h2>{cards}{linked}")
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "Paragraph 5 of the story" in markdown
    assert "Other story number" not in markdown and "A teaser for the other" not in markdown


@pytest.mark.parametrize(
    "credit",
    [
        "<p>Foto: dpa</p>",
        "<p><small>(Photo: Getty)</small></p>",
        "<span>Judy Eddy/WENN.com</span>",
        "<figure><img src=/a.jpg><h2 class='figure__caption'>The new quay at dawn</h2></figure>",
        "<div class='img-metadata'>The harbour master on the pier</div>",
    ],
)
def test_a_pictures_credit_or_caption_goes_however_it_is_marked(credit: str) -> None:
    html = STORY.replace("{tail}", "").replace("<p>Paragraph 3", f"{credit}<p>Paragraph 3")
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "Paragraph 3 of the story" in markdown and "Paragraph 5 of the story" in markdown
    for words in ("dpa", "Getty", "WENN", "quay at dawn", "master on the pier"):
        assert words not in markdown


def test_a_sentence_about_a_photo_stays() -> None:
    line = "<p>The photo shows the old quay: it was built in 1890 and torn down last year.</p>"
    html = STORY.replace("{tail}", "").replace("<p>Paragraph 3", f"{line}<p>Paragraph 3")
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "The photo shows the old quay" in markdown


def test_cards_the_page_makes_one_link_of_go_with_their_bylines() -> None:
    # Each card is one link around its title, its authors and its teaser.
    cards = "".join(
        f"<a href='/2024/05/story-{n}'><div class='card'><h4>Other story number {n}</h4>"
        f"<span>Ann Reporter, Bo Writer, Cy Editor, Di Photographer · May {n}, 2024 · "
        "with pictures from the agencies</span>"
        f"<p>A teaser for the other story {n}, which tells in two lines what it is about.</p>"
        "</div></a>"
        for n in range(4)
    )
    html = STORY.replace("{tail}", f"<h3>Most read</h3>{cards}")
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "Paragraph 5 of the story" in markdown
    assert "Other story number" not in markdown and "A teaser for the other" not in markdown


def test_a_listings_next_section_of_linked_cards_stays() -> None:
    # A listing whose cards link their titles from around them, read as an article: its next
    # section ("Meistgelesen") is more of the same, not the tail of an article.
    def linked_card(n: int) -> str:
        return (
            f"<div class='card'><a href='/2024/05/story-{n}'><div class='title'>"
            f"<h3>Other story number {n}</h3></div></a>"
            f"<p>A teaser for the other story {n}, which tells in two lines what it is about, "
            "and who is in it, and where it happened.</p></div>"
        )

    first = "".join(linked_card(n) for n in range(8))
    more = "".join(linked_card(n) for n in range(8, 16))
    html = (
        "<html><head><title>News - Coast News</title>"
        '<meta property="og:type" content="article"></head><body><article><h1>News</h1>'
        f"{first}<h2>Meistgelesen</h2>{more}</article></body></html>"
    )
    markdown = convert_page(html, "https://n.example/news", ConvertOptions()).markdown
    assert "Other story number 0" in markdown and "Other story number 15" in markdown


def test_cards_made_one_link_each_after_the_article_go() -> None:
    # No heading announces them: cards whose title sits inside the link around the card.
    cards = "".join(
        f"<div class='card'><a href='/2024/05/story-{n}'><div class='title'>"
        f"<h4>Other story number {n}</h4></div></a><p>A teaser for the other story {n}.</p></div>"
        for n in range(3)
    )
    html = STORY.replace("{tail}", cards)
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "Paragraph 5 of the story" in markdown
    assert "Other story number" not in markdown and "A teaser for the other" not in markdown


def test_a_listing_of_cards_made_one_link_each_keeps_them() -> None:
    cards = "".join(
        f"<a href='/2024/05/story-{n}'><div class='card'><h3>Other story number {n}</h3>"
        f"<p>A teaser for the other story {n}, short enough to be read as one.</p></div></a>"
        for n in range(8)
    )
    html = (
        "<html><head><title>Latest - Coast News</title>"
        '<meta property="og:type" content="article"></head><body><article><h1>Latest</h1>'
        f"<p>The week's stories from the coast, newest first.</p>{cards}</article></body></html>"
    )
    markdown = convert_page(html, "https://n.example/latest", ConvertOptions()).markdown
    assert "Other story number 0" in markdown and "Other story number 7" in markdown


@pytest.mark.parametrize(
    "heading",
    ["Weitere Beiträge aus der Kolumne:", "Verwandte Themen auf unserem Blog:", "Zum Weiterlesen:"],
)
def test_german_headings_over_related_posts_end_the_article(heading: str) -> None:
    # The column's other posts, then the columnist's box: prose the trimmed edges would keep.
    box = (
        "<p>Jana Berg leitet das Ressort Arbeit und schreibt diese Kolumne jeden Monat über "
        "die Arbeitswelt von morgen. " + "Zuvor war sie lange Jahre Personalchefin. " * 8 + "</p>"
    )
    html = STORY.replace("{tail}", RELATED.format(heading=heading) + box)
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "Paragraph 5 of the story" in markdown
    assert heading not in markdown and "Ferry timetable" not in markdown
    assert "Jana Berg" not in markdown


def test_a_blogs_long_line_that_files_the_post_goes() -> None:
    # The line an old blog theme writes under every post, its categories and feed note included.
    filed = (
        "<p>Der Beitrag wurde am Mittwoch, den 27. November 2019 um 15:21 Uhr veröffentlicht und "
        "wurde unter <a href=/c/a>Allgemein</a>, <a href=/c/b>Region Halle - Leipzig</a>, "
        "<a href=/c/c>Tastings &amp; Events</a> abgelegt. Du kannst die Kommentare zu diesen "
        "Eintrag durch den RSS 2.0 Feed verfolgen. Kommentare sind derzeit geschlossen, aber Du "
        "kannst dennoch einen Trackback auf deiner Seite einrichten.</p>"
    )
    html = STORY.replace("{tail}", filed)
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "Paragraph 5 of the story" in markdown and "Der Beitrag wurde" not in markdown


@pytest.mark.parametrize("closing", ["Euer Hans", "x Franzi", "Liebe Grüße, Anna", "Cheers, Tom"])
def test_the_writers_sign_off_at_the_end_stays(closing: str) -> None:
    html = STORY.replace("{tail}", f"<p>{closing}</p><p><a href=/share>Share</a></p>")
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert closing in markdown and "Share" not in markdown


@pytest.mark.parametrize(
    "closing", ["Subscribe now!", "Contact us today!", "Deine Meinung?", "Kommentare"]
)
def test_a_short_line_that_is_no_sign_off_is_trimmed(closing: str) -> None:
    html = STORY.replace("{tail}", f"<p>{closing}</p>")
    markdown = convert_page(html, "https://n.example/harbour", ConvertOptions()).markdown
    assert "Paragraph 5 of the story" in markdown and closing not in markdown
