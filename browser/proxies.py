"""Proxy tiers: the configured proxies of each tier, rotation within a tier, per-country entries,
the domain table that seeds ``auto_proxy``, and the attempt ladder of an escalating retry.

Tiers in escalation order: ``direct`` (no proxy), ``standard``, ``premium``, ``superior``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar
from urllib.parse import urlsplit

from settings.fields import SettingsError, setting

TIERS: tuple[str, ...] = ("direct", "standard", "premium", "superior")
PROXY_TIERS: tuple[str, ...] = TIERS[1:]
_COUNTRY = re.compile(r"[a-z]{2}")
_SCHEMES = ("http", "https", "socks4", "socks4a", "socks5", "socks5h")


@dataclass
class ProxySettings:
    """Proxy tiers for fetching target pages. Each tier is a list of proxy URLs with credentials
    (http://user:password@host:port, or socks5h://...); requests rotate through a tier's list. An
    entry written as CC=URL (de=http://...) serves proxy_country=CC only."""

    SECTION: ClassVar[str] = "proxies"
    standard: list[str] = setting([], "Proxies of the standard tier (use_proxy).", secret=True)
    premium: list[str] = setting(
        [], "Proxies of the premium, residential tier (use_premium).", secret=True
    )
    superior: list[str] = setting(
        [], "Proxies of the superior, mobile tier (use_superior).", secret=True
    )
    domain_tiers: list[str] = setting(
        [],
        "Domains known to need a proxy, as DOMAIN=TIER (example.com=premium); a domain covers its "
        "subdomains. auto_proxy starts there; what Pagecast learns later takes precedence.",
    )
    learn: bool = setting(
        True, "Remember per domain which tier last succeeded, and start there next time."
    )
    learned_ttl: float = setting(
        7 * 86400.0, "Seconds a learned domain strategy is trusted before it is relearned.", min=60
    )
    learned_max_domains: int = setting(
        10_000, "Most domains remembered; the least recently used are forgotten.", min=1
    )


@dataclass(frozen=True)
class ProxyRoute:
    """One proxy to send a request through. ``url`` carries credentials: never log it."""

    tier: str
    url: str
    country: str | None

    def __repr__(self) -> str:
        return f"ProxyRoute(tier={self.tier!r}, country={self.country!r})"

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or ""

    @property
    def port(self) -> int:
        parts = urlsplit(self.url)
        if parts.port:
            return parts.port
        return 443 if parts.scheme == "https" else 1080 if parts.scheme.startswith("socks") else 80


class ProxyPool:
    """The configured proxies, checked at start, handed out in rotation."""

    def __init__(self, settings: ProxySettings) -> None:
        problems: list[str] = []
        self._routes: dict[str, list[ProxyRoute]] = {}
        for tier in PROXY_TIERS:
            self._routes[tier] = [
                route
                for index, entry in enumerate(getattr(settings, tier))
                if (route := _parse_entry(tier, entry, f"proxies.{tier}[{index}]", problems))
            ]
        self._domains: list[tuple[str, str]] = []
        for index, entry in enumerate(settings.domain_tiers):
            domain, sep, tier = entry.partition("=")
            domain, tier = domain.strip().lower().strip("."), tier.strip().lower()
            if not sep or not domain or tier not in TIERS:
                problems.append(
                    f"proxies.domain_tiers[{index}]: expected DOMAIN=TIER with TIER one of "
                    + ", ".join(TIERS)
                )
                continue
            self._domains.append((domain, tier))
        if problems:
            raise SettingsError(problems)
        # Longest domain first, so the most specific entry wins.
        self._domains.sort(key=lambda item: -len(item[0]))
        self._cursors: dict[tuple[str, str | None], Iterator[ProxyRoute]] = {}

    def configured(self, tier: str) -> bool:
        """Whether ``tier`` can be used at all (direct always can)."""
        return tier == "direct" or bool(self._routes.get(tier))

    def serves(self, tier: str, country: str | None) -> bool:
        """Whether ``tier`` has a proxy for ``country`` (None: any proxy of the tier)."""
        return bool(self._candidates(tier, country))

    def route(self, tier: str, country: str | None) -> ProxyRoute | None:
        """The next proxy of ``tier`` for ``country`` in rotation; None for direct or none."""
        if tier == "direct":
            return None
        key = (tier, country)
        cursor = self._cursors.get(key)
        if cursor is None:
            candidates = self._candidates(tier, country)
            if not candidates:
                return None
            cursor = self._cursors[key] = itertools.cycle(candidates)
        return next(cursor)

    def seed_tier(self, host: str) -> str | None:
        """The tier the domain table names for ``host`` (suffix match), if any."""
        host = host.lower().rstrip(".")
        for domain, tier in self._domains:
            if host == domain or host.endswith("." + domain):
                return tier
        return None

    def _candidates(self, tier: str, country: str | None) -> list[ProxyRoute]:
        routes = self._routes.get(tier, [])
        if country:
            return [route for route in routes if route.country == country]
        # Without a country, untagged proxies are preferred; tagged ones serve when alone.
        untagged = [route for route in routes if route.country is None]
        return untagged or routes


def _parse_entry(tier: str, entry: str, label: str, problems: list[str]) -> ProxyRoute | None:
    country: str | None = None
    text = entry.strip()
    prefix, sep, rest = text.partition("=")
    if sep and "://" not in prefix:
        country, text = prefix.strip().lower(), rest.strip()
        if not _COUNTRY.fullmatch(country):
            problems.append(f"{label}: country prefix must be two letters")
            return None
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (raises ValueError for a malformed port)
    except ValueError:
        problems.append(f"{label}: not a proxy URL")
        return None
    if parts.scheme not in _SCHEMES or not parts.hostname:
        problems.append(
            f"{label}: expected SCHEME://[USER:PASSWORD@]HOST[:PORT], scheme one of "
            + ", ".join(_SCHEMES)
        )
        return None
    return ProxyRoute(tier=tier, url=text, country=country)


def ladder(start: str, allowed: Sequence[str], *, attempts: int, escalate: bool) -> list[str]:
    """The tier of each attempt: ``start``, then one allowed tier up per retry (staying on the
    highest once there), or ``start`` every time without escalation."""
    if not escalate:
        return [start] * attempts
    rank = TIERS.index(start)
    above = [tier for tier in TIERS if tier in allowed and TIERS.index(tier) > rank]
    tiers = [start, *above]
    return [tiers[min(index, len(tiers) - 1)] for index in range(attempts)]
