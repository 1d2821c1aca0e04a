"""Registry schemes compiled to regular expressions, and URLs made ready to match them. Pure.

Scheme matching
    * ``*`` matches any run of characters, empty included. In the path, query and fragment it
      crosses ``/``, ``.``, ``?`` and ``#``; in the host it stays inside the host name.
    * ``http://`` and ``https://`` are equivalent: many registry entries list only one of them.
      Other URI schemes (``spotify:*``) are compared literally.
    * The host is compared case-insensitively (default ports dropped), everything after it
      case-sensitively.
    * ``*.example.com`` matches ``example.com`` and any subdomain of it; a bare host
      ``example.com`` also matches ``www.example.com``, and ``www.example.com`` matches
      ``example.com``. Any other subdomain must be listed.
    * The whole URL must match. A scheme that ends in ``*`` covers any query string and fragment
      through that ``*``; a scheme with no ``*`` at its end and no ``?`` or ``#`` of its own
      matches the URL's path and ignores a query string or fragment after it (share links carry
      tracking parameters). A scheme that spells out a query (``/playlist?list=*``) must match
      it.
    * URLs with user info (``https://user@host/``), control characters or white space, a host
      that is not a plain DNS name or IP address or is longer than a DNS name can be, or over
      ``MAX_URL_LENGTH`` characters never match.
    * The first match wins, in registry order: providers, then endpoints, then schemes.

Each scheme compiles to one regular expression whose wildcards between literal pieces are atomic
(``(?>.*?piece)``): the leftmost occurrence of each piece is always the right choice for ``*``
patterns, so matching takes time linear in the URL times the pattern, never exponential.
Schemes are indexed by host (``*.youtube.com`` and ``www.youtube.com`` under ``youtube.com``);
``match`` looks up the URL's host and its parent domains and only scans the few schemes whose
host is itself a pattern (``https://player.*.example/...``) or that are not HTTP. A scheme whose
host is nothing but wildcards (``https://*/...``) would claim every site and is not usable.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

MAX_URL_LENGTH = 8192
MAX_HOST_LENGTH = 254  # a DNS name with its trailing dot

HTTP_SCHEMES = frozenset({"http", "https"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_URI_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):(.*)", re.DOTALL)
_HOST_PATTERN = re.compile(r"[a-z0-9_.*-]+(?::[0-9]{1,5})?")
_DNS_HOST = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?")
_IPV6_HOST = re.compile(r"[0-9a-f:.]+")
_SUBDOMAINS = r"(?:[a-z0-9_-]+\.)*"
_HOST_STAR = r"[a-z0-9_.-]"


# -- compiling schemes --------------------------------------------------------------------------


@dataclass(frozen=True)
class CompiledScheme:
    """A scheme as a regular expression plus where the registry indexes it."""

    pattern: re.Pattern[str]
    host_key: str | None  # None: not indexable by host
    uri_scheme: str  # "http" for http and https


@lru_cache(maxsize=8192)
def compile_scheme(scheme: str) -> CompiledScheme | None:
    """Compile a registry scheme, or None when it is not a usable URL pattern."""
    found = _URI_SCHEME.fullmatch(scheme)
    if found is None or not found.group(2) or _has_bad_characters(scheme):
        return None
    uri_scheme, rest = found.group(1).lower(), found.group(2)
    if uri_scheme not in HTTP_SCHEMES:
        regex = re.escape(uri_scheme) + ":" + _glob(rest, star=".")
        return CompiledScheme(re.compile(regex, re.DOTALL), None, uri_scheme)
    if not rest.startswith("//"):
        return None
    authority, path = _split_authority(rest[2:])
    host = authority.lower()
    if not _HOST_PATTERN.fullmatch(host) or not host.strip("*.:"):
        return None
    host_regex, host_key = _host_regex(host)
    regex = r"https?://" + host_regex + _path_regex(path)
    return CompiledScheme(re.compile(regex, re.DOTALL), host_key, "http")


def _split_authority(rest: str) -> tuple[str, str]:
    for index, char in enumerate(rest):
        if char in "/?#":
            return rest[:index], rest[index:]
    return rest, ""


def _host_regex(host: str) -> tuple[str, str | None]:
    """The regex for a scheme's host and its index key (None for a host pattern)."""
    name, colon, port = host.partition(":")
    suffix = re.escape(colon + port)
    if name.startswith("*.") and "*" not in name[2:]:
        return _SUBDOMAINS + re.escape(name[2:]) + suffix, name[2:]
    if "*" in name:
        return _glob(name, star=_HOST_STAR) + suffix, None
    bare = name.removeprefix("www.")
    return r"(?:www\.)?" + re.escape(bare) + suffix, bare


def _path_regex(path: str) -> str:
    """Path, query and fragment; see the module docstring for the trailing-query rule."""
    if path.endswith("*") or "?" in path or "#" in path:
        return _glob(path, star=".")
    return _glob(path, star="[^?#]") + r"(?:[?#].*)?"


def _glob(pattern: str, *, star: str) -> str:
    """Translate ``*`` wildcards; each piece between two stars matches at its leftmost place."""
    pieces = pattern.split("*")
    if len(pieces) == 1:
        return re.escape(pattern)
    first, *middle, last = pieces
    parts = [re.escape(first)]
    for piece in middle:
        if piece:
            parts.append(f"(?>{star}*?{re.escape(piece)})")
    parts.append(f"{star}*{re.escape(last)}")
    return "".join(parts)


def _has_bad_characters(text: str) -> bool:
    return any(ord(char) <= 0x20 or ord(char) == 0x7F for char in text)


# -- URL normalisation ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchTarget:
    """A URL ready for matching: lower-case scheme and host, the rest as given."""

    text: str
    uri_scheme: str  # "http" for http and https
    host: str | None


def match_target(url: str) -> MatchTarget | None:
    if not url or len(url) > MAX_URL_LENGTH or _has_bad_characters(url):
        return None
    found = _URI_SCHEME.fullmatch(url)
    if found is None:
        return None
    uri_scheme, rest = found.group(1).lower(), found.group(2)
    if uri_scheme not in HTTP_SCHEMES:
        return MatchTarget(f"{uri_scheme}:{rest}", uri_scheme, None)
    if not rest.startswith("//"):
        return None
    authority, tail = _split_authority(rest[2:])
    host_port = _normalize_authority(uri_scheme, authority)
    if host_port is None:
        return None
    host, netloc = host_port
    return MatchTarget(f"{uri_scheme}://{netloc}{tail}", "http", host)


def _normalize_authority(uri_scheme: str, authority: str) -> tuple[str, str] | None:
    """(host, host[:port]) with a lower-case host and no default port, or None."""
    if "@" in authority or "\\" in authority:
        return None
    try:
        parts = urlsplit(f"//{authority}")
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not host:
        return None
    host = _ascii_host(host)
    if host is None:
        return None
    host = host.rstrip(".")
    shown = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORTS[uri_scheme]:
        shown = f"{shown}:{port}"
    return host, shown


def _ascii_host(host: str) -> str | None:
    if len(host) > MAX_HOST_LENGTH:
        return None
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    if _DNS_HOST.fullmatch(host) or (":" in host and _IPV6_HOST.fullmatch(host)):
        return host
    return None


def host_keys(host: str) -> Iterable[str]:
    """The host and its parent domains: ``a.b.c`` gives ``a.b.c``, ``b.c``, ``c``."""
    yield host
    dot = host.find(".")
    while dot != -1:
        yield host[dot + 1 :]
        dot = host.find(".", dot + 1)
