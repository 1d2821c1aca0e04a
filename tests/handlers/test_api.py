"""The Markdown endpoint and the request machinery, end to end: a real Pagecast application with a
SQLite store, the real fetcher and the worker pool, against a local origin site."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.httpserver import HTTPServer
from tornado.testing import bind_unused_port

from app.services import Services
from app.web import make_api_app
from services.pool import ConverterPool, ConvertSettings

ARTICLE = """<!doctype html><html lang="en"><head><title>Field notes</title>
<meta name="description" content="Notes from the field.">
<meta property="og:site_name" content="Notebook">
<link rel="canonical" href="/notes">
<style>body { color: red }</style><script>var secret = 1;</script></head>
<body><h1>Field notes</h1><p>First <a href="/next">next page</a> and <b>bold</b>.</p>
<h2>Details</h2><ul><li>one</li><li>two</li></ul>
<div class="ad">Buy now</div>
<p>Second paragraph with enough words to make truncation visible at a block boundary.</p>
<img src="/pic.png" alt="a picture"></body></html>"""


class Page(tornado.web.RequestHandler):
    def get(self, name: str) -> None:
        if name == "article":
            self.finish(ARTICLE)
        elif name == "pdf":
            self.set_header("Content-Type", "application/pdf")
            self.finish(b"%PDF-1.4 not html")
        elif name == "missing":
            self.set_status(404)
            self.finish("<html><body>gone</body></html>")
        elif name == "empty":
            self.finish("")
        else:
            self.finish(f"<html><body><p>{name}</p></body></html>")


@pytest.fixture
def origin(io_loop: Any) -> Iterator[str]:
    sock, port = bind_unused_port()
    server = HTTPServer(tornado.web.Application([(r"/(.*)", Page)]))
    server.add_sockets([sock])
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


async def get(http_client: AsyncHTTPClient, url: str, **kwargs: Any) -> HTTPResponse:
    return await http_client.fetch(url, raise_error=False, **kwargs)


def markdown_url(base_url: str, target: str, **params: str) -> str:
    query = "&".join(f"{name}={quote(value, safe='')}" for name, value in params.items())
    return f"{base_url}/api/3.0/markdown/{quote(target, safe='')}?{query}"


def assert_markdown_error(response: HTTPResponse, status: int, code: int) -> dict[str, Any]:
    assert response.code == status, response.body
    body = json.loads(response.body)
    assert set(body) == {"error", "request_id"}
    assert body["error"]["code"] == code and isinstance(body["error"]["message"], str)
    assert body["request_id"] == response.headers["X-Request-Id"]
    assert response.headers["X-BILLING-REQUESTS"] == "0"
    assert "Traceback" not in response.body.decode()
    return body


@pytest.mark.gen_test(timeout=20)
async def test_markdown_of_a_local_page(http_client, base_url, origin, key) -> None:
    response = await get(http_client, markdown_url(base_url, f"{origin}/article", app_id=key))
    assert response.code == 200, response.body
    text = response.body.decode()
    assert response.headers["Content-Type"].startswith("text/markdown")
    assert response.headers["X-Markdown-Character-Count"] == str(len(text))
    assert response.headers["X-BILLING-REQUESTS"] == "1"
    assert len(response.headers["X-Request-Id"]) >= 16
    assert "X-Markdown-Truncated" not in response.headers
    assert "# Field notes" in text and "## Details" in text
    assert f"[next page]({origin}/next)" in text
    assert f"![a picture]({origin}/pic.png)" in text
    assert "secret" not in text and "color: red" not in text and "\n\n\n" not in text


@pytest.mark.gen_test(timeout=20)
async def test_key_in_header_and_request_id_passthrough(http_client, base_url, origin, key) -> None:
    response = await get(
        http_client,
        markdown_url(base_url, f"{origin}/article"),
        headers={"api-key": key, "X-Request-Id": "client-chosen-id-1"},
    )
    assert response.code == 200
    assert response.headers["X-Request-Id"] == "client-chosen-id-1"


@pytest.mark.gen_test(timeout=20)
async def test_json_envelope(http_client, base_url, origin, key) -> None:
    response = await get(
        http_client, markdown_url(base_url, f"{origin}/article", app_id=key, format="json")
    )
    body = json.loads(response.body)
    assert response.code == 200
    assert body["request_id"] == response.headers["X-Request-Id"]
    assert body["markdown"].startswith("# Field notes")
    assert body["metadata"] == {
        "title": "Field notes",
        "description": "Notes from the field.",
        "canonical_url": f"{origin}/notes",
        "site_name": "Notebook",
        "image": "",
        "language": "en",
        "final_url": f"{origin}/article",
        "author": "",
        "published_at": "",
    }
    usage = body["usage"]
    assert usage["character_count"] == len(body["markdown"])
    assert usage["truncated"] is False and usage["truncation_reason"] is None
    assert usage["estimated_token_count"] > 0 and usage["chunk_count"] == 0
    assert body["debug"]["final_status_code"] == 200 and body["debug"]["proxy_used"] is None
    assert "ai_safety" not in body and "chunks" not in body

    response = await get(
        http_client,
        markdown_url(
            base_url,
            f"{origin}/article",
            app_id=key,
            format="json",
            include_markdown="0",
            include_metadata="FALSE",
        ),
    )
    body = json.loads(response.body)
    assert "markdown" not in body and "metadata" not in body and "usage" in body


@pytest.mark.gen_test(timeout=20)
async def test_max_chars_truncation(http_client, base_url, origin, key) -> None:
    response = await get(
        http_client, markdown_url(base_url, f"{origin}/article", app_id=key, max_chars="60")
    )
    assert response.code == 200
    assert len(response.body.decode()) <= 60
    assert response.headers["X-Markdown-Truncated"] == "true"
    assert response.headers["X-Markdown-Truncation-Reason"] == "max_chars_exceeded"
    response = await get(
        http_client,
        markdown_url(base_url, f"{origin}/article", app_id=key, max_chars="60", format="json"),
    )
    usage = json.loads(response.body)["usage"]
    assert usage["truncated"] is True and usage["max_chars"] == 60
    assert usage["truncation_reason"] == "max_chars_exceeded"


@pytest.mark.gen_test(timeout=20)
async def test_include_and_exclude_tags(http_client, base_url, origin, key) -> None:
    response = await get(
        http_client, markdown_url(base_url, f"{origin}/article", app_id=key, exclude_tags=".ad,ul")
    )
    text = response.body.decode()
    assert "Buy now" not in text and "one" not in text and "Field notes" in text
    response = await get(
        http_client, markdown_url(base_url, f"{origin}/article", app_id=key, include_tags="h2, ul")
    )
    assert response.body.decode().split() == ["##", "Details", "-", "one", "-", "two"]
    response = await get(
        http_client, markdown_url(base_url, f"{origin}/article", app_id=key, include_tags="p[[[")
    )
    body = assert_markdown_error(response, 400, -2203)
    assert "include_tags" in body["error"]["message"]


@pytest.mark.gen_test(timeout=20)
async def test_missing_and_bad_keys_are_401(http_client, base_url, origin, services, key) -> None:
    target = f"{origin}/article"
    assert_markdown_error(await get(http_client, markdown_url(base_url, target)), 401, -1000)
    assert_markdown_error(
        await get(http_client, markdown_url(base_url, target, app_id="pc_nope")), 401, -1000
    )
    prefix = key[:11]
    assert services.store.revoke_key(prefix)
    assert_markdown_error(
        await get(http_client, markdown_url(base_url, target, app_id=key)), 401, -1000
    )


@pytest.mark.parametrize(
    ("params", "code", "names"),
    [
        ({"format": "xml"}, -2200, ["format"]),
        ({"max_chars": "0"}, -2201, ["max_chars"]),
        ({"max_chars": "ten"}, -2201, ["max_chars"]),
        ({"include_links": "maybe"}, -2203, ["include_links"]),
        ({"chunk_size": "100", "max_chunks": "0"}, -2203, ["chunk_size", "max_chunks"]),
        (
            {"format": "json", "chunking": "true", "chunk_size": "400", "chunk_overlap": "300"},
            -2203,
            ["chunk_overlap"],
        ),
        ({"use_proxy": "true"}, -2203, ["use_proxy"]),
    ],
)
@pytest.mark.gen_test(timeout=20)
async def test_parameter_errors(http_client, base_url, origin, key, params, code, names) -> None:
    response = await get(
        http_client, markdown_url(base_url, f"{origin}/article", app_id=key, **params)
    )
    body = assert_markdown_error(response, 400, code)
    for name in names:
        assert name in body["error"]["message"]


@pytest.mark.parametrize(
    "target", ["ftp://example.com/", "javascript:alert(1)", "http://", "not a url"]
)
@pytest.mark.gen_test(timeout=20)
async def test_bad_target_url_is_2204(http_client, base_url, key, target) -> None:
    assert_markdown_error(
        await get(http_client, markdown_url(base_url, target, app_id=key)), 400, -2204
    )


@pytest.mark.gen_test(timeout=20)
async def test_the_parameters_rules_are_judged_before_the_target(
    http_client, base_url, key
) -> None:
    for rule_breaker in (
        {"format": "json", "chunking": "true", "chunk_size": "400", "chunk_overlap": "300"},
        {"include_tags": "div[["},
    ):
        url = markdown_url(base_url, "ftp://example.com/", app_id=key, **rule_breaker)
        assert_markdown_error(await get(http_client, url), 400, -2203)


@pytest.mark.gen_test(timeout=20)
async def test_fetch_failures(http_client, base_url, origin, key) -> None:
    port = int(origin.rsplit(":", 1)[1])
    sock, closed_port = bind_unused_port()
    sock.close()
    cases = [
        (f"http://127.0.0.2:{port}/article", 400, -3006),  # not in allow_hosts
        (f"http://10.0.0.1:{port}/", 400, -3006),
        (f"http://127.0.0.1:{closed_port}/", 400, -3001),
        (f"{origin}/missing", 400, -3008),
        (f"{origin}/pdf", 404, -4000),
        (f"{origin}/empty", 404, -4000),
    ]
    for target, status, code in cases:
        assert_markdown_error(
            await get(http_client, markdown_url(base_url, target, app_id=key)), status, code
        )


@pytest.mark.gen_test(timeout=20)
async def test_rate_limit_answers_429_with_retry_after(
    http_client, base_url, origin, services
) -> None:
    key = services.store.create_key("slow-org", "tiny").key
    url = markdown_url(base_url, f"{origin}/article", app_id=key)
    assert (await get(http_client, url)).code == 200
    assert (await get(http_client, url)).code == 200
    response = await get(http_client, url)
    assert_markdown_error(response, 429, -1002)
    assert int(response.headers["Retry-After"]) >= 1


@pytest.mark.gen_test(timeout=20)
async def test_credits_are_recorded_in_usage(http_client, base_url, origin, services, key) -> None:
    url = markdown_url(base_url, f"{origin}/article", app_id=key)
    for _ in range(2):
        assert (await get(http_client, url)).code == 200
    await get(http_client, markdown_url(base_url, f"{origin}/pdf", app_id=key))
    await services.store.flush_usage()
    rows = [row for row in services.store.usage("acme") if row.endpoint == "markdown"]
    assert len(rows) == 1 and rows[0].requests == 3 and rows[0].credits == 2


@pytest.mark.gen_test(timeout=20)
async def test_unknown_route_is_json_404(http_client, base_url) -> None:
    response = await get(http_client, f"{base_url}/nope?app_id=secret")
    body = json.loads(response.body)
    assert (
        response.code == 404 and body["success"] is False and body["error"]["code"] == "not_found"
    )
    assert response.headers["X-BILLING-REQUESTS"] == "0" and response.headers["X-Request-Id"]


class ExplodingFetcher:
    """Stands in for the fetcher to make the handler fail in an unexpected way."""

    async def fetch(self, url: str, **kwargs: Any) -> Any:
        raise RuntimeError("database password is hunter2")

    def close(self) -> None:
        pass


@pytest.mark.gen_test(timeout=20)
async def test_unexpected_exception_is_a_clean_500(
    http_client, base_url, services, key, caplog
) -> None:
    services.pages.fetcher = ExplodingFetcher()  # type: ignore[assignment]
    response = await get(http_client, markdown_url(base_url, "http://127.0.0.1:2/", app_id=key))
    assert response.code == 500
    body = json.loads(response.body)
    assert body["error"]["code"] == -5000 and body["request_id"] == response.headers["X-Request-Id"]
    assert "hunter2" not in response.body.decode() and "Traceback" not in response.body.decode()
    logged = "\n".join(record.getMessage() + str(record.exc_info) for record in caplog.records)
    assert "hunter2" in logged  # the traceback goes to the log, with the request
    assert key not in logged  # but never the query string with the key


@pytest.mark.gen_test(timeout=30)
async def test_conversion_overrun_is_4002_and_the_pool_recovers(
    http_client, base_url, services, key
):
    """A page whose conversion outlives the pool's timeout: -4002, and the next request works."""
    big = (
        "<html><body>"
        + "<div><p>cell <b>x</b> <a href='/y'>y</a></p></div>" * 60_000
        + "</body></html>"
    )

    class Big(tornado.web.RequestHandler):
        def get(self) -> None:
            self.finish(big if self.request.path == "/big" else "<p>small</p>")

    sock, port = bind_unused_port()
    server = HTTPServer(tornado.web.Application([(r"/.*", Big)]))
    server.add_sockets([sock])
    pool = ConverterPool(ConvertSettings(workers=1, timeout=30))
    await pool.warm_up()
    pool.settings.timeout = 0.2  # the big page takes far longer than this
    services.pool = pool
    services.settings.fetch.max_body_bytes = 50 * 1024 * 1024
    try:
        response = await get(
            http_client, markdown_url(base_url, f"http://127.0.0.1:{port}/big", app_id=key)
        )
        assert_markdown_error(response, 500, -4002)
        pool.settings.timeout = 30  # the rebuilt pool starts its worker within this request
        response = await get(
            http_client, markdown_url(base_url, f"http://127.0.0.1:{port}/s", app_id=key)
        )
        assert response.code == 200 and response.body.decode().strip() == "small"
    finally:
        server.stop()
        pool.close()


