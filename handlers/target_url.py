"""The target URL of a request: decoded from the path (or a parameter) and checked for shape,
and for a port browsers refuse. Whether its address may be fetched is the SSRF guard's call
(:mod:`services.target_guard`).

The documented rule is that the path holds the target URL percent-encoded. A target pasted
unencoded (``/api/3.0/markdown/https://host/page?q=1&app_id=KEY``) is accepted too: its own
query then arrives as the request's query, so the parameters there that are not the endpoint's
own are given back to the target (:func:`with_query`) and the answer says so. A scheme whose two
slashes a proxy merged into one (``https:/host``) is mended."""

from __future__ import annotations

import re
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from handlers.errors import ApiError
from services.target_guard import unsafe_port_refusal

MAX_URL_LENGTH = 8192
_SPACE_OR_CONTROL = re.compile(r"[\x00-\x20\x7f\s]")
_UNENCODED = re.compile(r"(?i)https?:/")
_MERGED_SLASHES = re.compile(r"(?i)^(https?):/(?!/)")


def unencoded(raw_path_target: str) -> bool:
    """Whether the path's target (as sent, before percent-decoding) is a URL pasted unencoded."""
    return bool(_UNENCODED.match(raw_path_target))


def mend_slashes(url: str) -> str:
    """``https:/host/...`` (a proxy merged the scheme's two slashes) as ``https://host/...``."""
    return _MERGED_SLASHES.sub(r"\1://", url, count=1)


def with_query(url: str, query: str, names: frozenset[str]) -> str:
    """``url`` with the pieces of the raw ``query`` whose name is in ``names``, in their order
    and encoding as sent, as its query (an unencoded target's own parameters)."""
    pieces = [
        piece
        for piece in query.split("&")
        if piece and unquote_plus(piece.split("=", 1)[0]) in names
    ]
    if not pieces:
        return url
    parts = urlsplit(url)
    joined = "&".join(filter(None, (parts.query, *pieces)))
    return urlunsplit(parts._replace(query=joined))


def decode_target(raw: str | None) -> str:
    """The target URL, or ApiError ``invalid_url``. Tornado has already percent-decoded ``raw``."""
    url = (raw or "").strip()
    if not url:
        raise ApiError("invalid_url", "the target URL is missing")
    if len(url) > MAX_URL_LENGTH:
        raise ApiError("invalid_url", f"the target URL is longer than {MAX_URL_LENGTH} characters")
    if _SPACE_OR_CONTROL.search(url):
        raise ApiError("invalid_url", "the target URL contains spaces or control characters")
    try:
        parts = urlsplit(url)
        hostname = parts.hostname
        port = parts.port  # raises ValueError for a malformed port
    except ValueError as exc:
        raise ApiError("invalid_url", "the target URL is malformed") from exc
    if parts.scheme.lower() not in ("http", "https"):
        raise ApiError("invalid_url", "the target URL must start with http:// or https://")
    if not hostname:
        raise ApiError("invalid_url", "the target URL has no host")
    refused = unsafe_port_refusal(port)
    if refused is not None:
        raise ApiError("invalid_url", refused, details={"parameter": "url", "port": port})
    return url
