"""The pure pieces of site discovery: URL keys, robots.txt, sitemaps, links and the crawl scope."""

from __future__ import annotations

import gzip

import pytest

from convert.crawl.discovery import page_links, scoped_urls, sitemap_urls
from convert.crawl.links import extract_links
from convert.crawl.robots import RobotsRules, parse_robots, rules_for_response
from convert.crawl.scope import CrawlScope, PatternError, ScopeRefusal, check_patterns
from convert.crawl.sitemaps import SitemapKind, parse_sitemap
from convert.crawl.urls import CrawlURLError, clean_url, url_key


@pytest.mark.parametrize(
    ("url", "cleaned", "key"),
    [
        ("HTTP://Example.ORG:80", "http://example.org/", "http://example.org/"),
        ("https://example.org:443/a/#top", "https://example.org/a/", "https://example.org/a"),
        (
            "https://example.org/p?utm_source=x&b=2&gclid=1&a=1&FBCLID=z&b=1",
            "https://example.org/p?a=1&b=2&b=1",
            "https://example.org/p?a=1&b=2&b=1",
        ),
        ("https://example.org/p?utm_medium=mail", "https://example.org/p", "https://example.org/p"),
        ("https://example.org/a/./b/../c/", "https://example.org/a/c/", "https://example.org/a/c"),
        ("https://example.org/%7euser/%2f", "https://example.org/~user/%2F", None),
        ("http://example.org:8080//", "http://example.org:8080//", "http://example.org:8080/"),
        ("http://[::1]:1/", "http://[::1]:1/", "http://[::1]:1/"),
        (
            "https://example.org/caf\u00e9 menu?q=cr\u00e8me br\u00fbl\u00e9e",
            "https://example.org/caf%C3%A9%20menu?q=cr%C3%A8me%20br%C3%BBl%C3%A9e",
            None,
        ),
        ("https://example.org/caf%c3%a9", "https://example.org/caf%C3%A9", None),
    ],
)
def test_clean_url_and_key(url: str, cleaned: str, key: str | None) -> None:
    assert clean_url(url) == cleaned
    assert url_key(url) == (key or cleaned)


@pytest.mark.parametrize(
    "url", ["mailto:a@example.org", "javascript:void(0)", "/relative", "ftp://example.org/", ""]
)
def test_clean_url_refuses_what_is_not_http(url: str) -> None:
    with pytest.raises(CrawlURLError):
        clean_url(url)


ROBOTS = """\
# comment
Sitemap: https://example.org/sitemap.xml
User-agent: BadBot
User-agent: OtherBot
Disallow: /

User-agent: *
Disallow: /private/
Allow: /private/public
Disallow: /*?print=
Disallow: /*.pdf$
Disallow:
Crawl-delay: 0.5

User-agent: Pagecast
Disallow: /only-for-pagecast
Crawl-delay: 2
User-agent: pagecast
Disallow: /also
Sitemap: /relative-sitemap.xml
"""


def test_robots_groups_rules_and_extensions() -> None:
    star = parse_robots(ROBOTS, agent="anybot")
    assert star.allowed("https://example.org/private/public/page")
    assert not star.allowed("/private/secret")
    assert not star.allowed("/docs?print=1") and star.allowed("/docs?view=1")
    assert not star.allowed("/a/file.pdf") and star.allowed("/a/file.pdf?x")
    assert star.allowed("/robots.txt") and star.allowed("/")
    assert star.crawl_delay == 0.5
    assert star.sitemaps == ["https://example.org/sitemap.xml", "/relative-sitemap.xml"]
    bad = parse_robots(ROBOTS, agent="otherbot")
    assert not bad.allowed("/anything") and bad.allowed("/robots.txt")
    ours = parse_robots(ROBOTS)
    assert not ours.allowed("/only-for-pagecast") and not ours.allowed("/also")
    assert ours.allowed("/private/secret"), "a group of its own replaces the * group"
    assert ours.crawl_delay == 2


def test_robots_longest_match_and_ties() -> None:
    rules = parse_robots("User-agent: *\nAllow: /p\nDisallow: /p\nDisallow: /page\nAllow: /pag*e$")
    assert rules.allowed("/p"), "Allow wins a tie"
    assert not rules.allowed("/page/x")
    assert rules.allowed("/page"), "the longer pattern wins, whatever the order"
    assert parse_robots("User-agent: *\nDisallow: /a%3cb").allowed("/a%3Cb") is False
    assert parse_robots("User-agent: *\nCrawl-delay: soon\nCrawl-delay: nan").crawl_delay is None