@pytest.mark.parametrize(
    ("params", "code", "name"),
    [
        ({"accept_lang": "zh-中文"}, -2203, "accept_lang"),
        ({"accept_lang": "en\r\nX-Evil: 1"}, -2203, "accept_lang"),
        ({"include_tags": ":is(" * 1500 + "p" + ")" * 1500}, -2203, "include_tags"),
        ({"exclude_tags": ":is(" * 400 + "p" + ")" * 400}, -2203, "exclude_tags"),
    ],
)
@pytest.mark.gen_test(timeout=20)
async def test_hostile_parameters_are_400(http_client, base_url, origin, key, params, code, name):
    response = await get(
        http_client, markdown_url(base_url, f"{origin}/article", app_id=key, **params)
    )
    body = assert_markdown_error(response, 400, code)
    assert name in body["error"]["message"]


@pytest.mark.gen_test(timeout=20)
async def test_choice_values_are_trimmed(http_client, base_url, origin, key) -> None:
    response = await get(
        http_client, markdown_url(base_url, f"{origin}/article", app_id=key, format=" json ")
    )
    assert response.code == 200 and json.loads(response.body)["markdown"].startswith(
        "# Field notes"
    )


@pytest.mark.gen_test(timeout=20)
async def test_a_flood_of_unknown_keys_is_slowed_down(http_client, base_url, origin, key) -> None:
    codes = []
    for index in range(25):
        bogus = f"pc_{index:032d}"
        response = await get(http_client, markdown_url(base_url, f"{origin}/article", app_id=bogus))
        codes.append(json.loads(response.body)["error"]["code"])
    assert codes[:20] == [-1000] * 20 and set(codes[20:]) == {-1002}
    # A valid key from the same client is not: the brake is for unknown keys alone.
    response = await get(http_client, markdown_url(base_url, f"{origin}/article", app_id=key))
    assert response.code == 200, response.body


@pytest.mark.gen_test(timeout=20)
async def test_monthly_quota_in_both_error_shapes(http_client, base_url, origin, services) -> None:
    """A plan's monthly credits: requests beyond them are 429 quota_exceeded until next month;
    what was used is counted across the flush to the database."""
    key = services.store.create_key("metered-org", "metered").key
    url = markdown_url(base_url, f"{origin}/article", app_id=key)
    assert (await get(http_client, url)).code == 200
    assert (await get(http_client, url)).code == 200
    await services.store.flush_usage()  # half of the usage stored, half still counted here
    assert (await get(http_client, url)).code == 200
    response = await get(http_client, url)
    body = assert_markdown_error(response, 429, -1003)
    assert "3 monthly credits" in body["error"]["message"]
    assert 1 <= int(response.headers["Retry-After"]) <= 31 * 86400
    oembed = await get(http_client, f"{base_url}/api/3.0/oembed?url={quote(origin)}&app_id={key}")
    assert oembed.code == 429
    assert json.loads(oembed.body)["error"]["code"] == "quota_exceeded"
    assert await services.store.month_credits("metered-org") == 3
