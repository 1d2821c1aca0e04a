"""robots.txt read as RFC 9309 says (pure, no I/O), plus the two common extensions crawlers
honour: ``Crawl-delay`` and ``Sitemap``.

Public API:

- :func:`parse_robots` (text, agent=:data:`AGENT`) -> :class:`RobotsRules`: the rules of the
  group(s) whose ``User-agent`` is ``agent`` (case-insensitive), else of the ``*`` group(s), else
  none; groups naming the same agent are merged; only the first :data:`MAX_ROBOTS_BYTES` are read.
- :func:`rules_for_response` (status, text, agent) -> :class:`RobotsRules`: what a crawler
  follows after fetching ``/robots.txt``: the parsed rules on a 2xx; everything allowed on a 4xx
  (no robots.txt); everything refused when the server failed or could not be reached
  (``status`` None or 5xx), as the RFC asks.
- :class:`RobotsRules`: ``allowed(url)`` (a full URL or a path with its query), ``crawl_delay``
  (seconds, a float, or None), ``sitemaps`` (absolute URLs as written, in order, whatever the
  group). ``RobotsRules.allow_all()`` and ``RobotsRules.deny_all()`` build the two fixed ones.

Matching: a rule's path may use ``*`` (any run of characters) and a final ``$`` (end of the URL);
the longest matching rule wins and Allow wins a tie; ``/robots.txt`` is always allowed. The stdlib
``urllib.robotparser`` is not used: it takes the first matching rule rather than the longest, does
not know ``*`` and ``$``, and reads only whole-number crawl delays.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

AGENT = "pagecast"
"""The product token Pagecast looks for in ``User-agent`` lines."""

MAX_ROBOTS_BYTES = 512 * 1024
"""How much of a robots.txt is read (the RFC asks crawlers to read at least 500 KiB)."""

MAX_RULES = 10_000
MAX_SITEMAPS = 1_000

_ESCAPE = re.compile(r"%[0-9a-fA-F]{2}")


@dataclass(frozen=True)
class _Rule:
    allow: bool
    path: str
    pattern: re.Pattern[str]


@dataclass
class RobotsRules:
    """The rules that apply to one agent on one site."""

    rules: list[_Rule] = field(default_factory=list)
    crawl_delay: float | None = None
    sitemaps: list[str] = field(default_factory=list)
    refuse_all: bool = False

    @classmethod
    def allow_all(cls) -> RobotsRules:
        """No rules: every URL allowed."""
        return cls()

    @classmethod
    def deny_all(cls) -> RobotsRules:
        """Every URL refused (robots.txt could not be read)."""
        return cls(refuse_all=True)

    def allowed(self, url: str) -> bool:
        """Whether ``url`` (absolute, or a path with its query) may be fetched."""
        parts = urlsplit(url)
        target = _escapes(parts.path or "/") + (f"?{_escapes(parts.query)}" if parts.query else "")
        if target == "/robots.txt":
            return True
        if self.refuse_all:
            return False
        best: _Rule | None = None
        for rule in self.rules:
            if rule.pattern.match(target) is None:
                continue
            if (
                best is None
                or len(rule.path) > len(best.path)
                or (len(rule.path) == len(best.path) and rule.allow)
            ):
                best = rule
        return best is None or best.allow


@dataclass
class _Group:
    agents: list[str] = field(default_factory=list)
    rules: list[_Rule] = field(default_factory=list)
    delay: float | None = None


def parse_robots(text: str, agent: str = AGENT) -> RobotsRules:
    """The rules of ``text`` for ``agent`` (see the module docstring)."""
    groups, sitemaps = _groups(text[:MAX_ROBOTS_BYTES].removeprefix("\ufeff"))
    token = agent.lower()
    chosen = [group for group in groups if token in group.agents]
    if not chosen:
        chosen = [group for group in groups if "*" in group.agents]
    rules = [rule for group in chosen for rule in group.rules][:MAX_RULES]
    delays = [group.delay for group in chosen if group.delay is not None]
    return RobotsRules(rules=rules, crawl_delay=delays[0] if delays else None, sitemaps=sitemaps)


def rules_for_response(status: int | None, text: str | None, agent: str = AGENT) -> RobotsRules:
    """The rules to follow given how fetching ``/robots.txt`` went (see the module docstring)."""
    if status is None or status >= 500:
        return RobotsRules.deny_all()
    if not 200 <= status < 300:
        return RobotsRules.allow_all()
    return parse_robots(text or "", agent)


def _groups(text: str) -> tuple[list[_Group], list[str]]:
    groups: list[_Group] = []
    sitemaps: list[str] = []
    current: _Group | None = None
    in_agents = False  # consecutive User-agent lines open one group
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        name, colon, value = line.partition(":")
        if not colon:
            continue
        name = name.strip().lower()
        value = value.strip()
        if name == "sitemap":
            if value and len(sitemaps) < MAX_SITEMAPS:
                sitemaps.append(value)
            continue
        if name in ("user-agent", "useragent"):
            if current is None or not in_agents:
                current = _Group()
                groups.append(current)
            # The product token only: "Pagecast/1.0" names Pagecast.
            current.agents.append(value.split("/", 1)[0].strip().lower())
            in_agents = True
            continue
        in_agents = False
        if current is None:
            continue
        if name in ("allow", "disallow") and value:
            current.rules.append(_rule(name == "allow", value))
        elif name in ("crawl-delay", "crawldelay") and current.delay is None:
            current.delay = _delay(value)
    return groups, sitemaps


def _rule(allow: bool, path: str) -> _Rule:
    path = _escapes(path)
    anchored = path.endswith("$")
    body = path[:-1] if anchored else path
    pattern = ".*".join(re.escape(piece) for piece in body.split("*"))
    return _Rule(allow, path, re.compile(pattern + ("$" if anchored else ""), re.DOTALL))


def _delay(value: str) -> float | None:
    try:
        delay = float(value)
    except ValueError:
        return None
    return delay if math.isfinite(delay) and delay >= 0 else None


def _escapes(text: str) -> str:
    return _ESCAPE.sub(lambda match: match.group(0).upper(), text)
