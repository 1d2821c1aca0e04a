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
from handlers.openapi.document import build_openapi
from handlers.openapi.errors import EXAMPLE_REQUEST_ID, HEADERS
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
            assert "2000" in await cell_text(page, f"{chunk_size} td.default")
            mode = await cell_text(page, f'{markdown} tr[data-param="ai_sanitize_mode"] .enum')
            assert all(value in mode for value in ("sanitize", "warn", "block")), mode
            fmt = await cell_text(page, f'{markdown} tr[data-param="format"] .enum')
            assert "markdown" in fmt and "json" in fmt
            responses = await cell_text(page, f"{markdown} table.responses")
            assert "X-Markdown-Character-Count" in responses and "The common headers" in responses
            assert "X-BILLING-REQUESTS" not in responses, "described once, under #headers"
            assert "401" in await cell_text(page, f"{markdown} .error-codes summary")
            schema_link = page.locator(f'{markdown} a.schema-link[href="#schema-markdownenvelope"]')
            assert await schema_link.count() == 1
            assert await page.locator("#schema-markdownenvelope").count() == 1
            curl = await page.locator(f"{markdown} pre.curl").inner_text()
            assert curl == (
                'curl -H "api-key: $PAGECAST_API_KEY" \\\n'
                f"  '{server_url}/api/3.0/markdown/https%3A%2F%2Fexample.com%2F'"
            )

            image = await cell_text(page, '[data-operation-id="screenshotImage"] pre.curl')
            assert image == f"curl '{server_url}/screenshots/FILE'"  # no key, no braces

            # The other forms of oEmbed 3.0 by path name it and list only what differs.
            oembed = page.locator('[data-group="oEmbed"] section.operation')
            assert await oembed.count() == 4
            alias = '[data-operation-id="oembed_3_0_path"] tr[data-param="maxWidth"]'
            text = await cell_text(page, alias)
            assert "Alias of maxwidth" in text and "alias" in text, text
            for variant, base in (
                ("oembed_1_1_path", "oembed_3_0_path"),
                ("oembed_1_1_query", "oembed_3_0_query"),
                ("oembed_3_0_query", "oembed_3_0_path"),
            ):
                card = f'[data-operation-id="{variant}"]'
                link = page.locator(f"{card} .variant-of a")
                assert await link.get_attribute("href") == f"#op-{base}"
                params = page.locator(f"{card} tr[data-param]")
                names = [
                    await params.nth(i).get_attribute("data-param")
                    for i in range(await params.count())
                ]
                assert names == (
                    ["url"] if variant.endswith("query") and "3_0" in variant else []
                ), names
            query_form = await cell_text(page, '[data-operation-id="oembed_3_0_query"] pre.curl')
            assert "/api/3.0/oembed?url=https%3A%2F%2Fwww.youtube.com%2F" in query_form
            assert "app_id" not in query_form and "api-key: $PAGECAST_API_KEY" in query_form

            # A JSON body: its fields in the parameter table, the example with -d.
            site_map = '[data-group="Sites and jobs"] [data-operation-id="map"]'
            include = await cell_text(page, f'{site_map} tr[data-param="include"]')
            assert "body" in include and "array of string" in include, include
            assert "at most 50 items" in include and "each at most 512 characters" in include
            url_row = await cell_text(page, f'{site_map} tr[data-in="body"][data-param="url"]')
            assert "body · string · required" in url_row, url_row
            assert await page.locator(f'{site_map} tr[data-in="query"]').count() == 1  # app_id
            curl = (await page.locator(f"{site_map} pre.curl").inner_text()).split(" \\\n  ")
            assert curl[:3] == [
                "curl -X POST",
                '-H "api-key: $PAGECAST_API_KEY"',
                "-H 'Content-Type: application/json'",
            ]
            assert curl[3].startswith("-d '{") and curl[4] == f"'{server_url}/api/3.0/map'", curl

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
                rows = page.locator(f"{card} .error-codes tr[data-error]")
                assert await rows.count() == len(KINDS)
                example = page.locator(f"{card} .error-codes pre.example-body")
                body = json.loads(await example.text_content() or "")
                assert body == render(shape, ApiError("unauthorized"), EXAMPLE_REQUEST_ID)
            await page.click(f"{markdown} .error-codes summary")
            quota = await cell_text(
                page, f'{markdown} .error-codes tr[data-error="quota_exceeded"]'
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


# Elements whose right edge passes the window's, leaving out those inside a box that scrolls
# sideways (a table's wrapper, a code block): what a reader would have to scroll the page for.
OVERFLOWING = """
() => [...document.querySelectorAll("body *")].filter((node) => {
  if (node.getBoundingClientRect().right <= innerWidth + 0.5) return false;
  for (let box = node.parentElement; box && box !== document.body; box = box.parentElement) {
    if (["auto", "scroll", "hidden"].includes(getComputedStyle(box).overflowX)) return false;
  }
  return true;
}).map((node) => node.tagName + "." + node.className)
"""
DESKTOP_HEIGHT = 31_000
"""The reference's height at 1366 px: room for the operations there are (the signed screenshot
link lists the screenshot's parameters a second time) and their parameters (the Markdown
endpoint's screenshot group among them), not for a layout that repeats the shared sections."""


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=60)
async def test_reference_fits_a_desktop_and_a_phone(api: Origin) -> None:
    """At 1366 px wide the whole reference is under 31,000 px tall: the common headers and the
    errors are described once, each operation names them and shows an example request (its key
    in a header) and an example answer. At 375 px nothing makes the page scroll sideways."""
    document = build_openapi("http://x")
    operation_ids = [
        operation["operationId"]
        for item in document["paths"].values()
        for operation in item.values()
    ]
    problems: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=list(LAUNCH_ARGS), timeout=30_000
        )
        try:
            page = await browser.new_page(viewport={"width": 1366, "height": 900})
            problems.extend(collect_problems(page))
            await page.goto(api.url("/docs"), timeout=15_000)
            await page.wait_for_selector("body[data-ready=true]", timeout=15_000)
            height = await page.evaluate("document.documentElement.scrollHeight")
            assert height < DESKTOP_HEIGHT, f"{height} px tall"

            # The shared sections, each once.
            html = await page.content()
            for section in ("headers", "errors", "security", "schemas"):
                assert html.count(f'id="{section}"') == 1, section
            headers = page.locator("#headers tr[data-header]")
            names = [
                await headers.nth(i).get_attribute("data-header")
                for i in range(await headers.count())
            ]
            assert names == list(HEADERS)
            cards = page.locator("section.operation")
            assert await cards.count() == len(operation_ids)
            common = page.locator("section.operation", has_text="X-Pagecast-Warnings")
            assert await common.count() == 0, "the common headers are described under #headers"
            # Each operation that carries them links there (their other forms link to them).
            carrying = [
                operation["operationId"]
                for item in document["paths"].values()
                for operation in item.values()
                if "x-variant-of" not in operation
                and any(
                    "#/components/headers/" in json.dumps(answer.get("headers", {}))
                    for answer in operation["responses"].values()
                )
            ]
            assert set(carrying) == {
                "markdown",
                "oembed_3_0_path",
                "screenshot",
                "signedScreenshot",
                "signingSecret",
                "screenshotRequest",
                "map",
            }
            for operation_id in carrying:
                card = f'section.operation[data-operation-id="{operation_id}"]'
                assert await page.locator(f'{card} a[href="#headers"]').count() == 1

            for operation_id in operation_ids:
                card = f'section.operation[data-operation-id="{operation_id}"]'
                assert await page.locator(card).count() == 1, operation_id
                answers = page.locator(f"{card} .success-example")
                assert await answers.count() >= 1, f"{operation_id}: no example answer"
                curl = await page.locator(f"{card} pre.curl").inner_text()
                keyed = "security" in next(
                    op
                    for item in document["paths"].values()
                    for op in item.values()
                    if op["operationId"] == operation_id
                )
                assert ('-H "api-key: $PAGECAST_API_KEY"' in curl) == keyed, curl
                assert "app_id=" not in curl, curl
                # Its error codes are folded: the statuses show, the table opens on demand.
                folded = page.locator(f"{card} details.error-codes")
                if await folded.count():
                    assert await folded.get_attribute("open") is None
                    assert await page.locator(f"{card} .error-codes table").is_hidden()

            # Example answers come from the document's examples.
            markdown = page.locator('[data-operation-id="markdown"] .success-example')
            media = [await markdown.nth(i).get_attribute("data-media") for i in range(2)]
            assert media == ["text/markdown", "application/json"]
            titles = [
                await cell_text(
                    page,
                    f'[data-operation-id="markdown"] .success-example >> nth={i} >> .example-title',
                )
                for i in range(2)
            ]
            assert titles == ["200 text/markdown", "200 application/json"]
            envelope = json.loads(await markdown.nth(1).locator("pre").text_content() or "")
            example = document["paths"]["/api/3.0/markdown/{encoded_url}"]["get"]["responses"]
            assert envelope == example["200"]["content"]["application/json"]["example"]
            image = await cell_text(page, '[data-operation-id="screenshotImage"] .success-example')
            assert image.startswith("200 the file itself, as image/jpeg")
            deleted = await cell_text(page, '[data-operation-id="deleteFrame"] .success-example')
            assert deleted == "204 no body."

            # A folded schema opens when an operation links to it.
            envelope_schema = page.locator("#schema-markdownenvelope details")
            assert await envelope_schema.get_attribute("open") is None
            await page.click(
                '[data-operation-id="markdown"] a.schema-link[href="#schema-markdownenvelope"]'
            )
            await page.wait_for_function(
                "document.querySelector('#schema-markdownenvelope details').open"
            )

            # The page links to /llms.txt, and every link of /llms.txt lands on its operation.
            intro = page.locator('#intro a[href="llms.txt"]')
            assert await intro.evaluate("a => a.href") == api.url("/llms.txt")
            llms = await (await page.request.get(api.url("/llms.txt"))).text()
            anchors = re.findall(r"/docs#([\w-]+)\)", llms)
            assert len(anchors) == len(operation_ids)
            for anchor in anchors:
                assert await page.locator(f"section.operation#{anchor}").count() == 1, anchor

            await page.set_viewport_size({"width": 375, "height": 800})
            widths = await page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
            assert widths[0] <= widths[1], widths
            assert await page.evaluate(OVERFLOWING) == []
        finally:
            await browser.close()
    assert problems == []
