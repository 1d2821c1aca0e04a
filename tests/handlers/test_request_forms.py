"""How a new user's requests are read: unknown parameters are reported (or refused in strict
mode), an unencoded target keeps its own query, the url= form and an empty target, the key in
any of its headers, the rate-limit and credit headers, Accept: application/json, and targets
that are not HTML (plain text, JSON, PDF) through the Markdown endpoint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.httputil import HTTPHeaders

from app.config import Settings
from app.services import Services
from app.web import make_api_app
from tests.conftest import make_settings
from tests.handlers.test_api import assert_markdown_error, markdown_url
from tests.origin import Origin, serve

PDF = Path(__file__).parent.parent / "convert" / "pdf_samples" / "manual.pdf"
PAGE = (
    "<html><head><title>Echo</title></head><body><main><h1>Echo page</h1>"
    "<p>The query this page was asked with: <span id='q'>{query}</span>.</p>"
    "<p>Its address: <span id='uri'>{uri}</span>.</p></main></body></html>"
)


class Echo(tornado.web.RequestHandler):
    def get(self, name: str) -> None:
        if name == "notes.txt":
            self.set_header("Content-Type", "text/plain; charset=utf-8")
            self.finish("Line one\n\n* not a list to escape\nLine three")
        elif name == "data.json":
            self.set_header("Content-Type", "application/json")
            self.finish('{"ship": "Aurora", "crew": 12, "note": "```"}')
        elif name == "manual.pdf":
            self.set_header("Content-Type", "application/pdf")
            self.finish(PDF.read_bytes())
        elif name == "archive.zip":
            self.set_header("Content-Type", "application/zip")
            self.finish(b"PK\x03\x04 not a page")
        else:
            escape = tornado.escape.xhtml_escape
            self.finish(PAGE.format(query=escape(self.request.query), uri=escape(self.request.uri)))


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.server.strict_params = False
    return settings


@pytest.fixture
def site(io_loop: Any) -> Iterator[Origin]:
    origin = serve(tornado.web.Application([(r"/(.*)", Echo)]))
    yield origin
    io_loop.run_sync(origin.close)


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


async def get(http_client: AsyncHTTPClient, url: str, **headers: str) -> HTTPResponse:
    return await http_client.fetch(url, raise_error=False, headers=headers)


def warnings(response: HTTPResponse) -> str:
    return str(response.headers.get("X-Pagecast-Warnings", ""))


@pytest.mark.gen_test(timeout=30)
async def test_unknown_parameters_are_reported_with_the_likely_name(
    http_client, base_url, site, key
) -> None:
    url = markdown_url(
        base_url, site.url("/page"), app_id=key, formt="json", themme="dark", width="1280"
    )
    response = await get(http_client, url)
    assert response.code == 200
    header = warnings(response)
    assert "'formt' (did you mean format?)" in header
    assert "'themme'" in header and "'width'" in header
    response = await get(http_client, url + "&format=json&ai_sanitize=true&ai_sanitize_mode=loud")
    body = json.loads(response.body)
    assert any("'formt'" in warning for warning in body["warnings"])
    assert any("ai_sanitize_mode: 'loud'" in warning for warning in body["warnings"])
    assert body["ai_safety"]["action_taken"] == "sanitize"  # the mode it fell back to
    clean = await get(http_client, markdown_url(base_url, site.url("/page"), app_id=key))
    assert "X-Pagecast-Warnings" not in clean.headers


@pytest.mark.gen_test(timeout=30)
async def test_strict_mode_refuses_unknown_parameters(http_client, base_url, site, services, key):
    services.settings.server.strict_params = True
    response = await get(
        http_client, markdown_url(base_url, site.url("/page"), app_id=key, formt="json")
    )
    body = assert_markdown_error(response, 400, -2203)
    assert (
        "formt is not a parameter of this endpoint (did you mean format?)"
        in body["error"]["message"]
    )
    oembed = await get(
        http_client, f"{base_url}/api/3.0/oembed?url={quote(site.url('/page'))}&app_id={key}&x=1"
    )
    assert oembed.code == 400
    details = json.loads(oembed.body)["error"]["details"]
    assert details == [{"parameter": "x", "message": "is not a parameter of this endpoint"}]


@pytest.mark.gen_test(timeout=30)
async def test_an_unencoded_target_keeps_its_own_query(http_client, base_url, site, key) -> None:
    target = site.url("/page")  # pasted as is, its query after it
    url = f"{base_url}/api/3.0/markdown/{target}?q=1&page=2&app_id={key}&format=json"
    response = await get(http_client, url)
    assert response.code == 200, response.body
    body = json.loads(response.body)
    assert "q=1&page=2" in body["markdown"]
    assert body["metadata"]["final_url"].endswith("/page?q=1&page=2")
    assert "'q', 'page': not parameters of this endpoint; kept in the target URL" in warnings(
        response
    )
    assert "'format': read as this endpoint's parameters" in warnings(response)
    # Its own escapes stay as they were sent: a space, a question mark in the path.
    for path in ("/My%20Doc", "/a%3Fb"):
        url = f"{base_url}/api/3.0/markdown/{site.url(path)}?x=1&app_id={key}"
        response = await get(http_client, url)
        assert response.code == 200, response.body
        assert f"Its address: {path}?x=1." in response.body.decode()
    # A proxy that merged the scheme's slashes: mended, and said.
    merged = target.replace("http://", "http:/")
    response = await get(http_client, f"{base_url}/api/3.0/markdown/{merged}?app_id={key}")
    assert response.code == 200 and "one slash" in warnings(response)


@pytest.mark.gen_test(timeout=30)
async def test_url_form_and_an_empty_target(http_client, base_url, site, key) -> None:
    page = quote(site.url("/page"), safe="")
    response = await get(http_client, f"{base_url}/api/3.0/markdown?url={page}&app_id={key}")
    assert response.code == 200 and response.body.startswith(b"# Echo page")
    both = f"{base_url}/api/3.0/markdown/{page}?url={page}&app_id={key}"
    assert_markdown_error(await get(http_client, both), 400, -2203)
    for path in ("/api/3.0/markdown/", "/api/3.0/markdown"):
        body = assert_markdown_error(
            await get(http_client, f"{base_url}{path}?app_id={key}"), 400, -2204
        )
        assert "missing" in body["error"]["message"]
    for path in ("/api/1.1/screenshot/", "/api/1.1/screenshot"):
        response = await get(http_client, f"{base_url}{path}?app_id={key}")
        assert response.code == 400
        assert json.loads(response.body)["error"]["code"] == "invalid_request"


@pytest.mark.gen_test(timeout=30)
async def test_the_key_in_any_of_its_headers(http_client, base_url, site, key) -> None:
    url = markdown_url(base_url, site.url("/page"))
    for headers in (
        {"api-key": key},
        {"X-API-Key": key},
        {"Authorization": f"Bearer {key}"},
        {"Authorization": f"bearer {key}"},
    ):
        assert (await get(http_client, url, **headers)).code == 200, headers
    oembed = f"{base_url}/api/3.0/oembed?url={quote(site.url('/page'))}"
    assert (await get(http_client, oembed, Authorization=f"Bearer {key}")).code == 200
    frames = f"{base_url}/api/v1/frames"
    assert (await get(http_client, frames, **{"X-API-Key": key})).code in (200, 404)
    refused = await get(http_client, url, Authorization=f"Basic {key}")
    body = assert_markdown_error(refused, 401, -1000)
    assert "Authorization: Bearer" in body["error"]["message"]


@pytest.mark.gen_test(timeout=30)
async def test_two_different_keys_are_refused_and_one_key_twice_is_not(
    http_client, base_url, site, key, services
) -> None:
    other = services.store.create_key("other-org", "free").key
    page = site.url("/page")
    url = markdown_url(base_url, page)
    # The same key in every place it may come from is one key.
    same = await get(
        http_client,
        markdown_url(base_url, page, app_id=key),
        **{"api-key": key, "X-API-Key": key, "Authorization": f"Bearer {key}"},
    )
    assert same.code == 200 and same.body.startswith(b"# Echo page")
    pairs = [
        (markdown_url(base_url, page, app_id=key), {"X-API-Key": other}),
        (markdown_url(base_url, page, app_id=key), {"Authorization": f"Bearer {other}"}),
        (url, {"api-key": key, "X-API-Key": other}),
        (url, {"api-key": key, "Authorization": f"bearer {other}"}),
        (markdown_url(base_url, page, app_id=key), {"api-key": "pc_not_a_key_at_all"}),
        (f"{markdown_url(base_url, page, app_id=key)}&app_id={other}", {}),
    ]
    for target, headers in pairs:
        refused = await get(http_client, target, **headers)
        body = assert_markdown_error(refused, 400, -1007)
        message = body["error"]["message"]
        assert "two different API keys" in message, message
        assert key not in message and other not in message
        assert refused.headers["X-BILLING-REQUESTS"] == "0"
        assert "X-RateLimit-Limit" not in refused.headers  # refused before the key was looked up
    # The oEmbed shape (and the screenshot endpoint's) says invalid_request.
    oembed = f"{base_url}/api/3.0/oembed?url={quote(page)}&app_id={key}"
    refused = await get(http_client, oembed, Authorization=f"Bearer {other}")
    assert refused.code == 400
    error = json.loads(refused.body)["error"]
    assert error["code"] == "invalid_request" and error["stage"] == "validation"
    assert "two different API keys" in error["message"]
    # Two header lines of one name with different keys are two keys as well.
    lines = HTTPHeaders()
    lines.add("X-API-Key", key)
    lines.add("X-API-Key", other)
    refused = await http_client.fetch(url, raise_error=False, headers=lines)
    assert_markdown_error(refused, 400, -1007)
    # A credential of another scheme is not a key: the app_id's key is used alone.
    basic = await get(
        http_client, markdown_url(base_url, page, app_id=key), Authorization="Basic dXNlcjpwdw=="
    )
    assert basic.code == 200


@pytest.mark.gen_test(timeout=30)
async def test_rate_limit_and_credit_headers(http_client, base_url, site, services) -> None:
    tiny = services.store.create_key("tiny-org", "tiny").key  # a burst of 2, then 0.01 a second
    url = markdown_url(base_url, site.url("/page"), app_id=tiny)
    first = await get(http_client, url)
    assert first.headers["X-RateLimit-Limit"] == "2"
    assert first.headers["X-RateLimit-Remaining"] == "1"
    assert (await get(http_client, url)).headers["X-RateLimit-Remaining"] == "0"
    refused = await get(http_client, url)
    assert refused.code == 429 and refused.headers["X-RateLimit-Remaining"] == "0"
    metered = services.store.create_key("metered-org", "metered").key  # 3 credits a month
    url = markdown_url(base_url, site.url("/page"), app_id=metered)
    assert (await get(http_client, url)).headers["X-Credits-Remaining"] == "2"
    assert (await get(http_client, url)).headers["X-Credits-Remaining"] == "1"
    await get(http_client, url)
    refused = await get(http_client, url)
    assert refused.code == 429 and refused.headers["X-Credits-Remaining"] == "0"


@pytest.mark.gen_test(timeout=30)
async def test_accept_json_means_format_json(http_client, base_url, site, key) -> None:
    url = markdown_url(base_url, site.url("/page"), app_id=key)
    response = await get(http_client, url, Accept="application/json")
    assert response.headers["Content-Type"].startswith("application/json")
    assert json.loads(response.body)["markdown"].startswith("# Echo page")
    markdown = await get(http_client, url, Accept="text/markdown, application/json;q=0.5")
    assert markdown.headers["Content-Type"].startswith("text/markdown")
    asked = await get(http_client, url + "&format=markdown", Accept="application/json")
    assert asked.headers["Content-Type"].startswith("text/markdown")
    axios = await get(http_client, url, Accept="application/json, text/plain, */*")
    assert axios.headers["Content-Type"].startswith("text/markdown")  # both alike: the default


@pytest.mark.gen_test(timeout=60)
async def test_text_json_and_pdf_targets(http_client, base_url, site, key) -> None:
    text = await get(http_client, markdown_url(base_url, site.url("/notes.txt"), app_id=key))
    assert text.code == 200
    assert text.body.decode() == "Line one\n\n* not a list to escape\nLine three"
    data = await get(http_client, markdown_url(base_url, site.url("/data.json"), app_id=key))
    assert data.body.decode().startswith('````json\n{\n  "ship": "Aurora",')
    assert data.body.decode().endswith("\n}\n````")
    response = await get(
        http_client,
        markdown_url(base_url, site.url("/manual.pdf"), app_id=key, format="json", chunking="true"),
    )
    body = json.loads(response.body)
    markdown = body["markdown"]
    assert markdown.startswith("# Harbour operations manual")
    assert "## Berths and tariffs" in markdown and "### Night arrivals" in markdown
    assert "| Berth | Depth (m) | Tariff per day |" in markdown
    assert "- Report the draught and the cargo." in markdown
    assert "1. Close the cargo hatches and report to the tower." in markdown
    assert "revised edition" not in markdown and "Page 1 of 3" not in markdown  # running lines
    assert body["debug"]["main_content"] == "document:pdf"
    assert body["chunks"][0]["heading_path"][0] == "Harbour operations manual"
    other = await get(http_client, markdown_url(base_url, site.url("/archive.zip"), app_id=key))
    error = assert_markdown_error(other, 404, -4000)
    assert "application/zip" in error["error"]["message"]
    assert "HTML, plain text, JSON and PDF" in error["error"]["message"]


@pytest.mark.gen_test(timeout=30)
async def test_a_parameter_given_twice_with_two_values_is_refused_naming_it(
    http_client, base_url, site, key, services
) -> None:
    url = markdown_url(base_url, site.url("/page"), app_id=key)
    for query, name, code in (
        ("&max_chars=100&max_chars=200", "max_chars", -2203),
        ("&format=json&format=markdown", "format", -2203),
    ):
        response = await get(http_client, url + query)
        body = assert_markdown_error(response, 400, code)
        assert f"{name} was given more than once" in body["error"]["message"], body
    shot = await get(
        http_client,
        f"{base_url}/api/1.1/screenshot/{quote(site.url('/page'), safe='')}"
        f"?app_id={key}&dimensions=xs&dimensions=lg",
    )
    assert shot.code == 400 and "dimensions was given more than once" in shot.body.decode()
    # The same value twice asks one thing: answered, as is the same key twice.
    same = await get(http_client, url + f"&format=json&format=json&app_id={key}")
    assert same.code == 200 and "markdown" in json.loads(same.body)


@pytest.mark.gen_test(timeout=30)
async def test_include_tags_that_match_nothing_are_warned_about(
    http_client, base_url, site, key
) -> None:
    for _ in range(2):  # converted, then the kept answer: warned both times
        response = await get(
            http_client, markdown_url(base_url, site.url("/page"), app_id=key, include_tags=".nope")
        )
        assert response.code == 200 and response.body.strip() == b""
        assert "include_tags matched nothing on the page" in warnings(response)
    response = await get(
        http_client,
        markdown_url(base_url, site.url("/page"), app_id=key, include_tags=".nope", format="json"),
    )
    assert any("include_tags matched nothing" in w for w in json.loads(response.body)["warnings"])
    found = await get(
        http_client, markdown_url(base_url, site.url("/page"), app_id=key, include_tags="#uri")
    )
    assert found.code == 200 and "include_tags" not in warnings(found)


@pytest.mark.gen_test(timeout=30)
async def test_head_answers_the_get_s_headers_billed_once(
    http_client, base_url, site, services
) -> None:
    metered = services.store.create_key("metered-org", "metered").key  # 3 credits a month
    url = markdown_url(base_url, site.url("/page"), app_id=metered)
    head = await http_client.fetch(url, method="HEAD", raise_error=False)
    assert head.code == 200 and head.body == b""
    assert head.headers["X-BILLING-REQUESTS"] == "1" and head.headers["X-Credits-Remaining"] == "2"
    got = await get(http_client, url)
    assert got.headers["X-Credits-Remaining"] == "1", "the HEAD was charged once"
    assert got.headers["X-Cache"] == "hit", "the GET reused the answer the HEAD made"
    for name in ("Content-Type", "Content-Length", "X-Markdown-Character-Count"):
        assert head.headers[name] == got.headers[name], name
    refused = await http_client.fetch(url + "&format=xml", method="HEAD", raise_error=False)
    assert refused.code == 400 and refused.body == b""
    assert refused.headers["X-BILLING-REQUESTS"] == "0"
