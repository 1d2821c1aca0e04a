"""The target URL of a request: decoded from the path (or a parameter) and checked for shape.
Whether its address may be fetched is the fetcher's SSRF guard's call."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from browser.fetch import Fetcher
from browser.ssrf import URLRefusedError
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


async def check_target(fetcher: Fetcher, url: str) -> None:
    """The SSRF guard before a browser loads ``url`` (its egress guard checks every request the
    page makes too): ApiError ``invalid_url``, ``fetch_not_allowed`` or ``target_unreachable``."""
    try:
        await fetcher.policy.check(url, fetcher.resolver)
    except URLRefusedError as exc:
        kind = "invalid_url" if exc.kind.value == "invalid_url" else "fetch_not_allowed"
        raise ApiError(kind, exc.message) from exc
    except Exception as exc:  # ResolutionError and resolver failures
        raise ApiError("target_unreachable", "the target host could not be resolved") from exc
