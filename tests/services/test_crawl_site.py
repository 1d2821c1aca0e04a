"""The local crawl site behaves as its docstring says: what the map and crawl tests rely on."""

from __future__ import annotations

import gzip
import math
import time
import urllib.request

import pytest
from tornado.httpclient import AsyncHTTPClient

from tests.crawl_site import METADATA_REDIRECT, CrawlSite, SiteShape, crawl_site

__all__ = ["crawl_site"]


async def _get(url: str, **kwargs: object) -> tuple[int, dict[str, str], bytes]:
    response = await AsyncHTTPClient().fetch(url, raise_error=False, **kwargs)
    return response.code, dict(response.headers), response.body


@pytest.mark.gen_test
async def test_robots_and_sitemaps_are_served(crawl_site: CrawlSite) -> None:
    status, _, body = await _get(crawl_site.url("/robots.txt"))
    robots = body.decode()
    assert status == 200
    assert "Disallow: /private/" in robots and "Allow: /private/public-note" in robots
    assert f"Sitemap: {crawl_site.url('/sitemap_index.xml')}" in robots
    _, _, index = await _get(crawl_site.url("/sitemap_index.xml"))
    assert b"<sitemapindex" in index and b"more.xml.gz" in index
    status, headers, packed = await _get(crawl_site.url("/sitemaps/more.xml.gz"))
    assert status == 200 and headers["Content-Type"] == "application/gzip"
    assert gzip.decompress(packed).startswith(b"<?xml")
    assert crawl_site.file_hits["/robots.txt"] == 1
    assert not crawl_site.page_hits


@pytest.mark.gen_test
async def test_redirect_chain_and_failures(crawl_site: CrawlSite) -> None:
    status, headers, _ = await _get(crawl_site.url("/old/25"), follow_redirects=False)
    assert (status, headers["Location"]) == (301, "/moved/25")
    status, headers, _ = await _get(crawl_site.url("/moved/25"), follow_redirects=False)
    assert (status, headers["Location"]) == (302, crawl_site.url("/docs/landing-25"))
    status, _, body = await _get(crawl_site.url("/docs/landing-25"))
    assert status == 200 and b'href="after-25"' in body
    assert crawl_site.redirected[crawl_site.url("/old/25")] == crawl_site.url("/docs/landing-25")
    status, headers, _ = await _get(crawl_site.url("/go/metadata"), follow_redirects=False)
    assert (status, headers["Location"]) == (302, METADATA_REDIRECT)
    assert (await _get(crawl_site.url("/docs/broken")))[0] == 500
    assert (await _get(crawl_site.url("/docs/missing")))[0] == 404
    assert crawl_site.page_hits["/old/25"] == 1 and crawl_site.page_hits["/docs/broken"] == 1


@pytest.mark.gen_test
async def test_duplicates_count_as_one_page_and_hosts_are_recorded(
    crawl_site: CrawlSite,
) -> None:
    for path in ("/docs/page-3", "/docs/page-3/", "/docs/page-3?utm_source=x"):
        assert (await _get(crawl_site.url(path)))[0] == 200
    assert crawl_site.page_hits["/docs/page-3"] == 3
    await _get(crawl_site.url("/docs/page-4"), headers={"Host": "localhost"})
    assert crawl_site.foreign_hits == {"/docs/page-4": 1}
    assert crawl_site.trap is not None
    await _get(crawl_site.trap.url("/stolen"))
    assert crawl_site.trap_hits == {"/stolen": 1}


@pytest.mark.gen_test
async def test_slow_pages_are_slow(io_loop: object) -> None:
    site = CrawlSite(SiteShape(pages=8, slow_pages=1, slow_seconds=0.3)).start()
    try:
        started = time.monotonic()
        assert (await _get(site.url("/docs/slow-1")))[0] == 200
        assert time.monotonic() - started >= 0.3
    finally:
        await site.close()


