"""html from discovered (untrusted) oEmbed endpoints: only a plain iframe is kept, rebuilt as a
sandboxed iframe; hostile html (script, event handlers, javascript: URLs) never reaches the
answer, which falls through to the hosted card (or a plain link when the page has no card); URL
fields (url, thumbnail_url...) are kept only when they are http(s). End to end against a real
origin on 127.0.0.1 that advertises its own endpoints."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import lxml.html
import pytest
import tornado.web

from app.config import Settings
from app.services import Services
from app.web import make_api_app, make_frame_app
from convert.embed.oembed import discovered_fields
from convert.embed.snippets import SANDBOX, discovered_snippet, plain_iframe
from services.embeds import EmbedRequest
from services.fetch_policy import PageRequest
from tests.conftest import make_settings
from tests.origin import Origin, serve

HOSTILE_HTML = (
    "<script>alert(1)</script><img src=x onerror=alert(2)>"
    '<a href="javascript:alert(3)">play</a>'
    '<iframe src="https://player.example/e/1"></iframe>'
)
IFRAME_HTML = (
    '<iframe src="https://player.example/e/1?a=1&amp;b=2" width="480" height="270" '
    'onload="alert(1)" allow="camera; microphone" srcdoc="<script>alert(2)</script>" '
    'sandbox="allow-top-navigation allow-same-origin allow-scripts"></iframe>'
)
ANSWERS: dict[str, dict[str, Any]] = {
    "hostile": {"type": "rich", "html": HOSTILE_HTML, "width": 500, "height": 300},
    "iframe": {"type": "video", "html": IFRAME_HTML, "title": 'A "video"'},
    "js-iframe": {"type": "video", "html": '<iframe src="javascript:alert(1)"></iframe>'},
    "data-iframe": {"type": "rich", "html": '<iframe src="data:text/html,<script>x</script>">'},
    "two-iframes": {"type": "rich", "html": IFRAME_HTML + IFRAME_HTML},
    "handler-only": {"type": "rich", "html": '<div onclick="alert(1)">hi</div>'},
    "photo": {
        "type": "photo",
        "url": "https://img.example/p.jpg",
        "html": "<img src=x onerror=alert(1)>",
        "width": 300,
        "height": 200,
    },
    "js-photo": {"type": "photo", "url": "javascript:alert(1)", "html": "<b>x</b>"},
    "link": {"type": "link", "title": "<b>Bold</b>", "html": "<script>alert(1)</script>"},
    "js-urls": {
        "type": "video",
        "html": IFRAME_HTML,
        "url": "javascript:alert(1)",
        "thumbnail_url": "data:image/svg+xml,<svg onload=alert(2)>",
        "author_url": " JavaScript:alert(3)",
        "provider_url": "https://provider.example/",
    },
    "data-url": {"type": "rich", "html": HOSTILE_HTML, "url": "data:text/html,<script>x</script>"},
}
CARD_HEAD = (
    "<title>Card title</title><meta property='og:description' content='A page with a card.'>"
)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.oembed.provider_timeout = 2.0
    for plan in settings.plans.values():
        plan.requests_per_second, plan.burst = 1000.0, 1000
    return settings


@pytest.fixture
def origin(io_loop: Any) -> Iterator[Origin]:
    """/card/<name>: a page with card metadata advertising the endpoint /answer/<name>.json;
    /bare/<name>: the same without any metadata; /xml/<name>: the XML form."""

    class Page(tornado.web.RequestHandler):
        def get(self, kind: str, name: str) -> None:
            if kind == "xml":
                link = f'<link rel="alternate" type="text/xml+oembed" href="/answer/{name}.xml">'
            else:
                link = (
                    f'<link rel="alternate" type="application/json+oembed" '
                    f'href="/answer/{name}.json">'
                )
            head = CARD_HEAD if kind in ("card", "xml") else ""
            self.finish(f"<html><head>{link}{head}</head><body><div></div></body></html>")

    class Answer(tornado.web.RequestHandler):
        def get(self, name: str, fmt: str) -> None:
            answer = {"version": "1.0", **ANSWERS[name]}
            if fmt == "json":
                self.finish(answer)
                return
            root = lxml.html.Element("oembed")
            for field, value in answer.items():
                child = lxml.html.Element(field)
                child.text = str(value)
                root.append(child)
            self.set_header("Content-Type", "text/xml")
            self.finish(b"<?xml version='1.0'?>" + lxml.html.tostring(root))

    site = serve(
        tornado.web.Application(
            [(r"/(card|bare|xml)/([a-z-]+)", Page), (r"/answer/([a-z-]+)\.(json|xml)", Answer)]
        )
    )
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def frame_host(io_loop: Any, services: Services) -> Iterator[Origin]:
    host = serve(make_frame_app(services))
    services.settings.server.frame_host = host.base_url
    yield host
    io_loop.run_sync(host.close)


@pytest.fixture
def app(services: Services, frame_host: Origin) -> tornado.web.Application:
    return make_api_app(services)


async def oembed(http_client: Any, base_url: str, target: str, key: str) -> dict[str, Any]:
    response = await http_client.fetch(
        f"{base_url}/api/3.0/oembed/{quote(target, safe='')}?app_id={key}", raise_error=False
    )
    assert response.code == 200, response.body
    body: dict[str, Any] = json.loads(response.body)
    return body


def assert_inert(snippet: str) -> None:
    """No script element, no event-handler attribute, no javascript: or data: URL, no srcdoc."""
    lowered = snippet.lower()
    assert "<script" not in lowered and "javascript:" not in lowered and "srcdoc" not in lowered
    for part in lxml.html.fragments_fromstring(snippet):
        if isinstance(part, str):
            continue
        for element in part.iter():
            assert element.tag != "script"
            for name, value in element.attrib.items():
                assert not name.lower().startswith("on"), (name, snippet)
                assert not value.strip().lower().startswith(("javascript:", "data:")), snippet


@pytest.mark.parametrize(
    "name", ["hostile", "js-iframe", "data-iframe", "two-iframes", "handler-only", "js-photo"]
)
@pytest.mark.gen_test(timeout=30)
async def test_hostile_discovered_html_falls_back_to_the_card(
    http_client, base_url, origin, key, name
) -> None:
    body = await oembed(http_client, base_url, origin.url(f"/card/{name}"), key)
    assert body["source"] == "og_frame", body
    assert_inert(body["html"])
    assert body["html"].startswith('<div style="position:relative;width:100%;aspect-ratio:4/3">')
    assert '<iframe src="' + body["frame_url"] + '"' in body["html"]
    card = await http_client.fetch(body["frame_url"])
    assert "Card title" in card.body.decode()
    assert_inert(card.body.decode())


@pytest.mark.gen_test(timeout=30)
async def test_hostile_xml_discovery_falls_back_too(http_client, base_url, origin, key) -> None:
    body = await oembed(http_client, base_url, origin.url("/xml/hostile"), key)
    assert body["source"] == "og_frame"
    assert_inert(body["html"])


@pytest.mark.gen_test(timeout=30)
async def test_without_a_card_the_answer_is_a_plain_link(
    http_client, base_url, origin, key
) -> None:
    target = origin.url("/bare/hostile")
    body = await oembed(http_client, base_url, target, key)
    assert body["source"] == "discovery" and body["type"] == "link"
    assert_inert(body["html"])
    assert body["html"].startswith(f'<a href="{target}"')


@pytest.mark.gen_test(timeout=30)
async def test_a_discovered_plain_iframe_is_kept_sandboxed(
    http_client, base_url, origin, key
) -> None:
    body = await oembed(http_client, base_url, origin.url("/card/iframe"), key)
    assert body["source"] == "discovery" and body["type"] == "video"
    assert_inert(body["html"])
    (iframe,) = lxml.html.fragments_fromstring(body["html"])
    assert iframe.tag == "iframe"
    assert iframe.get("src") == "https://player.example/e/1?a=1&b=2"
    assert iframe.get("sandbox") == SANDBOX and "allow-same-origin" not in SANDBOX
    assert (iframe.get("width"), iframe.get("height")) == ("480", "270")
    assert iframe.get("title") == 'A "video"'
    assert "camera" not in (iframe.get("allow") or "")


@pytest.mark.gen_test(timeout=30)
async def test_discovered_photo_and_link_are_rewritten(http_client, base_url, origin, key) -> None:
    photo = await oembed(http_client, base_url, origin.url("/card/photo"), key)
    assert photo["source"] == "discovery" and photo["type"] == "photo"
    assert photo["html"].startswith('<img src="https://img.example/p.jpg"')
    assert_inert(photo["html"])
    target = origin.url("/card/link")
    link = await oembed(http_client, base_url, target, key)
    assert link["source"] == "discovery" and link["type"] == "link"
    assert link["html"] == (
        f'<a href="{target}" target="_blank" rel="noopener noreferrer">&lt;b&gt;Bold&lt;/b&gt;</a>'
    )


@pytest.mark.parametrize(
    "snippet",
    [
        "",
        "<div>found</div>",
        "text <iframe src='https://a.example/'></iframe>",
        "<iframe src='https://a.example/'>fallback <b>x</b></iframe>",
        "<iframe src='//a.example/'></iframe>",
        "<iframe src='http://'></iframe>",
        "<iframe src='https://a.example/\"onload=\"x'></iframe>",
        "<iframe src='https://a.example/'></iframe>" + " " * 5000,
    ],
)
def test_only_a_plain_http_iframe_passes(snippet: str) -> None:
    assert plain_iframe(snippet) is None
    fields = {"type": "rich", "html": snippet, "width": 1, "height": 1, "title": ""}
    assert discovered_snippet(fields, "https://page.example/") is None


def test_a_plain_iframe_is_rebuilt_from_its_url_and_sizes() -> None:
    found = plain_iframe(
        ' <iframe src=" https://a.example/v?x=1 " width="640" height=360 ></iframe>\n'
    )
    assert found == ("https://a.example/v?x=1", 640, 360)
    fields = {"type": "rich", "html": IFRAME_HTML, "width": 0, "height": 0, "title": "<t>"}
    snippet = discovered_snippet(fields, "https://page.example/")
    assert snippet is not None
    assert_inert(snippet)
    assert 'width="480" height="270"' in snippet and 'title="&lt;t&gt;"' in snippet


def assert_http_urls_only(fields: dict[str, Any]) -> None:
    for name, value in fields.items():
        if name == "url" or name.endswith("_url"):
            assert value.startswith(("http://", "https://")), (name, value)


@pytest.mark.gen_test(timeout=30)
async def test_discovered_url_fields_are_kept_only_when_http(
    http_client, base_url, origin, key, services
) -> None:
    """What the resolver hands on, for a kept iframe, a refused answer turned into a link, and a
    photo whose http(s) URL stays; and the answer clients get."""

    async def resolve(path: str) -> dict[str, Any]:
        target = origin.url(path)
        resolved = await services.embeds.resolve(EmbedRequest(target, PageRequest(target)))
        assert resolved.source == "discovery" and resolved.fields is not None
        assert_http_urls_only(resolved.fields)
        return resolved.fields

    kept = await resolve("/card/js-urls")
    assert kept["type"] == "video" and "url" not in kept
    assert "data:" not in json.dumps(kept) and "javascript:" not in json.dumps(kept).lower()
    link = await resolve("/bare/data-url")
    assert link["type"] == "link" and "url" not in link
    assert (await resolve("/card/photo"))["url"] == "https://img.example/p.jpg"

    for path in ("/card/js-urls", "/bare/data-url"):
        body = await oembed(http_client, base_url, origin.url(path), key)
        assert body["source"] == "discovery"
        assert_http_urls_only(body)
        assert "data:" not in json.dumps(body) and "javascript:" not in json.dumps(body).lower()


def test_discovered_fields_drop_every_url_field_that_is_not_http() -> None:
    fields = {
        "type": "video",
        "title": "javascript: the good parts",
        "url": "javascript:alert(1)",
        "thumbnail_url": "data:image/png;base64,AAAA",
        "author_url": " JavaScript:alert(2)",
        "provider_url": "//provider.example/",
        "cover_url": "vbscript:msgbox(1)",
        "image_url": ["https://a.example/"],
        "html": "<iframe></iframe>",
    }
    assert discovered_fields(fields) == {
        "type": "video",
        "title": "javascript: the good parts",
        "html": "<iframe></iframe>",
    }
    good = {"url": " https://a.example/p.jpg", "author_url": "http://b.example/me"}
    assert discovered_fields(good) == {
        "url": "https://a.example/p.jpg",
        "author_url": "http://b.example/me",
    }
