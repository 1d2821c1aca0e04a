"""The frame card renderer: hostile metadata stays inert text, only http(s) URLs reach the page,
one link covers the card, and every template and theme renders as intended in real Chromium
(served under the frame's Content-Security-Policy, checked pixel by pixel with Pillow)."""

from __future__ import annotations

import hashlib
import html
import io
import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, cast

import lxml.html
import pytest
import tornado.escape
from PIL import Image, ImageDraw
from playwright.sync_api import ConsoleMessage, Dialog, Page, Route, sync_playwright

from browser.farm.flags import LAUNCH_ARGS
from convert.embed.card_content import DESCRIPTION_LIMIT, SITE_NAME_LIMIT, TITLE_LIMIT, CardData
from convert.embed.card_templates import SOURCES
from convert.embed.frame_card import CSP, TEMPLATES, THEMES, render_card

CHROMIUM = os.environ.get("PAGECAST_TEST_CHROMIUM", "/usr/bin/chromium")
FRAME_URL = "https://frame.pagecast.test/card"
IMAGE_URL = "https://img.example/red.png"
FAVICON_URL = "https://img.example/favicon.png"
MISSING_URL = "https://img.example/missing.png"
CLEAR_URL = "https://img.example/clear.png"
SIZES = {"default": (800, 600), "compact": (400, 300), "horizontal": (400, 150)}
"""The templates' own frame sizes."""
SMALL_SIZES = {"default": (320, 280), "compact": (300, 90), "horizontal": (600, 120)}
RGB = tuple[int, int, int]
WHITE: RGB = (255, 255, 255)
NEAR_BLACK: RGB = (0x12, 0x12, 0x12)
RED: RGB = (255, 0, 0)
BLUE: RGB = (0, 0, 255)

CARD = CardData(
    url="https://example.com/articles/cards",
    title="How link cards are drawn",
    description="A walk through the layout of a card: image, site line, title and description.",
    image=IMAGE_URL,
    site_name="Example News",
    favicon=FAVICON_URL,
    canonical_url="https://example.com/articles/cards",
)
HOSTILE = (
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "</style><script>alert(1)</script>",
    "</title><svg onload=alert(1)>",
    "'><a href=javascript:alert(1)>x</a>",
)
DANGEROUS_URLS = (
    "javascript:alert(1)",
    "  JavaScript:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "data:image/png;base64,iVBORw0KGgo=",
    "//evil.example/x.png",
    "/relative.png",
    "relative.png",
    "ftp://files.example/x.png",
    "https:///no-host.png",
    "http://[::1/broken-ipv6.png",
    "vbscript:msgbox(1)",
)
ColorScheme = Literal["light", "dark", "no-preference"]
ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "a", "div", "span", "img"}


def render(card: CardData = CARD, **options: Any) -> str:
    settings: dict[str, Any] = {
        "template": "default",
        "theme": "light",
        "width": 400,
        "height": 320,
        "badge": False,
    }
    settings.update(options)
    return render_card(card, **settings)


def parse(document: str) -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(document)


def only(root: lxml.html.HtmlElement, xpath: str) -> lxml.html.HtmlElement:
    found = root.xpath(xpath)
    assert len(found) == 1, f"{xpath}: {len(found)} matches"
    return found[0]


def assert_inert(document: str, *, text_says_javascript: bool = False) -> None:
    """No element, attribute or URL that could run anything ("javascript:" nowhere in the
    document unless the card's text itself says it)."""
    root = parse(document)
    assert not root.xpath("//script")
    assert {element.tag for element in root.iter()} <= ALLOWED_TAGS
    for element in root.iter():
        for name, value in element.attrib.items():
            assert not name.lower().startswith("on"), (element.tag, name)
            assert "javascript:" not in value.lower()
    assert text_says_javascript or "javascript:" not in document.lower()
    assert len(root.xpath("//style")) == 1
    assert "</" not in only(root, "//style").text


# ----- escaping and URLs -------------------------------------------------------------------------


@pytest.mark.parametrize("payload", HOSTILE)
@pytest.mark.parametrize("template", TEMPLATES)
def test_hostile_text_is_shown_literally(payload: str, template: str) -> None:
    card = replace(CARD, title=payload, description=payload, site_name=payload)
    document = render(card, template=template, width=600, height=400)
    assert_inert(document, text_says_javascript="javascript:" in payload)
    root = parse(document)
    assert only(root, "//title").text == payload
    assert only(root, "//div[@class='title']").text_content() == payload
    assert only(root, "//span[@class='site-name']").text_content() == payload
    if template != "compact":
        assert only(root, "//div[@class='description']").text_content() == payload


