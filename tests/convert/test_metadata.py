"""Page metadata: the fixture set's floor (every field, every page), the sources' order and
checks, and the values' normalisation, as pure functions."""

from __future__ import annotations

from pathlib import Path

import pytest

from convert.embed.oembed import frame_oembed_fields
from convert.html.document import read_document
from convert.metadata.fields import FIELD_HELP, FIELDS
from convert.metadata.read import page_metadata
from convert.metadata.values import (
    absolute_url,
    address_host,
    author_name,
    clean_text,
    iso_date,
    junk_image,
    language_tag,
    readable_domain,
    same_names,
    stated_author,
)
from tests.metadata_fixtures import field_accuracy, field_misses, fixture_pages

FIELD_FLOOR = 0.95
"""Share of the fixture pages each field must be right on (all were when it was set)."""


def read(html: str, url: str = "https://site.example/a/page") -> dict[str, str]:
    return page_metadata(read_document(html).root, url)


def test_fixture_set_floor() -> None:
    pages = fixture_pages()
    assert len(pages) >= 60
    results = [(page, read(page.html, page.url)) for page in pages]
    accuracy = field_accuracy(results)
    assert set(accuracy) == set(FIELDS)
    misses = {page.name: field_misses(got, page) for page, got in results}
    low = {name: share for name, share in accuracy.items() if share < FIELD_FLOOR}
    assert not low, (low, {name: miss for name, miss in misses.items() if miss})


def test_every_field_is_a_string_even_on_an_empty_page() -> None:
    meta = read("")
    assert list(meta) == list(FIELDS) and all(isinstance(value, str) for value in meta.values())
    assert meta["final_url"] == meta["canonical_url"] == "https://site.example/a/page"
    assert meta["site_name"] == "site.example" and meta["title"] == ""


def test_headline_wins_only_when_it_agrees_with_a_stated_title() -> None:
    page = """<html><head><title>Cheap flights to Lisbon 2024 | Fly Deals</title></head><body>
    <h1>Subscribe to our newsletter</h1><h1>Cheap flights to Lisbon, found daily</h1>
    </body></html>"""
    assert read(page)["title"] == "Cheap flights to Lisbon, found daily"
    unrelated = page.replace("Cheap flights to Lisbon, found daily", "Our partners")
    assert read(unrelated)["title"] == "Cheap flights to Lisbon 2024"


def test_a_broken_or_huge_json_ld_block_is_skipped() -> None:
    huge = '{"@type": "Article", "headline": "' + "x" * 500_000 + '"}'
    page = (
        "<html><head><script type='application/ld+json'>{broken</script>"
        f"<script type='application/ld+json'>{huge}</script>"
        '<script type=\'application/ld+json\'>{"@type": "Article", "headline": "Kept"}'
        "</script></head><body></body></html>"
    )
    assert read(page)["title"] == "Kept"


@pytest.mark.parametrize(
    ("value", "tag"),
    [
        ("en", "en"),
        ("EN_us", "en-US"),
        ("zh-hant-tw", "zh-Hant-TW"),
        ("es-419", "es-419"),
        ("de-AT, de", "de-AT"),
        ("x-default", ""),
        ("{{ lang }}", ""),
        ("english", ""),
    ],
)
def test_language_tags(value: str, tag: str) -> None:
    assert language_tag(value) == tag


