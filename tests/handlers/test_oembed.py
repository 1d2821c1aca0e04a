"""The oEmbed endpoint end to end on loopback: a fake native provider (good, slow, failing,
invalid), discovery links, hosted frames from page metadata, sizes and aliases, credits, and the
frame host (frame pages and the frame management API) with two organizations."""

from __future__ import annotations

import asyncio
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import lxml.html
import pytest
import tornado.web
from playwright.async_api import async_playwright
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from app.config import Settings
from app.services import Services
from app.web import make_api_app, make_frame_app
from browser.farm.flags import LAUNCH_ARGS
from convert.embed.providers import Endpoint, Provider, ProviderRegistry
from tests.conftest import make_settings
from tests.origin import Origin, serve

CHROMIUM = os.environ.get("PAGECAST_TEST_CHROMIUM", "/usr/bin/chromium")
PROVIDER_HTML = '<iframe src="https://player.example/v/1" width="640" height="360"></iframe>'
DISCOVERED_HTML = '<iframe src="https://player.example/d/1" height="80"></iframe>'


class ProviderEndpoint(tornado.web.RequestHandler):
    """A native oEmbed provider whose behaviour the page path chooses."""

    async def get(self) -> None:
        target = self.get_query_argument("url")
        mode = target.rsplit("/", 1)[-1]
        seen = {name: self.get_query_argument(name, "") for name in ("maxwidth", "maxheight")}
        if mode == "slow":
            await asyncio.sleep(3)
        if mode == "error":
            self.set_status(500)
            self.finish("oops")
            return
        if mode == "invalid":
            self.finish("{not json")
            return
        if mode == "nohtml":
            self.finish({"type": "video", "version": "1.0"})
            return
        if mode == "photo":
            self.finish(
                {
                    "type": "photo",
                    "version": "1.0",
                    "url": "https://img.example/p.jpg",
                    "width": 300,
                    "height": 200,
                    "title": "A photo",
                }
            )
            return
        self.finish(
            {
                "type": "video",
                "version": "1.0",
                "provider_name": "FakeTube",
                "html": PROVIDER_HTML,
                "width": int(seen["maxwidth"] or 640),
                "height": int(seen["maxheight"] or 360),
            }
        )


OG_PAGE = """<html><head><title>Plain title</title>
<meta property="og:title" content="Harbour lights">
<meta property="og:description" content="Evening on the quay.">
<meta property="og:image" content="/img/quay.jpg">
<meta property="og:image:width" content="1200"><meta property="og:image:height" content="630">
<meta property="og:site_name" content="Quay News">
<meta name="author" content="Ines Moreau">
<meta property="article:published_time" content="2024-05-01T19:30:00+02:00">
<link rel="icon" href="/favicon.png"></head><body><p>Text</p></body></html>"""
TWITTER_PAGE = """<html><head><meta name="twitter:title" content="Bird words">
<meta name="twitter:description" content="Said briefly."></head><body></body></html>"""
LD_PAGE = """<html><head><script type="application/ld+json">
{"@type": "Article", "headline": "Linked data headline", "description": "From JSON-LD",
 "image": "https://cdn.example/ld.png", "publisher": {"name": "LD Press"}}</script></head>
<body></body></html>"""
TITLE_PAGE = "<html><head><title>Only a title</title></head><body></body></html>"
BARE_PAGE = "<html><head></head><body><div></div></body></html>"
SCRIPTED_PAGE = """<html><head><script>
const meta = document.createElement('meta');
meta.setAttribute('property', 'og:title'); meta.setAttribute('content', 'Written by script');
document.head.appendChild(meta);
</script></head><body><div id="root"></div></body></html>"""
EVIL_PAGE = """<html><head>
<meta property="og:title" content="&lt;script&gt;alert(1)&lt;/script&gt;Evil">
<meta property="og:description" content="&quot;&gt;&lt;img src=x onerror=alert(2)&gt;">
<meta property="og:image" content="javascript:alert(3)"></head><body></body></html>"""


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.oembed.provider_timeout = 1.0
    for plan in settings.plans.values():  # these tests send bursts; rate limits are tested apart
        plan.requests_per_second, plan.burst = 1000.0, 1000
    return settings


