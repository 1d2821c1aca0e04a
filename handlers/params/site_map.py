"""The map endpoint's body as a parameter table: it validates requests and writes the
operation's ``requestBody`` in ``/openapi.json``."""

from __future__ import annotations

from dataclasses import dataclass

from handlers.params.table import Params, ParamTable, param
from services.site_map import SITEMAP_MODES

MAX_PATTERNS = 50
MAX_LIMIT = 5000

_PATTERN_WORDS = (
    "shell-style globs (*, ?, [...]) matched against the whole URL path, which they must start "
    "with (/ or a wildcard); * also matches /."
)


@dataclass(frozen=True)
class MapParams(Params):
    """The map body's fields, typed."""

    url: str = param(
        "string",
        "The start URL (http or https): its site is mapped, its links are read.",
        "",
        required=True,
        max_length=8192,
        example="https://example.com/docs/",
    )
    include: tuple[str, ...] = param(
        "array",
        "Keep only URLs whose path matches one of these patterns: " + _PATTERN_WORDS,
        (),
        max_items=MAX_PATTERNS,
        max_length=512,
        example=["/docs/*"],
    )
    exclude: tuple[str, ...] = param(
        "array",
        "Drop URLs whose path matches one of these patterns (same form as include).",
        (),
        max_items=MAX_PATTERNS,
        max_length=512,
        example=["/docs/archive/*"],
    )
    subdomains: bool = param(
        "boolean",
        "Also keep URLs on subdomains of the start host (without its www.).",
        False,
    )
    sitemap: str = param(
        "string",
        "include: sitemaps and the start page's links; skip: links only; only: sitemaps only.",
        "include",
        choices=SITEMAP_MODES,
    )
    limit: int = param(
        "integer",
        "Most URLs answered (truncated says when there were more).",
        1000,
        minimum=1,
        maximum=MAX_LIMIT,
    )


MAP_PARAMS = ParamTable.of(MapParams)
