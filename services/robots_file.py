"""A site's robots.txt fetched through the fetcher (the SSRF guard, its limits) and read for
Pagecast: shared by the map and by crawls.

Public API:

- :func:`robots_url` (url) -> str: ``scheme://host[:port]/robots.txt`` of ``url``'s site.
- ``await`` :func:`fetch_robots` (fetcher, url, deadline=None) -> :class:`SiteRobots`: the
  rules for the site of ``url`` (any URL on it); never raises for the site's failures.
- :func:`read_robots` (fetched) -> :class:`SiteRobots`: the same from a fetch already made.
- :class:`SiteRobots`: ``url`` (of robots.txt), ``rules`` (a
  :class:`~convert.crawl.robots.RobotsRules`: ``allowed(url)``, ``crawl_delay``, ``sitemaps``) and
  ``state``: ``found`` (its rules apply), ``absent`` (a 4xx: no rules, everything allowed) or
  ``unreachable`` (a 5xx, or no answer: nothing may be fetched, as RFC 9309 asks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from browser.fetch.client import Fetcher, FetchError, FetchResult
from convert.crawl.robots import RobotsRules, rules_for_response

RobotsState = Literal["found", "absent", "unreachable"]


@dataclass(frozen=True)
class SiteRobots:
    """One site's robots.txt as Pagecast follows it."""

    url: str
    rules: RobotsRules
    state: RobotsState


def robots_url(url: str) -> str:
    """The robots.txt URL of ``url``'s site (scheme, host and port kept)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/robots.txt", "", ""))


async def fetch_robots(fetcher: Fetcher, url: str, deadline: float | None = None) -> SiteRobots:
    """Fetch and read the robots.txt of ``url``'s site."""
    return read_robots(await fetcher.fetch(robots_url(url), deadline=deadline))


def read_robots(fetched: FetchResult) -> SiteRobots:
    """The rules a fetch of robots.txt gives (see the module docstring)."""
    status = fetched.status if fetched.ok or fetched.error == FetchError.http_status else None
    where = robots_url(fetched.url)
    if status is not None and 200 <= status < 300:
        text = fetched.text if fetched.text is not None else fetched.body.decode("utf-8", "replace")
        return SiteRobots(where, rules_for_response(status, text), "found")
    state: RobotsState = "unreachable" if status is None or status >= 500 else "absent"
    return SiteRobots(where, rules_for_response(status, None), state)
