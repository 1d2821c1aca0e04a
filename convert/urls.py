"""One way to write a URL as a key: what the page cache, hosted frames and the oEmbed answer
cache compare. Pure string work, no I/O."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_url(url: str, *, keep_userinfo: bool = False, strict: bool = False) -> str:
    """``url`` with its scheme and host lowercased, its default port and fragment dropped and an
    empty path made ``/``; path and query are kept as given, in order. ``keep_userinfo`` keeps a
    ``user:password@`` part (the page cache: two users' pages differ); ``strict`` raises
    ValueError for a URL without scheme or host (an invalid port raises either way)."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if strict and (not scheme or not host):
        raise ValueError(f"not an absolute URL: {url!r}")
    port = parts.port
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port is None or DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"
    userinfo, at, _ = parts.netloc.rpartition("@")
    if keep_userinfo and at:
        netloc = f"{userinfo}@{netloc}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))