@pytest.fixture
def sites(io_loop: Any) -> Iterator[dict[str, Origin]]:
    """The fake provider and an origin with pages of every kind."""
    provider = serve(tornado.web.Application([(r"/oembed", ProviderEndpoint)]))

    def discovery_page(fmt: str) -> str:
        kind = "application/json+oembed" if fmt == "json" else "text/xml+oembed"
        return (
            f'<html><head><link rel="alternate" type="{kind}" href="/discovered.{fmt}?x=1">'
            "<title>Discovery page</title></head><body></body></html>"
        )

    class Page(tornado.web.RequestHandler):
        def get(self, name: str) -> None:
            pages = {
                "og": OG_PAGE,
                "twitter": TWITTER_PAGE,
                "ld": LD_PAGE,
                "title": TITLE_PAGE,
                "bare": BARE_PAGE,
                "evil": EVIL_PAGE,
                "scripted": SCRIPTED_PAGE,
                "discover-json": discovery_page("json"),
                "discover-xml": discovery_page("xml"),
                "video/good": OG_PAGE,
                "video/slow": OG_PAGE,
                "video/error": OG_PAGE,
                "video/invalid": OG_PAGE,
                "video/nohtml": OG_PAGE,
            }
            if name == "discover-header":
                self.set_header(
                    "Link", '</discovered.json>; rel="alternate"; type="application/json+oembed"'
                )
                self.finish("<html><head><title>Header discovery</title></head></html>")
            elif name == "discovered.json":
                self.finish(
                    {
                        "type": "rich",
                        "version": "1.0",
                        "html": DISCOVERED_HTML,
                        "width": int(self.get_query_argument("maxwidth", "500")),
                        "height": 80,
                    }
                )
            elif name == "discovered.xml":
                self.set_header("Content-Type", "text/xml")
                self.finish(
                    "<?xml version='1.0'?><oembed><type>link</type><version>1.0</version>"
                    "<title>XML found</title><provider_name>XML Co</provider_name></oembed>"
                )
            elif name == "busy":
                self.set_status(503)
                self.finish("<html><body>busy</body></html>")
            elif name in pages:
                self.finish(pages[name])
            else:
                self.set_status(404)
                self.finish("<html><body>missing</body></html>")

    origin = serve(tornado.web.Application([(r"/(.+)", Page)]))
    yield {"provider": provider, "origin": origin}
    io_loop.run_sync(provider.close)
    io_loop.run_sync(origin.close)


@pytest.fixture
def frame_host(io_loop: Any, services: Services) -> Iterator[Origin]:
    host = serve(make_frame_app(services))
    services.settings.server.frame_host = host.base_url
    yield host
    io_loop.run_sync(host.close)


@pytest.fixture
def app(
    services: Services, sites: dict[str, Origin], frame_host: Origin
) -> tornado.web.Application:
    """The API, with the registry pointed at the fake provider for /video/* on the origin."""
    fake = Provider(
        name="FakeTube",
        url=sites["provider"].base_url,
        endpoints=(
            Endpoint(
                url=sites["provider"].url("/oembed"),
                schemes=(sites["origin"].url("/video/*"),),
                discovery=False,
                formats=("json",),
            ),
        ),
    )
    services.embeds.registry = ProviderRegistry([fake])
    return make_api_app(services)


@pytest.fixture
def other_key(services: Services) -> str:
    return services.store.create_key("globex", "pro").key


async def oembed(
    http_client: AsyncHTTPClient,
    base_url: str,
    target: str,
    version: str = "3.0",
    form: str = "path",
    **params: str,
) -> tuple[HTTPResponse, dict[str, Any]]:
    query = "&".join(f"{name}={quote(value, safe='')}" for name, value in params.items())
    if form == "path":
        url = f"{base_url}/api/{version}/oembed/{quote(target, safe='')}?{query}"
    else:
        url = f"{base_url}/api/{version}/oembed?url={quote(target, safe='')}&{query}"
    response = await http_client.fetch(url, raise_error=False)
    return response, json.loads(response.body)


