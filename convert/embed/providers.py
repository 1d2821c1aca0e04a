"""The oEmbed provider registry behind Pagecast's native embed tier.

A registry maps URL schemes to a provider's oEmbed endpoint. Its data uses the public registry
format of oembed.com (``providers.json``)::

    [{"provider_name": "Vimeo", "provider_url": "https://vimeo.com/",
      "endpoints": [{"schemes": ["https://vimeo.com/*"],
                     "url": "https://vimeo.com/api/oembed.{format}",
                     "discovery": true, "formats": ["json"]}]}]

Pagecast ships its own list and an operator can import a full public registry; the files are read by
:mod:`services.embeds.provider_files`. ``parse_registry`` validates decoded data and reports, rather
than raises on, the entries it has to skip. ``ProviderRegistry`` compiles the schemes once and
answers ``match(url)``; ``endpoint_url`` builds the request for a match.

Scheme matching is described in :mod:`convert.embed.schemes`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import quote, unquote_plus, urlsplit

from convert.embed.schemes import (
    HTTP_SCHEMES,
    MAX_HOST_LENGTH,
    MAX_URL_LENGTH,
    MatchTarget,
    compile_scheme,
    host_keys,
    match_target,
)

__all__ = [
    "MAX_HOST_LENGTH",
    "MAX_URL_LENGTH",
    "Endpoint",
    "Provider",
    "ProviderMatch",
    "ProviderRegistry",
    "RegistryError",
    "endpoint_url",
    "parse_registry",
]

_FORMAT = "{format}"


class RegistryError(ValueError):
    """A registry file or document that cannot be used at all."""


@dataclass(frozen=True)
class Endpoint:
    """One oEmbed endpoint of a provider and the URL schemes it serves."""

    url: str
    schemes: tuple[str, ...]
    discovery: bool = False
    formats: tuple[str, ...] = ()


@dataclass(frozen=True)
class Provider:
    """An oEmbed provider: its name, home page and endpoints."""

    name: str
    url: str
    endpoints: tuple[Endpoint, ...]


@dataclass(frozen=True)
class ProviderMatch:
    """The provider that serves a URL; ``endpoint`` has ``{format}`` replaced with ``json``."""

    provider_name: str
    provider_url: str
    endpoint: str


# -- parsing -------------------------------------------------------------------------------------


def parse_registry(data: object) -> tuple[list[Provider], list[str]]:
    """Validate a decoded providers.json.

    Returns the usable providers and a problem message per skipped entry, endpoint or scheme.
    Entries without a name, with a non-http(s) endpoint URL, with no usable schemes, or with
    malformed fields are skipped with a reason; endpoints offering only xml are skipped (Pagecast
    asks providers for json). Raises ``RegistryError`` when ``data`` is not a list.
    """
    if not isinstance(data, list):
        raise RegistryError(f"a provider registry is a JSON list, not {type(data).__name__}")
    providers: list[Provider] = []
    problems: list[str] = []
    for index, entry in enumerate(data):
        provider = _parse_provider(index, entry, problems)
        if provider is not None:
            providers.append(provider)
    return providers, problems


def _parse_provider(index: int, entry: object, problems: list[str]) -> Provider | None:
    label = f"entry {index}"
    if not isinstance(entry, Mapping):
        problems.append(f"{label}: skipped, not an object")
        return None
    name = entry.get("provider_name")
    if not isinstance(name, str) or not name.strip():
        problems.append(f"{label}: skipped, no provider_name")
        return None
    label = f"{label} ({name.strip()})"
    home = entry.get("provider_url", "")
    if not isinstance(home, str):
        problems.append(f"{label}: skipped, provider_url is not a string")
        return None
    raw_endpoints = entry.get("endpoints")
    if not isinstance(raw_endpoints, list) or not raw_endpoints:
        problems.append(f"{label}: skipped, endpoints is not a non-empty list")
        return None
    endpoints = []
    for number, raw in enumerate(raw_endpoints):
        endpoint = _parse_endpoint(f"{label} endpoint {number}", raw, problems)
        if endpoint is not None:
            endpoints.append(endpoint)
    if not endpoints:
        problems.append(f"{label}: skipped, no usable endpoint")
        return None
    return Provider(name=name.strip(), url=home.strip(), endpoints=tuple(endpoints))


def _parse_endpoint(label: str, raw: object, problems: list[str]) -> Endpoint | None:
    if not isinstance(raw, Mapping):
        problems.append(f"{label}: skipped, not an object")
        return None
    url = raw.get("url")
    if not isinstance(url, str) or not _is_http_url(url.replace(_FORMAT, "json")):
        problems.append(f"{label}: skipped, url is not an http(s) URL: {url!r}")
        return None
    discovery = raw.get("discovery", False)
    formats = raw.get("formats", [])
    if not isinstance(discovery, bool):
        problems.append(f"{label}: skipped, discovery is not a boolean")
        return None
    if not isinstance(formats, list) or not all(isinstance(f, str) for f in formats):
        problems.append(f"{label}: skipped, formats is not a list of strings")
        return None
    formats = [f.strip().lower() for f in formats]
    if formats and "json" not in formats:
        problems.append(f"{label}: skipped, offers only {', '.join(formats)} (Pagecast needs json)")
        return None
    schemes = _parse_schemes(label, raw.get("schemes", []), problems)
    if schemes is None:
        return None
    if not schemes:
        problems.append(f"{label}: skipped, no usable schemes")
        return None
    return Endpoint(url=url.strip(), schemes=schemes, discovery=discovery, formats=tuple(formats))


def _parse_schemes(label: str, raw: object, problems: list[str]) -> tuple[str, ...] | None:
    if not isinstance(raw, list):
        problems.append(f"{label}: skipped, schemes is not a list")
        return None
    schemes: list[str] = []
    for scheme in raw:
        if isinstance(scheme, str) and compile_scheme(scheme.strip()) is not None:
            if scheme.strip() not in schemes:
                schemes.append(scheme.strip())
        else:
            problems.append(f"{label}: scheme {scheme!r} dropped, not a usable URL pattern")
    return tuple(schemes)


def _is_http_url(url: str) -> bool:
    try:
        parts = urlsplit(url.strip())
        return parts.scheme.lower() in HTTP_SCHEMES and bool(parts.hostname)
    except ValueError:
        return False


# -- the registry --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rule:
    order: int
    pattern: re.Pattern[str]
    match: ProviderMatch


class ProviderRegistry:
    """Providers with their schemes compiled and indexed by host, ready for ``match``."""

    def __init__(self, providers: Iterable[Provider]) -> None:
        """Later providers replace earlier ones of the same name (compared case-insensitively),
        in the earlier one's place, so an imported registry can override the built-in list."""
        by_name: dict[str, Provider] = {}
        for provider in providers:
            by_name[provider.name.strip().casefold()] = provider
        self._providers = tuple(by_name.values())
        self._by_host: dict[str, list[_Rule]] = {}
        self._unindexed: dict[str, list[_Rule]] = {}
        self._rule_count = 0
        for provider in self._providers:
            self._add(provider)

    def _add(self, provider: Provider) -> None:
        for endpoint in provider.endpoints:
            found = ProviderMatch(
                provider.name, provider.url, endpoint.url.replace(_FORMAT, "json")
            )
            for scheme in endpoint.schemes:
                compiled = compile_scheme(scheme.strip())
                if compiled is None:
                    raise ValueError(f"{provider.name}: scheme {scheme!r} is not a URL pattern")
                rule = _Rule(self._rule_count, compiled.pattern, found)
                self._rule_count += 1
                if compiled.host_key is None:
                    self._unindexed.setdefault(compiled.uri_scheme, []).append(rule)
                else:
                    self._by_host.setdefault(compiled.host_key, []).append(rule)

    def match(self, url: str) -> ProviderMatch | None:
        """The first provider endpoint whose scheme matches ``url``, or None."""
        target = match_target(url.strip())
        if target is None:
            return None
        best: _Rule | None = None
        for rules in self._candidates(target):
            for rule in rules:
                if best is not None and rule.order > best.order:
                    break
                if rule.pattern.fullmatch(target.text):
                    best = rule
                    break
        return None if best is None else best.match

    def _candidates(self, target: MatchTarget) -> Iterable[list[_Rule]]:
        if target.host is not None:
            for key in host_keys(target.host):
                rules = self._by_host.get(key)
                if rules:
                    yield rules
        rules = self._unindexed.get(target.uri_scheme)
        if rules:
            yield rules

    def __len__(self) -> int:
        return len(self._providers)

    @property
    def providers(self) -> tuple[Provider, ...]:
        """The providers after same-name replacement, in registry order."""
        return self._providers


