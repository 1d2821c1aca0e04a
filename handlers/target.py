"""The target URL of a request: decoded from the path (or a parameter) and checked for shape.
Whether its address may be fetched is the SSRF guard's call (:mod:`services.targets`)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from handlers.errors import ApiError

MAX_URL_LENGTH = 8192
_SPACE_OR_CONTROL = re.compile(r"[\x00-\x20\x7f\s]")


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
        parts.port  # noqa: B018  (raises ValueError for a malformed port)
    except ValueError as exc:
        raise ApiError("invalid_url", "the target URL is malformed") from exc
    if parts.scheme.lower() not in ("http", "https"):
        raise ApiError("invalid_url", "the target URL must start with http:// or https://")
    if not hostname:
        raise ApiError("invalid_url", "the target URL has no host")
    return url