@pytest.mark.gen_test(timeout=30)
async def test_native_provider_both_forms_and_versions(http_client, base_url, sites, key) -> None:
    target = sites["origin"].url("/video/good")
    response, body = await oembed(http_client, base_url, target, app_id=key, maxwidth="320")
    assert response.code == 200, body
    assert body == {
        "type": "video",
        "version": "1.0",
        "provider_name": "FakeTube",
        "width": 320,
        "height": 360,
        "source": "native",
        "html": PROVIDER_HTML,
    }
    assert response.headers["X-BILLING-REQUESTS"] == "1"
    for version, form in (("3.0", "query"), ("1.1", "path"), ("1.1", "query")):
        again, same = await oembed(
            http_client, base_url, target, version, form, app_id=key, maxwidth="320"
        )
        assert same == body
        assert again.headers["X-BILLING-REQUESTS"] == ("10" if version == "1.1" else "1")


@pytest.mark.gen_test(timeout=30)
async def test_photo_without_html_gets_an_img_snippet(http_client, base_url, sites, key) -> None:
    _, body = await oembed(http_client, base_url, sites["origin"].url("/video/photo"), app_id=key)
    assert body["type"] == "photo" and body["source"] == "native"
    assert body["html"].startswith('<img src="https://img.example/p.jpg"')


@pytest.mark.parametrize("mode", ["slow", "error", "invalid", "nohtml"])
@pytest.mark.gen_test(timeout=30)
async def test_a_failing_provider_degrades_to_the_frame(
    http_client, base_url, sites, key, mode
) -> None:
    response, body = await oembed(
        http_client, base_url, sites["origin"].url(f"/video/{mode}"), app_id=key
    )
    assert response.code == 200, body
    assert body["source"] == "og_frame" and body["type"] == "hybridEmbed"
    assert body["provider_name"] == "Quay News"


@pytest.mark.parametrize(
    ("page", "kind", "html", "provider"),
    [
        ("discover-json", "rich", "https://player.example/d/1", ""),
        ("discover-header", "rich", "https://player.example/d/1", ""),
        ("discover-xml", "link", None, "XML Co"),
    ],
)
@pytest.mark.gen_test(timeout=30)
async def test_discovery(http_client, base_url, sites, key, page, kind, html, provider) -> None:
    response, body = await oembed(
        http_client, base_url, sites["origin"].url(f"/{page}"), app_id=key, maxwidth="222"
    )
    assert response.code == 200, body
    assert body["source"] == "discovery" and body["type"] == kind
    if html:  # a discovered plain iframe, rebuilt sandboxed (tests/handlers/test_discovery_html.py)
        assert body["html"].startswith(f'<iframe src="{html}" width="222" height="80"')
        assert "sandbox=" in body["html"] and body["width"] == 222
    else:
        assert body["html"].startswith("<a href=") and "XML found" in body["html"]
    if provider:
        assert body["provider_name"] == provider


@pytest.mark.parametrize(
    ("page", "title", "site"),
    [
        ("og", "Harbour lights", "Quay News"),
        ("twitter", "Bird words", "127.0.0.1"),
        ("ld", "Linked data headline", "LD Press"),
        ("title", "Only a title", "127.0.0.1"),
    ],
)
@pytest.mark.gen_test(timeout=30)
async def test_frames_from_page_metadata(
    http_client, base_url, sites, key, services, page, title, site
) -> None:
    response, body = await oembed(
        http_client, base_url, sites["origin"].url(f"/{page}"), app_id=key
    )
    assert response.code == 200, body
    assert body["source"] == "og_frame" and body["type"] == "hybridEmbed"
    assert (body["width"], body["height"]) == (800, 600)
    assert body["provider_name"] == site
    frame_host = services.settings.server.frame_host
    assert body["frame_url"].startswith(f"{frame_host}/oembed/")
    assert f'src="{body["frame_url"]}"' in body["html"] and 'loading="lazy"' in body["html"]
    assert 'width="800" height="600"' in body["html"] and f'title="{title}"' in body["html"]
    card = await http_client.fetch(body["frame_url"])
    assert title in card.body.decode()
    assert card.headers["Content-Security-Policy"].startswith("default-src 'none'")
    again = await http_client.fetch(
        body["frame_url"], headers={"If-None-Match": card.headers["ETag"]}, raise_error=False
    )
    assert again.code == 304
    head = await http_client.fetch(body["frame_url"], method="HEAD", raise_error=False)
    assert head.code == 200 and head.body == b"" and head.headers["ETag"] == card.headers["ETag"]
    assert head.headers["Content-Length"] == str(len(card.body))
    assert head.headers["Content-Type"] == card.headers["Content-Type"]
    _, repeat = await oembed(http_client, base_url, sites["origin"].url(f"/{page}"), app_id=key)
    assert repeat["embed_id"] == body["embed_id"] and repeat["frame_url"] == body["frame_url"]


