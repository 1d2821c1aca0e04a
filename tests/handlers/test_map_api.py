"""``POST /api/3.0/map`` over HTTP against the local crawl site: exactly the allowed URLs from
robots.txt's sitemaps (index, gzip, nested, text) and the start page's links, the patterns and
modes, the limit and the bounds, validation of the JSON body, and refused addresses."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from app.services import Services
from app.web import make_api_app
from browser.fetch.client import Fetcher
from convert.crawl.urls import url_key
from handlers.openapi.document import build_openapi
from tests.crawl_site import CrawlSite, SiteShape, crawl_site
from tests.handlers.test_api import assert_markdown_error
from tests.origin import Origin, serve

__all__ = ["crawl_site"]


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


async def post_map(
    http_client: AsyncHTTPClient, base_url: str, key: str, body: Any, query: str = ""
) -> HTTPResponse:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return await http_client.fetch(
        f"{base_url}/api/3.0/map{query}",
        method="POST",
        body=raw,
        headers={"X-API-Key": key, "Content-Type": "application/json"},
        raise_error=False,
    )


def keys(response: HTTPResponse) -> set[str]:
    assert response.code == 200, response.body
    urls = json.loads(response.body)["urls"]
    assert len(urls) == len({url_key(url) for url in urls}), "one URL per page"
    return {url_key(url) for url in urls}


@pytest.mark.gen_test(timeout=30)
async def test_map_finds_exactly_the_allowed_urls(
    http_client, base_url, key, crawl_site: CrawlSite
) -> None:
    response = await post_map(http_client, base_url, key, {"url": crawl_site.url("/")})
    assert keys(response) == crawl_site.expected_map()
    body = json.loads(response.body)
    assert body["urls"][0] == crawl_site.url("/")
    assert body["robots"] == "found" and body["complete"] and not body["truncated"]
    assert body["sitemaps_read"] == 6 and body["sitemaps_failed"] == 0
    assert body["sources"] == {"start": 1, "links": 3, "sitemaps": body["count"] - 4}
    assert response.headers["X-BILLING-REQUESTS"] == "1"
    assert crawl_site.page_hits == {"/": 1}, "only the start page is fetched"
    assert all(count == 1 for count in crawl_site.file_hits.values())
    assert len(crawl_site.file_hits) == 7  # robots.txt and six sitemap files
    assert not crawl_site.trap_hits and not crawl_site.foreign_hits


@pytest.mark.gen_test(timeout=30)
async def test_patterns_modes_and_limit(http_client, base_url, key, crawl_site: CrawlSite) -> None:
    start = crawl_site.url("/")
    docs = {"url": start, "include": ["/docs/*"], "exclude": ["/docs/orphan-*"]}
    response = await post_map(http_client, base_url, key, docs)
    assert keys(response) == crawl_site.expected_map(
        include=("/docs/*",), exclude=("/docs/orphan-*",)
    )
    links = await post_map(http_client, base_url, key, {"url": start, "sitemap": "skip"})
    assert keys(links) == crawl_site.expected_map(sitemap=False)
    only = await post_map(http_client, base_url, key, {"url": start, "sitemap": "only"})
    assert json.loads(only.body)["sources"]["links"] == 0
    assert keys(only) == crawl_site.expected_map() - {
        crawl_site.url("/private/public-note"),
        crawl_site.url("/blog"),
    }
    limited = await post_map(http_client, base_url, key, {"url": start, "limit": 10})
    body = json.loads(limited.body)
    assert body["count"] == 10 and body["truncated"]


@pytest.mark.gen_test(timeout=30)
async def test_sitemap_bound_leaves_the_map_incomplete(
    http_client, base_url, key, services: Services, crawl_site: CrawlSite
) -> None:
    services.settings.map.max_sitemaps = 2
    response = await post_map(http_client, base_url, key, {"url": crawl_site.url("/")})
    body = json.loads(response.body)
    assert response.code == 200 and not body["complete"] and body["sitemaps_read"] == 2
    assert sum(crawl_site.file_hits.values()) == 3


@pytest.mark.gen_test(timeout=30)
async def test_the_body_is_validated_all_at_once(http_client, base_url, key) -> None:
    response = await post_map(
        http_client,
        base_url,
        key,
        {"include": "/docs/*", "exclude": ["/ok", 3], "limit": 0, "subdomains": "maybe"},
    )
    body = assert_markdown_error(response, 400, -2203)
    for name in ("url", "include", "exclude", "limit", "subdomains"):
        assert name in body["error"]["message"]
    for raw in (b"not json", b"[1, 2]", b""):
        assert_markdown_error(await post_map(http_client, base_url, key, raw), 400, -2203)
    bad = await post_map(http_client, base_url, key, {"url": "https://e.org/", "include": ["docs"]})
    assert "must start with /" in assert_markdown_error(bad, 400, -2203)["error"]["message"]


@pytest.mark.gen_test(timeout=30)
async def test_unknown_fields_are_named(http_client, base_url, key, crawl_site: CrawlSite) -> None:
    response = await post_map(
        http_client,
        base_url,
        key,
        {"url": crawl_site.url("/"), "limt": 5, "sitemap": "skip"},
        query="?includes=/x",
    )
    assert response.code == 200
    warnings = response.headers["X-Pagecast-Warnings"]
    assert "'limt' (did you mean limit?)" in warnings and "'includes'" in warnings
    assert json.loads(response.body)["warnings"]


@pytest.mark.gen_test(timeout=30)
@pytest.mark.parametrize(
    "target",
    ["http://169.254.169.254/latest/", "http://10.0.0.1/", "http://[::1]:8080/", "ftp://e.org/"],
)
async def test_refused_start_urls(http_client, base_url, key, target: str) -> None:
    response = await post_map(http_client, base_url, key, {"url": target})
    code = -2204 if target.startswith("ftp") else -3006
    assert_markdown_error(response, 400, code)


@pytest.mark.gen_test(timeout=30)
async def test_a_failed_start_page_with_nothing_else_is_an_error(
    http_client, base_url, key, crawl_site: CrawlSite
) -> None:
    body = {"url": crawl_site.url("/docs/broken"), "sitemap": "skip"}
    assert_markdown_error(await post_map(http_client, base_url, key, body), 400, -3008)


class _FailingRobots(tornado.web.RequestHandler):
    def get(self, path: str) -> None:
        if path == "robots.txt":
            self.set_status(503)
            return
        self.write('<html><body><a href="/a">a</a><a href="/b">b</a></body></html>')


@pytest.fixture
def failing_robots(io_loop: Any) -> Iterator[Origin]:
    origin = serve(tornado.web.Application([(r"/(.*)", _FailingRobots)]))
    yield origin
    io_loop.run_sync(origin.close)


@pytest.mark.gen_test(timeout=30)
async def test_unreachable_robots_means_only_the_start_url(
    http_client, base_url, key, failing_robots: Origin
) -> None:
    response = await post_map(http_client, base_url, key, {"url": failing_robots.url("/")})
    body = json.loads(response.body)
    assert body["robots"] == "unreachable"
    assert body["urls"] == [failing_robots.url("/")]


@pytest.mark.gen_test(timeout=30)
async def test_subdomains_with_their_own_robots(http_client, base_url, key, services) -> None:
    site = CrawlSite(SiteShape(pages=40, host="crawl.test")).start()
    services.settings.fetch.allow_hosts = site.allow_hosts
    original = services.fetcher
    services.fetcher = Fetcher(services.settings.fetch, resolver=site.resolver)
    try:
        plain = await post_map(http_client, base_url, key, {"url": site.url("/")})
        assert keys(plain) == site.expected_map()
        wide = await post_map(
            http_client, base_url, key, {"url": site.url("/"), "subdomains": True}
        )
        assert keys(wide) == site.expected_map(subdomains=True)
        assert site.subdomain_hits == {"/robots.txt": 1}, "its robots.txt read, nothing else"
        assert not site.foreign_hits
        services.settings.map.max_hosts = 1
        bounded = await post_map(
            http_client, base_url, key, {"url": site.url("/"), "subdomains": True}
        )
        assert keys(bounded) == site.expected_map()
        assert not json.loads(bounded.body)["complete"]
    finally:
        services.fetcher.close()
        services.fetcher = original
        await site.close()


class _Moved(tornado.web.RequestHandler):
    def initialize(self, to: str) -> None:
        self.to = to

    def get(self, path: str) -> None:
        self.redirect(self.to, status=301)


@pytest.mark.gen_test(timeout=30)
async def test_a_start_url_that_moves_to_another_site_maps_that_site(
    http_client, base_url, key, io_loop, crawl_site: CrawlSite
) -> None:
    moved = serve(tornado.web.Application([(r"/(.*)", _Moved, {"to": crawl_site.url("/")})]))
    try:
        response = await post_map(http_client, base_url, key, {"url": moved.url("/")})
        assert keys(response) == crawl_site.expected_map()
        assert json.loads(response.body)["url"] == crawl_site.url("/")
    finally:
        await moved.close()


def test_the_document_describes_the_body() -> None:
    operation = build_openapi("http://x")["paths"]["/api/3.0/map"]["post"]
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    assert schema["required"] == ["url"]
    assert schema["properties"]["include"]["type"] == "array"
    assert schema["properties"]["limit"]["maximum"] == 5000
    assert [p["name"] for p in operation["parameters"]] == ["app_id"]
