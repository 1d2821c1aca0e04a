"""Consent notices no list knows, left out of Markdown by what they say and offer, while pages
that only speak of cookies keep their words."""

from __future__ import annotations

import pytest

from convert.markdown.pipeline import ConvertOptions, convert_page

URL = "https://example.com/post"
PARAGRAPHS = (
    "<p>The port authority brought the last of the old cranes back into service this week, "
    "after a winter of repairs on the quay and a long argument about their cost.</p>" * 6
)


def markdown(body: str) -> str:
    html = f"<html><head><title>Harbour</title></head><body>{body}</body></html>"
    return convert_page(html, URL, ConvertOptions()).markdown


@pytest.mark.parametrize(
    "notice",
    [
        # Class names that say nothing (a CSS-in-JS build), the buttons answering.
        "<div class='sc-1x7f3'><p>We use cookies to improve your experience and to measure our "
        "audience.</p><div class='sc-9a'><button>Accept all</button><button>Reject all</button>"
        "</div></div>",
        # Links as buttons, in German.
        "<div class='b7'><span>Wir verwenden Cookies, um unsere Website zu verbessern.</span>"
        "<a href='#'>Alle akzeptieren</a> <a href='#'>Ablehnen</a></div>",
        # An input, and consent without the word "cookie".
        "<section><p>With your consent we and our partners process data for ads.</p>"
        "<form><input type='submit' value='I agree'></form></section>",
    ],
)
def test_an_unlisted_notice_is_left_out(notice: str) -> None:
    # Where the page's script put it: inside the content's container, first or last.
    for inside in (notice + PARAGRAPHS, PARAGRAPHS + notice):
        text = markdown(f"<div><h1>Harbour cranes return</h1>{inside}</div>")
        assert "Harbour cranes return" in text and "long argument about their cost" in text
        assert "cookies" not in text.lower() and "consent" not in text.lower()
        assert "Accept" not in text and "akzeptieren" not in text and "I agree" not in text


RECIPE = (
    "<article><h1>Brown butter cookies</h1>"
    "<p>These cookies keep for a week in a tin. Accept that the first batch will vanish.</p>"
    "<div class='tip'><p>Tip: chill the cookie dough overnight for thicker cookies.</p>"
    "<button>Got it</button></div>"
    "<p>Cream the butter and sugar, fold in the flour, and bake the cookies for twelve "
    "minutes until the edges turn golden and the middles still look soft.</p>"
    * 3
    + "<aside><p>Our cookie policy explains which cookies this site sets.</p>"
    "<a href='/cookies'>Read the cookie policy</a></aside>"
    "</article>"
)


def test_a_page_that_speaks_of_cookies_keeps_its_words() -> None:
    text = markdown(RECIPE)
    assert "These cookies keep for a week in a tin" in text
    assert "chill the cookie dough overnight" in text  # a tip with a button, not a notice
    assert "bake the cookies for twelve minutes" in text


def test_a_long_block_with_an_answering_control_is_content() -> None:
    # A help article on consent with a control in it: far more than a notice says.
    long = (
        "<article><h1>How consent works on this forum</h1>"
        + "<p>When you first visit, the forum asks for your consent to store cookies; this page "
        "explains each of them, what it keeps, for how long, and how to change your mind.</p>"
        * 8
        + "<button>OK</button></article>"
    )
    text = markdown(long)
    assert text.count("what it keeps, for how long") == 8