@pytest.mark.gen_test(timeout=30)
async def test_frames_carry_the_optional_fields_the_page_supports(
    http_client, base_url, sites, key
) -> None:
    """og_frame answers add the oEmbed spec's optional fields the page gives: the thumbnail
    only with its size (the spec wants all three), the author only when the page names one."""
    origin = sites["origin"]
    _, body = await oembed(http_client, base_url, origin.url("/og"), app_id=key)
    assert body["title"] == "Harbour lights" and body["author_name"] == "Ines Moreau"
    assert body["provider_url"] == origin.url("/")
    assert body["thumbnail_url"] == origin.url("/img/quay.jpg")
    assert (body["thumbnail_width"], body["thumbnail_height"]) == (1200, 630)
    _, body = await oembed(http_client, base_url, origin.url("/ld"), app_id=key)
    assert body["title"] == "Linked data headline" and body["provider_url"] == origin.url("/")
    assert not {"author_name", "thumbnail_url", "thumbnail_width"} & set(body)


@pytest.mark.gen_test(timeout=30)
async def test_no_metadata_is_422_and_a_dead_page_too(http_client, base_url, sites, key) -> None:
    # A page with nothing for a card may get one later (fallback); a page that does not exist
    # (404) will not, and neither will a target the address policy refuses (validation).
    for path, stage in (("/bare", "fallback"), ("/missing", "validation")):
        target = sites["origin"].url(path)
        response, body = await oembed(http_client, base_url, target, app_id=key)
        assert response.code == 422, body
        assert body["success"] is False
        assert body["error"]["code"] == "oembed_resolution_failed"
        assert body["error"]["stage"] == stage, path
        assert response.headers["X-BILLING-REQUESTS"] == "0"
    response, body = await oembed(http_client, base_url, "http://10.0.0.1/page", app_id=key)
    assert response.code == 400, body
    assert body["error"]["code"] == "invalid_request"
    assert body["error"]["stage"] == "validation"
    assert response.headers["X-BILLING-REQUESTS"] == "0"


@pytest.mark.gen_test(timeout=30)
async def test_a_failed_page_fetch_says_how_many_attempts_were_made(
    http_client, base_url, sites, key
) -> None:
    """Worded as the Markdown endpoint words it: a 503 is retried, a 404 is not."""
    response, body = await oembed(http_client, base_url, sites["origin"].url("/busy"), app_id=key)
    assert response.code == 422, body
    assert body["error"]["message"] == (
        "the page could not be fetched: the target answered 503 (after 4 attempts)"
    )
    target = sites["origin"].url("/missing")
    _, body = await oembed(http_client, base_url, target, app_id=key, retry="false")
    assert body["error"]["message"] == (
        "the page could not be fetched: the target answered 404 (after 1 attempt)"
    )


@pytest.mark.gen_test(timeout=30)
async def test_markup_in_metadata_is_inert(http_client, base_url, sites, key) -> None:
    _, body = await oembed(http_client, base_url, sites["origin"].url("/evil"), app_id=key)
    card = (await http_client.fetch(body["frame_url"])).body.decode()
    assert "<script" not in card and "onerror=" not in card.replace("onerror=alert", "")
    assert "javascript:" not in card
    assert "&lt;script&gt;alert(1)&lt;/script&gt;Evil" in card


