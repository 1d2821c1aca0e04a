"""The fields of a page's metadata: their names, what each holds, and the caps every field is
held to where the page is read, so that a hostile page (a 5 MB ``<title>``) cannot make the
frames, answers and caches built from its metadata large: texts are cut to ``TEXT_LIMITS``
characters (an ellipsis last), and a URL longer than ``URL_LIMIT`` is dropped rather than cut
(a cut URL points somewhere else)."""

from __future__ import annotations

from dataclasses import dataclass

from convert.metadata.values import URL_LIMIT

FIELDS = (
    "title",
    "description",
    "canonical_url",
    "site_name",
    "image",
    "language",
    "final_url",
    "author",
    "published_at",
)
"""The metadata every Markdown answer carries (``metadata``), all strings, "" when unknown."""
FIELD_HELP = {
    "title": "The page's title: its visible headline, or the title it states without the "
    "site's name.",
    "description": "The page's summary as it states it, else its first meaningful paragraph.",
    "canonical_url": "The page's canonical URL (the final URL when it states none).",
    "site_name": "The site's name (as the site states it, or as its title or logo names it; "
    "else the readable domain).",
    "image": "The page's preview image, an absolute URL.",
    "language": "The page's language as a BCP 47 tag (en, en-US, zh-Hant-TW).",
    "final_url": "The URL the page was read from, after redirects.",
    "author": "Who wrote the page, as it names them (several joined by commas).",
    "published_at": "When the page says it was published, ISO 8601 (a date, or date and time "
    "with the page's offset).",
}
"""What each field holds, for the API description and docs/markdown.md."""
TEXT_LIMITS = {
    "title": 300,
    "description": 1000,
    "site_name": 300,
    "language": 35,
    "author": 300,
    "published_at": 35,
}
"""Longest text kept of each text field, in characters."""
ELLIPSIS = "\u2026"
_SCAN_FACTOR = 8
"""Whitespace is collapsed over at most this many times a field's limit (a value is cut anyway)."""


@dataclass
class PageMetadata:
    """A page's metadata; the fields of :data:`FIELDS` and what embeds need besides."""

    title: str = ""
    description: str = ""
    canonical_url: str = ""
    site_name: str = ""
    image: str = ""
    language: str = ""
    final_url: str = ""
    author: str = ""
    published_at: str = ""
    image_width: int = 0
    """The image's width in pixels when the page declares it (0: unknown)."""
    image_height: int = 0
    stated_title: str = ""
    """The title as the page states it, site name and all (what main-content extraction uses
    to tell the headline from a logo)."""

    def as_dict(self) -> dict[str, str]:
        """The fields of :data:`FIELDS`."""
        return {name: getattr(self, name) for name in FIELDS}


def cap_text(value: str, limit: int) -> str:
    """``value`` with whitespace collapsed, cut to ``limit`` characters (the last an ellipsis)
    when longer."""
    scanned = value[: limit * _SCAN_FACTOR]
    text = " ".join(scanned.split())
    if len(text) <= limit and len(scanned) == len(value):
        return text
    return text[: limit - 1].rstrip() + ELLIPSIS


def cap_url(value: str) -> str:
    """``value``, or "" when it is longer than ``URL_LIMIT``."""
    return value if len(value) <= URL_LIMIT else ""