@pytest.mark.parametrize(
    ("value", "loose", "day"),
    [
        ("2024-02-11T18:05:00-05:00", False, "2024-02-11T18:05:00-05:00"),
        ("2024-02-11T18:05:00.123Z", False, "2024-02-11T18:05:00Z"),
        ("2024-02-11 18:05:00 +0000", False, "2024-02-11T18:05:00+00:00"),
        ("20240211", False, "2024-02-11"),
        ("Feb 11, 2024", False, "2024-02-11"),
        ("Posted on 11th February 2024 by Jo", True, "2024-02-11"),
        ("Posted on 11th February 2024 by Jo, a long line of text with many words", False, ""),
        ("le 3 mars 2024", True, "2024-03-03"),
        ("11.02.2024", True, "2024-02-11"),
        ("02/11/2024", True, "2024-02-11"),
        ("25/12/2023", True, "2023-12-25"),
        ("2024-02-30", False, ""),
        ("1970-01-01T00:00:00Z", False, ""),
        ("0001-01-01", False, ""),
        ("last Tuesday", True, ""),
    ],
)
def test_dates(value: str, loose: bool, day: str) -> None:
    assert iso_date(value, loose=loose) == day


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("By Jane Doe", "Jane Doe"),
        ("Written by: Jane Doe | March 3, 2024", "Jane Doe"),
        ("Jane Doe · 5 min read", "Jane Doe"),
        ("Marna van der Merwe", "Marna van der Merwe"),
        ("admin", ""),
        ("@janedoe", ""),
        ("https://www.facebook.com/janedoe", ""),
        ("jane@example.com", ""),
        ("Read more", ""),
        ("implementing the tips in this article.", ""),
        ("beijingwalker", "beijingwalker"),
        ("Shannon Williams, Journalist", "Shannon Williams"),
        ("Advaita Suresh, Global Desk", "Advaita Suresh"),
        ("Authored by Nicole Hatcher", "Nicole Hatcher"),
    ],
)
def test_author_names(value: str, name: str) -> None:
    assert author_name(value) == name


def test_a_stated_name_may_be_lower_case() -> None:
    """A field that holds only a name keeps "jane doe"; a byline's lower-case phrase is none."""
    assert stated_author("jane doe") == "jane doe"
    assert author_name("jane doe") == ""
    assert stated_author("implementing the tips in this article.") == ""


def test_names_compare_as_sets() -> None:
    assert same_names("Ana Ruiz, Ben Cho", "Ben Cho and Ana Ruiz")
    assert not same_names("Ana Ruiz", "Ana Ruiz, Ben Cho")


def test_urls_and_junk_images() -> None:
    base = "https://site.example/a/b/"
    assert absolute_url(base, "../img/x.jpg") == "https://site.example/a/img/x.jpg"
    assert absolute_url(base, "//cdn.example/x.jpg") == "https://cdn.example/x.jpg"
    assert absolute_url(base, "javascript:alert(1)") == ""
    assert absolute_url(base, "data:image/png;base64,AAAA") == ""
    assert absolute_url(base, "ftp://site.example/x") == ""
    assert absolute_url(base, "/" + "a" * 3000) == ""
    assert absolute_url(base, "https:///cdn.example/x.jpg") == "https://cdn.example/x.jpg"
    assert absolute_url(base, "https:////cdn.example/x.jpg") == "https://cdn.example/x.jpg"
    assert absolute_url(base, "https:////") == ""  # no host: not the page itself
    assert absolute_url(base, "https:") == ""
    assert readable_domain("http://[::1/x") == ""
    assert junk_image("https://www.facebook.com/tr?id=1&ev=PageView")
    assert junk_image("https://pixel.wp.com/g.gif?v=1")
    assert junk_image("https://site.example/static/placeholder.png")
    assert junk_image("https://site.example/img/default-share.jpg")
    assert junk_image("https://site.example/img/1x1.gif")
    assert not junk_image("https://site.example/img/harbour-at-dusk.jpg")
    assert not junk_image("https://site.example/img/pixel-art-contest.jpg")


def test_texts_and_domains() -> None:
    assert clean_text("Fish &amp; Chips") == "Fish & Chips"
    assert clean_text("Caf\u00c3\u00a9 \u00e2\u0080\u0094 open") == "Caf\u00e9 \u2014 open"
    assert clean_text("a\u200b b\n\n  c") == "a b c"
    assert readable_domain("https://www.bakery.example/x") == "bakery.example"
    assert readable_domain("https://xn--bcher-kva.example/") == "b\u00fccher.example"
    assert readable_domain("https://127.0.0.1:8000/") == "127.0.0.1"