@pytest.mark.parametrize(
    ("params", "size"),
    [
        ({}, (800, 600)),
        ({"orientation": "horizontal"}, (400, 150)),
        ({"template": "compact"}, (400, 300)),
        ({"template": "default", "orientation": "horizontal"}, (800, 600)),
        ({"maxwidth": "400"}, (400, 300)),
        ({"maxHeight": "300"}, (400, 300)),
        ({"maxwidth": "500", "maxWidth": "100"}, (500, 375)),
        ({"maxwidth": "640", "maxheight": "200"}, (640, 200)),
        ({"template": "horizontal", "maxwidth": "800"}, (800, 300)),
    ],
)
@pytest.mark.gen_test(timeout=30)
async def test_frame_sizes(http_client, base_url, sites, key, params, size) -> None:
    _, body = await oembed(http_client, base_url, sites["origin"].url("/og"), app_id=key, **params)
    assert (body["width"], body["height"]) == size
    # The html: responsive unless a size was asked for, then fixed at that size.
    parts = lxml.html.fragments_fromstring(body["html"])
    assert len(parts) == 1
    iframe = parts[0] if parts[0].tag == "iframe" else parts[0].find("iframe")
    assert iframe is not None and iframe.get("src") == body["frame_url"]
    assert iframe.get("loading") == "lazy"
    assert (iframe.get("width"), iframe.get("height")) == (str(size[0]), str(size[1]))
    sized = any(name.lower() in ("maxwidth", "maxheight") for name in params)
    if sized:
        assert parts[0].tag == "iframe" and iframe.get("style") == "border:0;max-width:100%"
    else:
        wrapper = parts[0]
        assert wrapper.tag == "div" and list(wrapper) == [iframe]
        ratio = size[0] // math.gcd(*size), size[1] // math.gcd(*size)
        assert wrapper.get("style") == (
            f"position:relative;width:100%;aspect-ratio:{ratio[0]}/{ratio[1]}"
        )
        assert "width:100%;height:100%" in iframe.get("style")


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=60)
async def test_a_responsive_frame_fills_its_column(http_client, base_url, sites, key) -> None:
    """In real Chromium: the html of a frame without asked sizes takes the width of where it is
    put, in the frame's proportions; with maxwidth it keeps its size (shrunk only to fit)."""
    _, free = await oembed(http_client, base_url, sites["origin"].url("/og"), app_id=key)
    _, fixed = await oembed(
        http_client, base_url, sites["origin"].url("/og"), app_id=key, maxwidth="400"
    )
    page_html = (
        "<!doctype html><body style='margin:0'>"
        + "".join(
            f"<div id='c{width}{name}' style='width:{width}px'>{body['html']}</div>"
            for width in (320, 1000)
            for name, body in (("free", free), ("fixed", fixed))
        )
        + "</body>"
    )
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=list(LAUNCH_ARGS), timeout=30_000
        )
        try:
            page = await browser.new_page(viewport={"width": 1200, "height": 800})
            await page.route("**/*", lambda route: route.abort())  # the frames need not load
            await page.set_content(page_html)
            sizes = {
                f"{width}{name}": await page.evaluate(
                    "id => { const r = document.querySelector('#' + id + ' iframe')"
                    ".getBoundingClientRect();"
                    " return [Math.round(r.width), Math.round(r.height)]; }",
                    f"c{width}{name}",
                )
                for width in (320, 1000)
                for name in ("free", "fixed")
            }
        finally:
            await browser.close()
    assert sizes["320free"] == [320, 240] and sizes["1000free"] == [1000, 750]
    assert sizes["1000fixed"] == [400, 300]
    assert sizes["320fixed"][0] == 320  # max-width:100%