@pytest.mark.parametrize("url", DANGEROUS_URLS)
def test_dangerous_image_and_favicon_urls_give_no_img(url: str) -> None:
    for template in TEMPLATES:
        document = render(replace(CARD, image=url, favicon=url), template=template)
        assert "<img" not in document
        assert_inert(document)


@pytest.mark.parametrize("url", DANGEROUS_URLS)
def test_dangerous_page_urls_give_no_link(url: str) -> None:
    document = render(replace(CARD, url=url, canonical_url=url))
    root = parse(document)
    assert not root.xpath("//a") and not root.xpath("//*[@href]")
    assert only(root, "//div[@class='card']").xpath(".//div[@class='title']")
    assert_inert(document)


def test_https_image_gives_one_escaped_img() -> None:
    image = 'https://img.example/a.png?w=1&h=2&q="x"<y>'
    document = render(replace(CARD, image=image, favicon=""))
    root = parse(document)
    img = only(root, "//img")
    assert img.get("src") == image
    assert img.get("alt") == ""
    assert img.get("referrerpolicy") == "no-referrer"
    assert img.get("loading") == "lazy"
    assert img.get("decoding") == "async"
    assert 'src="https://img.example/a.png?w=1&amp;h=2&amp;q=&quot;x&quot;&lt;y&gt;"' in document


def test_url_schemes_are_case_insensitive_and_whitespace_is_stripped() -> None:
    card = replace(
        CARD,
        url="\n HTTPS://Example.com/x ",
        image=" HTTPS://img.example/a.png\t",
        favicon="Http://img.example/f.ico",
    )
    root = parse(render(card))
    assert only(root, "//a").get("href") == "HTTPS://Example.com/x"
    assert only(root, "//img[@class='image']").get("src") == "HTTPS://img.example/a.png"
    assert only(root, "//img[@class='favicon']").get("src") == "Http://img.example/f.ico"


def test_http_images_are_kept_and_upgraded_by_the_page() -> None:
    document = render(replace(CARD, image="http://img.example/a.png"))
    root = parse(document)
    assert only(root, "//img[@class='image']").get("src") == "http://img.example/a.png"
    policy = only(root, "//meta[@http-equiv='Content-Security-Policy']")
    assert policy.get("content") == "upgrade-insecure-requests"


def test_the_whole_card_is_one_link() -> None:
    root = parse(render(badge=True))
    link = only(root, "//a")
    assert link.get("href") == CARD.url
    assert link.get("target") == "_blank"
    assert link.get("rel") == "noopener noreferrer"
    assert link.get("class") == "card"
    assert link.getparent().tag == "body"
    for part in ("media", "site", "title", "description"):
        assert link.xpath(f".//*[@class='{part}']"), part


