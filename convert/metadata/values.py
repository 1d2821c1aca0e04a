"""Page metadata values made clean and comparable: texts (entities decoded, mis-decoded UTF-8
repaired, whitespace collapsed), URLs (absolute http(s), junk images refused), BCP 47 language
tags, ISO 8601 dates read from what pages write, authors' names taken out of bylines. Pure
string work; the rules are data in :mod:`convert.metadata.rules` and
:mod:`convert.metadata.rules_bylines`."""

from __future__ import annotations

import contextlib
import html
import ipaddress
import re
import unicodedata
from datetime import date
from urllib.parse import urljoin, urlsplit

from convert.metadata import rules
from convert.metadata import rules_bylines as byline_rules
from convert.metadata import rules_images as image_rules

URL_LIMIT = 2048
"""Longest URL kept from a page; a longer one is dropped."""
_MOJIBAKE = re.compile("[\u00c2\u00c3][\u0080-\u00bf]|\u00e2\u0080[\u0080-\u00bf]|\u00e2\u20ac")
_ENTITY = re.compile(r"&(?:#\d{2,7}|#x[\da-f]{2,6}|[a-z]{2,10});", re.I)
_INVISIBLE = re.compile("[\u200b-\u200f\u2060\ufeff\u00ad]")
_WORD = re.compile(r"\w+")
_QUOTES = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
)


def clean_text(value: str, scan: int = 8000) -> str:
    """``value`` as display text: entities left encoded (``&amp;reg;``) decoded once more,
    UTF-8 read as Latin-1 repaired, invisible characters dropped, whitespace collapsed. Only the
    first ``scan`` characters are read (every field is capped after)."""
    text = value[:scan]
    if "&" in text and _ENTITY.search(text):
        text = html.unescape(text)
    if _MOJIBAKE.search(text):
        text = _repair(text)
    return " ".join(_INVISIBLE.sub("", text).split())


def _repair(text: str) -> str:
    """UTF-8 bytes that were decoded as Latin-1 or Windows-1252, decoded again; ``text`` as it
    was when it does not round-trip."""
    for codec in ("cp1252", "latin-1"):
        try:
            return text.encode(codec).decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            continue
    return text


def comparable(text: str) -> str:
    """Text as two values are compared: NFKC, lower case, straight quotes, one space."""
    return " ".join(unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold().split())


def words(text: str) -> list[str]:
    """The words of ``text``, compared as :func:`comparable` does."""
    return _WORD.findall(comparable(text))


def compact(text: str) -> str:
    """Letters and digits only, lower case: "Move.org" and "move org" are the same name."""
    return "".join(words(text))


# -- URLs ---------------------------------------------------------------------------------------


def absolute_url(base: str, value: str) -> str:
    """``value`` made absolute against ``base``: "" unless http(s) with a host, or when longer
    than :data:`URL_LIMIT` (a cut URL points somewhere else)."""
    value = _EXTRA_SLASHES.sub(r"\1//", value.strip())
    if not value or len(value) > URL_LIMIT or value.startswith(("data:", "javascript:")):
        return ""
    if _PLAIN_ABSOLUTE.match(value):
        return value  # already absolute, with a host and nothing to resolve: most values
    try:
        if _HTTP_SCHEME.match(value) and not urlsplit(value).netloc:
            return ""  # "https:" with no host would resolve to the page itself
        joined = urljoin(base, value.replace(" ", "%20"))
        parts = urlsplit(joined)
    except ValueError:
        return ""
    if parts.scheme not in ("http", "https") or not parts.hostname or len(joined) > URL_LIMIT:
        return ""
    return joined


_EXTRA_SLASHES = re.compile(r"^(https?:)/{3,}", re.I)
"""A scheme glued to a protocol-relative URL ("https:" + "//cdn.example/a.jpg" written as
"https:////cdn.example/a.jpg", as some shop templates do): the host follows the extra slashes."""
_HTTP_SCHEME = re.compile(r"https?:", re.I)
_PLAIN_ABSOLUTE = re.compile(r"https?://[a-z0-9.\-]+(?::\d{1,5})?(?:[/?#]\S*)?$", re.I)
"""An absolute http(s) URL with a plain host and no whitespace: joining gives it back as it is."""


