"""What a map is asked and answers, and its settings (see :mod:`services.site_map`)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from services.robots_file import RobotsState
from settings.fields import setting

SitemapMode = Literal["include", "skip", "only"]
SITEMAP_MODES: tuple[str, ...] = ("include", "skip", "only")


@dataclass
class MapSettings:
    """Site maps (POST /api/3.0/map)."""

    SECTION: ClassVar[str] = "map"
    timeout: float = setting(
        30.0,
        "Seconds one map may spend fetching; what was found by then is answered (complete is "
        "false).",
        min=1,
        max=300,
    )
    max_sitemaps: int = setting(
        50, "Sitemap files (indexes included) one map reads at most.", min=1, max=1000
    )
    max_sitemap_depth: int = setting(
        3,
        "Levels of sitemap indexes followed: 1 reads only the files robots.txt names.",
        min=1,
        max=10,
    )
    sitemap_concurrency: int = setting(4, "Sitemap files one map fetches at once.", min=1, max=16)
    max_sitemap_bytes: int = setting(
        50_000_000,
        "Bytes of sitemap files one map parses in all (as fetched); then it stops reading "
        "them (complete is false).",
        min=1_000,
    )
    parse_seconds: float = setting(
        10.0,
        "Seconds the conversion workers may spend on one map's sitemaps and page, waits "
        "included; then it stops reading sitemaps (complete is false).",
        min=0.1,
        max=300,
    )
    max_hosts: int = setting(
        20,
        "Hosts (the start host and subdomains) whose robots.txt one map reads; URLs on further "
        "hosts are left out (complete is false).",
        min=1,
        max=1000,
    )


class MapFailure(enum.Enum):
    """Why a map cannot be made, beyond the fetch's own kinds."""

    INVALID_PATTERN = "invalid_pattern"
    """An include or exclude pattern that is not a glob on a path."""


@dataclass(frozen=True)
class MapRequest:
    """One map, as its handler read it."""

    url: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    subdomains: bool = False
    sitemap: SitemapMode = "include"
    limit: int = 1000
    org: str = ""
    """The organization asking (its share of the conversion workers)."""


@dataclass
class MapResult:
    """What a map found (see the module docstring)."""

    url: str
    urls: list[str] = field(default_factory=list)
    sources: dict[str, int] = field(default_factory=lambda: {"start": 0, "links": 0, "sitemaps": 0})
    robots: RobotsState = "absent"
    sitemaps_read: int = 0
    sitemaps_failed: int = 0
    truncated: bool = False
    complete: bool = True
    credits: int = 0
