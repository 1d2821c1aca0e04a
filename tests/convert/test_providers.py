"""The oEmbed provider registry: the built-in list, parsing, matching and request URLs."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from convert.embed.providers import (
    MAX_URL_LENGTH,
    Endpoint,
    Provider,
    ProviderMatch,
    ProviderRegistry,
    RegistryError,
    endpoint_url,
    parse_registry,
)
from services.embeds.provider_files import BUILTIN_FILE, builtin_providers, load_registry_file

ROOT = Path(__file__).resolve().parent.parent.parent
PUBLIC_REGISTRY_FILES = (
    ROOT / ".cache" / "npm" / "node_modules" / "oembed-providers" / "providers.json",
)

# Why parse_registry may skip an entry of a public registry; anything else is a failure.
DOCUMENTED_SKIPS = re.compile(
    r"no provider_name|not an object|is not a string|is not a non-empty list|is not a boolean"
    r"|not a list of strings|is not a list|not an http\(s\) URL|offers only|no usable schemes"
    r"|no usable endpoint|not a usable URL pattern"
)


def registry_of(*schemes: str, name: str = "Example") -> ProviderRegistry:
    endpoint = Endpoint(url="https://oembed.example/api", schemes=schemes)
    return ProviderRegistry([Provider(name, "https://example.com/", (endpoint,))])


def provider(name: str, endpoint: str, *schemes: str) -> Provider:
    return Provider(name, f"https://{name.lower()}.example/", (Endpoint(endpoint, schemes),))


@pytest.fixture(scope="module")
def builtin() -> ProviderRegistry:
    return ProviderRegistry(builtin_providers())


@pytest.fixture(scope="module")
def public_registry_file() -> Path:
    for path in PUBLIC_REGISTRY_FILES:
        if path.is_file():
            return path
    missing = "no public oEmbed registry: the oembed-providers npm package is not under .cache/npm"
    if os.environ.get("CI"):
        pytest.fail(missing + " (the set-up installs the package; CI must test it)")
    pytest.skip(missing)


# -- the built-in list ---------------------------------------------------------------------------


def test_builtin_file_parses_without_problems() -> None:
    providers, problems = load_registry_file(BUILTIN_FILE)
    assert problems == []
    assert len(providers) >= 45
    assert providers == builtin_providers()


def test_builtin_providers_have_https_endpoints_and_schemes() -> None:
    for entry in builtin_providers():
        assert entry.endpoints, entry.name
        for endpoint in entry.endpoints:
            assert endpoint.url.startswith("https://"), entry.name
            assert endpoint.schemes, entry.name
            assert "json" in endpoint.formats or not endpoint.formats, entry.name


def test_builtin_file_is_sorted_pretty_printed_and_unique() -> None:
    text = BUILTIN_FILE.read_text(encoding="utf-8")
    data = json.loads(text)
    assert text == json.dumps(data, indent=2) + "\n"
    names = [entry["provider_name"] for entry in data]
    assert names == sorted(names, key=str.casefold)
    assert len({name.casefold() for name in names}) == len(names)


def test_builtin_providers_returns_a_fresh_list() -> None:
    first = builtin_providers()
    first.clear()
    assert len(builtin_providers()) >= 45


BUILTIN_MATCHES = [
    ("https://www.youtube.com/watch?v=dQw4w9WgXcQ", "YouTube"),
    ("http://youtube.com/watch?v=dQw4w9WgXcQ&t=42", "YouTube"),
    ("https://m.youtube.com/watch?v=dQw4w9WgXcQ", "YouTube"),
    ("https://youtu.be/dQw4w9WgXcQ?si=abc", "YouTube"),
    ("https://www.youtube.com/shorts/abcdefghijk", "YouTube"),
    ("https://www.youtube.com/embed/dQw4w9WgXcQ", "YouTube"),
    ("https://www.youtube.com/playlist?list=PL1234567890", "YouTube"),
    ("https://vimeo.com/76979871", "Vimeo"),
    ("https://player.vimeo.com/video/76979871", "Vimeo"),
    ("https://x.com/jack/status/20", "Twitter"),
    ("https://twitter.com/jack/status/20", "Twitter"),
    ("https://mobile.twitter.com/jack/status/20", "Twitter"),
    ("https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC", "Spotify"),
    ("https://open.spotify.com/album/1DFixLWuPkv3KT3TnV35m3", "Spotify"),
    ("https://soundcloud.com/forss/flickermood", "SoundCloud"),
    ("https://www.tiktok.com/@scout2015/video/6718335390845095173", "TikTok"),
    ("https://www.flickr.com/photos/bees/2341623661/", "Flickr"),
    ("https://flic.kr/p/4xVs3R", "Flickr"),
    ("https://www.reddit.com/r/aww/comments/abc123/a_cat/", "Reddit"),
    ("https://giphy.com/gifs/cat-funny-abc123", "GIPHY"),
    ("https://codepen.io/team/codepen/pen/PNaGbb", "CodePen"),
    ("https://www.dailymotion.com/video/x8abc12", "Dailymotion"),
    ("https://dai.ly/x8abc12", "Dailymotion"),
    ("https://www.slideshare.net/someone/some-deck", "SlideShare"),
    ("https://www.ted.com/talks/ken_robinson_do_schools_kill_creativity", "TED"),
    ("https://www.mixcloud.com/spartacus/party-time/", "Mixcloud"),
    ("https://bsky.app/profile/bsky.app/post/3l6oveex3ii2l", "Bluesky"),
    ("https://www.loom.com/share/0281766fa2d04bb788eaf19e65135184", "Loom"),
    ("https://www.figma.com/file/LKQ4FJ4bTnCSjedbRpk931/Sample-File", "Figma"),
    ("https://www.figma.com/design/LKQ4FJ4bTnCSjedbRpk931/Sample-File?node-id=0-1", "Figma"),
    ("https://streamable.com/moo", "Streamable"),
    ("https://www.canva.com/design/DAFabc/xyz/view?utm_content=DAF&utm_source=share", "Canva"),
    ("https://speakerdeck.com/someone/a-talk", "Speaker Deck"),
    ("https://staff.tumblr.com/post/123456789/hello", "Tumblr"),
]


@pytest.mark.parametrize(("url", "name"), BUILTIN_MATCHES)
def test_builtin_registry_matches_known_urls(
    builtin: ProviderRegistry, url: str, name: str
) -> None:
    found = builtin.match(url)
    assert found is not None, url
    assert found.provider_name == name
    assert found.endpoint.startswith("https://")
    assert "{format}" not in found.endpoint


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/",
        "https://www.youtube.com/about",
        "https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ",
        "https://notyoutube.com/watch?v=dQw4w9WgXcQ",
        "https://evil.example/?u=https://www.youtube.com/watch?v=dQw4w9WgXcQ",
        "https://www.youtube.com@evil.example/watch?v=dQw4w9WgXcQ",
        "https://evil.example\\.youtube.com/watch?v=1",
        "https://twitter.com/jack",
        "https://open.spotify.community/track/1",
        "ftp://vimeo.com/76979871",
        "not a url",
        "",
    ],
)
def test_builtin_registry_leaves_other_urls_alone(builtin: ProviderRegistry, url: str) -> None:
    assert builtin.match(url) is None


def test_vimeo_endpoint_gets_its_format_filled_in(builtin: ProviderRegistry) -> None:
    found = builtin.match("https://vimeo.com/76979871")
    assert found == ProviderMatch(
        "Vimeo", "https://vimeo.com/", "https://vimeo.com/api/oembed.json"
    )


# -- matching semantics --------------------------------------------------------------------------


def test_star_crosses_slashes_and_dots_in_the_path() -> None:
    registry = registry_of("https://example.com/photos/*")
    assert registry.match("https://example.com/photos/a/b.c/d")
    assert registry.match("https://example.com/photos/")
    assert not registry.match("https://example.com/photo/a")


def test_http_and_https_are_equivalent() -> None:
    assert registry_of("http://example.com/v/*").match("https://example.com/v/1")
    assert registry_of("https://example.com/v/*").match("http://example.com/v/1")


def test_host_is_case_insensitive_and_the_path_is_not() -> None:
    registry = registry_of("https://Example.com/Video/*")
    assert registry.match("HTTPS://EXAMPLE.COM/Video/1")
    assert not registry.match("https://example.com/video/1")


def test_www_and_subdomain_rules() -> None:
    bare = registry_of("https://example.com/v/*")
    assert bare.match("https://www.example.com/v/1")
    assert not bare.match("https://m.example.com/v/1")
    www = registry_of("https://www.example.com/v/*")
    assert www.match("https://example.com/v/1")
    assert not www.match("https://m.example.com/v/1")
    wildcard = registry_of("https://*.example.com/v/*")
    for host in ("example.com", "www.example.com", "m.example.com", "a.b.example.com"):
        assert wildcard.match(f"https://{host}/v/1"), host
    assert not wildcard.match("https://badexample.com/v/1")
    assert not wildcard.match("https://example.com.evil.example/v/1")


def test_host_wildcard_stays_in_the_host() -> None:
    registry = registry_of("https://player.*.example/v/*")
    assert registry.match("https://player.eu.example/v/1")
    assert not registry.match("https://player.evil.test/x/.example/v/1")


def test_ports_default_and_explicit() -> None:
    assert registry_of("https://example.com/v/*").match("https://example.com:443/v/1")
    assert not registry_of("https://example.com/v/*").match("https://example.com:8443/v/1")
    assert registry_of("https://example.com:8443/v/*").match("https://example.com:8443/v/1")


def test_trailing_query_and_fragment() -> None:
    fixed = registry_of("https://example.com/design/*/view")
    assert fixed.match("https://example.com/design/abc/view")
    assert fixed.match("https://example.com/design/abc/view?utm_source=x#top")
    assert not fixed.match("https://example.com/design/abc/view/edit")
    assert not fixed.match("https://example.com/design/abc/edit?next=/view")
    exact = registry_of("https://example.com/about")
    assert exact.match("https://example.com/about?ref=1")
    assert not exact.match("https://example.com/about/team")
    query = registry_of("https://example.com/playlist?list=*")
    assert query.match("https://example.com/playlist?list=PL1")
    assert not query.match("https://example.com/playlist?index=2")
    assert not query.match("https://example.com/playlist")


def test_other_uri_schemes_match_literally() -> None:
    registry = registry_of("spotify:*", "https://open.example/*")
    assert registry.match("spotify:track:4uLU6hMCjMI75M1A2tKUQC")
    assert registry.match("SPOTIFY:track:1")
    assert not registry.match("deezer:track:1")


def test_unsafe_or_odd_urls_never_match() -> None:
    registry = registry_of("https://*.example.com/*")
    assert registry.match("https://example.com/ok")
    assert not registry.match("https://user:pw@example.com/x")
    assert not registry.match("https://example.com/a b")
    assert not registry.match("https://example.com/a\nb")
    assert not registry.match("https://example.com/" + "a" * MAX_URL_LENGTH)
    assert not registry.match("https:///path")
    assert not registry.match("https://evil%2e.example.com/x")


def test_first_matching_provider_wins_in_registry_order() -> None:
    broad = provider("Broad", "https://broad.example/oembed", "https://*.example.com/*")
    narrow = provider("Narrow", "https://narrow.example/oembed", "https://www.example.com/x/*")
    url = "https://www.example.com/x/1"
    first = ProviderRegistry([broad, narrow]).match(url)
    second = ProviderRegistry([narrow, broad]).match(url)
    assert first is not None and first.provider_name == "Broad"
    assert second is not None and second.provider_name == "Narrow"


def test_later_provider_of_the_same_name_replaces_the_builtin_one() -> None:
    imported = provider("youtube", "https://proxy.example/oembed", "https://www.youtube.com/*")
    registry = ProviderRegistry([*builtin_providers(), imported])
    assert len(registry) == len(builtin_providers())
    found = registry.match("https://www.youtube.com/watch?v=dQw4w9WgXcQ")
    assert found is not None and found.endpoint == "https://proxy.example/oembed"
    assert registry.match("https://youtu.be/dQw4w9WgXcQ") is None
    assert imported in registry.providers


def test_registry_rejects_a_hand_built_provider_with_a_bad_scheme() -> None:
    with pytest.raises(ValueError, match="not a URL pattern"):
        registry_of("not a scheme")


def test_matching_time_is_linear_in_the_url() -> None:
    registry = registry_of("https://example.com/*/a/*/b/*/c/*/d", "https://p.*.*.*.example/*")
    url = "https://example.com/" + "/a/b/c" * 1300
    host = "p." + "a." * 120 + "test"
    started = time.process_time()
    assert registry.match(url) is None
    assert registry.match(f"https://{host}/") is None
    assert registry.match("https://p.a.b.c.example/x")
    assert time.process_time() - started < 0.1


def test_hosts_longer_than_a_dns_name_never_match() -> None:
    registry = registry_of("https://*.example.com/*")
    assert registry.match("https://" + "a." * 120 + "example.com/")
    assert not registry.match("https://" + "a." * 130 + "example.com/")


# -- request URLs --------------------------------------------------------------------------------


def query_of(url: str) -> list[tuple[str, str]]:
    return parse_qsl(urlsplit(url).query, keep_blank_values=True)


def test_endpoint_url_adds_url_and_format() -> None:
    found = ProviderMatch("YouTube", "https://www.youtube.com/", "https://www.youtube.com/oembed")
    built = endpoint_url(found, "https://youtu.be/x?t=1&a=b", None, None)
    assert built == (
        "https://www.youtube.com/oembed?url=https%3A%2F%2Fyoutu.be%2Fx%3Ft%3D1%26a%3Db&format=json"
    )


def test_endpoint_url_adds_sizes_and_keeps_existing_parameters() -> None:
    found = ProviderMatch("X", "https://x.example/", "https://x.example/oembed?key=abc&maxwidth=9")
    built = endpoint_url(found, "https://x.example/v/1", maxwidth=640, maxheight=480)
    assert urlsplit(built).path == "/oembed"
    assert query_of(built) == [
        ("key", "abc"),
        ("url", "https://x.example/v/1"),
        ("maxwidth", "640"),
        ("maxheight", "480"),
        ("format", "json"),
    ]


def test_endpoint_url_leaves_format_to_the_endpoint_when_it_names_one() -> None:
    placeholder = ProviderMatch("V", "https://v.example/", "https://v.example/api/oembed.{format}")
    assert query_of(endpoint_url(placeholder, "https://v.example/1", None, None)) == [
        ("url", "https://v.example/1")
    ]
    assert endpoint_url(placeholder, "https://v.example/1", None, None).startswith(
        "https://v.example/api/oembed.json?"
    )
    filled = ProviderMatch("V", "https://v.example/", "https://v.example/api/oembed.json")
    assert "format=" not in endpoint_url(filled, "https://v.example/1", None, None)
    param = ProviderMatch("V", "https://v.example/", "https://v.example/oembed?format=json")
    assert query_of(endpoint_url(param, "https://v.example/1", None, 200)) == [
        ("format", "json"),
        ("url", "https://v.example/1"),
        ("maxheight", "200"),
    ]


def test_endpoint_url_for_a_builtin_match(builtin: ProviderRegistry) -> None:
    found = builtin.match("https://vimeo.com/76979871")
    assert found is not None
    built = endpoint_url(found, "https://vimeo.com/76979871", 800, None)
    assert built == (
        "https://vimeo.com/api/oembed.json?url=https%3A%2F%2Fvimeo.com%2F76979871&maxwidth=800"
    )


@pytest.mark.parametrize("size", [0, -5])
def test_endpoint_url_rejects_sizes_below_one(size: int) -> None:
    found = ProviderMatch("X", "https://x.example/", "https://x.example/oembed")
    with pytest.raises(ValueError, match="maxwidth"):
        endpoint_url(found, "https://x.example/1", size, None)


# -- parsing -------------------------------------------------------------------------------------


GOOD_ENTRY = {
    "provider_name": "Good",
    "provider_url": "https://good.example/",
    "endpoints": [
        {
            "schemes": ["https://good.example/v/*"],
            "url": "https://good.example/oembed",
            "discovery": True,
            "formats": ["json", "xml"],
        }
    ],
}


def with_endpoint(**fields: object) -> dict[str, object]:
    endpoint: dict[str, object] = {
        "schemes": ["https://bad.example/*"],
        "url": "https://bad.example/oembed",
    }
    endpoint.update(fields)
    return {"provider_name": "Bad", "provider_url": "https://bad.example/", "endpoints": [endpoint]}


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({**GOOD_ENTRY, "provider_name": ""}, "no provider_name"),
        ({key: value for key, value in GOOD_ENTRY.items() if key != "provider_name"}, "name"),
        ({**GOOD_ENTRY, "provider_name": 7}, "no provider_name"),
        ({**GOOD_ENTRY, "provider_url": ["x"]}, "provider_url is not a string"),
        ({**GOOD_ENTRY, "endpoints": {}}, "endpoints is not a non-empty list"),
        ({**GOOD_ENTRY, "endpoints": []}, "endpoints is not a non-empty list"),
        ("Good", "not an object"),
        (with_endpoint(url="ftp://bad.example/oembed"), "not an http(s) URL"),
        (with_endpoint(url="/oembed"), "not an http(s) URL"),
        (with_endpoint(url=None), "not an http(s) URL"),
        (with_endpoint(schemes=[]), "no usable schemes"),
        (with_endpoint(schemes=None), "schemes is not a list"),
        (with_endpoint(schemes="https://bad.example/*"), "schemes is not a list"),
        (with_endpoint(schemes=["nothing", 3]), "no usable schemes"),
        (with_endpoint(formats=["xml"]), "offers only xml"),
        (with_endpoint(formats="json"), "formats is not a list of strings"),
        (with_endpoint(discovery="yes"), "discovery is not a boolean"),
    ],
)
def test_parse_registry_skips_bad_entries_with_a_reason(entry: object, reason: str) -> None:
    providers, problems = parse_registry([GOOD_ENTRY, entry])
    assert [found.name for found in providers] == ["Good"]
    assert problems
    assert any(reason in problem for problem in problems), problems
    assert all("entry 1" in problem for problem in problems)


def test_parse_registry_keeps_good_endpoints_and_schemes_of_a_mixed_entry() -> None:
    entry = {
        "provider_name": " Mixed ",
        "provider_url": "https://mixed.example/",
        "endpoints": [
            {"url": "https://mixed.example/xml", "formats": ["xml"], "schemes": ["https://m/*"]},
            {
                "url": "https://mixed.example/oembed.{format}",
                "schemes": ["https://mixed.example/*", "https://*/everything", "*", 3],
            },
        ],
    }
    providers, problems = parse_registry([entry])
    assert providers == [
        Provider(
            "Mixed",
            "https://mixed.example/",
            (Endpoint("https://mixed.example/oembed.{format}", ("https://mixed.example/*",)),),
        )
    ]
    assert len(problems) == 4
    assert "endpoint 0: skipped, offers only xml" in problems[0]
    assert all("not a usable URL pattern" in problem for problem in problems[1:])


def test_parse_registry_defaults() -> None:
    minimal = {
        "provider_name": "Min",
        "endpoints": [{"url": "http://min.example/o", "schemes": []}],
    }
    providers, problems = parse_registry([minimal, GOOD_ENTRY])
    assert [found.name for found in providers] == ["Good"]
    assert providers[0].endpoints[0] == Endpoint(
        "https://good.example/oembed", ("https://good.example/v/*",), True, ("json", "xml")
    )
    assert len(problems) == 2


@pytest.mark.parametrize("data", [{}, "[]", None, 3])
def test_parse_registry_rejects_a_document_that_is_not_a_list(data: object) -> None:
    with pytest.raises(RegistryError, match="JSON list"):
        parse_registry(data)


def test_load_registry_file_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('[{"provider_name": ', encoding="utf-8")
    with pytest.raises(RegistryError, match="not valid JSON"):
        load_registry_file(broken)
    with pytest.raises(RegistryError, match="cannot read"):
        load_registry_file(tmp_path / "missing.json")
    as_object = tmp_path / "object.json"
    as_object.write_text('{"providers": []}', encoding="utf-8")
    with pytest.raises(RegistryError, match="JSON list"):
        load_registry_file(as_object)
    good = tmp_path / "good.json"
    good.write_text(json.dumps([GOOD_ENTRY]), encoding="utf-8")
    assert [found.name for found in load_registry_file(str(good))[0]] == ["Good"]


# -- the public registry -------------------------------------------------------------------------


def test_public_registry_loads(public_registry_file: Path) -> None:
    data = json.loads(public_registry_file.read_text(encoding="utf-8"))
    providers, problems = load_registry_file(public_registry_file)
    skipped = len(data) - len(providers)
    print(f"public registry: {len(providers)} of {len(data)} providers load, {skipped} skipped")
    print("\n".join(problems))
    assert skipped < 0.05 * len(data)
    undocumented = [problem for problem in problems if not DOCUMENTED_SKIPS.search(problem)]
    assert undocumented == []
    skipped_names = {entry.get("provider_name") for entry in data} - {p.name for p in providers}
    for name in skipped_names:
        assert any(f"({name})" in problem for problem in problems), name


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("https://www.youtube.com/watch?v=dQw4w9WgXcQ", "YouTube"),
        ("https://youtu.be/dQw4w9WgXcQ", "YouTube"),
        ("https://vimeo.com/76979871", "Vimeo"),
        ("https://www.flickr.com/photos/bees/2341623661/", "Flickr"),
        ("https://soundcloud.com/forss/flickermood", "SoundCloud"),
        ("https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC", "Spotify"),
    ],
)
def test_public_registry_matches_known_urls(
    public_registry_file: Path, url: str, name: str
) -> None:
    registry = ProviderRegistry(load_registry_file(public_registry_file)[0])
    found = registry.match(url)
    assert found is not None and found.provider_name == name


def test_public_registry_can_override_the_builtin_list(public_registry_file: Path) -> None:
    imported = load_registry_file(public_registry_file)[0]
    registry = ProviderRegistry([*builtin_providers(), *imported])
    builtin_names = {entry.name.casefold() for entry in builtin_providers()}
    imported_names = {entry.name.casefold() for entry in imported}
    assert len(registry) == len(builtin_names | imported_names)
    found = registry.match("https://vimeo.com/76979871")
    vimeo = next(entry for entry in imported if entry.name == "Vimeo").endpoints[0].url
    assert found is not None and found.endpoint == vimeo.replace("{format}", "json")


# -- performance ---------------------------------------------------------------------------------


TIMING_URLS = [
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
    "https://vimeo.com/76979871",
    "https://example.com/some/page",
    "https://www.flickr.com/photos/bees/2341623661/",
    "https://soundcloud.com/forss/flickermood",
]


def time_matches(registry: ProviderRegistry, count: int = 10_000) -> float:
    started = time.process_time()
    for index in range(count):
        registry.match(TIMING_URLS[index % len(TIMING_URLS)])
    return time.process_time() - started


def test_builtin_registry_is_fast(builtin: ProviderRegistry) -> None:
    started = time.process_time()
    ProviderRegistry(builtin_providers())
    assert time.process_time() - started < 1.0
    assert time_matches(builtin) < 2.0


def test_public_registry_is_fast(public_registry_file: Path) -> None:
    started = time.process_time()
    registry = ProviderRegistry(load_registry_file(public_registry_file)[0])
    built = time.process_time() - started
    matched = time_matches(registry)
    print(f"public registry: loaded and built in {built:.3f} s, 10,000 matches in {matched:.3f} s")
    assert built < 1.0
    assert matched < 2.0