def junk_image(url: str) -> bool:
    """Whether an absolute image URL is a placeholder or a tracking pixel, not a picture."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if any(host == known or host.endswith("." + known) for known in image_rules.TRACKING_HOSTS):
        return True
    path = parts.path
    if image_rules.TRACKING_PATH.search(path) and not _IMAGE_FILE.search(path):
        return True
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return bool(
        image_rules.PLACEHOLDER_STEM.match(stem) or image_rules.PLACEHOLDER_NAME.search(stem)
    )


_IMAGE_FILE = re.compile(r"\.(?:jpe?g|png|webp|avif)$", re.I)


def readable_domain(url: str) -> str:
    """The site's domain as a person writes it: no ``www.``, Unicode instead of punycode."""
    try:
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:  # a malformed IPv6 host
        return ""
    for prefix in rules.DOMAIN_PREFIXES:
        if host.startswith(prefix) and host.count(".") >= 2:
            host = host[len(prefix) :]
            break
    if "xn--" in host:
        with contextlib.suppress(UnicodeError):
            host = host.encode("ascii").decode("idna")
    return host


def address_host(host: str) -> bool:
    """Whether a host is a machine's address rather than a site's name: an IP address, a name
    without a dot ("localhost") or one of a private network (``rules.LOCAL_HOST_SUFFIXES``)."""
    bare = host.strip("[]")
    try:
        ipaddress.ip_address(bare)
    except ValueError:
        return "." not in bare or bare.endswith(rules.LOCAL_HOST_SUFFIXES)
    return True


# -- languages ----------------------------------------------------------------------------------


def language_tag(value: str) -> str:
    """A BCP 47 tag in its usual case (``en-US``, ``zh-Hant-TW``); the first of a list; ""
    when ``value`` is not one."""
    first = re.split(r"[,;\s]", value.strip(), maxsplit=1)[0].replace("_", "-")
    if first.lower() in rules.JUNK_LANGUAGES:
        return ""
    match = rules.LANGUAGE_TAG.match(first)
    if match is None:
        return ""
    parts = [match["language"].lower()]
    if match["script"]:
        parts.append(match["script"].title())
    if match["region"]:
        parts.append(match["region"].upper())
    if match["rest"]:
        parts.append(match["rest"].strip("-").lower())
    return "-".join(parts)


# -- dates --------------------------------------------------------------------------------------

_ISO = re.compile(
    r"^(?P<y>\d{4})-?(?P<m>\d{2})-?(?P<d>\d{2})"
    r"(?:[T\s]+(?P<H>\d{1,2}):(?P<M>\d{2})(?::(?P<S>\d{2})(?:[.,]\d+)?)?\s*"
    r"(?P<tz>Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?)?(?![\d])"
)
_SLASHED_YMD = re.compile(r"\b(?P<y>\d{4})[/.](?P<m>\d{1,2})[/.](?P<d>\d{1,2})\b")
_NUMERIC = re.compile(r"\b(?P<a>\d{1,2})[/.\-](?P<b>\d{1,2})[/.\-](?P<y>\d{4})\b")
_MONTH_WORD = r"(?P<month>[^\W\d_]{3,10})\.?"
_MONTH_FIRST = re.compile(
    _MONTH_WORD + r",?\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>\d{4})\b", re.I
)
_DAY_FIRST = re.compile(
    r"\b(?P<d>\d{1,2})(?:st|nd|rd|th|er|\.)?\s+(?:de\s+)?"
    + _MONTH_WORD
    + r",?\s+(?:de\s+)?(?P<y>\d{4})\b",
    re.I,
)
_MONTH_YEAR = re.compile(_MONTH_WORD + r",?\s+(?P<y>\d{4})\b", re.I)


def iso_date(value: str, *, loose: bool = False) -> str:
    """An ISO 8601 date (``2024-03-05``) or date and time (``2024-03-05T14:30:00+01:00``, the
    offset as the page gave it) read from ``value``; "" when there is none or it is impossible.
    ``loose`` also reads dates written in words or digits inside a longer text ("Posted on
    March 5, 2024", "05.03.2024"); structured values are read strictly."""
    text = value.strip()
    match = _ISO.match(text)
    if match is not None:
        day = _valid(int(match["y"]), int(match["m"]), int(match["d"]))
        if day and match["H"] is not None:
            return day + _time(match)
        return day
    if not loose and len(text) > 40:
        return ""
    for pattern in (_MONTH_FIRST, _DAY_FIRST):
        found = pattern.search(text)
        if found is not None:
            month = byline_rules.MONTHS.get(found["month"].lower().rstrip("."))
            if month:
                return _valid(int(found["y"]), month, int(found["d"]))
    found = _SLASHED_YMD.search(text)
    if found is not None:
        return _valid(int(found["y"]), int(found["m"]), int(found["d"]))
    found = _NUMERIC.search(text)
    if found is not None:
        first, second = int(found["a"]), int(found["b"])
        # 05/03/2024 is ambiguous: read as the US write it unless the first number cannot be
        # a month, or the separator is a dot (Europe).
        day_first = first > 12 or "." in found[0]
        number, month = (first, second) if day_first else (second, first)
        return _valid(int(found["y"]), month, number)
    return ""