def test_the_template_engine_escapes_every_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every value reaches the page through the engine's autoescape (here marked with brackets):
    text and attributes alike, the style sheet only taken raw."""

    def marked(value: str | bytes) -> str:
        return "\u27e6" + html.escape(tornado.escape.to_unicode(value)) + "\u27e7"

    monkeypatch.setattr(tornado.escape, "xhtml_escape", marked)
    for template in TEMPLATES:
        document = render(template=template, width=600, height=400, badge=True)
        root = parse(document)
        values = [element.text for element in root.xpath(VALUE_ELEMENTS)]
        values += root.xpath("//a/@href | //img/@src | //img/@data-initial | //meta/@content")
        assert len(values) >= (9 if template == "compact" else 10)
        for value in values:
            if value in STATIC_META:
                continue
            assert value.startswith("\u27e6") and value.endswith("\u27e7"), value
        assert "\u27e6" not in only(root, "//style").text


VALUE_ELEMENTS = (
    "//title | //div[@class='title'] | //div[@class='description'] | //span[@class='site-name']"
    " | //span[@class='initial'] | //div[@class='badge']"
)
STATIC_META = {
    "width=device-width, initial-scale=1",
    "noindex",
    "no-referrer",
    "upgrade-insecure-requests",
}
"""The ``<meta>`` contents written in the templates themselves."""


@pytest.mark.parametrize("template", TEMPLATES)
def test_hostile_text_comes_out_escaped(template: str) -> None:
    payload = HOSTILE[1] + HOSTILE[2] + " & {{ 1/0 }}{% raw x %}"
    card = replace(
        CARD, title=payload, description=payload, site_name=payload, image="", favicon=""
    )
    document = render(card, template=template, width=600, height=400)
    escaped = html.escape(payload, quote=True)
    assert escaped == (
        "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;/style&gt;&lt;script&gt;alert(1)"
        "&lt;/script&gt; &amp; {{ 1/0 }}{% raw x %}"
    )
    assert f"<title>{escaped}</title>" in document
    assert f'<div class="title" dir="auto">{escaped}</div>' in document
    assert f'<span class="site-name" dir="auto">{escaped}</span>' in document
    assert document.count(escaped) == (2 if template == "compact" else 3) + 1
    assert "<script" not in document and "<img" not in document and "<svg" not in document


def test_templates_take_only_the_style_raw_and_quote_every_attribute() -> None:
    sources = "".join(SOURCES.values())
    assert re.findall(r"\{%\s*raw\b[^%]*%\}", sources) == ["{% raw style %}"]
    assert "{% autoescape" not in sources and "{% module" not in sources
    expressions = re.findall(r"\{\{\s*(.*?)\s*\}\}", sources)
    assert all(
        expression.startswith("content.") or expression in {"color_scheme", "badge_text"}
        for expression in expressions
    ), expressions
    for tag in re.findall(r"<[a-z]+\b[^<>]*>", sources):
        unquoted = re.sub(r'="[^"]*"', "", tag)
        assert "=" not in unquoted and "'" not in unquoted, f"unquoted attribute in {tag}"
    urls = re.findall(r"\b(?:href|src)=\"([^\"]*)\"", sources)
    assert sorted(set(urls)) == [
        "{{ content.favicon }}",
        "{{ content.href }}",
        "{{ content.image }}",
    ]


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        'https://ex.example/"onerror="alert(1)',
        "https://ex.example/x\x00y",
        "https://ex.example/x\ny",
        "https://ex.example/" + "x" * 9000,
    ],
)
def test_urls_reach_attributes_only_when_safe_and_escaped(url: str) -> None:
    document = render(replace(CARD, url=url, image=url, favicon=url))
    assert_inert(document)
    for found in parse(document).xpath("//a/@href | //img/@src"):
        assert found == url and found.startswith("https://")
        assert f'"{html.escape(url, quote=True)}"' in document


# ----- document shape -----------------------------------------------------------------------------


def test_head_and_page_fill() -> None:
    document = render()
    root = parse(document)
    assert document.startswith("<!DOCTYPE html>\n")
    assert only(root, "//meta[@charset]").get("charset") == "utf-8"
    assert "width=device-width" in only(root, "//meta[@name='viewport']").get("content")
    assert only(root, "//meta[@name='robots']").get("content") == "noindex"
    assert only(root, "//title").text == CARD.title
    style = only(root, "//style").text
    assert "html,body{margin:0;padding:0;width:100%;height:100%;overflow:hidden;" in style
    assert "box-sizing:border-box" in style
    assert "-webkit-line-clamp" in style
    assert "@import" not in style and "url(" not in style and "@font-face" not in style
    assert not root.xpath("//link") and not root.xpath("//*[@style]")


def test_badge_is_plain_text_or_absent() -> None:
    with_badge = render(badge=True)
    badge = only(parse(with_badge), "//div[@class='badge']")
    assert badge.text_content() == "Made with Pagecast"
    assert badge.getparent().tag == "body" and not badge.xpath(".//*")
    assert with_badge.count("Made with Pagecast") == 1
    for template in TEMPLATES:
        without = render(template=template, badge=False)
        assert "Made with" not in without and "badge" not in without


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"template": "grid"}, "unknown template"),
        ({"template": "Default"}, "unknown template"),
        ({"theme": "sepia"}, "unknown theme"),
        ({"theme": ""}, "unknown theme"),
        ({"width": 0}, "width"),
        ({"width": 5000}, "width"),
        ({"height": -10}, "height"),
        ({"height": True}, "height"),
        ({"width": 400.0}, "width"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        render(**options)


@pytest.mark.parametrize("size", [(1, 1), (16, 16), (1, 4096), (4096, 1), (4096, 4096), (120, 60)])
def test_extreme_sizes_still_render(size: tuple[int, int]) -> None:
    width, height = size
    for template in TEMPLATES:
        for card in (CARD, replace(CARD, image="", description="")):
            document = render(card, template=template, width=width, height=height, badge=True)
            assert_inert(document)
            assert only(parse(document), "//div[@class='title']").text == card.title
            assert "-px" not in document and "--placeholder:#" in document


def test_output_is_deterministic() -> None:
    for template in TEMPLATES:
        for theme in THEMES:
            first = render(template=template, theme=theme, badge=True)
            again = render(replace(CARD), template=template, theme=theme, badge=True)
            assert first == again
    assert render(width=300) != render(width=500)


def test_themes() -> None:
    light, dark, auto = (render(theme=theme) for theme in THEMES)
    assert "--bg:#ffffff" in light and "#121212" not in light
    assert "--bg:#121212" in dark and "--bg:#ffffff" not in dark
    assert "prefers-color-scheme" not in light and "prefers-color-scheme" not in dark
    assert "@media (prefers-color-scheme: dark){:root{--bg:#121212;" in auto
    assert auto.index("--bg:#ffffff") < auto.index("--bg:#121212")


def test_text_is_collapsed_cleaned_and_truncated() -> None:
    card = replace(
        CARD,
        title="  Line one\n\n\tline\x00 two\x1b  ",
        description="d" * 2000,
        site_name="s " * 400,
    )
    root = parse(render(card, height=2000))
    assert only(root, "//div[@class='title']").text == "Line one line two"
    description = only(root, "//div[@class='description']").text
    assert len(description) == DESCRIPTION_LIMIT and description.endswith("\u2026")
    site = only(root, "//span[@class='site-name']").text
    assert len(site) <= SITE_NAME_LIMIT and site.endswith("\u2026") and "  " not in site
    long_title = only(parse(render(replace(CARD, title="t" * 999))), "//title").text
    assert len(long_title) == TITLE_LIMIT and long_title == "t" * (TITLE_LIMIT - 1) + "\u2026"


def test_templates_show_their_parts() -> None:
    default = parse(render(template="default", width=400, height=360))
    assert default.xpath("//div[@class='description']")
    compact = parse(render(template="compact", width=360, height=96))
    assert not compact.xpath("//div[@class='description']")
    assert compact.xpath("//div[@class='title']") and compact.xpath("//span[@class='site-name']")
    horizontal = parse(render(template="horizontal", width=600, height=140))
    assert horizontal.xpath("//div[@class='description']")
    style = only(horizontal, "//style").text
    assert "-webkit-line-clamp:1;" in style.split(".description{")[1]


def test_the_image_area_shows_the_image_else_the_icon_else_the_initial() -> None:
    for template in TEMPLATES:
        # The image, and no initial under it (a transparent image would show it through): the
        # initial waits in data-initial for an image that fails to load.
        root = parse(render(CARD, template=template))
        image = only(root, "//div[@class='media']/img")
        assert image.get("class") == "image" and image.get("src") == IMAGE_URL
        assert image.get("data-initial") == "E"
        assert not root.xpath("//span[@class='initial']")
        assert only(root, "//div[@class='site']/img").get("src") == FAVICON_URL
        # No image: the icon in the image area (and not again in the site line).
        root = parse(render(replace(CARD, image=""), template=template))
        icon = only(root, "//div[@class='media']/img")
        assert icon.get("class") == "image icon" and icon.get("src") == FAVICON_URL
        assert icon.get("data-initial") == "E"
        assert not root.xpath("//span[@class='initial']") and not root.xpath(
            "//div[@class='site']/img"
        )
        assert ".icon{" in only(root, "//style").text
        # Neither: the initial, the last fallback.
        root = parse(render(replace(CARD, image="", favicon=""), template=template))
        assert only(root, "//span[@class='initial']").text == "E"
        assert not root.xpath("//img") and ".icon{" not in only(root, "//style").text
    bare = replace(CARD, url="", title="", description="", image="", site_name="", favicon="")
    text_only = parse(render(replace(bare, canonical_url="", title="...")))
    assert not text_only.xpath("//div[@class='media']")
    assert only(text_only, "//div[@class='title']").text == "..."


def test_missing_title_and_site_fall_back_to_the_url() -> None:
    card = replace(
        CARD, title=" ", site_name="", canonical_url="https://www.example.org/guide/", image=""
    )
    root = parse(render(card))
    assert only(root, "//div[@class='title']").text == "example.org/guide"
    assert only(root, "//span[@class='site-name']").text == "example.org"
    assert only(root, "//a").get("href") == CARD.url


def test_csp_is_exported() -> None:
    assert CSP == "default-src 'none'; img-src https: data:; style-src 'unsafe-inline'"


# ----- the markup, fixed --------------------------------------------------------------------------

FIXTURES = Path(__file__).parent / "frame_cards"
EXPECTED_DIGESTS = FIXTURES / "digests.json"
EXPECTED_HOSTILE = FIXTURES / "hostile.html"
"""Written by the f-string renderer the templates replaced, whose bytes the templates keep. After
a deliberate change to the markup, rewrite them with ``python -m tests.convert.test_frame_card``
and review the diff of ``hostile.html``."""

MATRIX: dict[str, CardData] = {
    "full": CARD,
    "no-image": replace(CARD, image=""),
    "no-favicon": replace(CARD, favicon=""),
    "no-description": replace(CARD, description=""),
    "no-site-name": replace(CARD, site_name="", image=""),
    "no-title": replace(CARD, title=" ", canonical_url="https://www.example.org/guide/"),
    "no-link": replace(CARD, url="javascript:alert(1)", canonical_url=""),
    "text-only": replace(
        CARD, url="", title="...", description="", image="", site_name="", favicon=""
    ),
    "hostile-text": replace(
        CARD,
        title=HOSTILE[1],
        description=HOSTILE[0] + HOSTILE[2],
        site_name=HOSTILE[3] + HOSTILE[4],
    ),
    "template-syntax": replace(
        CARD,
        title="{{ 1/0 }} {% raw title %}",
        description="{# c #}{%! x %}{% end %}",
        site_name="{{! y }}",
        image="",
    ),
    "entities-and-quotes": replace(
        CARD,
        title='Tom & Jerry\'s "best" &amp; &lt;b&gt; &#39;',
        description="a < b > c && d ' \" ` =",
        site_name="R&D 'Labs'",
    ),
    "unicode": replace(
        CARD,
        title="\u05e9\u05dc\u05d5\u05dd \u202eevil\u202c caf\u00e9 \U0001f600 \u4e2d\u6587 e\u0301",
        description="\u00a0zero\u200bwidth\ufeff \u2028 line\x85next \ud800lone",
        site_name="\u00dftra\u00dfe",
    ),
    "long": replace(
        CARD, title="t" * 999, description="word " * 300, site_name="s " * 300, image=""
    ),
    "url-characters": replace(
        CARD,
        url="https://example.com/?a=1&b=\"2\"<3>'4'",
        image='https://img.example/a.png?w=1&h=2&q="x"<y>',
        favicon="HTTP://img.example/f ico.png\t",
    ),
    "dangerous-urls": replace(
        CARD,
        url="javascript:alert(1)",
        canonical_url="java\tscript:alert(1)",
        image="data:text/html,<script>alert(1)</script>",
        favicon="//evil.example/x.png",
    ),
}
"""Cards that together take every branch of the markup, with text and URLs that need escaping."""


def matrix_digests() -> dict[str, str]:
    """For each card of ``MATRIX`` and each template, the SHA-256 of its documents in every theme,
    with and without the badge, at the template's own size and a small one."""
    digests = {}
    for name, card in MATRIX.items():
        for template in TEMPLATES:
            digest = hashlib.sha256()
            for theme in THEMES:
                for badge in (False, True):
                    for width, height in (SIZES[template], SMALL_SIZES[template]):
                        document = render_card(
                            card,
                            template=template,
                            theme=theme,
                            width=width,
                            height=height,
                            badge=badge,
                        )
                        digest.update(document.encode("utf-8") + b"\0")
            digests[f"{name} {template}"] = digest.hexdigest()
    return digests


