"""The oEmbed use case end to end: an answer from memory when the same organization asked the
same just now, else the URL resolved tier by tier (:mod:`services.embeds.tiers`), a hosted
frame built for a card (:mod:`services.embeds.frames`), the answer priced and remembered."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from convert.embed.oembed import frame_oembed_fields, frame_template, normalize_url
from services.accounts.billing import CreditSettings, Usage, price
from services.embeds.frames import FrameService, FrameSpec
from services.embeds.tiers import EmbedRequest, EmbedResolver, Resolved
from services.fetch_policy import PageRequest
from services.options import options_of

DEFAULT_MAX_CACHE_AGE_MS = 432_000_000
"""The oldest cached page metadata accepted by default (five days)."""
SAME_ANSWER = (
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
"""The options that change an answer (the version changes only the credits)."""


@dataclass(frozen=True)
class OembedOptions:
    """How a URL is embedded: the oEmbed endpoint's parameters, with its defaults. ``None`` for
    ``auto_proxy``, ``auto_render`` and ``retry`` means the version's default (on for 3.0, off
    for 1.1)."""

    orientation: str = "vertical"
    always_og_frame: bool = False
    maxwidth: int | None = None
    maxheight: int | None = None
    theme: str = "auto"
    template: str | None = None
    cache_ok: bool = True
    max_cache_age: int = DEFAULT_MAX_CACHE_AGE_MS
    """Milliseconds."""
    full_render: bool = False
    use_proxy: bool = False
    use_premium: bool = False
    use_superior: bool = False
    proxy_country: str | None = None
    auto_proxy: bool | None = None
    auto_render: bool | None = None
    retry: bool | None = None

    @classmethod
    def of(cls, values: Any) -> OembedOptions:
        """The options read off any object with attributes of the same names (a handler's
        typed parameters)."""
        return options_of(cls, values)


@dataclass(frozen=True)
class OembedRequest:
    """One URL to embed for an organization, through oEmbed ``version`` (1.1 or 3.0)."""

    url: str
    version: str
    org: str
    org_id: int
    proxy_tiers: frozenset[str]
    options: OembedOptions = OembedOptions()


@dataclass
class OembedAnswer:
    """The oEmbed answer, its price, and what the access line says of it."""

    body: dict[str, Any]
    credits: int
    log_fields: dict[str, str] = field(default_factory=dict)


class EmbedService:
    """oEmbed answers over the resolver (and its answer cache) and the frames."""

    def __init__(
        self, resolver: EmbedResolver, frames: FrameService, credits: CreditSettings
    ) -> None:
        self.resolver = resolver
        self.frames = frames
        self.credits = credits

    async def answer(self, request: OembedRequest) -> OembedAnswer:
        """The embed of ``request.url``; :class:`~services.embeds.tiers.EmbedError` when there
        is none, :class:`~services.embeds.frames.FrameError` when its frame cannot be built."""
        options = request.options
        answers = self.resolver.answers
        key = (
            request.org_id,
            normalize_url(request.url),
            *(getattr(options, name) for name in SAME_ANSWER),
        )
        if options.cache_ok:
            cached = answers.get(key, options.max_cache_age / 1000)
            if cached is not None:
                credits = price(self.credits, Usage("oembed", request.version))
                fields = {"source": str(cached.get("source", "-")), "answer": "memory"}
                return OembedAnswer(cached, credits, fields)
        resolved = await self.resolver.resolve(_embed_request(request))
        if resolved.source == "og_frame":
            body = await self._frame_answer(request, resolved)
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
        answers.put(key, body)
        fetched = resolved.fetched
        log_fields = {
            "source": resolved.source,
            "tier": fetched.tier if fetched else "-",
            "render": "full" if resolved.rendered else "no",
        }
        return OembedAnswer(body, self._price(request.version, resolved), log_fields)

    async def _frame_answer(self, request: OembedRequest, resolved: Resolved) -> dict[str, Any]:
        assert resolved.page is not None
        options = request.options
        spec = FrameSpec(
            request.url,
            frame_template(options.template, options.orientation),
            options.theme,
            options.orientation,
            options.maxwidth,
            options.maxheight,
        )
        record = await self.frames.build(request.org_id, spec, resolved.page)
        return {
            "type": "hybridEmbed",
            "version": "1.0",
            "provider_name": record.metadata.get("site_name", ""),
            "width": record.width,
            "height": record.height,
            "source": "og_frame",
            "embed_id": record.embed_id,
            "frame_url": self.frames.frame_host() + record.path(),
            "html": record.html,
            **frame_oembed_fields(record.metadata, record.url),
        }

    def _price(self, version: str, resolved: Resolved) -> int:
        """A card built from a page fetched (not cached) is billed for how it was fetched; any
        other answer costs the version's base."""
        fetched = resolved.fetched
        usage = Usage("oembed", version)
        if resolved.source == "og_frame" and fetched is not None and not fetched.cache_hit:
            usage = Usage("oembed", version, fetched_through=fetched.tier, render=resolved.rendered)
        return price(self.credits, usage)


def _embed_request(request: OembedRequest) -> EmbedRequest:
    """The resolver's request: the version's defaults applied, the page fetch's controls set."""
    options = request.options
    modern = request.version == "3.0"

    def versioned(value: bool | None) -> bool:
        return modern if value is None else bool(value)

    page = PageRequest(
        url=request.url,
        allowed_tiers=request.proxy_tiers,
        use_proxy=options.use_proxy,
        use_premium=options.use_premium,
        use_superior=options.use_superior,
        proxy_country=(options.proxy_country or "").strip().lower() or None,
        auto_proxy=versioned(options.auto_proxy),
        retry=versioned(options.retry),
        cache_ok=options.cache_ok,
        max_cache_age=options.max_cache_age / 1000,
    )
    return EmbedRequest(
        url=request.url,
        page=page,
        maxwidth=options.maxwidth,
        maxheight=options.maxheight,
        always_og_frame=options.always_og_frame,
        full_render=options.full_render,
        auto_render=versioned(options.auto_render),
        render_route="standard" if options.use_proxy else "direct",
        org=request.org,
    )
