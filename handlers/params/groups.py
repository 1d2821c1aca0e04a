"""How an endpoint's parameters are shown to people: named groups, in order, for the playground's
form and the reference. ``/openapi.json`` carries a parameter's group as ``x-group`` and lists
the parameters group by group; validation does not look at groups."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Groups = tuple[tuple[str, tuple[str, ...]], ...]

MARKDOWN_GROUPS: Groups = (
    (
        "Essentials",
        (
            "format",
            "only_main_content",
            "include_comments",
            "include_tags",
            "exclude_tags",
            "max_chars",
        ),
    ),
    ("Output", ("include_markdown", "include_metadata", "include_chunks", "include_ai_safety")),
    (
        "Chunks and query",
        (
            "chunking",
            "chunk_size",
            "chunk_overlap",
            "heading_aware",
            "heading_aware_level",
            "max_chunks",
            "query",
            "query_top_k",
        ),
    ),
    ("Structure", ("include_headings", "include_links", "include_images")),
    (
        "Rendering and fetch",
        (
            "auto_render",
            "full_render",
            "wait_for_selector",
            "scroll_to_bottom",
            "load_more_selector",
            "wait_timeout",
            "retry",
            "max_retries",
            "retry_escalate",
            "auto_proxy",
            "use_proxy",
            "use_premium",
            "use_superior",
            "proxy_country",
            "cache_ok",
            "max_cache_age",
            "accept_lang",
        ),
    ),
    ("Safety", ("ai_sanitize", "ai_sanitize_mode")),
    (
        "Screenshot",
        (
            "screenshot",
            "screenshot_format",
            "screenshot_quality",
            "screenshot_full_page",
            "screenshot_dimensions",
            "screenshot_dark_mode",
        ),
    ),
)
"""The Markdown endpoint's parameters by what a person wants to change; every parameter but the
key is in exactly one group (a test holds this)."""


def grouped(parameters: Sequence[dict[str, Any]], groups: Groups) -> list[dict[str, Any]]:
    """OpenAPI parameter objects with ``x-group`` on each grouped one, in the groups' order;
    those in no group (the key, the target) keep their place before the groups."""
    order = {name: index for index, name in enumerate(n for _, names in groups for n in names)}
    titles = {name: title for title, names in groups for name in names}
    ungrouped = [parameter for parameter in parameters if parameter["name"] not in order]
    members = sorted(
        (parameter for parameter in parameters if parameter["name"] in order),
        key=lambda parameter: order[parameter["name"]],
    )
    return ungrouped + [
        {**parameter, "x-group": titles[parameter["name"]]} for parameter in members
    ]