def hostile_document() -> str:
    """One card with every kind of hostile text and URLs that need escaping."""
    urls = MATRIX["url-characters"]
    card = replace(MATRIX["hostile-text"], url=urls.url, image=urls.image, favicon=urls.favicon)
    return render(card, template="default", theme="auto", width=400, height=480, badge=True)


def write_expected() -> None:
    FIXTURES.mkdir(exist_ok=True)
    EXPECTED_DIGESTS.write_text(json.dumps(matrix_digests(), indent=1) + "\n", encoding="utf-8")
    EXPECTED_HOSTILE.write_text(hostile_document(), encoding="utf-8", newline="")


def test_the_markup_is_what_it_was() -> None:
    expected = json.loads(EXPECTED_DIGESTS.read_text(encoding="utf-8"))
    found = matrix_digests()
    changed = sorted(case for case in expected if found.get(case) != expected[case])
    assert found.keys() == expected.keys() and not changed, f"markup changed: {changed}"
    assert hostile_document() == EXPECTED_HOSTILE.read_bytes().decode("utf-8")


# ----- real Chromium ------------------------------------------------------------------------------


def clear_png() -> bytes:
    """An 8x8 image with nothing in it: every pixel transparent."""
    buffer = io.BytesIO()
    Image.new("RGBA", (8, 8), (0, 0, 0, 0)).save(buffer, format="PNG")
    return buffer.getvalue()


