"""The database going away under a running server: what needs the database answers the
documented 503 (``unavailable`` / -5004, with Retry-After) or, for a hosted frame that cannot be
stored, the documented 502, never a 500; what does not (a fresh fetch) still answers; and nothing
is logged as Pagecast's own failure.

The store runs on a Postgres database of its own that the test drops (``WITH (FORCE)`` ends
its connections) once the key has been looked up: pooled connections break and new ones are
refused, as in a real outage.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from app.config import Settings
from app.services import Services
from app.web import make_api_app
from tests.conftest import fresh_database, make_settings, pg_admin
from tests.origin import Origin, serve

pytestmark = pytest.mark.postgres

PAGE = """<html><head><title>Outage</title><meta property="og:title" content="Outage">
<meta property="og:description" content="A page while the database is down."></head>
<body><article><h1>Outage</h1><p>Written while the database was down.</p></article></body></html>"""


class Page(tornado.web.RequestHandler):
    def get(self, name: str) -> None:
        self.finish(PAGE)


@pytest.fixture
def database() -> Iterator[tuple[str, str]]:
    with fresh_database("pagecast_outage") as created:
        yield created


@pytest.fixture
def settings(tmp_path: Path, database: tuple[str, str]) -> Settings:
    settings = make_settings(tmp_path)
    settings.store.database_url = database[1]
    settings.store.auth_cache_seconds = 60  # the key stays known through the outage
    return settings


@pytest.fixture
def origin(io_loop: Any) -> Iterator[Origin]:
    site = serve(tornado.web.Application([(r"/(.*)", Page)]))
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


async def get(client: AsyncHTTPClient, url: str) -> HTTPResponse:
    return await client.fetch(url, raise_error=False, request_timeout=30)


@pytest.mark.gen_test(timeout=60)
async def test_endpoints_answer_503_while_the_database_is_gone(
    http_client: AsyncHTTPClient,
    base_url: str,
    origin: Origin,
    services: Services,
    database: tuple[str, str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    key = services.store.create_key("outage", "pro").key
    target = quote(origin.url("/article"), safe="")
    markdown = f"{base_url}/api/3.0/markdown/{target}?app_id={key}"
    oembed = f"{base_url}/api/1.1/oembed/{quote(origin.url('/card'), safe='')}?app_id={key}"
    assert (
        await get(http_client, markdown)
    ).code == 200  # the key is now known without the database
    caplog.set_level(logging.WARNING)

    pg_admin(f'DROP DATABASE "{database[0]}" WITH (FORCE)')

    # The answer this process keeps in memory needs no database.
    kept = await get(http_client, markdown + "&cache_ok=true")
    assert kept.code == 200 and kept.headers["X-Cache"] == "hit", kept.body
    # Another answer of the page needs the page cache.
    answer = await get(http_client, markdown + "&cache_ok=true&max_chars=5000")
    assert answer.code == 503, answer.body
    body = json.loads(answer.body)
    assert body["error"]["code"] == -5004
    assert answer.headers["Retry-After"] == "5"
    assert answer.headers["X-BILLING-REQUESTS"] == "0"

    # A fresh fetch needs no database: answered, and its cache write fails in the background.
    answer = await get(http_client, markdown + "&cache_ok=false")
    assert answer.code == 200, answer.body

    answer = await get(http_client, oembed)
    assert answer.code in (502, 503), answer.body
    error = json.loads(answer.body)["error"]
    assert error["code"] in ("frame_generation_failed", "unavailable")
    assert "Traceback" not in answer.body.decode()

    await services.pages.drain(5.0)  # the background cache and strategy writes have failed too
    assert "Traceback" not in caplog.text
    assert "unexpected failure" not in caplog.text
    assert "database" in caplog.text  # the store said what failed
