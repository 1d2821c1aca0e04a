"""Exfiltration URLs: placeholders for user data, encoded query values, long query strings."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote, urlsplit

from convert.safety.payloads import decode_blob
from convert.safety.signals import SEVERITY
from convert.text.memo import small_key_cache

# --------------------------------------------------------------------------------------------
# Exfiltration URLs
# --------------------------------------------------------------------------------------------

# Template placeholders: {name}, {{ name }}, ${name}, $NAME, [NAME], <name>.
_PLACEHOLDER_RE: Final = re.compile(
    r"\{\{?\s*([A-Za-z_][\w .|-]{0,60}?)\s*\}\}?|\$\{([A-Za-z_][\w.]{0,60})\}"
    r"|\$([A-Z][A-Z0-9_]{2,40})\b|\[([A-Z][A-Z0-9_ ]{2,40})\]|<\s*([A-Za-z][\w .-]{0,40})\s*>"
)
_DATA_WORD_RE: Final = re.compile(
    r"user|data|secret|conversation|chat|histor|prompt|message|mail|passw|token|key|credential"
    r"|session|cookie|context|memory|summary|personal|ssn|card|info"
)
_IDENTIFIER_RE: Final = re.compile(r"(?:^|_|\b)id$", re.IGNORECASE)
"""A placeholder naming an identifier (``{{subscriber_id}}``) is a mailing tool's tracking
template, not a slot for the user's data."""
LONG_QUERY: Final = 200
_SHORT_VALUE: Final = 80
REPORTED_LINK: Final = 0.3  # Markdown links weaker than this are left to the HTML scan
STRIPPED_LINK: Final = 0.5  # links and images at least this strong are removed when sanitizing
# Cheap test before parsing: placeholder characters (plain or percent-encoded) or a long value.
URL_SUSPECT_RE: Final = re.compile(r"[{}$\[<]|%(?:7[bBdD]|24|5[bB]|3[cC])|=[A-Za-z0-9+/_%-]{40}")
_SUSPECT_CHAR_RE: Final = re.compile(r"[{}$\[<%=]")
"""The characters :data:`URL_SUSPECT_RE`'s matches start with: one search for any of them costs
a third of that expression's (whose alternatives are tried at every character), and most links
hold none."""


def suspect_url(value: str) -> bool:
    """Whether a URL is worth parsing: long, or with a placeholder's characters (plain or
    percent-encoded) or a long query value (:data:`URL_SUSPECT_RE`)."""
    return len(value) > LONG_QUERY or (
        _SUSPECT_CHAR_RE.search(value) is not None and URL_SUSPECT_RE.search(value) is not None
    )


def suspect_urls(values: list[str]) -> list[int]:
    """The indexes of the ``values`` :func:`suspect_url` holds for, in order: one search of
    them joined by line breaks (no match of :data:`URL_SUSPECT_RE` holds one, so each lies
    inside one value) instead of two per value; a page's links mostly hold an ``=`` or a
    ``%``."""
    found = {index for index, value in enumerate(values) if len(value) > LONG_QUERY}
    joined = "\n".join(values)
    if _SUSPECT_CHAR_RE.search(joined) is not None:
        starts = []
        position = 0
        for value in values:
            starts.append(position)
            position += len(value) + 1
        for match in URL_SUSPECT_RE.finditer(joined):
            found.add(bisect.bisect_right(starts, match.start()) - 1)
    return sorted(found)


@small_key_cache(2048)
def judge_url(url: str, page_host: str) -> str | None:
    """The exfiltration variant a URL shows (``data``, ``template``, ``long``...), or ``None``.

    The fragment is ignored: it never leaves the browser.
    """
    url = url.strip().split("#", 1)[0]
    if not url or url.lower().startswith(("data:", "javascript:")):
        return None
    if not suspect_url(url):
        return None
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower() if parts.netloc else page_host
    except ValueError:  # a malformed bracketed host
        return None
    variant = _placeholder_variant(parts.netloc, parts.path, parts.query)
    if variant is not None:
        return "local" if page_host and host == page_host else variant
    if any(decode_blob(v) is not None for v in _query_values(parts.query) if len(v) >= 40):
        return "encoded"
    if len(parts.query) > LONG_QUERY:
        return "long"
    return None


def _query_values(query: str) -> list[str]:
    """Decoded query values (or whole items without ``=``); campaign tags (``utm_*``) left out:
    an unfilled template there is a newsletter tool's, not a request for data."""
    items = (item.partition("=") for item in query.split("&") if item)
    return [
        unquote(unquote(value if equals else key))
        for key, equals, value in items
        if not key.lower().startswith("utm_")
    ]


def _placeholder_variant(netloc: str, path: str, query: str) -> str | None:
    """``data`` for a placeholder naming user data in the host, a path segment or a short query
    value; ``template`` for another placeholder in a short query value. Long values (code in a
    playground link, say) are content, not templates."""
    found = None
    pieces = [(unquote(netloc), False)]
    pieces.extend((unquote(unquote(segment)), False) for segment in path.split("/"))
    pieces.extend((value, True) for value in _query_values(query))
    for piece, in_query in pieces:
        if len(piece) > _SHORT_VALUE:
            continue
        for match in _PLACEHOLDER_RE.finditer(piece):
            name = next(group for group in match.groups() if group is not None)
            if _DATA_WORD_RE.search(name.lower()) and not _IDENTIFIER_RE.search(name):
                return "data"
            if in_query:
                found = "template"
    return found


def url_severity(variant: str, image: bool) -> float:
    if variant == "data":
        return SEVERITY["exfiltration_link/image" if image else "exfiltration_link/link"]
    return SEVERITY[f"exfiltration_link/{variant}"]


# [text](url "title"); a "!" before it makes an image.
_MD_LINK_RE: Final = re.compile(
    r"\[([^\[\]\n]{0,300})\]\(\s*<?([^\s()<>]{1,2048}(?:\([^\s()]*\)[^\s()<>]*)?)>?"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_BARE_URL_RE: Final = re.compile(r"https?://[^\s<>\"'`)\]]{4,2048}")


@dataclass(frozen=True)
class Link:
    start: int
    end: int
    url: str
    text: str
    image: bool
    severity: float


def find_links(clean: str) -> list[Link]:
    if "://" not in clean and "](" not in clean:
        return []
    links: list[Link] = []
    covered: list[tuple[int, int]] = []
    for match in _MD_LINK_RE.finditer(clean):
        covered.append(match.span())
        variant = judge_url(match.group(2), "")
        if variant is not None:
            image = match.start() > 0 and clean[match.start() - 1] == "!"
            start = match.start() - 1 if image else match.start()
            severity = url_severity(variant, image)
            links.append(Link(start, match.end(), match.group(2), match.group(1), image, severity))
    starts = [span[0] for span in covered]
    for match in _BARE_URL_RE.finditer(clean):
        k = bisect.bisect_right(starts, match.start()) - 1
        if k >= 0 and match.start() < covered[k][1]:
            continue
        variant = judge_url(match.group(), "")
        if variant is not None:
            severity = url_severity(variant, False)
            links.append(Link(*match.span(), match.group(), "", False, severity))
    return links