def png(color: RGB, side: int = 8) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (side, side), color).save(buffer, format="PNG")
    return buffer.getvalue()


class Frame:
    """One browser tab that shows cards as the frame host serves them: from ``FRAME_URL`` with
    ``CSP``, the test images answered locally, nothing reaching the network."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.document = ""
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        red, blue = png(RED), png(BLUE, 32)
        page.route("**/*", lambda route: route.abort())
        page.route(FRAME_URL, self._frame)
        page.route(IMAGE_URL, lambda route: route.fulfill(body=red, content_type="image/png"))
        page.route(FAVICON_URL, lambda route: route.fulfill(body=blue, content_type="image/png"))
        page.route(MISSING_URL, lambda route: route.fulfill(status=404, body=b"gone"))
        clear = clear_png()
        page.route(CLEAR_URL, lambda route: route.fulfill(body=clear, content_type="image/png"))
        page.on("dialog", self._dialog)
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    def _frame(self, route: Route) -> None:
        route.fulfill(
            body=self.document,
            content_type="text/html; charset=utf-8",
            headers={"Content-Security-Policy": CSP},
        )

    def _dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def show(
        self, document: str, width: int, height: int, scheme: ColorScheme = "no-preference"
    ) -> Image.Image:
        """The screenshot of ``document`` in a ``width`` x ``height`` frame for a reader who
        prefers ``scheme``, once every image has loaded or failed."""
        self.document = document
        self.dialogs.clear()
        self.errors.clear()
        self.page.set_viewport_size({"width": width, "height": height})
        self.page.emulate_media(color_scheme=scheme)
        self.page.goto(FRAME_URL, timeout=15_000)
        deadline = time.monotonic() + 5
        while not self.page.evaluate("Array.from(document.images).every(i => i.complete)"):
            assert time.monotonic() < deadline, "images never settled"
            self.page.wait_for_timeout(10)
        return self.screenshot()

    def screenshot(self) -> Image.Image:
        return Image.open(io.BytesIO(self.page.screenshot(type="png"))).convert("RGB")


@pytest.fixture(scope="module")
def frame() -> Iterator[Frame]:
    """One Chromium and one tab for every pixel check of this file."""
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=list(LAUNCH_ARGS), timeout=30_000
        )
        try:
            yield Frame(browser.new_page())
        finally:
            browser.close()
    finally:
        playwright.stop()


def box(page: Page, selector: str) -> tuple[int, int, int, int] | None:
    """The element's (left, top, right, bottom) in whole pixels, or None."""
    rect = page.evaluate(
        "s => { const e = document.querySelector(s); if (!e) return null;"
        " const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }",
        selector,
    )
    return (
        None if rect is None else (round(rect[0]), round(rect[1]), round(rect[2]), round(rect[3]))
    )