def test_expected_crawl_depths_and_scope(crawl_site: CrawlSite) -> None:
    expected = crawl_site.expected_crawl()
    url = crawl_site.url
    assert expected[url("/")] == 0
    for i in (1, 2, 3, 100, 300):
        assert expected[url(f"/docs/page-{i}")] == math.floor(math.log2(i)) + 1
    assert expected[url("/old/25")] == expected[url("/docs/page-25")] + 1
    assert expected[url("/docs/after-25")] == expected[url("/old/25")] + 1
    assert url("/docs/landing-25") not in expected
    assert crawl_site.failing <= expected.keys()
    assert url("/private/public-note") in expected and url("/private/secret") not in expected
    assert not any("draft" in u or "print=" in u or "orphan" in u for u in expected)
    assert all(u.startswith(url("/")) for u in expected)
    shape = crawl_site.shape
    redirects = shape.pages // 25
    assert len(expected) == (
        1 + shape.pages + 1 + shape.blog_posts + 1 + shape.slow_pages + 3 + 2 * redirects
    )
    shallow = crawl_site.expected_crawl(max_depth=2)
    assert max(shallow.values()) == 2 and url("/docs/page-4") not in shallow
    docs = crawl_site.expected_crawl(include=("/docs/*",), exclude=("/docs/slow-*",))
    assert url("/") in docs and url("/blog") not in docs
    assert not any("/slow-" in u for u in docs) and url("/docs/page-300") in docs


def test_expected_map(crawl_site: CrawlSite) -> None:
    url = crawl_site.url
    found = crawl_site.expected_map()
    assert {url("/docs/orphan-1"), url("/docs/orphan-text"), url("/archive/a-3")} <= found
    assert url("/docs/page-300") in found and url("/blog/post-20") in found
    assert url("/docs/draft-1") not in found and url("/private/listed") not in found
    assert not any("localhost" in u for u in found)
    assert url("/old/25") not in found, "only the start page's links and the sitemaps"
    links_only = crawl_site.expected_map(sitemap=False)
    assert links_only == {url("/"), url("/docs/page-1"), url("/blog"), url("/private/public-note")}
    docs = crawl_site.expected_map(include=("/docs/*",))
    assert url("/blog/post-1") not in docs and url("/docs/orphan-2") in docs


def test_robots_rules_of_the_site(crawl_site: CrawlSite) -> None:
    allows = crawl_site.robots_allows
    assert allows(crawl_site.url("/private/public-note"))
    assert not allows(crawl_site.url("/private/secret"))
    assert not allows(crawl_site.url("/docs/page-9?print=1"))
    assert allows(crawl_site.url("/docs/page-9?view=1"))


def test_the_site_runs_on_a_thread_of_its_own() -> None:
    with (
        CrawlSite(SiteShape(pages=10)).running_in_thread() as site,
        urllib.request.urlopen(site.url("/docs/page-1"), timeout=5) as response,
    ):
        assert b"Docs page 1" in response.read()
    assert site.page_hits["/docs/page-1"] == 1


@pytest.mark.gen_test
async def test_a_named_site_has_a_subdomain_and_other_hosts(io_loop: object) -> None:
    site = CrawlSite(SiteShape(pages=12, host="crawl.test")).start()
    try:
        assert site.url("/") == f"http://crawl.test:{site.port}/"
        assert await site.resolver("docs.crawl.test", 80) == ["127.0.0.1"]
        local = f"http://127.0.0.1:{site.port}"
        status, _, body = await _get(local + "/guide-1", headers={"Host": site.subdomain})
        assert status == 200 and b"Guide 1" in body
        assert site.subdomain_hits == {"/guide-1": 1} and not site.page_hits
        await _get(local + "/", headers={"Host": f"evilcrawl.test:{site.port}"})
        assert site.foreign_hits == {"/": 1}
        plain = site.expected_crawl()
        wide = site.expected_crawl(subdomains=True)
        subdomain = {site.sub_url("/"), *(site.sub_url(f"/guide-{k}") for k in (1, 2, 3))}
        assert wide.keys() - plain.keys() == subdomain
        assert wide[site.sub_url("/guide-1")] == 2
        assert site.sub_url("/hidden") not in wide, "the subdomain's robots.txt refuses it"
        assert not any("evil" in url or "elsewhere" in url for url in wide)
        assert site.expected_map(subdomains=True) - site.expected_map() == {site.sub_url("/")}
    finally:
        await site.close()
