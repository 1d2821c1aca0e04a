"""``GET /api/{1.1,3.0}/oembed/{encoded_url}`` and ``GET /api/{1.1,3.0}/oembed?url=``: a URL as an
oEmbed embed, from its native provider, a discovery link, or a hosted frame (SPEC 2.2, 4.2, 7.1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from convert.embed.oembed import (
    TEMPLATE_SIZES,
    frame_oembed_fields,
    frame_size,
    frame_template,
    normalize_url,
)
from handlers.base import ApiHandler, params_error
from handlers.params import Params, ParamTable, param
from services.billing import Usage, price
from services.embeds import EmbedRequest, Resolved
from services.frames import FrameSpec
from services.pages import PageRequest

DEFAULT_MAX_CACHE_AGE_MS = 432_000_000


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
        maximum=4000,
        aliases=("maxWidth",),
    )
    maxheight: int | None = param(
        "integer",
        "Maximum height in pixels; forwarded to providers, applied to the frame.",
        minimum=1,
        maximum=4000,
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


OEMBED_PARAMS = ParamTable.of(OembedParams)


class OembedHandler(ApiHandler):
    """Both versions and both forms; the version only changes defaults and credits."""

    endpoint = "oembed"
    error_shape = "oembed"
    params = OEMBED_PARAMS
    target_prefix = re.compile(r"/api/(?:1\.1|3\.0)/oembed/")

    async def get(self, version: str, encoded_url: str | None = None) -> None:
        params, problems = self.read_params(OembedParams)
        if problems:
            raise params_error(problems)
        url = self.target(encoded_url, params.url)
        assert self.key_info is not None
        answers = self.services.embeds.answers
        key = _answer_key(self.key_info.org_id, url, params)
        if params.cache_ok:
            cached = answers.get(key, params.max_cache_age / 1000)
            if cached is not None:
                self.log_fields.update(source=str(cached.get("source", "-")), answer="memory")
                self.bill(price(self.services.settings.credits, Usage("oembed", version)))
                self.write_json(cached)
                return
        request = self._embed_request(url, params, version)
        resolved = await self.services.embeds.resolve(request)
        if resolved.source == "og_frame":
            body = await self._frame_answer(url, params, resolved)
        else:
            assert resolved.fields is not None
            fields = resolved.fields
            body = {
                "type": fields["type"],
                "version": "1.0",
                "provider_name": fields["provider_name"],
                "width": fields["width"],
                "height": fields["height"],
                "source": resolved.source,
                "html": fields["html"],
            }
        self._bill(version, resolved)
        fetched = resolved.fetched
        self.log_fields.update(
            source=resolved.source,
            tier=fetched.tier if fetched else "-",
            render="full" if resolved.rendered else "no",
        )
        answers.put(key, body)
        self.write_json(body)

    def _embed_request(self, url: str, params: OembedParams, version: str) -> EmbedRequest:
        modern = version == "3.0"

        def versioned(name: str) -> bool:
            value = getattr(params, name)
            return modern if value is None else bool(value)

        page = PageRequest(
            url=url,
            allowed_tiers=self.plan.proxy_tiers() if self.plan else frozenset(),
            use_proxy=params.use_proxy,
            use_premium=params.use_premium,
            use_superior=params.use_superior,
            proxy_country=(params.proxy_country or "").strip().lower() or None,
            auto_proxy=versioned("auto_proxy"),
            retry=versioned("retry"),
            cache_ok=params.cache_ok,
            max_cache_age=params.max_cache_age / 1000,
        )
        return EmbedRequest(
            url=url,
            page=page,
            maxwidth=params.maxwidth,
            maxheight=params.maxheight,
            always_og_frame=params.always_og_frame,
            full_render=params.full_render,
            auto_render=versioned("auto_render"),
            render_route="standard" if params.use_proxy else "direct",
            org=self.key_info.org if self.key_info else "",
        )

    async def _frame_answer(
        self, url: str, params: OembedParams, resolved: Resolved
    ) -> dict[str, Any]:
        assert resolved.page is not None and self.key_info is not None
        template = frame_template(params.template, params.orientation)
        width, height = frame_size(template, params.maxwidth, params.maxheight)
        spec = FrameSpec(
            url,
            template,
            params.theme,
            params.orientation,
            params.maxwidth,
            params.maxheight,
        )
        record = await self.services.frame_service.build(self.key_info.org_id, spec, resolved.page)
        frame_host = self.services.settings.server.public_frame_host()
        return {
            "type": "hybridEmbed",
            "version": "1.0",
            "provider_name": record.metadata.get("site_name", ""),
            "width": width,
            "height": height,
            "source": "og_frame",
            "embed_id": record.embed_id,
            "frame_url": frame_host + record.path(),
            "html": record.html,
            **frame_oembed_fields(record.metadata, record.url),
        }

    def _bill(self, version: str, resolved: Resolved) -> None:
        fetched = resolved.fetched
        usage = Usage("oembed", version)
        if resolved.source == "og_frame" and fetched is not None and not fetched.cache_hit:
            usage = Usage("oembed", version, fetched_through=fetched.tier, render=resolved.rendered)
        self.bill(price(self.services.settings.credits, usage))


_ANSWER_PARAMS = (
    "orientation",
    "always_og_frame",
    "maxwidth",
    "maxheight",
    "theme",
    "template",
    "full_render",
    "use_proxy",
    "use_premium",
    "use_superior",
    "proxy_country",
)


def _answer_key(org_id: int, url: str, params: OembedParams) -> tuple[Any, ...]:
    """What makes two requests the same answer (the version changes only the credits)."""
    return (org_id, normalize_url(url), *(getattr(params, name) for name in _ANSWER_PARAMS))


ROUTES = [
    (r"/api/(1\.1|3\.0)/oembed/?", OembedHandler),
    (r"/api/(1\.1|3\.0)/oembed/(.+)", OembedHandler),
]