def near(color: RGB, target: RGB, tolerance: int = 10) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(color, target, strict=True))


def colors(image: Image.Image) -> list[tuple[int, RGB]]:
    """(count, colour) for every colour of an RGB image."""
    found = image.getcolors(image.width * image.height) or []
    return [(count, cast(RGB, color)) for count, color in found]


def dominant(shot: Image.Image, *hidden: tuple[int, int, int, int] | None) -> RGB:
    """The most common colour of the screenshot outside the given boxes."""
    canvas = shot.copy()
    draw = ImageDraw.Draw(canvas)
    for rect in hidden:
        if rect is not None:
            draw.rectangle((rect[0], rect[1], rect[2] - 1, rect[3] - 1), fill=(1, 2, 3))
    return max((count, color) for count, color in colors(canvas) if color != (1, 2, 3))[1]


def share_of(
    shot: Image.Image,
    rect: tuple[int, int, int, int],
    color: RGB,
    inset: int = 2,
) -> float:
    """The share of the pixels inside ``rect`` (less ``inset`` on each side) near ``color``."""
    inner = shot.crop((rect[0] + inset, rect[1] + inset, rect[2] - inset, rect[3] - inset))
    matching = sum(count for count, found in colors(inner) if near(found, color))
    return matching / (inner.width * inner.height)


