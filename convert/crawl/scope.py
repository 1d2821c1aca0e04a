"""Which URLs a crawl or a map may take (pure, no I/O): the site, the path patterns, the depth.

Public API:

- :class:`CrawlScope` (start_url, subdomains=False, include=(), exclude=(), max_depth=None):
  ``admits(url, depth) -> bool`` and ``refusal(url, depth) -> ScopeRefusal | None`` (why not;
  ``refusal_of_key(key, depth)`` for a URL already made a :func:`~convert.crawl.urls.url_key`);
  ``on_site(url) -> bool`` (the host test alone); ``start`` is the start URL as cleaned by
  :func:`convert.crawl.urls.clean_url`. Raises :class:`~convert.crawl.urls.CrawlURLError` for a
  start URL that is not absolute http(s) and :class:`PatternError` for a bad pattern.
- :func:`check_patterns` (patterns) -> None: raises :class:`PatternError` for the first bad one
  (handlers validate with it before building a scope).

The rules, in order:

1. The start URL itself is always admitted at depth 0 (its links are what a crawl starts from).
2. http or https only; the same host as the start URL, and the same port when either names a
   port that is not its scheme's default (``http://example.org`` and ``https://example.org`` are
   one site; ``127.0.0.1:8000`` and ``127.0.0.1:8001`` are two). With ``subdomains``, hosts under
   the start host's registrable part also count: the start host without a leading ``www.``, and
   any host ending with ``.`` plus it (``docs.example.org`` for ``www.example.org``).
3. ``include`` and ``exclude`` are shell-style globs (``*``, ``?``, ``[...]``) matched against the
   URL's path (as :func:`~convert.crawl.urls.url_key` writes it: without a trailing slash),
   case-sensitively, the whole path: ``*`` also matches ``/``, so ``/docs/*`` takes
   every page under ``/docs/``. A URL must match one include pattern when there are any, and no
   exclude pattern.
4. ``depth`` (links followed from the start URL) at most ``max_depth`` when it is set.

robots.txt is not part of the scope: combine ``scope.admits(...)`` with
:meth:`convert.crawl.robots.RobotsRules.allowed`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum
from fnmatch import translate
from urllib.parse import urlsplit

from convert.crawl.urls import CrawlURLError, clean_url, url_key
from convert.text.urls import DEFAULT_PORTS

MAX_PATTERN_LENGTH = 512


class PatternError(ValueError):
    """An include or exclude pattern that cannot be used."""


class ScopeRefusal(StrEnum):
    """Why a URL is outside the scope."""

    invalid = "invalid"
    other_site = "other_site"
    not_included = "not_included"
    excluded = "excluded"
    too_deep = "too_deep"


def check_patterns(patterns: Iterable[str]) -> None:
    """Raise :class:`PatternError` for the first pattern that cannot be used."""
    _compile(patterns)


def _compile(patterns: Iterable[str]) -> tuple[re.Pattern[str], ...]:
    compiled = []
    for pattern in patterns:
        if not pattern or len(pattern) > MAX_PATTERN_LENGTH:
            raise PatternError(f"a pattern must have 1 to {MAX_PATTERN_LENGTH} characters")
        if not pattern.startswith(("/", "*", "?", "[")):
            raise PatternError(f"{pattern!r} must start with / (it is matched against the path)")
        try:
            compiled.append(re.compile(translate(pattern)))
        except re.error as exc:
            raise PatternError(f"{pattern!r} is not a valid pattern") from exc
    return tuple(compiled)


def _site_of(url: str) -> tuple[str, int | None]:
    parts = urlsplit(url)
    port = parts.port
    if port is not None and DEFAULT_PORTS.get(parts.scheme) == port:
        port = None
    return (parts.hostname or "", port)


def _key_parts(key: str) -> tuple[str, str, str]:
    """The netloc (without userinfo), host and path of a key: plain string work, as a key is
    already in canonical form (lowercase, default port dropped, path from ``/``)."""
    rest = key.partition("://")[2]
    netloc, slash, tail = rest.partition("/")
    netloc = netloc.rpartition("@")[2]
    host = netloc.partition("]")[0] + "]" if netloc.startswith("[") else netloc.partition(":")[0]
    path = slash + tail.partition("?")[0] if slash else "/"
    return netloc, host.strip("[]"), path


class CrawlScope:
    """The URLs one crawl or map may take (see the module docstring)."""

    def __init__(
        self,
        start_url: str,
        *,
        subdomains: bool = False,
        include: Iterable[str] = (),
        exclude: Iterable[str] = (),
        max_depth: int | None = None,
    ) -> None:
        self.start = clean_url(start_url)
        self._start_key = url_key(self.start)
        self.subdomains = subdomains
        self.include = tuple(include)
        self.exclude = tuple(exclude)
        self._include = _compile(self.include)
        self._exclude = _compile(self.exclude)
        self.max_depth = max_depth
        self._host, self._port = _site_of(self.start)
        self._domain = self._host.removeprefix("www.")
        self._port_suffix = "" if self._port is None else f":{self._port}"

    @staticmethod
    def _bracketed(host: str) -> str:
        return f"[{host}]" if ":" in host else host

    def admits(self, url: str, depth: int) -> bool:
        """Whether ``url``, ``depth`` links away from the start URL, is in the scope."""
        return self.refusal(url, depth) is None

    def refusal(self, url: str, depth: int) -> ScopeRefusal | None:
        """Why ``url`` at ``depth`` is outside the scope, or None when it is inside."""
        try:
            key = url_key(url)
        except CrawlURLError:
            return ScopeRefusal.invalid
        return self.refusal_of_key(key, depth)

    def refusal_of_key(self, key: str, depth: int) -> ScopeRefusal | None:
        """:meth:`refusal` for a URL already made a key by :func:`~convert.crawl.urls.url_key`
        (the fast path for many URLs)."""
        if key == self._start_key:
            return None
        netloc, host, path = _key_parts(key)
        if not self._on_site(netloc, host):
            return ScopeRefusal.other_site
        if self._include and not any(pattern.match(path) for pattern in self._include):
            return ScopeRefusal.not_included
        if any(pattern.match(path) for pattern in self._exclude):
            return ScopeRefusal.excluded
        if self.max_depth is not None and depth > self.max_depth:
            return ScopeRefusal.too_deep
        return None

    def on_site(self, url: str) -> bool:
        """Whether ``url`` is on the start URL's site (host and port, subdomains if asked)."""
        try:
            return self._key_on_site(url_key(url))
        except (CrawlURLError, ValueError):
            return False

    def _key_on_site(self, key: str) -> bool:
        netloc, host, _ = _key_parts(key)
        return self._on_site(netloc, host)

    def _on_site(self, netloc: str, host: str) -> bool:
        if netloc != self._bracketed(host) + self._port_suffix:
            return False  # another port than the start URL's
        if host == self._host:
            return True
        return self.subdomains and (host == self._domain or host.endswith("." + self._domain))
