"""App-shell detection: what the fetched HTML of a script-built page lacks (text) and has (a
mount point, script bundles, a loading line, a plea for JavaScript), and ordinary short pages
that are not shells."""

from __future__ import annotations

import lxml.html
import pytest

from convert.html.appshell import detect_app_shell

SHELLS = {
    "known root": '<div id="root"></div><script src="/static/js/main.4f3a.js"></script>',
    "vite module bundle": '<div id="main-app"></div><script type="module" src="/assets/i.js">'
    "</script>",
    "loading line": '<div class="splash">Loading…</div><script src="/bundle.js"></script>',
    "german loading line": "<p>Wird geladen ...</p><script src='/app.js'></script>",
    "preloaded modules": '<link rel="modulepreload" href="/m.js"><section id="view"></section>',
    "javascript notice": "<noscript>Please enable JavaScript to use this site.</noscript>"
    '<div id="x"></div>',
    "no text, only scripts": "<script>window.boot()</script>",
}
PAGES = {
    "short page with analytics": "<p>Opening hours: Monday to Friday, nine to five.</p>"
    '<script src="/analytics.js"></script>',
    "short page with an empty anchor": '<h1>Contact</h1><p>Write to us.</p><a id="top"></a>',
    "article": "<article><p>" + "Plenty of words in a real paragraph of prose. " * 10 + "</p>"
    '</article><div id="root"></div><script src="/b.js"></script>',
    "text without any script": '<p>Loading docks open at six.</p><div id="empty"></div>',
    "short page, anchor and analytics": '<h1>Contact</h1><p>Write to us.</p><a id="top"></a>'
    '<img id="logo" src="/l.png"><script src="/analytics.js"></script>',
    "loading words in a sentence": "<p>Loading docks open at six every day.</p>"
    '<script src="/app.js"></script>',
}


@pytest.mark.parametrize("name", SHELLS)
def test_shells_are_recognised(name: str) -> None:
    verdict = detect_app_shell(lxml.html.fromstring(f"<html><body>{SHELLS[name]}</body></html>"))
    assert verdict.is_shell, (name, verdict.reason)


@pytest.mark.parametrize("name", PAGES)
def test_pages_with_their_text_are_not_shells(name: str) -> None:
    verdict = detect_app_shell(lxml.html.fromstring(f"<html><body>{PAGES[name]}</body></html>"))
    assert not verdict.is_shell, (name, verdict.reason)
