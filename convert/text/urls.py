"""URLs as keys: one way to write a URL that the page cache, hosted frames and the oEmbed answer
cache compare, and the site a host belongs to. Pure string work, no I/O."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

DEFAULT_PORTS = {"http": 80, "https": 443}
_SHORT_SECOND_LEVELS = frozenset({"co", "com", "org", "net", "ac", "gov", "edu", "ne", "or"})
"""Second-level labels under which a site is three labels long (``example.co.uk``)."""


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


def registrable_domain(host: str) -> str:
    """The site a host belongs to, approximately (no public-suffix list): the last two labels,
    or three under short second levels such as ``co.uk``; IP addresses as they are."""
    host = host.lower().rstrip(".")
    labels = host.split(".")
    if len(labels) <= 2 or labels[-1].isdigit() or ":" in host:
        return host
    keep = 3 if labels[-2] in _SHORT_SECOND_LEVELS and len(labels[-1]) == 2 else 2
    return ".".join(labels[-keep:])
