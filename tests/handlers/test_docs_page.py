"""``/docs``: the API reference page and its assets over plain HTTP, then rendered by a real
Chromium under the page's Content-Security-Policy."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lxml.html
import pytest
import tornado.web
from playwright.async_api import async_playwright

from app.services import Services
from app.web import make_api_app
from browser.farm.flags import LAUNCH_ARGS
from handlers.docs import CONTENT_SECURITY_POLICY, STATIC, DocsHandler
from handlers.errors import KINDS, ApiError, render
from handlers.openapi.errors import EXAMPLE_REQUEST_ID
from handlers.static import page
from tests.origin import Origin, serve
from tests.static_pages import assert_no_inline_code, assert_safe_script, collect_problems

CHROMIUM = os.environ.get("PAGECAST_TEST_CHROMIUM", "/usr/bin/chromium")
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'"
)


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


async def fetch(http_client: Any, url: str) -> Any:
    return await http_client.fetch(url, raise_error=False)


def test_policy_is_the_strict_one() -> None:
    assert CONTENT_SECURITY_POLICY == CSP


def test_page_has_no_inline_code_or_styles(tmp_path: Path) -> None:
    served = tmp_path / "docs.html"
    served.write_bytes(DocsHandler.files["/docs"].body)
    # The page as sent is the skeleton filled in, not a file of static/: given an absolute path,
    # the check reads that instead.
    assert_no_inline_code(str(served), ["docs/pagecast.js", "docs/docs.js"])
    html = served.read_text()
    assert "http://" not in html and "https://" not in html, "nothing from another origin"
    for script in ("pagecast.js", "docs.js"):
        assert_safe_script(script)


def test_page_is_the_shared_skeleton_with_its_own_parts() -> None:
    root = lxml.html.fromstring(DocsHandler.files["/docs"].body)
    stylesheets = [link.get("href") for link in root.iterfind("head/link[@rel='stylesheet']")]
    assert stylesheets == ["docs/pagecast.css", "docs/docs.css"], "the shared one first"
    assert root.findtext("head/title") == "Pagecast API reference"
    metas = [meta.get("name") for meta in root.iterfind("head/meta[@name]")]
    assert metas == ["viewport", "robots"]
    (header,) = root.iterfind("body/header[@class='top']")
    assert [child.get("id") for child in header] == ["title", "intro", "playground-link"]
    (layout,) = root.iterfind("body/div[@class='layout']")
    assert [child.get("id") for child in layout] == ["toc", "content"]
    assert "<!--" not in DocsHandler.files["/docs"].body.decode(), "the parts' notes stay behind"


MEDIA = re.compile(r"@media\s*([^{]+?)\s*\{((?:[^{}]*\{[^{}]*\})*\s*)\}")
RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")


def declarations(name: str) -> set[tuple[str, str, str, str]]:
    """Every declaration of ``static/<name>`` as (media condition, selector, property, value),
    one per selector of a list; fails on any text it could not read as rules."""
    text = re.sub(r"/\*.*?\*/", "", (STATIC / name).read_text(), flags=re.S)
    blocks = [("", MEDIA.sub("", text)), *((media[1], media[2]) for media in MEDIA.finditer(text))]
    found = set()
    for condition, block in blocks:
        assert not RULE.sub("", block).strip(), f"{name}: text that is no rule"
        for selectors, body in RULE.findall(block):
            for declaration in filter(None, (part.strip() for part in body.split(";"))):
                prop, value = (half.strip() for half in declaration.split(":", 1))
                for selector in selectors.split(","):
                    found.add((condition, " ".join(selector.split()), prop, value))
    return found


@pytest.mark.parametrize("stylesheet", ["docs.css", "playground.css"])
def test_no_rule_repeats_the_shared_stylesheet(stylesheet: str) -> None:
    """What the reference and the playground have alike lives in ``pagecast.css`` only: neither
    page's stylesheet sets a property of a selector to the value the shared one already gives it
    (in the same media condition)."""
    shared = declarations("pagecast.css")
    assert ("", ".top h1", "font-size", "1.5rem") in shared
    own = declarations(stylesheet)
    assert ("", ".top", "margin", "0 auto") not in own
    assert shared & own == set()


@pytest.mark.gen_test(timeout=10)
async def test_page_is_html_with_the_policy(http_client, base_url) -> None:
    response = await fetch(http_client, f"{base_url}/docs")
    assert response.code == 200
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert response.headers["Content-Security-Policy"] == CSP
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Cache-Control"] == "public, max-age=300"
    assert response.headers["X-Request-Id"]
    assert response.body == page("docs").body


@pytest.mark.gen_test(timeout=10)
async def test_assets_have_their_content_types(http_client, base_url) -> None:
    expected = {
        "docs.js": "text/javascript; charset=utf-8",
        "pagecast.js": "text/javascript; charset=utf-8",
        "pagecast.css": "text/css; charset=utf-8",
        "docs.css": "text/css; charset=utf-8",
    }
    for name, content_type in expected.items():
        response = await fetch(http_client, f"{base_url}/docs/{name}")
        assert response.code == 200, name
        assert response.headers["Content-Type"] == content_type
        assert response.headers["Content-Security-Policy"] == CSP
        assert response.headers["Cache-Control"] == "public, max-age=300"
        assert response.body == (STATIC / name).read_bytes()


@pytest.mark.gen_test(timeout=10)
async def test_unknown_asset_is_a_json_404(http_client, base_url) -> None:
    for path in (
        "/docs/x.js",
        "/docs/",
        "/docs/docs.html",
        "/docs/page.html",
        "/docs/../handlers/docs.py",
    ):
        response = await fetch(http_client, f"{base_url}{path}")
        assert response.code == 404, path
        assert response.headers["Content-Type"].startswith("application/json")
        assert json.loads(response.body)["error"]


@pytest.mark.gen_test(timeout=10)
async def test_other_methods_are_refused(http_client, base_url) -> None:
    response = await http_client.fetch(
        f"{base_url}/docs", method="POST", body=b"", raise_error=False
    )
    assert response.code == 405
    assert json.loads(response.body)["error"]


@pytest.fixture
def api(io_loop: Any, services: Services) -> Iterator[Origin]:
    origin = serve(make_api_app(services))
    yield origin
    io_loop.run_sync(origin.close)


# Collects every CSP violation, whether or not the browser also logs it to the console.
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(event.violatedDirective + " " + event.blockedURI);
});
"""


