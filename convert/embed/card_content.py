"""What a hosted frame's card shows: the page's metadata cleaned into plain text and safe URLs.

Every value is untrusted text from the page: control characters are removed, whitespace
collapsed and long values cut with an ellipsis; URLs are kept only when absolute ``http(s)``.
Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

TITLE_LIMIT = 200
DESCRIPTION_LIMIT = 500
SITE_NAME_LIMIT = 100
URL_LIMIT = 8192
"""Longest URL kept; a longer one is dropped (cutting a URL would change where it points)."""

ELLIPSIS = "\u2026"


@dataclass(frozen=True)
class CardData:
    """The metadata a card shows; every field is untrusted text from the page."""

    url: str
    """The page the card links to."""
    title: str
    description: str
    image: str
    """May be ""; only http(s) URLs are ever used."""
    site_name: str
    favicon: str
    """May be ""; only http(s) URLs are ever used."""
    canonical_url: str
    """May be ""."""


@dataclass(frozen=True)
class Content:
    """What a card shows, cleaned: plain text (not yet escaped) and safe URLs ("" for none)."""

    href: str
    title: str
    description: str
    site: str
    initial: str
    image: str
    favicon: str

    @property
    def has_media(self) -> bool:
        """Whether the card has an image area: its image, else its icon, else the initial."""
        return bool(self.image or self.favicon or self.initial)


def card_content(card: CardData) -> Content:
    """The cleaned text and URLs of a card, with fallbacks for a missing title or site name."""
    href = safe_url(card.url)
    shown_url = safe_url(card.canonical_url) or href
    site = clean_text(card.site_name, SITE_NAME_LIMIT) or _host(shown_url)
    title = clean_text(card.title, TITLE_LIMIT) or _short_url(shown_url) or site
    return Content(
        href=href,
        title=title,
        description=clean_text(card.description, DESCRIPTION_LIMIT),
        site=site,
        initial=_initial(site) or _initial(title),
        image=safe_url(card.image),
        favicon=safe_url(card.favicon),
    )


_INVISIBLE = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\ud800-\udfff]")
"""Control characters (other than those ``str.split`` takes for whitespace) and lone surrogates:
never part of display text."""
_URL_CONTROLS = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")


def clean_text(value: str, limit: int) -> str:
    """Plain display text: controls removed, whitespace collapsed, cut to ``limit`` characters
    (the last one an ellipsis) when longer."""
    text = " ".join(_INVISIBLE.sub("", value).split())
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + ELLIPSIS


def safe_url(value: str) -> str:
    """``value`` without surrounding whitespace when it is an absolute http(s) URL with a host,
    else ""."""
    url = value.strip()
    if len(url) > URL_LIMIT or _URL_CONTROLS.search(url):
        return ""
    if not url.lower().startswith(("http://", "https://")):
        return ""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return ""
    return url.replace(" ", "%20") if host else ""


def _host(url: str) -> str:
    host = (urlsplit(url).hostname or "") if url else ""
    return clean_text(host.removeprefix("www."), SITE_NAME_LIMIT)


def _short_url(url: str) -> str:
    """The URL as a reader would say it: host and path, without scheme, query or fragment."""
    if not url:
        return ""
    parts = urlsplit(url)
    host = (parts.hostname or "").removeprefix("www.")
    return clean_text(host + parts.path.rstrip("/"), TITLE_LIMIT)


def _initial(text: str) -> str:
    for char in text:
        if char.isalnum():
            upper = char.upper()
            return upper if len(upper) == 1 else char
    return ""