# -- request URLs --------------------------------------------------------------------------------


def endpoint_url(
    match: ProviderMatch, url: str, maxwidth: int | None = None, maxheight: int | None = None
) -> str:
    """The provider request URL for ``url``.

    The endpoint's own query parameters are kept; ``url`` (and ``maxwidth``/``maxheight`` when
    given) replace any of the same name. ``format=json`` is added unless the endpoint already
    names its format: a ``{format}`` placeholder (replaced with ``json``), a path ending in
    ``.json`` or a ``format`` query parameter.
    """
    endpoint = match.endpoint
    in_path = _FORMAT in endpoint
    endpoint = endpoint.replace(_FORMAT, "json")
    base, _, fragment = endpoint.partition("#")
    base, _, query = base.partition("?")
    params: dict[str, str] = {"url": url}
    if maxwidth is not None:
        params["maxwidth"] = str(_positive("maxwidth", maxwidth))
    if maxheight is not None:
        params["maxheight"] = str(_positive("maxheight", maxheight))
    kept = [pair for pair in query.split("&") if pair and _param_name(pair) not in params]
    names = {_param_name(pair) for pair in kept}
    if not (in_path or base.lower().endswith(".json") or "format" in names):
        params["format"] = "json"
    kept.extend(f"{name}={quote(value, safe='')}" for name, value in params.items())
    return f"{base}?{'&'.join(kept)}" + (f"#{fragment}" if fragment else "")


def _param_name(pair: str) -> str:
    return unquote_plus(pair.partition("=")[0])


def _positive(name: str, value: int) -> int:
    if isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, not {value!r}")
    return value
