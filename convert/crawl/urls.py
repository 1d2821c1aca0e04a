"""URLs as a crawl compares them: pure string work, no I/O.

Public API:

- :func:`clean_url` (url) -> str: the URL to fetch. Scheme and host lowercased, the default port
  and the fragment dropped, dot segments resolved, characters a URL cannot carry (spaces,
  non-ASCII) percent-encoded as UTF-8, percent-escapes written in upper case and escaped
  unreserved characters unescaped, an empty path made ``/``; the tracking parameters of
  :data:`TRACKING_PARAMETERS` (and every name starting with one of :data:`TRACKING_PREFIXES`)
  dropped and the other query parameters sorted by name (a stable sort: the values of a repeated
  name keep their order; two links that differ only in parameter order are one page on every
  site we know of). A trailing slash is kept:
  ``/docs`` and ``/docs/`` resolve relative links differently, so the URL fetched is the one
  linked to.
- :func:`url_key` (url) -> str: the deduplication key: :func:`clean_url` without the trailing
  slash of a path other than ``/``. Two URLs with the same key are fetched once.
  :func:`key_of` (cleaned) -> str is the same for a URL already cleaned, without cleaning it
  again.
- :func:`is_tracking_parameter` (name) -> bool.
- :class:`CrawlURLError` (a ValueError): the URL is not absolute http(s) or not a URL at all.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from convert.text.urls import DEFAULT_PORTS

TRACKING_PARAMETERS = frozenset(
    {
        "gclid",
        "gclsrc",
        "dclid",
        "gbraid",
        "wbraid",
        "fbclid",
        "msclkid",
        "yclid",
        "twclid",
        "ttclid",
        "li_fat_id",
        "igshid",
        "mc_cid",
        "mc_eid",
        "_ga",
        "_gl",
        "_hsenc",
        "_hsmi",
        "mkt_tok",
        "oly_anon_id",
        "oly_enc_id",
        "vero_id",
        "rb_clickid",
        "s_cid",
        "ref_src",
    }
)
"""Query parameter names (compared in lower case) that only say where a visitor came from."""

TRACKING_PREFIXES = ("utm_", "pk_", "mtm_", "hsa_")
"""Prefixes of tracking parameter names (Google Analytics, Matomo/Piwik, HubSpot ads)."""

SCHEMES = frozenset({"http", "https"})

_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
# What stays as written in a path and a query; spaces, non-ASCII and other characters a URL
# cannot carry are percent-encoded (UTF-8), as a browser sends them.
_PATH_SAFE = "/%:@!$&'()*+,;=-._~"
_QUERY_SAFE = _PATH_SAFE + "?"
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


class CrawlURLError(ValueError):
    """Not an absolute http or https URL."""


def clean_url(url: str) -> str:
    """The URL to fetch for ``url`` (see the module docstring). Raises :class:`CrawlURLError`."""
    try:
        parts = urlsplit(url.strip())
        scheme = parts.scheme.lower()
        if scheme not in SCHEMES:
            raise CrawlURLError(f"not an http or https URL: {url[:200]!r}")
        host = (parts.hostname or "").lower()
        port = parts.port  # ValueError for a port that is not one
    except CrawlURLError:
        raise
    except ValueError as exc:
        raise CrawlURLError(f"not a URL: {url[:200]!r}") from exc
    if not host:
        raise CrawlURLError(f"not an absolute URL: {url[:200]!r}")
    # As convert.text.urls.normalize_url writes the host part (userinfo kept), in one parse.
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and DEFAULT_PORTS.get(scheme) != port:
        netloc = f"{netloc}:{port}"
    userinfo, at, _ = parts.netloc.rpartition("@")
    if at:
        netloc = f"{userinfo}@{netloc}"
    path = _remove_dot_segments(_escapes(quote(parts.path, safe=_PATH_SAFE))) or "/"
    query = _query(quote(parts.query, safe=_QUERY_SAFE))
    return urlunsplit((scheme, netloc, path, query, ""))


def url_key(url: str) -> str:
    """The deduplication key of ``url``. Raises :class:`CrawlURLError`."""
    return key_of(clean_url(url))


def key_of(cleaned: str) -> str:
    """The deduplication key of a URL :func:`clean_url` already cleaned (no second cleaning)."""
    head, mark, query = cleaned.partition("?")
    if not head.endswith("/") or head.count("/") <= 3:  # no trailing slash, or the root's
        return cleaned
    head = head.rstrip("/")
    if head.count("/") < 3:
        head += "/"  # a path of slashes only is the root
    return head + mark + query


def is_tracking_parameter(name: str) -> bool:
    """Whether a query parameter ``name`` (as written, escapes allowed) is a tracking one."""
    lowered = unquote(name).lower()
    return lowered in TRACKING_PARAMETERS or lowered.startswith(TRACKING_PREFIXES)


def _query(query: str) -> str:
    pairs = [_escapes(pair) for pair in query.split("&") if pair]
    kept = [pair for pair in pairs if not is_tracking_parameter(pair.split("=", 1)[0])]
    kept.sort(key=lambda pair: pair.split("=", 1)[0])
    return "&".join(kept)


def _escapes(text: str) -> str:
    """Percent-escapes in upper case; escaped unreserved characters written plainly."""

    def one(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else "%" + match.group(1).upper()

    return _ESCAPE.sub(one, text)


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4, on a path that starts with ``/`` (or is empty)."""
    if "." not in path:
        return path
    output: list[str] = []
    segments = path.split("/")
    for index, segment in enumerate(segments[1:], start=1):
        last = index == len(segments) - 1
        if segment == "..":
            if len(output) > 0:
                output.pop()
            if last:
                output.append("")
        elif segment == ".":
            if last:
                output.append("")
        else:
            output.append(segment)
    return "/" + "/".join(output)