@pytest.mark.gen_test(timeout=30)
async def test_a_size_above_the_cap_is_lowered_with_a_warning(
    http_client, base_url, sites, key
) -> None:
    page = sites["origin"].url("/og")
    _, capped = await oembed(http_client, base_url, page, app_id=key, maxwidth="4000")
    for params in ({"maxwidth": "5000"}, {"maxWidth": "99999"}):
        response, body = await oembed(http_client, base_url, page, app_id=key, **params)
        assert response.code == 200, body
        sent = next(iter(params.values()))
        warning = f"maxwidth: {sent} is above the largest allowed, 4000; 4000 is used"
        assert response.headers["X-Pagecast-Warnings"] == warning
        assert body["warnings"] == [warning]
        # The frame made is the one maxwidth=4000 makes: the same size, the same record.
        assert (body["width"], body["height"]) == (4000, 3000)
        assert body["embed_id"] == capped["embed_id"]
    response, body = await oembed(
        http_client, base_url, page, app_id=key, maxwidth="640", maxheight="4001"
    )
    assert response.code == 200 and (body["width"], body["height"]) == (640, 4000)
    assert "maxheight: 4001 is above" in response.headers["X-Pagecast-Warnings"]
    # A native provider is asked for the lowered width.
    response, body = await oembed(
        http_client, base_url, sites["origin"].url("/video/good"), app_id=key, maxwidth="8000"
    )
    assert response.code == 200 and body["source"] == "native" and body["width"] == 4000
    assert "maxwidth: 8000 is above" in response.headers["X-Pagecast-Warnings"]
    # Below the least, or not a number, is still refused.
    for wrong in ("0", "-5", "wide", "4000.5"):
        response, body = await oembed(http_client, base_url, page, app_id=key, maxwidth=wrong)
        assert response.code == 400, wrong
        assert body["error"]["code"] == "invalid_request"
        assert body["error"]["details"][0]["parameter"] == "maxwidth"


@pytest.mark.gen_test(timeout=30)
async def test_always_og_frame_skips_the_provider(http_client, base_url, sites, key) -> None:
    _, body = await oembed(
        http_client,
        base_url,
        sites["origin"].url("/video/good"),
        app_id=key,
        always_og_frame="true",
    )
    assert body["source"] == "og_frame"


@pytest.mark.gen_test(timeout=30)
async def test_exactly_one_target(http_client, base_url, sites, key) -> None:
    target = quote(sites["origin"].url("/og"), safe="")
    both = await http_client.fetch(
        f"{base_url}/api/3.0/oembed/{target}?url={target}&app_id={key}", raise_error=False
    )
    neither = await http_client.fetch(f"{base_url}/api/3.0/oembed?app_id={key}", raise_error=False)
    for response in (both, neither):
        body = json.loads(response.body)
        assert response.code == 400
        assert body["error"]["code"] == "invalid_request"
        assert body["error"]["stage"] == "validation"


async def frames_api(
    http_client: AsyncHTTPClient, frame_host: Origin, path: str, key: str, method: str = "GET"
) -> HTTPResponse:
    return await http_client.fetch(
        frame_host.url(path),
        method=method,
        headers={"api-key": key},
        body=b"" if method == "POST" else None,
        raise_error=False,
    )