def test_robots_product_tokens_and_a_byte_order_mark() -> None:
    rules = parse_robots("\ufeffUser-agent: Pagecast/2.1\nDisallow: /x\nUser-agent: *\nDisallow: /")
    assert not rules.allowed("/x") and rules.allowed("/y")


def test_robots_for_each_response() -> None:
    assert rules_for_response(404, "Disallow: /").allowed("/x")
    assert not rules_for_response(503, None).allowed("/x")
    assert not rules_for_response(None, None).allowed("/x")
    assert not rules_for_response(200, "User-agent: *\nDisallow: /x").allowed("/x")
    assert RobotsRules.deny_all().allowed("/robots.txt")


URLSET = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc> https://example.org/a </loc><image:image><image:loc>https://example.org/i.png</image:loc></image:image></url>
  <url><loc>https://example.org/b?x=1&amp;y=2</loc><lastmod>2026-01-01</lastmod></url>
  <url><lastmod>2026-01-01</lastmod></url>
</urlset>"""


def test_sitemap_kinds() -> None:
    urlset = parse_sitemap(URLSET)
    assert urlset.kind == SitemapKind.urlset
    assert urlset.urls == ["https://example.org/a", "https://example.org/b?x=1&y=2"]
    index = parse_sitemap(
        b"<sitemapindex><sitemap><loc>https://example.org/s1.xml.gz</loc></sitemap></sitemapindex>"
    )
    assert (index.kind, index.urls) == (SitemapKind.sitemapindex, ["https://example.org/s1.xml.gz"])
    packed = parse_sitemap(gzip.compress(URLSET))
    assert packed.kind == SitemapKind.urlset and len(packed.urls) == 2
    text = parse_sitemap(b"\xef\xbb\xbfhttps://example.org/a\n\nnot a url\nhttp://example.org/b\n")
    assert (text.kind, text.urls) == (
        SitemapKind.text,
        ["https://example.org/a", "http://example.org/b"],
    )
    rss = b"<rss><channel><item><link>https://example.org/post</link></item></channel></rss>"
    assert parse_sitemap(rss).urls == ["https://example.org/post"]
    atom = b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="https://e.org/x"/></entry></feed>'
    assert parse_sitemap(atom).urls == ["https://e.org/x"]
    assert parse_sitemap(b"<html><body>no</body></html>").kind == SitemapKind.invalid
    assert parse_sitemap(b"\x1f\x8bnot gzip at all").kind == SitemapKind.invalid


def test_sitemap_bounds() -> None:
    many = (
        b"<urlset>"
        + b"".join(b"<url><loc>https://e.org/%d</loc></url>" % i for i in range(50))
        + b"</urlset>"
    )
    capped = parse_sitemap(many, max_urls=10)
    assert len(capped.urls) == 10 and capped.truncated
    bomb = gzip.compress(b"<urlset>" + b" " * 5_000_000 + b"</urlset>")
    limited = parse_sitemap(bomb, max_bytes=100_000)
    assert limited.truncated and limited.urls == []
    entity = b'<!DOCTYPE u [<!ENTITY e SYSTEM "file:///etc/passwd">]><urlset><url><loc>&e;</loc></url></urlset>'
    assert not any("root:" in url for url in parse_sitemap(entity).urls)


def test_links_resolved_against_base_and_final_url() -> None:
    html = """<html><head><base href="/docs/"></head><body>
    <a href="page-2">two</a> <a href="/abs#frag">abs</a> <a href="  page-2 ">again</a>
    <a href="#top">top</a> <a href="mailto:x@e.org">mail</a> <a href="javascript:x()">js</a>
    <a href="//other.example/x">other</a> <map><area href="area-1"></map>
    <a href="pa\nge-3">broken line</a> <a>no href</a> <a href="http://[::1">bad</a>
    </body></html>"""
    links = extract_links(html, "https://example.org/landing/moved")
    assert links == [
        "https://example.org/docs/page-2",
        "https://example.org/abs#frag",
        "https://other.example/x",
        "https://example.org/docs/area-1",
        "https://example.org/docs/page-3",
    ]
    assert extract_links('<a href="after">x</a>', "https://e.org/docs/landing") == [
        "https://e.org/docs/after"
    ]
    assert (
        len(
            extract_links(
                "".join(f'<a href="/{i}">x</a>' for i in range(30)), "https://e.org/", max_links=5
            )
        )
        == 5
    )
    assert extract_links("", "https://e.org/") == []


def test_scope_hosts_and_ports() -> None:
    scope = CrawlScope("https://www.example.org/docs/start")
    assert scope.admits("https://www.example.org/anything", 1)
    assert scope.admits("http://WWW.example.org:80/x", 1), "scheme and default ports are one site"
    assert scope.refusal("https://docs.example.org/x", 1) == ScopeRefusal.other_site
    assert scope.refusal("https://www.example.org:8443/x", 1) == ScopeRefusal.other_site
    assert scope.refusal("mailto:x@example.org", 1) == ScopeRefusal.invalid
    wide = CrawlScope("https://www.example.org/", subdomains=True)
    assert wide.admits("https://docs.example.org/x", 1) and wide.admits("https://example.org/", 1)
    assert not wide.admits("https://badexample.org/", 1)
    assert not wide.admits("https://example.org.evil.test/", 1)
    six = CrawlScope("http://[::1]:8000/")
    assert six.admits("http://[::1]:8000/a", 1) and not six.admits("http://[::1]:8001/a", 1)
    assert not six.admits("http://[::2]:8000/a", 1)
    assert CrawlScope("https://e.org/").refusal("https://e.org:8443/", 1) == ScopeRefusal.other_site
    assert CrawlScope("https://user@e.org/").admits("https://e.org/a", 1)
    local = CrawlScope("http://127.0.0.1:8000/")
    assert local.admits("http://127.0.0.1:8000/a", 1) and not local.admits(
        "http://127.0.0.1:8001/a", 1
    )


def test_scope_patterns_and_depth() -> None:
    scope = CrawlScope(
        "https://example.org/",
        include=["/docs/*", "/blog/post-?"],
        exclude=["/docs/draft-*", "*/private/*"],
        max_depth=2,
    )
    assert scope.admits("https://example.org/", 0), "the start URL always"
    assert scope.admits("https://example.org/?utm_source=x#top", 5), "also under another form"
    assert scope.admits("https://example.org/docs/a/b/c", 2)
    assert scope.admits("https://example.org/blog/post-1", 1)
    assert scope.refusal("https://example.org/blog/post-10", 1) == ScopeRefusal.not_included
    assert scope.refusal("https://example.org/docs", 1) == ScopeRefusal.not_included
    assert scope.refusal("https://example.org/docs/draft-1", 1) == ScopeRefusal.excluded
    assert scope.refusal("https://example.org/docs/x/private/y", 1) == ScopeRefusal.excluded
    assert scope.refusal("https://example.org/docs/a", 3) == ScopeRefusal.too_deep
    assert CrawlScope("https://example.org/").admits("https://example.org/any/thing", 99)


@pytest.mark.parametrize("pattern", ["", "docs/*", "/" + "x" * 600])
def test_bad_patterns(pattern: str) -> None:
    with pytest.raises(PatternError):
        check_patterns([pattern])
    with pytest.raises(PatternError):
        CrawlScope("https://example.org/", include=[pattern])


def test_scoped_urls_and_sitemaps_for_the_workers() -> None:
    scope = CrawlScope("https://example.org/", exclude=["/private/*"])
    urls = ["/a#x", "https://example.org/a/", "b?utm_source=x", "https://other.org/", "/private/1"]
    assert scoped_urls(urls, "https://example.org/dir/", scope) == [
        ("https://example.org/a", "https://example.org/a"),
        ("https://example.org/dir/b", "https://example.org/dir/b"),
    ]
    assert page_links('<a href="c">c</a>', "https://example.org/x/y", scope) == [
        ("https://example.org/x/c", "https://example.org/x/c")
    ]
    index, none = sitemap_urls(
        b"<sitemapindex><sitemap><loc>/s2.xml</loc></sitemap></sitemapindex>",
        "https://example.org/s.xml",
        scope,
    )
    assert index.urls == ["https://example.org/s2.xml"] and none == []
    urlset, found = sitemap_urls(URLSET, "https://example.org/s.xml", scope)
    assert urlset.urls == [] and [url for url, _ in found] == [
        "https://example.org/a",
        "https://example.org/b?x=1&y=2",
    ]
