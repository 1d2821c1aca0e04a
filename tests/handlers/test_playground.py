"""``/``: the playground page and its assets over plain HTTP, then used end to end in a real
Chromium: a screenshot, Markdown with a query and the prompt-injection check, an oEmbed hosted
frame, and a request with an unknown key, all against a local origin page."""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import lxml.html
import pytest
import tornado.web
from playwright.async_api import Page, async_playwright

from app.config import Settings
from app.services import Services
from app.web import make_api_app, make_frame_app
from browser.farm.flags import LAUNCH_ARGS
from handlers.params.groups import MARKDOWN_GROUPS
from handlers.playground import PlaygroundHandler, content_security_policy
from handlers.static import STATIC, page
from tests.conftest import make_settings
from tests.origin import Origin, serve
from tests.static_pages import assert_no_inline_code, assert_safe_script, collect_problems

CHROMIUM = os.environ.get("PAGECAST_TEST_CHROMIUM", "/usr/bin/chromium")
# Collects every CSP violation, whether or not the browser also logs it to the console.
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(event.violatedDirective + " " + event.blockedURI);
});
"""

ARTICLE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Playground test article</title>
<meta property="og:title" content="Playground test article">
<meta property="og:description" content="A page for trying Pagecast from its playground.">
<meta property="og:site_name" content="Loopback News">
</head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article>
<h1>Playground test article</h1>
<p>This page exists to be captured, embedded and converted. It has <strong>bold</strong> and
<em>emphasised</em> words, and a <a href="/pricing">link to the pricing page</a>.</p>
<h2>Pricing</h2>
<p>The pricing of the service is simple: every request costs one credit, and pricing never
changes without notice. Ask about pricing for large volumes.</p>
<ul><li>Screenshots cost one credit</li><li>Markdown costs one credit</li></ul>
<table><thead><tr><th>Plan</th><th>Credits</th></tr></thead>
<tbody><tr><td>free</td><td>10000</td></tr><tr><td>pro</td><td>1000000</td></tr></tbody></table>
<h2>Limits</h2>
<p>Requests are limited per key, with a burst allowance for short peaks of traffic.</p>
<pre><code class="language-python">print("limits")
</code></pre>
</article>
<footer>Footer text</footer>
</body></html>"""


class ArticlePage(tornado.web.RequestHandler):
    def get(self) -> None:
        self.finish(ARTICLE)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.farm.warm_contexts = 1
    return settings


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


@pytest.fixture
def api(io_loop: Any, services: Services) -> Iterator[Origin]:
    """The API listener on 127.0.0.1; screenshot links and openapi.json point at it."""
    origin = serve(make_api_app(services))
    services.settings.server.base_url = origin.base_url
    yield origin
    io_loop.run_sync(origin.close)


@pytest.fixture
def frame_host(io_loop: Any, services: Services) -> Iterator[Origin]:
    host = serve(make_frame_app(services))
    services.settings.server.frame_host = host.base_url
    yield host
    io_loop.run_sync(host.close)


@pytest.fixture
def origin(io_loop: Any) -> Iterator[Origin]:
    site = serve(tornado.web.Application([(r"/article", ArticlePage)]))
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def key(services: Services) -> str:
    return services.store.create_key("playground", "pro").key


async def fetch(http_client: Any, url: str, **kwargs: Any) -> Any:
    return await http_client.fetch(url, raise_error=False, **kwargs)


def directives(policy: str) -> dict[str, str]:
    return dict(part.strip().split(" ", 1) for part in policy.split(";"))


def test_policy_is_strict_and_names_only_our_hosts() -> None:
    policy = directives(
        content_security_policy("https://api.example.com/", "https://frames.example.com")
    )
    assert policy["default-src"] == "'none'"
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self'"
    assert policy["connect-src"] == "'self'"
    assert policy["frame-src"] == "https://frames.example.com"
    assert policy["img-src"] == "'self' data: blob: https://api.example.com"
    assert policy["frame-ancestors"] == "'none'"
    assert policy["base-uri"] == "'none'" and policy["form-action"] == "'none'"
    # Only the embed snippets' own style attributes, by their hashes: the fixed iframe's, and
    # the responsive wrapper's (one per template's proportions) and iframe's.
    assert re.fullmatch(
        r"'unsafe-hashes'( 'sha256-[A-Za-z0-9+/]{43}='){4}", policy["style-src-attr"]
    )
    whole = " ".join(policy.values())
    assert "unsafe-inline" not in whole and "unsafe-eval" not in whole and "*" not in whole