@pytest.mark.gen_test(timeout=60)
async def test_frame_management(http_client, base_url, sites, key, other_key, frame_host) -> None:
    made = []
    for page in ("og", "twitter", "ld"):
        _, body = await oembed(http_client, base_url, sites["origin"].url(f"/{page}"), app_id=key)
        made.append(body["embed_id"])
    await oembed(http_client, base_url, sites["origin"].url("/og"), app_id=other_key)

    listed = json.loads((await frames_api(http_client, frame_host, "/api/v1/frames", key)).body)
    assert listed["total"] == 3 and listed["next_cursor"] is None
    assert [frame["embed_id"] for frame in listed["frames"]] == made[::-1]
    first = await frames_api(http_client, frame_host, "/api/v1/frames?limit=2", key)
    assert first.headers["X-BILLING-REQUESTS"] == "0"
    page_one = json.loads(first.body)
    assert len(page_one["frames"]) == 2 and page_one["next_cursor"]
    page_two = json.loads(
        (
            await frames_api(
                http_client,
                frame_host,
                f"/api/v1/frames?limit=2&cursor={page_one['next_cursor']}",
                key,
            )
        ).body
    )
    assert [f["embed_id"] for f in page_two["frames"]] == [made[0]]
    bad = await frames_api(http_client, frame_host, "/api/v1/frames?cursor=nonsense", key)
    assert bad.code == 400

    one = json.loads(
        (await frames_api(http_client, frame_host, f"/api/v1/frames/{made[0]}", key)).body
    )
    assert one["metadata"]["title"] == "Harbour lights"
    assert one["metadata"]["author"] == "Ines Moreau"
    assert one["metadata"]["published_at"] == "2024-05-01T19:30:00+02:00"
    assert set(one) >= {
        "embed_id",
        "url",
        "frame_url",
        "template",
        "theme",
        "orientation",
        "width",
        "height",
        "maxwidth",
        "maxheight",
        "metadata",
        "html",
        "created_at",
        "updated_at",
        "refreshed_at",
    }
    foreign = await frames_api(http_client, frame_host, f"/api/v1/frames/{made[0]}", other_key)
    assert foreign.code == 404
    assert json.loads(foreign.body)["error"]["code"] == "frame_not_found"

    refreshed = await frames_api(
        http_client, frame_host, f"/api/v1/frames/{made[0]}/refresh", key, "POST"
    )
    assert refreshed.code == 200, refreshed.body
    assert json.loads(refreshed.body)["refreshed_at"] >= one["refreshed_at"]

    deleted = await frames_api(http_client, frame_host, f"/api/v1/frames/{made[0]}", key, "DELETE")
    assert deleted.code == 204
    gone = await http_client.fetch(one["frame_url"], raise_error=False)
    assert gone.code == 404 and "no longer available" in gone.body.decode()
    again = await frames_api(http_client, frame_host, f"/api/v1/frames/{made[0]}", key, "DELETE")
    assert again.code == 404
    _, recreated = await oembed(http_client, base_url, sites["origin"].url("/og"), app_id=key)
    assert recreated["embed_id"] == made[0]
    assert (await http_client.fetch(one["frame_url"])).code == 200

    unauthorized = await http_client.fetch(frame_host.url("/api/v1/frames"), raise_error=False)
    assert unauthorized.code == 401


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=60)
async def test_rendering_reads_metadata_written_by_script(
    http_client, base_url, sites, key, services
) -> None:
    target = sites["origin"].url("/scripted")
    response, body = await oembed(http_client, base_url, target, version="1.1", app_id=key)
    assert response.code == 422, "without rendering the page has no metadata"
    response, body = await oembed(http_client, base_url, target, app_id=key)
    assert response.code == 200, body  # 3.0: auto_render renders the app shell
    assert 'title="Written by script"' in body["html"]
    assert response.headers["X-BILLING-REQUESTS"] == "1"
    response, body = await oembed(
        http_client, base_url, target, app_id=key, full_render="true", template="compact"
    )
    assert response.code == 200, body
    credits = services.settings.credits
    assert response.headers["X-BILLING-REQUESTS"] == str(credits.oembed_v3 + credits.full_render)


@pytest.mark.gen_test(timeout=30)
async def test_a_repeated_request_is_answered_from_memory(http_client, base_url, sites, key):
    target = sites["origin"].url("/og")
    _, first = await oembed(http_client, base_url, target, app_id=key, theme="dark")
    await sites["origin"].close()  # the page is gone; the answer is remembered
    response, again = await oembed(http_client, base_url, target, "1.1", app_id=key, theme="dark")
    assert response.code == 200 and again == first
    assert response.headers["X-BILLING-REQUESTS"] == "10"
    response, _ = await oembed(
        http_client, base_url, target, app_id=key, theme="dark", cache_ok="false"
    )
    assert response.code == 422
    response, _ = await oembed(http_client, base_url, target, app_id=key, theme="light")
    assert response.code == 200, "a different theme reuses the cached page, not the answer"