async def cell_text(page: Any, selector: str) -> str:
    return " ".join((await page.locator(selector).inner_text()).split())


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=40)
async def test_reference_renders_in_chromium(api: Origin, services: Services) -> None:
    server_url = services.settings.server.public_base_url()  # servers[0].url
    problems: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=list(LAUNCH_ARGS), timeout=30_000
        )
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 900})
            problems.extend(collect_problems(page))
            await page.add_init_script(RECORD_VIOLATIONS)
            response = await page.goto(api.url("/docs"), timeout=15_000)
            assert response is not None and response.status == 200
            await page.wait_for_selector("body[data-ready=true]", timeout=10_000)

            markdown = '[data-operation-id="markdown"]'
            assert "A web page as Markdown" in await cell_text(page, f"{markdown} .summary")
            assert await page.locator(f'{markdown} tr[data-param="max_chars"]').count() == 1
            chunk_size = f'{markdown} tr[data-param="chunk_size"]'
            assert await cell_text(page, f"{chunk_size} .range") == "200\u201320000"
            assert "2000" in await cell_text(page, f"{chunk_size} td:nth-child(4)")
            mode = await cell_text(page, f'{markdown} tr[data-param="ai_sanitize_mode"] .enum')
            assert all(value in mode for value in ("sanitize", "warn", "block")), mode
            fmt = await cell_text(page, f'{markdown} tr[data-param="format"] .enum')
            assert "markdown" in fmt and "json" in fmt
            responses = await cell_text(page, f"{markdown} table.responses")
            assert "X-Markdown-Character-Count" in responses and "401" in responses
            schema_link = page.locator(f'{markdown} a.schema-link[href="#schema-markdownenvelope"]')
            assert await schema_link.count() == 1
            assert await page.locator("#schema-markdownenvelope").count() == 1
            curl = await cell_text(page, f"{markdown} pre.curl")
            assert curl == (
                f"curl '{server_url}/api/3.0/markdown/https%3A%2F%2Fexample.com%2F?app_id=YOUR_KEY'"
            )

            image = await cell_text(page, '[data-operation-id="screenshotImage"] pre.curl')
            assert image == f"curl '{server_url}/screenshots/FILE'"  # no key, no braces

            oembed = page.locator('[data-group="oEmbed"] section.operation')
            assert await oembed.count() == 4
            for index in range(4):
                alias = oembed.nth(index).locator('tr[data-param="maxWidth"]')
                text = " ".join((await alias.inner_text()).split())
                assert "Alias of maxwidth" in text and "alias" in text, text
            query_form = await cell_text(page, '[data-operation-id="oembed_3_0_query"] pre.curl')
            assert "app_id=YOUR_KEY&url=https%3A%2F%2Fwww.youtube.com%2F" in query_form

            # A JSON body: its fields in the parameter table, the example with -d.
            site_map = '[data-group="Sites and jobs"] [data-operation-id="map"]'
            include = await cell_text(page, f'{site_map} tr[data-param="include"]')
            assert "body" in include and "array of string" in include, include
            assert "at most 50 items" in include and "each at most 512 characters" in include
            url_row = await cell_text(page, f'{site_map} tr[data-in="body"][data-param="url"]')
            assert "yes" in url_row
            assert await page.locator(f'{site_map} tr[data-in="query"]').count() == 1  # app_id
            curl = await cell_text(page, f"{site_map} pre.curl")
            assert curl.startswith("curl -X POST -H 'Content-Type: application/json' -d '{")
            assert curl.endswith(f"'{server_url}/api/3.0/map?app_id=YOUR_KEY'"), curl

            security = await cell_text(page, "#security")
            assert "app_id" in security and "api-key" in security
            health = await cell_text(page, '[data-group="Health and other"]')
            assert "/healthz" in health and "/readyz" in health

            screenshot = page.locator('[data-operation-id="screenshot"]')
            assert await screenshot.is_visible()
            await page.fill("#filter", "chunk")
            assert await screenshot.is_hidden()
            assert await page.locator(markdown).is_visible()
            assert await page.locator('[data-group="Screenshot"]').is_hidden()
            assert await page.locator('[data-group="oEmbed"]').is_hidden()
            await page.fill("#filter", "")
            assert await screenshot.is_visible()

            # Every error code with its meaning, in both shapes, and one example body for each
            # operation; a link to the playground.
            assert await page.eval_on_selector("#playground-link a", "a => a.href") == api.url("/")
            assert await page.locator("#errors tr[data-error]").count() == len(KINDS)
            refused = await cell_text(page, '#errors tr[data-error="fetch_not_allowed"]')
            assert (
                refused == "400 invalid_request -3006 validation the target address is not allowed"
            )
            for operation, shape in (("markdown", "markdown"), ("screenshot", "oembed")):
                card = f'[data-operation-id="{operation}"]'
                rows = page.locator(f"{card} .error-block tr[data-error]")
                assert await rows.count() == len(KINDS)
                body = json.loads(await page.locator(f"{card} pre.example-body").inner_text())
                assert body == render(shape, ApiError("unauthorized"), EXAMPLE_REQUEST_ID)
            await page.click(f"{markdown} .error-codes summary")
            quota = await cell_text(
                page, f'{markdown} .error-block tr[data-error="quota_exceeded"]'
            )
            assert quota == "429 -1003 the monthly credit quota is used up"

            # A phone's width: nothing wider than the window.
            await page.set_viewport_size({"width": 375, "height": 800})
            widths = await page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
            assert widths[0] <= widths[1]

            violations = await page.evaluate("window.__cspViolations")
            assert violations == []
        finally:
            await browser.close()
    assert problems == []