def test_page_has_no_inline_code_or_styles(tmp_path: Path) -> None:
    served = tmp_path / "playground.html"
    served.write_bytes(PlaygroundHandler.files["/"].body)
    # The page as sent is the skeleton filled in, not a file of static/: given an absolute path,
    # the check reads that instead.
    scripts = ["playground/markdown-view.js", "playground/pagecast.js", "playground/playground.js"]
    assert_no_inline_code(str(served), scripts)
    for script in ("markdown-view.js", "pagecast.js", "playground.js"):
        text = assert_safe_script(script)
        assert "://" not in text, "every URL the scripts call is relative to this origin"


@pytest.mark.gen_test(timeout=10)
async def test_page_is_html_with_the_policy(http_client, base_url, settings) -> None:
    response = await fetch(http_client, f"{base_url}/")
    assert response.code == 200
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    expected = content_security_policy(
        settings.server.public_base_url(), settings.server.public_frame_host()
    )
    assert response.headers["Content-Security-Policy"] == expected
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Cache-Control"] == "public, max-age=300"
    assert response.headers["X-Request-Id"]
    assert response.body == page("playground").body


def test_page_is_the_shared_skeleton_with_its_own_parts() -> None:
    root = lxml.html.fromstring(PlaygroundHandler.files["/"].body)
    stylesheets = [link.get("href") for link in root.iterfind("head/link[@rel='stylesheet']")]
    assert stylesheets == ["playground/pagecast.css", "playground/playground.css"]
    assert root.findtext("head/title") == "Pagecast playground"
    metas = [meta.get("name") for meta in root.iterfind("head/meta[@name]")]
    assert metas == ["viewport", "robots", "referrer"]
    (header,) = root.iterfind("body/header[@class='top']")
    assert [child.tag for child in header] == ["h1", "p"]
    (layout,) = root.iterfind("body/div[@class='layout']")
    assert [child.get("id") for child in layout] == ["request", "result"]
    assert "<!--" not in PlaygroundHandler.files["/"].body.decode(), "the parts' notes stay behind"


@pytest.mark.gen_test(timeout=10)
async def test_assets_have_their_content_types(http_client, base_url) -> None:
    expected = {
        "playground.js": "text/javascript; charset=utf-8",
        "markdown-view.js": "text/javascript; charset=utf-8",
        "pagecast.js": "text/javascript; charset=utf-8",
        "pagecast.css": "text/css; charset=utf-8",
        "playground.css": "text/css; charset=utf-8",
    }
    for name, content_type in expected.items():
        response = await fetch(http_client, f"{base_url}/playground/{name}")
        assert response.code == 200, name
        assert response.headers["Content-Type"] == content_type
        assert "frame-src" in response.headers["Content-Security-Policy"]
        assert response.body == (STATIC / name).read_bytes()


@pytest.mark.gen_test(timeout=10)
async def test_other_paths_and_methods_are_json_errors(http_client, base_url) -> None:
    for path in (
        "/playground",
        "/playground/",
        "/playground/x.js",
        "/playground.html",
        "/playground/page.html",
        "/index",
    ):
        response = await fetch(http_client, f"{base_url}{path}")
        assert response.code == 404, path
        assert response.headers["Content-Type"].startswith("application/json")
        assert json.loads(response.body)["error"]
    response = await fetch(http_client, f"{base_url}/", method="POST", body=b"")
    assert response.code == 405
    assert json.loads(response.body)["error"]


# -- in Chromium ---------------------------------------------------------------------------------


async def run(page: Page, operation: str, state: str = "done") -> None:
    await page.select_option("#operation", operation)
    await page.click("#run")
    await page.wait_for_selector(f"#result[data-state={state}]", timeout=30_000)


async def text(page: Page, selector: str) -> str:
    return " ".join((await page.locator(selector).inner_text()).split())


