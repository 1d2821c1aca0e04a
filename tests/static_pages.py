"""Checks shared by the tests of Pagecast's own pages (``/docs`` and the playground): the HTML
has no inline code, style or event handler and loads nothing from another origin, and the
scripts build the page without HTML parsing or code evaluation."""

from __future__ import annotations

import re

from playwright.async_api import Page

from handlers.static import STATIC


def assert_no_inline_code(page: str, scripts: list[str]) -> None:
    """``static/<page>`` loads exactly ``scripts`` (paths as the page writes them), in order, and
    holds no code or style of its own."""
    html = (STATIC / page).read_text()
    bodies = re.findall(r"<script\b[^>]*>(.*?)</script>", html, re.S | re.I)
    assert bodies == [""] * len(scripts), "only the external scripts, with no inline code"
    sources = re.findall(r"<script\b[^>]*\bsrc=\"([^\"]+)\"", html)
    assert sources == scripts
    assert not re.search(r"\sstyle\s*=", html, re.I) and "<style" not in html.lower()
    assert not re.search(r"\son[a-z]+\s*=", html, re.I), "no inline event handlers"
    assert not re.search(r"\s(?:src|href)=\"(?:https?:)?//", html), "nothing from another origin"


def assert_safe_script(name: str) -> str:
    """``static/<name>`` never parses HTML or evaluates code; its text."""
    script = (STATIC / name).read_text()
    assert "innerHTML" not in script and "outerHTML" not in script, name
    assert "insertAdjacentHTML" not in script and "document.write" not in script, name
    assert "eval(" not in script and "new Function" not in script, name
    return script


def collect_problems(page: Page) -> list[str]:
    """A list that fills with the page's console errors and warnings, uncaught exceptions and
    failed requests, from now on."""
    problems: list[str] = []
    page.on(
        "console",
        lambda message: (
            problems.append(f"console {message.type}: {message.text}")
            if message.type in ("error", "warning")
            else None
        ),
    )
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("requestfailed", lambda request: problems.append(f"request failed: {request.url}"))
    return problems