def _valid(year: int, month: int, day: int) -> str:
    if not byline_rules.YEARS[0] <= year <= byline_rules.YEARS[1]:
        return ""
    try:
        stamp = date(year, month, day).isoformat()
    except ValueError:
        return ""
    return "" if stamp in byline_rules.ZERO_DATES else stamp


def _time(match: re.Match[str]) -> str:
    hour, minute, second = int(match["H"]), int(match["M"]), int(match["S"] or 0)
    if hour > 23 or minute > 59 or second > 59:
        return ""
    zone = (match["tz"] or "").upper()
    if zone in ("Z", "UTC", "GMT"):
        zone = "Z"
    elif zone:
        digits = zone[1:].replace(":", "")
        zone = f"{zone[0]}{digits[:2]}:{digits[2:4] or '00'}"
    return f"T{hour:02d}:{minute:02d}:{second:02d}{zone}"


# -- authors ------------------------------------------------------------------------------------

_HANDLE = re.compile(r"^@[\w.]+$")
_LIST_JOIN = re.compile(r"\s*(?:,|&|\band\b|\bund\b|\bet\b|\by\b)\s*", re.I)


def author_name(value: str, *, stated: bool = False) -> str:
    """The name(s) in an author value or a byline ("By Jane Doe | March 3" -> "Jane Doe"); ""
    when it names nobody (a URL, a handle, "admin", a sentence). ``stated``: the value comes
    from a field that holds only a name (a ``<meta name="author">``, JSON-LD), where a name in
    lower case ("jane doe") is still a name."""
    text = clean_text(value, 600)
    text = byline_rules.AUTHOR_LABEL.sub("", text, count=1)
    text = byline_rules.AUTHOR_CUT.split(text, maxsplit=1)[0]
    text = byline_rules.AUTHOR_ROLE.sub("", text)
    text = text.strip(" ,;:-\u2013\u2014|\u2022\u00b7").strip()
    return text if is_name(text, stated=stated) else ""


def stated_author(value: str) -> str:
    """:func:`author_name` for a value from a field that holds only a name."""
    return author_name(value, stated=True)


def is_name(text: str, *, stated: bool = False) -> bool:
    """Whether ``text`` reads as one or more people's (or an organization's) names (``stated``:
    see :func:`author_name`)."""
    if not text or len(text) > byline_rules.AUTHOR_MAX_CHARS:
        return False
    lowered = text.lower().strip(" .")
    if lowered in byline_rules.JUNK_AUTHORS or "://" in text or text.startswith(("www.", "/")):
        return False
    if _HANDLE.match(text) or "@" in text or not byline_rules.NAME_LIKE.match(text):
        return False
    names = [part for part in _LIST_JOIN.split(text) if part]
    if not names or not any(char.isalpha() for char in text):
        return False
    tokens = text.split()
    first = tokens[0].lower()
    if first in byline_rules.LEADING_WORDS and not (
        stated and first in byline_rules.STATED_LEADING_WORDS
    ):
        return False
    if any(token.lower().strip(".,") in byline_rules.UI_WORDS for token in tokens):
        return False
    lower = [
        token
        for token in tokens
        if token[0].islower() and token.lower().strip(".,") not in byline_rules.NAME_PARTICLES
    ]
    casual = stated and len(tokens) <= byline_rules.LOWERCASE_NAME_WORDS
    if len(tokens) > 1 and 2 * len(lower) > len(tokens) and not casual:
        return False  # a phrase, not a name
    return all(len(name.split()) <= byline_rules.AUTHOR_MAX_WORDS for name in names)


def same_names(first: str, second: str) -> bool:
    """Whether two author values name the same people (order, joining words and case aside)."""
    return _name_set(first) == _name_set(second)


def _name_set(text: str) -> frozenset[str]:
    return frozenset(compact(part) for part in split_names(text) if compact(part))


def split_names(text: str) -> list[str]:
    """The names of an author value ("A, B and C": A, B, C)."""
    return [part.strip() for part in _LIST_JOIN.split(text) if part.strip()]