def test_frame_answer_fields_follow_the_oembed_spec() -> None:
    meta = {
        "title": "Harbour lights",
        "author": "Ines Moreau",
        "canonical_url": "https://quay.example/news/lights?x=1",
        "image": "https://quay.example/img/q.jpg",
        "image_width": "1200",
        "image_height": "630",
    }
    assert frame_oembed_fields(meta, "https://quay.example/news/lights") == {
        "title": "Harbour lights",
        "author_name": "Ines Moreau",
        "provider_url": "https://quay.example/",
        "thumbnail_url": "https://quay.example/img/q.jpg",
        "thumbnail_width": 1200,
        "thumbnail_height": 630,
    }
    unsized = {**meta, "image_width": "", "author": "", "canonical_url": ""}
    fields = frame_oembed_fields(unsized, "https://quay.example/a")
    assert fields == {"title": "Harbour lights", "provider_url": "https://quay.example/"}


def test_docs_describe_every_field() -> None:
    """docs/markdown.md's table of metadata fields says what the declarations say (the API
    description is generated from them)."""
    page = (Path(__file__).parents[2] / "docs" / "markdown.md").read_text("utf-8")
    assert set(FIELD_HELP) == set(FIELDS)
    for name in FIELDS:
        assert f"| `{name}` | {FIELD_HELP[name]} |" in page, name


PROSE = (
    "<p>The river rose two metres overnight, and by morning the lower streets of the town were "
    "under water; volunteers carried sandbags until the bridge was closed at noon.</p>"
)
LONG_PROSE = "<p>" + " ".join([PROSE[3:-4]] * 3) + "</p>"
"""A paragraph long enough that the byline is not looked for past it."""


def test_an_author_element_away_from_the_headline_names_the_author() -> None:
    """An author box after the article names the author when nothing else does; a listing's
    cards, each with its author, and a comment's author do not."""
    box = '<div class="blog_author-text"><div class="text-size-small">Lauren Vetter</div></div>'
    page = f"<html><body><article><h1>On hail</h1>{LONG_PROSE}</article>{box}</body></html>"
    assert read(page)["author"] == "Lauren Vetter"
    cards = "".join(
        f'<div class="card"><h2>Story {n}</h2><span class="post-author">{name}</span></div>'
        for n, name in enumerate(("Ana Ruiz", "Ben Cho", "Cy Dean"))
    )
    listing = f"<html><body><h1>Stories</h1>{LONG_PROSE}{cards}</body></html>"
    assert read(listing)["author"] == ""
    comment = '<div class="comment-list"><span class="comment-author">Ben Cho</span></div>'
    page = f"<html><body><article><h1>On hail</h1>{LONG_PROSE}</article>{comment}</body></html>"
    assert read(page)["author"] == ""
    assert read(page.replace("comment-list", "sidebar"), "https://site.example/")["author"] == ""


def test_a_threads_first_poster_is_its_author() -> None:
    posts = "".join(
        f'<div class="post"><a class="username" href="/u/{name}">{name}</a>{PROSE}</div>'
        for name in ("alice", "bob", "carol", "bob")
    )
    page = f"<html><body><h1>Which kettle?</h1>{LONG_PROSE}{posts}</body></html>"
    assert read(page, "https://forum.example/threads/which-kettle.42/")["author"] == "alice"
    assert read(page, "https://forum.example/blog/which-kettle")["author"] == ""


def test_author_words_are_read_by_their_last_part() -> None:
    from convert.metadata.byline import marks_author  # noqa: PLC0415 (one helper)

    assert marks_author("wp-block-jobber-academy-post-hero__author")
    assert marks_author("elementor-author-box__name")
    assert not marks_author("author-bio")
    assert not marks_author("entry-author-avatar")


def test_the_stated_co_authors_over_a_byline_naming_the_first() -> None:
    ld = (
        '<script type="application/ld+json">{"@type": "Article", "author": [{"@type": "Person", '
        '"name": "Ana Ruiz"}, {"@type": "Person", "name": "Ben Cho"}]}</script>'
    )
    page = f'<html><head>{ld}</head><body><h1>On hail</h1><p class="byline">By Ana Ruiz</p>'
    assert same_names(read(page + PROSE)["author"], "Ana Ruiz, Ben Cho")
    cited = "".join(f'<meta name="citation_author" content="{n}">' for n in ("Ana Ruiz", "Ben Cho"))
    assert read(f"<html><head>{cited}</head><body>{PROSE}</body></html>")["author"] == (
        "Ana Ruiz, Ben Cho"
    )


