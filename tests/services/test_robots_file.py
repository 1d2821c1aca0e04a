"""A site's robots.txt fetched and read: its rules, none for a 4xx, nothing when it fails."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import tornado.web

from app.config import Settings
from browser.fetch.client import Fetcher
from services.robots_file import fetch_robots, robots_url
from tests.crawl_site import CrawlSite, crawl_site
from tests.origin import Origin, closed_port, serve

__all__ = ["crawl_site"]


class _NoRobots(tornado.web.RequestHandler):
    def get(self) -> None:
        self.set_status(404)


@pytest.fixture
def bare(io_loop: Any) -> Iterator[Origin]:
    origin = serve(tornado.web.Application([(r"/.*", _NoRobots)]))
    yield origin
    io_loop.run_sync(origin.close)


def test_robots_url() -> None:
    assert robots_url("https://Example.org:8443/a/b?c#d") == "https://Example.org:8443/robots.txt"


@pytest.mark.gen_test(timeout=20)
async def test_each_state(settings: Settings, crawl_site: CrawlSite, bare: Origin) -> None:
    fetcher = Fetcher(settings.fetch)
    try:
        found = await fetch_robots(fetcher, crawl_site.url("/docs/page-1"))
        assert found.state == "found" and found.url == crawl_site.url("/robots.txt")
        assert not found.rules.allowed(crawl_site.url("/private/secret"))
        assert found.rules.sitemaps[0] == crawl_site.url("/sitemap_index.xml")
        absent = await fetch_robots(fetcher, bare.url("/x"))
        assert absent.state == "absent" and absent.rules.allowed(bare.url("/anything"))
        down = await fetch_robots(fetcher, f"http://127.0.0.1:{closed_port()}/")
        assert down.state == "unreachable" and not down.rules.allowed("/anything")
        refused = await fetch_robots(fetcher, "http://169.254.169.254/")
        assert refused.state == "unreachable"
    finally:
        fetcher.close()
