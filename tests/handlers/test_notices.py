"""Consent notices no list knows, over HTTP: hidden in screenshots when fixed or sticky near an
edge, left out of Markdown, while pages that only speak of cookies keep what they show."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
import tornado.web

from app.services import Services
from tests.handlers.test_screenshot import (  # noqa: F401 (the screenshot tests' fixtures)
    app,
    farm,
    has_red,
    image_of,
    settings,
    shot,
)
from tests.origin import Origin, serve

WHITE = "<html><body style='margin:0;background:#fff'>"
TEXT = "<p>Cream the butter, fold in the flour and bake for twelve minutes.</p>" * 3
NOTICE = (
    "We use cookies to improve your experience on our site. "
    "<button>Accept all</button> <button>Reject</button>"
)

PAGES = {
    # A site's own banner, fixed at the bottom, its class names saying nothing.
    "bottom": WHITE + TEXT + "<div class='k3x' style='position:fixed;left:0;right:0;bottom:0;"
    f"height:220px;background:#f00'>{NOTICE}</div></body></html>",
    # A sticky bar at the top that locks the page's scrolling.
    "top": "<html><body style='margin:0;background:#fff;overflow:hidden'>"
    "<div style='position:sticky;top:0;height:200px;background:#f00'>"
    "<span>Diese Website verwendet Cookies für Statistiken.</span>"
    "<a href='#' role='button'>Alle akzeptieren</a></div>" + TEXT + "</body></html>",
    # A page about cookies: a sticky header naming them, a tip box with a button, both red.
    "recipe": WHITE + "<header style='position:sticky;top:0;height:150px;background:#f00'>"
    "<h1>Cookie Corner: the best cookies of the year</h1><button>Menu</button></header>"
    "<div style='height:200px;background:#f00'>Tip: chill the cookie dough to keep your "
    "cookies thick. <button>Got it</button></div>" + TEXT + "</body></html>",
    # A notice that is part of the page's flow, not laid over it.
    "inline": WHITE + f"<div style='height:200px;background:#f00'>{NOTICE}</div>" + TEXT,
    # A fixed panel in the middle of the screen is not a banner at an edge.
    "middle": WHITE + TEXT + "<div style='position:fixed;left:20%;top:40%;width:60%;"
    f"height:15%;background:#f00'>{NOTICE}</div></body></html>",
    # A page whose scripts broke what the look calls: pictured as it is, banner and all.
    "broken": WHITE
    + "<script>window.RegExp = undefined;</script>"
    + TEXT
    + "<div style='position:fixed;left:0;right:0;bottom:0;height:220px;background:#f00'>"
    + NOTICE
    + "</div></body></html>",
    # A whole app in a fixed shell: far more text than a notice.
    "shell": "<html><body style='margin:0'><div style='position:fixed;inset:0;background:#f00;"
    "overflow:auto'>"
    + "<p>Our app keeps your cookies and site settings in sync across every device.</p>" * 30
    + "<button>OK</button></div></body></html>",
}


class Page(tornado.web.RequestHandler):
    def get(self, name: str) -> None:
        self.finish(PAGES[name])


@pytest.fixture
def api_key(services: Services) -> str:
    return services.store.create_key("notices", "pro").key


@pytest.fixture
def origin(io_loop: Any) -> Iterator[Origin]:
    site = serve(tornado.web.Application([(r"/(\w+)", Page)]))
    yield site
    io_loop.run_sync(site.close)


async def red_in(http_client: Any, base_url: str, target: str, api_key: str, **params: str) -> bool:
    response, body = await shot(http_client, base_url, target, api_key, format="png", **params)
    assert response.code == 200, body
    return has_red(await image_of(http_client, body))


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_an_unlisted_banner_is_hidden_at_either_edge(
    http_client, base_url, origin, api_key
) -> None:
    for page in ("/bottom", "/top"):
        target = origin.url(page)
        assert await red_in(http_client, base_url, target, api_key, block_cookie_banner="false")
        assert not await red_in(http_client, base_url, target, api_key), page


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_what_is_not_a_banner_stays_in_the_picture(
    http_client, base_url, origin, api_key
) -> None:
    for page in ("/recipe", "/inline", "/middle", "/shell", "/broken"):
        assert await red_in(http_client, base_url, origin.url(page), api_key), page


@pytest.mark.gen_test(timeout=60)
async def test_markdown_leaves_the_notice_out_and_keeps_the_recipe(
    http_client, base_url, origin, api_key
) -> None:
    async def markdown(page: str) -> str:
        target = quote(origin.url(page), safe="")
        response = await http_client.fetch(
            f"{base_url}/api/3.0/markdown/{target}?app_id={api_key}", request_timeout=60
        )
        return response.body.decode()

    bottom = await markdown("/bottom")
    assert "bake for twelve minutes" in bottom and "We use cookies" not in bottom
    recipe = await markdown("/recipe")
    assert "chill the cookie dough" in recipe and "bake for twelve minutes" in recipe