def test_a_dateline_days_after_the_stated_date_shows_a_later_edit() -> None:
    def published(stated: str, shown: str) -> str:
        head = f'<meta property="article:published_time" content="{stated}">'
        line = f'<p class="byline">By Ana Ruiz · <time datetime="{shown}">{shown}</time></p>'
        page = f"<html><head>{head}</head><body><h1>On hail</h1>{line}{PROSE}</body></html>"
        return read(page)["published_at"][:10]

    assert published("2024-03-01", "2024-03-05") == "2024-03-01"
    assert published("2024-03-01", "2024-03-02") == "2024-03-02"  # another time zone's day
    assert published("2024-01-01", "2024-03-05") == "2024-03-05"


def test_a_date_in_the_path_dates_a_page_that_states_none() -> None:
    page = f"<html><body><h1>On hail</h1>{LONG_PROSE}</body></html>"
    assert read(page, "https://blog.example/2025/12/19/on-hail")["published_at"] == "2025-12-19"
    assert read(page, "https://blog.example/a/2025-12-15+On+hail")["published_at"] == "2025-12-15"
    assert read(page, "https://blog.example/2025/12/on-hail")["published_at"] == ""
    assert read(page, "https://blog.example/item/2025/13/40/")["published_at"] == ""


def test_a_time_element_without_datetime_and_published_date_meta() -> None:
    shown = '<p class="meta"><time class="article__date">Sep 27, 2024</time></p>'
    page = f"<html><body><h1>On hail</h1>{LONG_PROSE}{shown}</body></html>"
    assert read(page)["published_at"] == "2024-09-27"
    stated = '<meta name="published-date" content="2021-02-16">'
    page = f"<html><head>{stated}</head><body>{LONG_PROSE}</body></html>"
    assert read(page)["published_at"] == "2021-02-16"


def test_an_image_inside_main_and_article_is_read_once_and_huge_values_are_refused() -> None:
    huge = "https://site.example/" + "a/" * 600_000
    page = f"""<html><head><title>{"Word | " * 50_000}Site</title></head><body>
    <header><img class="logo" alt="{"Acme " * 100_000}" src="/logo.png"></header>
    <main><article><h1>A story</h1><img src="{huge}"><img src="/pictures/harbour.jpg"></article>
    </main></body></html>"""
    meta = read(page)
    assert meta["image"] == "https://site.example/pictures/harbour.jpg"
    assert "Acme" not in meta["site_name"] and len(meta["title"]) < 1000


def test_a_post_is_titled_by_its_story_not_by_its_blogs_name() -> None:
    blog = (
        '<meta property="og:site_name" content="Crumb &amp; Kettle">'
        '<meta property="og:title" content="Crumb &amp; Kettle">'
    )
    post = f"<html><head>{blog}<title>Crumb &amp; Kettle</title></head><body>BODY</body></html>"
    story = "<main><h1>Pear galette with thyme</h1></main>"
    assert read(post.replace("BODY", story), "https://crumb.example/pear-galette")["title"] == (
        "Pear galette with thyme"
    )
    # The story before the blog's name in the <title>, no headline to agree with.
    titled = post.replace(
        "<title>Crumb &amp; Kettle</title>", "<title>Pear galette | Crumb &amp; Kettle</title>"
    )
    assert read(titled.replace("BODY", ""), "https://crumb.example/pear-galette")["title"] == (
        "Pear galette"
    )
    # A JSON-LD headline names the story too.
    headline = (
        '<script type="application/ld+json">{"@type":"BlogPosting",'
        '"headline":"Pear galette, step by step"}</script>'
    )
    with_headline = post.replace("</head>", headline + "</head>")
    assert read(with_headline.replace("BODY", ""), "https://crumb.example/p/1")["title"] == (
        "Pear galette, step by step"
    )
    # The site's home is called by the site's name; a post that says nothing else is too.
    assert read(post.replace("BODY", story), "https://crumb.example/")["title"] == "Crumb & Kettle"
    assert read(post.replace("BODY", ""), "https://crumb.example/pear-galette")["title"] == (
        "Crumb & Kettle"
    )