@contextlib.asynccontextmanager
async def playground_page(base_url: str, width: int, height: int) -> AsyncIterator[Page]:
    """A Chromium page of this size, allowed the clipboard, that records every CSP violation."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=list(LAUNCH_ARGS), timeout=30_000
        )
        try:
            context = await browser.new_context(
                viewport={"width": width, "height": height}, accept_downloads=True
            )
            await context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
            # Before any of the page's own code runs, so violations while it loads count too.
            await context.add_init_script(RECORD_VIOLATIONS)
            yield await context.new_page()
        finally:
            await browser.close()


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=60)
async def test_playground_runs_every_endpoint_in_chromium(
    api: Origin, origin: Origin, frame_host: Origin, key: str
) -> None:
    base_url = api.base_url
    target = origin.url("/article")
    async with playground_page(base_url, 1400, 1000) as page:
        problems = collect_problems(page)
        response = await page.goto(f"{base_url}/", timeout=15_000)
        assert response is not None and response.status == 200
        await page.wait_for_selector("body[data-ready=true]", timeout=10_000)
        options = await page.eval_on_selector_all(
            "#operation option", "options => options.map(o => o.value)"
        )
        assert options == ["markdown", "oembed", "screenshot"], "one entry per endpoint"

        await page.fill("#api-key", key)
        await page.fill("#target-url", target)

        # A screenshot: the image from screenshotUrl, the credits, a curl command to copy.
        await run(page, "screenshot")
        await page.wait_for_function(
            "() => { const i = document.getElementById('screenshot');"
            " return i.complete && i.naturalWidth > 0; }",
            timeout=10_000,
        )
        assert await page.eval_on_selector("#screenshot", "i => i.naturalWidth") == 1366
        assert await text(page, "#credits") == "1"
        billing = await text(page, '#headers tr[data-header="x-billing-requests"] td')
        assert billing == "1"
        curl = await text(page, "#curl")
        assert curl.startswith(f"curl -i -H 'X-API-Key: {key}' '{base_url}/api/1.1/screenshot/")
        assert quote(target, safe="") in curl and "app_id" not in curl, "the key in a header"
        await page.click("#copy-curl")
        await page.wait_for_selector("#copy-status:has-text('Copied')", timeout=5_000)
        assert await page.evaluate("navigator.clipboard.readText()") == curl

        # The same page as a PDF: a link to open it, its pages counted, no broken image.
        await page.select_option("#param-screenshot-format", "pdf")
        await run(page, "screenshot")
        assert await page.is_visible("#screenshot-pdf")
        assert not await page.is_visible("#screenshot")
        assert (await page.get_attribute("#screenshot-link", "href") or "").endswith(".pdf")
        assert "pages" in await text(page, "#screenshot-info")
        await page.select_option("#param-screenshot-format", "jpeg")

        # Markdown with a query (chunks with heading paths and scores) and ai_sanitize.
        await page.select_option("#operation", "markdown")
        await page.select_option("#param-markdown-format", "json")
        await page.click('details[data-group="Chunks and query"] summary')
        await page.fill("#param-markdown-query", "pricing")
        await page.click('details[data-group="Safety"] summary')
        await page.check("#param-markdown-ai_sanitize")
        await run(page, "markdown")
        assert "Playground test article" in await text(page, "#markdown-rendered h1")
        assert await page.locator("#markdown-rendered h2").count() == 2
        assert await page.locator("#markdown-rendered li").count() == 2
        assert await page.locator("#markdown-rendered table td").count() == 4
        assert "print" in await text(page, "#markdown-rendered pre code")
        link = page.locator("#markdown-rendered a", has_text="link to the pricing page")
        assert await link.get_attribute("href") == origin.url("/pricing")
        raw = await page.input_value("#markdown-raw")
        assert raw.startswith("# Playground test article") and "## Pricing" in raw
        assert await page.locator("#chunks li").count() >= 1
        assert "Pricing" in await text(page, "#chunks li:first-child .heading-path")
        score = await text(page, "#chunks li:first-child .score")
        assert re.fullmatch(r"score \d\.\d{3}", score)
        assert await text(page, "#safety") != ""
        assert "Risk level" in await text(page, "#safety")
        assert await text(page, "#credits") == "2"
        curl = await text(page, "#curl")
        assert "format=json" in curl and "query=pricing" in curl and "ai_sanitize=true" in curl
        assert "include_markdown" not in curl, "parameters left at their default are not sent"

        # The first example asks the page a question: the passages, best first, as Markdown.
        examples = await page.eval_on_selector_all(
            "#example-buttons button", "buttons => buttons.map(b => b.dataset.example)"
        )
        assert examples[0] == "question"
        await page.click('#example-buttons button[data-example="question"]')
        assert await page.input_value("#target-url") == target, "a page given is kept"
        assert await page.input_value("#param-markdown-query") == "pricing limits"
        assert await page.input_value("#param-markdown-format") == "markdown"
        assert not await page.is_checked("#param-markdown-ai_sanitize"), "the rest is reset"
        assert "passages" in await text(page, "#example-help")
        await page.click("#run")
        await page.wait_for_selector("#result[data-state=done]", timeout=30_000)
        rendered = page.locator("#markdown-rendered")
        assert await rendered.locator("h1").first.inner_text() == 'Passages for "pricing limits"'
        first = await rendered.locator("h2").first.inner_text()
        assert re.fullmatch(r"Passage 1 \u00b7 score 0\.\d{4}", first), first
        paths = await rendered.locator("blockquote").all_inner_texts()
        assert "Playground test article \u203a Pricing" in paths
        curl = await text(page, "#curl")
        assert "query=pricing%20limits" in curl and "query_top_k=3" in curl
        assert "format=" not in curl and "ai_sanitize" not in curl
        assert await text(page, "#credits") == "1"

        # oEmbed: the hosted frame's snippet in a sandboxed srcdoc frame, loaded from the
        # frame host (the only frame source the policy allows).
        await run(page, "oembed")
        frame = page.locator("#embed-frame iframe")
        assert await frame.count() == 1
        assert await frame.get_attribute("sandbox") == (
            "allow-popups allow-popups-to-escape-sandbox"
        )
        assert frame_host.base_url in (await frame.get_attribute("srcdoc") or "")
        assert "source og_frame" in await text(page, "#embed-info")
        await frame.scroll_into_view_if_needed()
        card = None
        for _ in range(100):
            card = next((f for f in page.frames if f.url.startswith(frame_host.base_url)), None)
            if card is not None:
                break
            await page.wait_for_timeout(100)
        assert card is not None, "the hosted frame was not loaded"
        await card.wait_for_load_state()
        assert "Playground test article" in await card.locator("body").inner_text()
        # The snippet's style attributes apply: the policy allows them by their hashes.
        snippet = page.frame_locator("#embed-frame iframe").locator("iframe")
        assert await snippet.evaluate("f => getComputedStyle(f).position") == "absolute"
        assert await snippet.evaluate("f => getComputedStyle(f.parentElement).aspectRatio") == (
            "4 / 3"
        )

        # An unknown key: the error in its documented shape, nothing billed.
        await page.fill("#api-key", "not-a-key")
        await run(page, "markdown", state="error")
        error = await text(page, "#error-section")
        assert "401" in error and "-1000" in error and "unknown or revoked" in error
        assert await text(page, "#credits") == "0"
        assert "-H 'X-API-Key: not-a-key'" in await text(page, "#curl")
        assert await page.evaluate("sessionStorage.getItem('pagecast-playground-key')") == (
            "not-a-key"
        )

        violations = await page.evaluate("window.__cspViolations")
        assert violations == []
    # Expected: Chromium's line about the 401 answer, the hosted card refusing the test origin's
    # plain-http favicon (cards show https images only), and the sandboxed frames refusing to run
    # this test's own violation recorder (init scripts are offered to every frame).
    expected = (
        "status of 401",
        'directive: "img-src https: data:"',
        "because the document's frame is sandboxed and the 'allow-scripts' permission is not set",
    )
    assert [p for p in problems if not any(text in p for text in expected)] == []


# -- the guided form, the result's buttons, a phone's width ---------------------------------------

MARKDOWN_GROUP_TITLES = [title for title, _ in MARKDOWN_GROUPS]


async def assert_fits(page: Page, where: str) -> None:
    """Nothing on the page is wider than the window."""
    widths = await page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"{where}: the page is {widths[0]} px wide in {widths[1]} px"


async def open_groups(page: Page) -> dict[str, bool]:
    return dict(
        await page.eval_on_selector_all(
            "#param-list details.param-group:not([hidden])",
            "groups => groups.map(g => [g.dataset.group, g.open])",
        )
    )


@pytest.mark.chromium
@pytest.mark.parametrize("width", [1366, 375])
@pytest.mark.gen_test(timeout=90)
async def test_guided_form_and_result_buttons(
    api: Origin, origin: Origin, frame_host: Origin, key: str, width: int, tmp_path: Path
) -> None:
    base_url = api.base_url
    target = origin.url("/article")
    problems: list[str] = []
    async with playground_page(base_url, width, 900) as page:
        page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
        await page.goto(f"{base_url}/", timeout=15_000)
        await page.wait_for_selector("body[data-ready=true]", timeout=10_000)
        await assert_fits(page, "the empty form")
        await page.fill("#api-key", key)
        await page.fill("#target-url", target)

        # Markdown's parameters in seven groups, the essentials open, with a filter.
        await page.select_option("#operation", "markdown")
        # One version; the target in the path or as url=.
        assert await page.is_hidden("#version-field") and await page.is_visible("#form-field")
        titles = await page.eval_on_selector_all(
            "#param-list details.param-group", "groups => groups.map(g => g.dataset.group)"
        )
        assert titles == MARKDOWN_GROUP_TITLES
        assert await page.locator("#param-list .param").count() == 46
        opened = await open_groups(page)
        assert [title for title, is_open in opened.items() if is_open] == ["Essentials"]
        assert await page.is_visible("#param-markdown-format")
        assert await page.is_hidden("#param-markdown-chunk_size")
        await page.fill("#param-filter", "chunk")
        opened = await open_groups(page)
        assert set(opened) == {"Output", "Chunks and query"} and all(opened.values())
        assert await page.is_visible("#param-markdown-chunk_size")
        assert await page.is_hidden('.param[data-param="format"]')
        status = await text(page, "#param-filter-status")
        assert re.fullmatch(r"\d+ of 46 parameters", status), status
        await assert_fits(page, "the filtered form")
        await page.press("#param-filter", "Escape")
        opened = await open_groups(page)
        assert len(opened) == 7 and [t for t, o in opened.items() if o] == ["Essentials"]
        safety = page.locator('details[data-group="Safety"]')
        await safety.locator("summary").click()
        await page.check("#param-markdown-ai_sanitize")
        assert await text(page, 'details[data-group="Safety"] .group-count') == "2 · 1 changed"

        # Copy Markdown puts the raw Markdown on the clipboard.
        await page.uncheck("#param-markdown-ai_sanitize")
        await run(page, "markdown")
        raw = await page.input_value("#markdown-raw")
        assert raw.startswith("# Playground test article")
        await page.click("#copy-markdown")
        await page.wait_for_selector("#copy-markdown-status:has-text('Copied')", timeout=5_000)
        assert await page.evaluate("navigator.clipboard.readText()") == raw
        await assert_fits(page, "a Markdown result")

        # Download image saves the screenshot under its own name.
        await run(page, "screenshot")
        async with page.expect_download(timeout=10_000) as info:
            await page.click("#download-image")
        download = await info.value
        assert re.fullmatch(r"[0-9a-f]{32}\.jpeg", download.suggested_filename)
        saved = tmp_path / download.suggested_filename
        await download.save_as(saved)
        assert saved.read_bytes()[:3] == b"\xff\xd8\xff", "a JPEG"
        await assert_fits(page, "a screenshot result")

        # One oEmbed entry, with the version and the target's form as options.
        await page.select_option("#operation", "oembed")
        assert await page.is_visible("#variants")
        versions = await page.eval_on_selector_all("#version option", "o => o.map(x => x.value)")
        forms = await page.eval_on_selector_all("#form option", "o => o.map(x => x.value)")
        assert versions == ["3.0", "1.1"] and forms == ["path", "query"]
        await page.select_option("#version", "1.1")
        await page.select_option("#form", "query")
        assert await text(page, "#operation-help") == "GET /api/1.1/oembed?url=…"
        await run(page, "oembed")
        curl = await text(page, "#curl")
        assert f"'{base_url}/api/1.1/oembed?url={quote(target, safe='')}'" in curl
        frame_url = await page.get_attribute("#open-frame", "href")
        assert frame_url and frame_url.startswith(frame_host.base_url + "/oembed/")
        await assert_fits(page, "an embed result with its long frame URL")
        async with page.expect_popup(timeout=10_000) as opened_frame:
            await page.click("#open-frame")
        popup = await opened_frame.value
        await popup.wait_for_load_state()
        assert popup.url == frame_url
        assert "Playground test article" in await popup.locator("body").inner_text()
        assert await page.evaluate("window.__cspViolations") == []
    assert problems == []
