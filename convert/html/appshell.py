"""Detecting a JavaScript app shell: a page whose HTML carries scripts and an empty mount point
but hardly any text until a browser runs it. Such pages are worth rendering before conversion.

The signals, read from the raw document: the visible text of the body (without scripts, styles
and noscript), an empty framework root (``#root``, ``#app``, ``#__next``, ``#__nuxt``,
``#___gatsby``, ``app-root``...), a noscript notice asking for JavaScript, how much of the page
is script, and script bundles beside an empty element with an id (where any framework mounts) or
a text that only says it is loading. A shell is a page with little text plus at least one of the
other signals. Whether rendering was worth it is judged afterwards, on what the render gives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import lxml.html
from lxml import etree

_ROOTS = (
    '//*[@id="root" or @id="app" or @id="__next" or @id="__nuxt" or @id="___gatsby" '
    'or @id="svelte" or @id="q-app" or @id="ember-app" or @data-reactroot or @ng-app '
    "or @ng-version]",
    "//app-root",
)
_JS_NOTICE = re.compile(
    r"(enable|activate|turn on|requires?|need)\W+(?:\w+\W+){0,4}javascript|javascript\W+"
    r"(?:\w+\W+){0,3}(required|disabled|needed)|javascript (aktivieren|einschalten)|"
    r"activ(ez|er) (le )?javascript|habilit(a|e) javascript",
    re.I,
)
_LOADING = re.compile(
    r"^\W*(loading|please wait|one moment|chargement|cargando|carregando|caricamento|"
    r"wird geladen|laden|загрузка|読み込み中|加载中)\W*(\w+\W*){0,3}$",
    re.I,
)
"""A page's whole text that only says it is loading ("Loading...", "Please wait a moment")."""
_BUNDLES = (
    "//script[@src][not(@type) or @type='module' or contains(@type, 'javascript')]"
    " | //link[@rel='modulepreload']"
)
"""Script bundles the page loads (classic and module scripts, preloaded modules)."""
_MOUNTS = (
    "//body//*[@id][self::div or self::main or self::section or self::span or self::article "
    "or contains(local-name(), '-')]"
)
"""Elements that may be where an app mounts: a container (or a custom element) with an id."""
_INVISIBLE = frozenset({"script", "style", "noscript", "template"})
LITTLE_TEXT = 300
"""Characters of visible body text below which a page may be a shell."""
EMPTY_ROOT = 40
"""Characters of visible text below which an application root counts as empty."""


@dataclass(frozen=True)
class ShellVerdict:
    """Whether the page looks like an app shell, and why."""

    is_shell: bool
    reason: str


def detect_app_shell(root: lxml.html.HtmlElement) -> ShellVerdict:
    """Judge the raw (uncleaned) document ``root``; does not modify it."""
    body = root.find("body")
    if body is None:
        return ShellVerdict(False, "no body")
    text = _visible_text(body, LITTLE_TEXT)
    if len(text) >= LITTLE_TEXT:
        return ShellVerdict(False, "the page has text")
    every_script = list(root.iter("script"))
    script_chars = sum(len(script.text or "") for script in every_script)
    scripts = len(every_script)
    notice = any(_JS_NOTICE.search(n.text_content() or "") for n in _outer_noscripts(root))
    if notice or _JS_NOTICE.search(text):
        return ShellVerdict(True, "the page asks for JavaScript")
    for query in _ROOTS:
        for mount in root.xpath(query):
            if len(_visible_text(mount, EMPTY_ROOT)) < EMPTY_ROOT:
                return ShellVerdict(True, "an empty application root")
    if scripts >= 3 and script_chars > 20 * max(len(text), 1):
        return ShellVerdict(True, "mostly script")
    if root.xpath(_BUNDLES) and (_LOADING.search(text) or _empty_mount(root)):
        return ShellVerdict(True, "script bundles and an empty mount point")
    if not text and scripts:
        return ShellVerdict(True, "no text, only scripts")
    return ShellVerdict(False, "little text but no sign of an application")


def _empty_mount(root: lxml.html.HtmlElement) -> bool:
    """Whether the body holds an element with an id and nothing inside (no child, no text)."""
    return any(len(mount) == 0 and not (mount.text or "").strip() for mount in root.xpath(_MOUNTS))


def _visible_text(element: lxml.html.HtmlElement, enough: int) -> str:
    """The text a reader sees in ``element`` (every text node outside scripts, styles, noscript
    and templates, joined by spaces, whitespace collapsed), read in document order until it
    reaches ``enough`` characters: shorter than ``enough`` only when that is all there is.

    One walk with an explicit stack, so deep documents cost no recursion and a page full of
    text stops early."""
    if element.tag in _INVISIBLE or any(a.tag in _INVISIBLE for a in element.iterancestors()):
        return ""
    words: list[str] = []
    size = -1  # the collapsed length: every word plus one space between two of them
    pending: list[lxml.html.HtmlElement | str] = [element]
    while pending and size < enough:
        item = pending.pop()
        if isinstance(item, str):
            text: str | None = item
        else:
            for child in reversed(item):
                if child.tail:
                    pending.append(child.tail)
                if isinstance(child.tag, str) and child.tag not in _INVISIBLE:
                    pending.append(child)
            text = item.text
        if text:
            for word in text.split():
                words.append(word)
                size += len(word) + 1
    return " ".join(words)


def _outer_noscripts(root: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    """The noscript elements not inside another: a nested one's text is part of the outer
    one's, and reading it again would make nested noscripts quadratic."""
    found = []
    walk = etree.iterwalk(root, events=("start",), tag="noscript")
    for _event, noscript in walk:
        found.append(noscript)
        walk.skip_subtree()
    return found