@pytest.mark.parametrize(
    ("stated", "badge", "title"),
    [
        (
            "ada/tidepool: Tide tables from open data",
            "Public",
            "ada/tidepool: Tide tables from open data",
        ),
        ("ada/tidepool", "Public", "ada/tidepool"),
        (
            "ada/tidepool: Tide tables from open data",
            "Private",
            "ada/tidepool: Tide tables from open data",
        ),
    ],
)
def test_a_repository_is_titled_by_its_stated_title_not_its_badge(
    stated: str, badge: str, title: str
) -> None:
    page = (
        f"<html><head><title>{stated} · CodeHarbor</title>"
        '<meta property="og:site_name" content="CodeHarbor"></head><body><main>'
        f'<h1><a href="/ada">ada</a> / <a href="/ada/tidepool">tidepool</a> <span>{badge}</span>'
        "</h1></main></body></html>"
    )
    assert read(page, "https://codeharbor.example/ada/tidepool")["title"] == title


def test_a_colon_title_still_gives_way_to_an_agreeing_headline() -> None:
    page = (
        "<html><head><title>Hiking Boots: Shop Boots for Hiking | Trailhead</title></head>"
        "<body><h1>Hiking Boots</h1></body></html>"
    )
    assert read(page, "https://trailhead.example/c/boots")["title"] == "Hiking Boots"


CANONICAL_PAGE = (
    "<html><head><title>Pear loaf | Crumb and Kettle</title>{head}</head>"
    "<body><article><h1>Pear loaf</h1></article></body></html>"
)


@pytest.mark.parametrize(
    ("fetched", "canonical", "site", "title"),
    [
        # By IP address or a local name: the canonical domain's names, and its domain shown.
        ("http://203.0.113.7/r/pear-loaf", "https://www.crumbandkettle.example/r/pear-loaf",
         "Crumb and Kettle", "Pear loaf"),
        ("http://[2001:db8::7]:8080/r/pear-loaf", "https://crumbandkettle.example/r/pear-loaf",
         "Crumb and Kettle", "Pear loaf"),
        ("http://web01.internal/r/pear-loaf", "https://crumbandkettle.example/r/pear-loaf",
         "Crumb and Kettle", "Pear loaf"),
        # From another public host: its title's part still names the canonical site.
        ("https://staging.hostingco.example/r/pear-loaf",
         "https://crumbandkettle.example/r/pear-loaf", "Crumb and Kettle", "Pear loaf"),
        # Without a canonical URL the fetched address is all there is.
        ("http://203.0.113.7/r/pear-loaf", "", "203.0.113.7", "Pear loaf"),
    ],
)  # fmt: skip
def test_the_site_name_matches_the_canonical_domain_when_fetched_by_address(
    fetched: str, canonical: str, site: str, title: str
) -> None:
    head = f'<link rel="canonical" href="{canonical}">' if canonical else ""
    meta = read(CANONICAL_PAGE.format(head=head), fetched)
    assert (meta["site_name"], meta["title"]) == (site, title)
    assert meta["canonical_url"] == (canonical or fetched)


def test_a_page_named_nowhere_shows_its_canonical_domain_only_when_fetched_by_address() -> None:
    page = "<html><head><title>Holiday hours</title>{head}</head><body></body></html>"
    og_url = '<meta property="og:url" content="https://lanternworks.example/news/hours">'
    by_ip = read(page.format(head=og_url), "http://198.51.100.20:8080/news/hours")
    assert by_ip["site_name"] == "lanternworks.example"
    by_name = read(page.format(head=og_url), "http://localhost:8080/news/hours")
    assert by_name["site_name"] == "lanternworks.example"
    # A syndicated copy on another site keeps the name of the host that shows it.
    copy = read(page.format(head=og_url), "https://reprints.example/2024/hours")
    assert copy["site_name"] == "reprints.example"


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("203.0.113.7", True),
        ("[2001:db8::7]", True),
        ("2001:db8::7", True),
        ("localhost", True),
        ("web01.internal", True),
        ("printer.local", True),
        ("crumbandkettle.example", False),
        ("staging.hostingco.example", False),
        ("127.0.0.1.nip.example", False),
    ],
)
def test_address_hosts(host: str, address: bool) -> None:
    assert address_host(host) is address
