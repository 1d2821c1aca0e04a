"""The ``html`` snippets Pagecast writes itself for embeds, and the judgement of html from a
discovered (untrusted) oEmbed endpoint.

A discovered answer's html is kept only in one shape: a single plain ``<iframe>`` whose ``src``
is an absolute http(s) URL. It is then rebuilt here from its URL and sizes alone, with fixed
attributes (``SANDBOX``, ``ALLOW``, lazy loading, no referrer beyond the origin); every other
attribute of the original is dropped. A photo is rebuilt as an ``<img>`` of its ``url``, a link
as a plain link to the page. Any other html (script, event handlers, ``javascript:`` URLs,
several elements, text around the iframe) is refused: :func:`discovered_snippet` answers None and
the resolver falls through to the hosted card (see :mod:`services.embeds`). Pure functions, no I/O.
"""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import urlsplit

import lxml.etree
import lxml.html

from convert.metadata.fields import TEXT_LIMITS, cap_text, cap_url

SANDBOX = "allow-scripts allow-popups allow-popups-to-escape-sandbox allow-presentation"
"""The sandbox of a discovered iframe: its player may run script, open a popup (a link to the
provider) and go full screen, but it runs in an opaque origin (no ``allow-same-origin``: no
cookies or storage of the provider's or the embedding page's origin), may not navigate the
embedding page, submit forms or open modal dialogs."""
ALLOW = "fullscreen; picture-in-picture; encrypted-media"
"""The permissions policy of a discovered iframe."""
MAX_IFRAME_HTML = 4096
"""Longest discovered html considered as a plain iframe (a plain iframe is a few hundred
characters); longer html is refused without being parsed."""
MAX_SIDE = 4000
"""Largest width or height written into a snippet."""
SIZED_KINDS = ("video", "rich")
"""oEmbed types whose discovered html may be a plain iframe."""
_URL_REFUSED = frozenset("\"'<>\\` ")
"""Characters refused in a URL written into a snippet (besides controls)."""


def link_snippet(page_url: str, title: str) -> str:
    """A plain link to the page, its title (or URL) as the text."""
    text = cap_text(title, TEXT_LIMITS["title"]) or page_url
    return (
        f'<a href="{html.escape(page_url, quote=True)}" target="_blank" '
        f'rel="noopener noreferrer">{html.escape(text)}</a>'
    )


def photo_snippet(url: str, title: str, width: int | None, height: int | None) -> str:
    """An ``<img>`` of ``url`` (which the caller has checked is http(s))."""
    size = "".join(
        f' {name}="{value}"' for name, value in (("width", width), ("height", height)) if value
    )
    source = html.escape(url, quote=True)
    alt = html.escape(cap_text(title, TEXT_LIMITS["title"]), quote=True)
    return f'<img src="{source}" alt="{alt}"{size} loading="lazy">'


def sandboxed_iframe(src: str, width: int, height: int, title: str) -> str:
    """A discovered provider's iframe as Pagecast writes it (``src`` checked http(s))."""
    size = "".join(
        f' {name}="{value}"' for name, value in (("width", width), ("height", height)) if value
    )
    label = cap_text(title, TEXT_LIMITS["title"]) or "Embedded content"
    return (
        f'<iframe src="{html.escape(src, quote=True)}"{size} '
        f'title="{html.escape(label, quote=True)}" sandbox="{SANDBOX}" allow="{ALLOW}" '
        'allowfullscreen loading="lazy" referrerpolicy="strict-origin-when-cross-origin" '
        'frameborder="0" style="border:0;max-width:100%"></iframe>'
    )


def discovered_snippet(fields: dict[str, Any], page_url: str) -> str | None:
    """The ``html`` to answer for a discovered embed of ``page_url`` (``fields`` as
    :func:`convert.embed.oembed.embed_fields` made them), or None when its html is refused."""
    kind = fields.get("type")
    title = str(fields.get("title") or "")
    width, height = _side(fields.get("width")), _side(fields.get("height"))
    if kind == "photo":
        url = http_url(str(fields.get("url") or ""))
        return photo_snippet(url, title, width, height) if url else None
    if kind == "link":
        url = http_url(page_url)
        return link_snippet(url, title) if url else None
    if kind not in SIZED_KINDS:
        return None
    iframe = plain_iframe(str(fields.get("html") or ""))
    if iframe is None:
        return None
    src, own_width, own_height = iframe
    return sandboxed_iframe(src, width or own_width or 0, height or own_height or 0, title)


def plain_iframe(snippet: str) -> tuple[str, int | None, int | None] | None:
    """(src, width, height) when ``snippet`` is one ``<iframe>`` of an http(s) URL and nothing
    else (whitespace aside), else None."""
    if not snippet.strip() or len(snippet) > MAX_IFRAME_HTML:
        return None
    try:
        parts = lxml.html.fragments_fromstring(snippet)
    except (lxml.etree.ParserError, ValueError):
        return None
    elements = [part for part in parts if not isinstance(part, str)]
    if any(isinstance(part, str) and part.strip() for part in parts) or len(elements) != 1:
        return None
    element = elements[0]
    if element.tag != "iframe" or (element.text or "").strip() or (element.tail or "").strip():
        return None
    src = http_url(element.get("src") or "")
    if not src:
        return None
    return src, _side(element.get("width")), _side(element.get("height"))


def http_url(value: str) -> str:
    """``value`` stripped when it is an absolute http(s) URL with a host and no control or
    quote characters, within the URL cap; else ""."""
    url = cap_url(value.strip())
    if not url.lower().startswith(("http://", "https://")):
        return ""
    if any(ord(char) < 0x20 or ord(char) == 0x7F or char in _URL_REFUSED for char in url):
        return ""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return ""
    return url if host else ""


def _side(value: Any) -> int | None:
    try:
        number = int(float(value))
    except (TypeError, ValueError, OverflowError):
        return None
    return number if 0 < number <= MAX_SIDE else None
