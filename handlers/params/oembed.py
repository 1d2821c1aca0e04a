"""The oEmbed endpoint's parameter table (SPEC 4.2), both versions: validation, defaults,
``/openapi.json`` and the docs all come from it."""

from __future__ import annotations

from dataclasses import dataclass

from handlers.params.inert import TIER_FORCED, Absent, Inert, one_of
from handlers.params.table import Params, ParamTable, param
from services.embeds import DEFAULT_MAX_CACHE_AGE_MS, TEMPLATE_SIZES

MAX_EMBED_SIDE = 4000
"""The largest maxwidth or maxheight taken; a larger one is lowered to it, with a warning."""


@dataclass(frozen=True)
class OembedParams(Params):
    """The oEmbed endpoint's parameters (both versions), typed."""

    app_id: str | None = param(
        "string", "API key (or send the api-key header).", required=False, secret=True
    )
    url: str | None = param(
        "string",
        "The target URL, URL-encoded; instead of the path segment (send exactly one).",
        example="https://www.youtube.com/watch?v=dQw4w9WgXcQ",
        max_length=8192,
    )
    orientation: str = param(
        "string",
        "vertical (800x600) or horizontal (400x150) fallback frame.",
        "vertical",
        choices=("vertical", "horizontal"),
    )
    always_og_frame: bool = param(
        "boolean",
        "Build the hosted frame even when a native embed exists.",
        False,
    )
    maxwidth: int | None = param(
        "integer",
        "Maximum width in pixels; forwarded to providers, applied to the frame.",
        minimum=1,
        maximum=MAX_EMBED_SIDE,
        clamp=True,
        aliases=("maxWidth",),
    )
    maxheight: int | None = param(
        "integer",
        "Maximum height in pixels; forwarded to providers, applied to the frame.",
        minimum=1,
        maximum=MAX_EMBED_SIDE,
        clamp=True,
        aliases=("maxHeight",),
    )
    theme: str = param(
        "string",
        "light, dark or auto (the viewer's preference); fallback frames only.",
        "auto",
        choices=("light", "dark", "auto"),
    )
    template: str | None = param(
        "string",
        "default (800x600 card), compact (400x300, no description) or horizontal (400x150 "
        "banner); wins over orientation.",
        choices=tuple(TEMPLATE_SIZES),
    )
    cache_ok: bool = param("boolean", "Allow cached page metadata.", True)
    max_cache_age: int = param(
        "integer",
        "Milliseconds; the oldest cached page metadata accepted.",
        DEFAULT_MAX_CACHE_AGE_MS,
        minimum=0,
    )
    full_render: bool = param(
        "boolean",
        "Render the page in a browser before reading its metadata; fallback tier only.",
        False,
    )
    use_proxy: bool = param("boolean", "Fetch the page through the standard proxy tier.", False)
    use_premium: bool = param(
        "boolean",
        "Fetch through the premium (residential) tier; the plan must include it.",
        False,
    )
    use_superior: bool = param(
        "boolean",
        "Fetch through the superior (mobile) tier; the plan must include it.",
        False,
    )
    proxy_country: str | None = param(
        "string",
        "Two-letter country code of the proxy; only alongside a forced tier.",
        example="de",
        pattern="[A-Za-z]{2}",
        pattern_words="a two-letter country code",
    )
    auto_proxy: bool | None = param(
        "boolean",
        "Start at the proxy tier known to work for the domain. Default: true on 3.0, false on 1.1.",
    )
    auto_render: bool | None = param(
        "boolean",
        "Render an app-shell page that has no metadata. Default: true on 3.0, false on 1.1.",
    )
    retry: bool | None = param(
        "boolean",
        "Retry a failed page fetch, escalating the proxy tier. Default: true on 3.0, false on 1.1.",
    )


OEMBED_INERT = (
    Inert("orientation", Absent("template"), keep=True),
    Inert("max_cache_age", one_of("cache_ok", True)),
    Inert("proxy_country", TIER_FORCED),
)
"""When an oEmbed parameter does nothing: sent then, it is ignored with a warning."""

OEMBED_PARAMS = ParamTable.of(OembedParams, OEMBED_INERT)
