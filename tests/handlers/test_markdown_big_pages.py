"""Pages too big to convert whole, over HTTP on loopback: a page of half a million links (just
under the fetcher's 10 MiB body cap) answers within the conversion's time limit, cut to its first
elements and saying so; a conversion that still runs past the limit answers the documented
conversion_failed error, and the log holds one warning line naming the page's size, no
traceback."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tornado.web

from app.config import Settings
from app.services import Services
from app.web import make_api_app
from services.pool import ConverterPool
from tests.conftest import make_settings
from tests.handlers.test_api import assert_markdown_error, markdown_url
from tests.origin import Origin, serve

LINKS = 500_000
TIMEOUT = 4.0
"""The conversion's time limit in these tests (30 s by default)."""
CAPPED = 20_000
"""Elements converted in the test that answers a result: a few seconds' work at most (parsing
and cleaning the whole page included)."""
ROOMY = Settings().convert.timeout
"""The time limit of the test that answers a result: the default, which the element cap is
meant to keep the conversion well within. The cut page still costs about 7 s of CPU on a
two-core test host (parsing and cleaning the whole page), which took more than 15 s of wall
clock while the other test worker kept both cores busy."""


def many_links(count: int = LINKS) -> str:
    """A page of ``count`` links and nothing else (9.9 MB for half a million)."""
    rows = "".join(f"<a href=/{number:x}>a</a>" for number in range(count))
    return f"<html><head><title>Links</title></head><body>{rows}</body></html>"


@pytest.fixture(scope="module")
def big_page() -> str:
    page = many_links()
    assert 9_000_000 < len(page) < Settings().fetch.max_body_bytes
    return page


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.farm.warm_contexts = 0
    settings.convert.timeout = TIMEOUT
    return settings


@pytest.fixture
def pool(settings: Settings) -> Iterator[ConverterPool]:
    """A worker with this module's time limit (the session's pool keeps the default)."""
    pool = ConverterPool(settings.convert)
    yield pool
    pool.close(grace=0)


@pytest.fixture
def origin(io_loop: Any, big_page: str) -> Iterator[Origin]:
    class Page(tornado.web.RequestHandler):
        def get(self) -> None:
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(big_page)

    site = serve(tornado.web.Application([(r"/.*", Page)]))
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The captured log records that carry a traceback."""
    return [record.getMessage() for record in caplog.records if record.exc_info]


@pytest.mark.gen_test(timeout=60)
async def test_a_page_of_half_a_million_links_is_cut_and_says_so(
    http_client, base_url, origin, key, settings, caplog
) -> None:
    caplog.set_level(logging.INFO)
    settings.convert.max_elements = CAPPED
    settings.convert.timeout = ROOMY
    started = time.monotonic()
    response = await http_client.fetch(
        markdown_url(base_url, origin.url("/links"), app_id=key, format="json"),
        raise_error=False,
        request_timeout=60,
    )
    assert time.monotonic() - started < ROOMY + 5  # the fetch, then the conversion
    assert response.code == 200, response.body[:500]
    assert response.headers["X-Markdown-Truncated"] == "true"
    assert response.headers["X-Markdown-Truncation-Reason"] == "too_many_elements"
    body = json.loads(response.body)
    assert body["usage"]["truncated"] is True
    assert body["usage"]["truncation_reason"] == "too_many_elements"
    assert f"({origin.url('/0')})" in body["markdown"]
    assert f"({origin.url(f'/{LINKS - 1:x}')})" not in body["markdown"]
    assert not tracebacks(caplog)


@pytest.mark.gen_test(timeout=60)
async def test_a_conversion_past_the_limit_is_conversion_failed_with_one_warning(
    http_client, base_url, origin, key, settings, caplog
) -> None:
    caplog.set_level(logging.INFO)
    settings.convert.max_elements = LINKS * 2  # nothing cut: the conversion overruns
    started = time.monotonic()
    response = await http_client.fetch(
        markdown_url(base_url, origin.url("/links"), app_id=key),
        raise_error=False,
        request_timeout=60,
    )
    assert time.monotonic() - started < TIMEOUT + 5
    body = assert_markdown_error(response, 500, -4002)
    assert body["error"]["message"] == (
        f"the page (9.9 MB) was too large or complex to convert in {TIMEOUT:g} s"
    )
    assert not tracebacks(caplog)
    assert not any("Traceback" in record.getMessage() for record in caplog.records)
    warnings = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert len(warnings) == 1, [record.getMessage() for record in warnings]
    assert "(9.9 MB)" in warnings[0].getMessage()
    assert "too large or complex" in warnings[0].getMessage()