def icon_square(favicon: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The part of the site line's icon box the icon is drawn in: a square at its left (the
    rest of the box is the room before the site's name)."""
    side = favicon[3] - favicon[1]
    return (favicon[0], favicon[1], favicon[0] + side, favicon[3])


def assert_fills_the_frame(page: Page, width: int, height: int) -> None:
    sizes = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight,"
        " document.body.scrollWidth, document.body.scrollHeight]"
    )
    assert sizes == [width, height, width, height]
    link = box(page, "a.card")
    assert link == (0, 0, width, height)
    for x, y in ((width // 2, height // 2), (width - 8, height - 8), (3, 3)):
        inside = page.evaluate(
            "([x, y]) => !!document.elementFromPoint(x, y)?.closest('a.card')", [x, y]
        )
        assert inside, (x, y)


def assert_text_is_clear(page: Page, width: int, height: int) -> None:
    """Every text block lies inside the frame and clear of the badge."""
    badge = box(page, ".badge")
    assert badge is not None and badge[2] <= width and badge[3] <= height
    for selector in (".site", ".title", ".description"):
        text = box(page, selector)
        if text is None:
            assert selector == ".description"
            continue
        assert text[0] > 0 and text[1] > 0 and text[2] < width and text[3] < height, selector
        apart = text[2] <= badge[0] or text[3] <= badge[1]
        assert apart, (selector, text, badge)


READERS: tuple[ColorScheme, ...] = ("no-preference", "light", "dark")
"""Colour schemes a reader's browser may prefer; ``no-preference`` is a browser's default."""


def background_for(theme: str, reader: ColorScheme) -> RGB:
    if theme == "dark" or (theme == "auto" and reader == "dark"):
        return NEAR_BLACK
    return WHITE


@pytest.mark.chromium
@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("template", TEMPLATES)
def test_pixels(frame: Frame, template: str, theme: str) -> None:
    width, height = SIZES[template]
    document = render_card(
        CARD, template=template, theme=theme, width=width, height=height, badge=True
    )
    frame.show(document, width, height)
    media, favicon = box(frame.page, ".media"), box(frame.page, ".favicon")
    assert media is not None and favicon is not None
    for reader in READERS:  # the page follows the preference live, as in a reader's browser
        frame.page.emulate_media(color_scheme=reader)
        shot = frame.screenshot()
        assert near(dominant(shot, media), background_for(theme, reader)), reader
        assert share_of(shot, media, RED) > 0.95
        assert share_of(shot, icon_square(favicon), BLUE, inset=3) > 0.9
    assert_fills_the_frame(frame.page, width, height)
    assert_text_is_clear(frame.page, width, height)
    assert frame.errors == []  # the policy blocked nothing the card needs


@pytest.mark.chromium
@pytest.mark.parametrize("template", TEMPLATES)
def test_failed_images_leave_the_placeholder(frame: Frame, template: str) -> None:
    width, height = SMALL_SIZES[template]
    card = replace(CARD, image=MISSING_URL, favicon=MISSING_URL)
    document = render_card(
        card, template=template, theme="dark", width=width, height=height, badge=False
    )
    shot = frame.show(document, width, height)
    media = box(frame.page, ".media")
    assert media is not None
    rgb = frame.page.evaluate("getComputedStyle(document.querySelector('.media')).backgroundColor")
    red, green, blue = (int(part) for part in rgb.removeprefix("rgb(").rstrip(")").split(","))
    placeholder = (red, green, blue)
    assert not near(placeholder, NEAR_BLACK, 40)
    assert shot.getpixel((media[0] + 8, media[1] + 8)) == placeholder  # no broken-image icon
    assert share_of(shot, media, placeholder) > 0.8  # the rest is the white initial
    # The site line's icon that failed takes no room: the site's name starts the line.
    favicon, site, name = (box(frame.page, part) for part in (".favicon", ".site", ".site-name"))
    assert favicon is not None and site is not None and name is not None
    assert favicon[2] - favicon[0] == 0 and name[0] == site[0]
    assert near(dominant(shot, media), NEAR_BLACK)
    assert_fills_the_frame(frame.page, width, height)


@pytest.mark.chromium
@pytest.mark.parametrize("template", TEMPLATES)
def test_site_line_icon_and_its_room(frame: Frame, template: str) -> None:
    """A loaded icon of the site line stands its own size plus a gap before the site's name."""
    width, height = SIZES[template]
    document = render_card(
        CARD, template=template, theme="light", width=width, height=height, badge=False
    )
    frame.show(document, width, height)
    favicon, name = box(frame.page, ".favicon"), box(frame.page, ".site-name")
    assert favicon is not None and name is not None
    side = favicon[3] - favicon[1]
    assert side >= 12 and favicon[2] - favicon[0] == side + 6 and name[0] == favicon[2]


@pytest.mark.chromium
@pytest.mark.parametrize("template", TEMPLATES)
def test_without_an_image_the_icon_stands_on_a_plain_tile(frame: Frame, template: str) -> None:
    width, height = SIZES[template]
    card = replace(CARD, image="")
    document = render_card(
        card, template=template, theme="light", width=width, height=height, badge=False
    )
    shot = frame.show(document, width, height)
    media = box(frame.page, ".media")
    assert media is not None
    found = colors(shot.crop(media))
    tile = max(found)[1]
    assert near(tile, (0xF1, 0xF3, 0xF4), 2)  # the plain tile, not the coloured placeholder
    blue = sum(count for count, color in found if near(color, BLUE))
    shorter = min(media[2] - media[0], media[3] - media[1])
    icon = min(64, round((shorter - 2) * 0.5))
    assert blue >= 0.8 * icon * icon  # the icon, drawn large and centred
    inside = shot.crop((media[0] + 6, media[1] + 6, media[2] - 6, media[3] - 6))  # no corners
    assert not any(near(color, WHITE, 4) for _, color in colors(inside))  # and no initial
    # It fails to load: the initial on its coloured block, the last fallback.
    shot = frame.show(
        render_card(
            replace(card, favicon=MISSING_URL),
            template=template,
            theme="light",
            width=width,
            height=height,
            badge=False,
        ),
        width,
        height,
    )
    icon = box(frame.page, ".icon")
    assert icon is not None
    placeholder = shot.getpixel((icon[0] + 2, icon[1] + 2))
    assert not near(placeholder, (0xF1, 0xF3, 0xF4), 8) and not near(placeholder, WHITE, 8)
    assert any(near(color, WHITE, 4) for _, color in colors(shot.crop(icon)))


@pytest.mark.chromium
def test_a_transparent_image_shows_no_initial(frame: Frame) -> None:
    width, height = SIZES["default"]
    card = replace(CARD, image=CLEAR_URL)
    document = render_card(
        card, template="default", theme="light", width=width, height=height, badge=False
    )
    shot = frame.show(document, width, height)
    media = box(frame.page, ".media")
    assert media is not None
    assert frame.page.evaluate("document.querySelector('.media img').naturalWidth") == 8
    assert len(colors(shot.crop(media))) == 1  # the plain placeholder: no letter behind


@pytest.mark.chromium
@pytest.mark.parametrize("template", TEMPLATES)
def test_without_an_image_the_layout_holds(frame: Frame, template: str) -> None:
    width, height = SMALL_SIZES[template]
    card = replace(CARD, image="", favicon="")
    document = render_card(
        card, template=template, theme="light", width=width, height=height, badge=True
    )
    shot = frame.show(document, width, height)
    media = box(frame.page, ".media")
    assert media is not None and media[2] - media[0] > 20 and media[3] - media[1] > 20
    assert share_of(shot, media, WHITE) < 0.5 and share_of(shot, media, RED) == 0
    assert near(dominant(shot, media), WHITE)
    assert_fills_the_frame(frame.page, width, height)
    assert_text_is_clear(frame.page, width, height)


@pytest.mark.chromium
def test_http_image_loads_over_https(frame: Frame) -> None:
    width, height = SIZES["default"]
    card = replace(CARD, image=IMAGE_URL.replace("https://", "http://"))
    document = render_card(
        card, template="default", theme="light", width=width, height=height, badge=False
    )
    shot = frame.show(document, width, height)
    media = box(frame.page, ".media")
    assert media is not None and share_of(shot, media, RED) > 0.95


@pytest.mark.chromium
def test_hostile_card_runs_nothing(frame: Frame) -> None:
    payload = HOSTILE[0] + HOSTILE[1] + HOSTILE[2]
    card = replace(CARD, title=payload, description=payload, site_name=payload, image="")
    document = render_card(
        card, template="horizontal", theme="auto", width=600, height=140, badge=True
    )
    frame.show(document, 600, 140)
    page = frame.page
    assert page.evaluate("document.scripts.length") == 0
    assert page.evaluate("document.querySelectorAll('img, svg, iframe').length") == 1
    assert page.evaluate("document.querySelector('.title').textContent") == payload
    assert page.evaluate("document.title") == payload
    assert frame.dialogs == [] and frame.errors == []


if __name__ == "__main__":
    write_expected()
