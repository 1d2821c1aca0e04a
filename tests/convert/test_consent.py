"""The consent platforms' loader scripts, as the URL patterns the farm blocks."""

from __future__ import annotations

import fnmatch

import pytest

from convert.extract.consent import LOADERS


def blocked(url: str) -> bool:
    # Chromium's interception patterns: "*" any run of characters, "?" one, the whole URL.
    return any(fnmatch.fnmatchcase(url, pattern) for pattern in LOADERS)


@pytest.mark.parametrize(
    "url",
    [
        "https://cdn.cookielaw.org/scripttemplates/otSDKStub.js",
        "http://consent.cookiebot.com/uc.js?cbid=1",
        "https://app.usercentrics.eu/browser-ui/latest/loader.js",
        "https://cdn.iubenda.com/cs/iubenda_cs.js",
        "https://app.termly.io/embed.min.js",
    ],
)
def test_loader_scripts_are_blocked(url: str) -> None:
    assert blocked(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/cdn.cookielaw.org.js",
        "https://cdn.iubenda.com/privacy-policy.js",
        "https://www.cookiebot.com/en/",
        "https://cdn.example.com/app.js",
    ],
)
def test_other_requests_are_not(url: str) -> None:
    assert not blocked(url)


def test_every_pattern_is_a_whole_url_pattern_chromium_reads() -> None:
    for pattern in LOADERS:
        assert pattern.startswith(("http://", "https://")) and pattern.endswith("/*")
        assert "[" not in pattern and pattern.isprintable()
