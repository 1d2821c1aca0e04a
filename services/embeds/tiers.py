"""Resolving a URL to an embed, tier by tier: the native provider registry, discovery links on
the page, then the page's own metadata for a hosted frame (SPEC 4.2 rules 1-4).

A provider that is unreachable, slow, failing or answering something that is not a usable oEmbed
is skipped, never fatal: the next tier is tried. Provider endpoints and discovered endpoints are
fetched through the same SSRF-guarded fetcher as pages; proxy and rendering controls apply only
to the page fetch of the fallback tier.

Trust. A native provider is one Pagecast lists (the built-in registry and the imported one): its
``html`` is answered as the provider wrote it. A discovered endpoint is whatever the page
advertises, so its ``html`` is never handed out as written (clients insert ``html`` as it is):
:func:`convert.embed.snippets.discovered_snippet` keeps a discovered answer only when its html is a
single plain ``<iframe>`` of an http(s) URL, rebuilt as a sandboxed iframe with fixed attributes
(a photo becomes an ``<img>`` of its URL, a link a plain link, both written by Pagecast). Any
other discovered html (scripts, markup, handlers, ``javascript:`` URLs, several elements) makes
the answer fall through to the next tier, the hosted card built from the page's metadata, which
is already static, escaped and served from the frame host under a strict CSP. Hosting the
untrusted html itself (a frame page embedding it through a sandboxed ``srcdoc``) was weighed and
left out: it would store third-party markup in frame rows, make discovery answers carry
``embed_id``/``frame_url`` that SPEC 2.2 reserves for og_frame, and keep a provider's script
running for every viewer, for little over the card. A page whose discovered html is refused and
that has no card metadata is answered from discovery with a plain link to the page. Whichever
way a discovered answer is kept, its URL fields (``url``, ``thumbnail_url``...) are kept only
when they are absolute http(s) URLs (:func:`convert.embed.oembed.discovered_fields`).

Memory. Provider answers and resolved answers are kept in :class:`services.memcache.BoundedCache`
caches, bounded in bytes (``provider_cache_bytes``, ``answer_cache_bytes``) and dropping expired
entries; what they hold is small because page metadata is capped where it is read
(:mod:`convert.metadata.read`).
"""

from __future__ import annotations

import enum
import logging
import time
from dataclasses import dataclass, replace
from typing import Any, ClassVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from browser.farm import Farm
from browser.farm.types import FarmError, RenderOptions
from browser.fetch.client import Fetcher
from browser.fetch.types import FetchError, FetchResult
from convert.embed.oembed import (
    EmbedPage,
    discovered_fields,
    embed_fields,
    parse_provider_answer,
    read_embed_page,
)
from convert.embed.providers import ProviderRegistry, endpoint_url
from convert.embed.snippets import discovered_snippet, link_snippet
from services.embeds.answer_cache import AnswerCache
from services.failure import FarmErrorKind, ServiceError
from services.fetch_policy import (
    RENDER_TIMEOUT_MS,
    PageFetcher,
    PageRequest,
    PageResult,
    rendered_result,
)
from services.memcache import BoundedCache
from services.pool import ConversionTimeoutError, ConverterPool, PoolBusyError
from settings.fields import setting

log = logging.getLogger(__name__)

MAX_PROVIDER_ANSWER = 1 << 20
"""Bytes of a provider answer read at most (oEmbed answers are a few kilobytes)."""
MIB = 1024 * 1024


@dataclass
class OembedSettings:
    """oEmbed resolution."""

    SECTION: ClassVar[str] = "oembed"
    provider_timeout: float = setting(
        5.0,
        "Seconds a native or discovered oEmbed endpoint may take before the next tier is tried.",
        min=0.1,
        max=60,
    )
    provider_cache_seconds: float = setting(
        3600.0,
        "Seconds a provider's answer is reused for the same URL and size (cache_ok=false "
        "asks again); 0 turns the cache off.",
        min=0,
    )
    answer_cache_seconds: float = setting(
        60.0,
        "Seconds a resolved embed is answered again from memory for the same organization, URL "
        "and parameters (cache_ok=false and max_cache_age bypass it); 0 turns it off.",
        min=0,
    )
    provider_cache_bytes: int = setting(
        8 * MIB,
        "Most bytes (estimated) of native provider answers kept in memory; the least recently "
        "used go first. 0 turns the cache off.",
        min=0,
    )
    answer_cache_bytes: int = setting(
        16 * MIB,
        "Most bytes (estimated) of resolved embeds kept in memory; the least recently used go "
        "first. 0 turns the cache off.",
        min=0,
    )
    frame_page_cache_bytes: int = setting(
        16 * MIB,
        "Most bytes of hosted frame pages the frame host keeps in memory (each for a few "
        "seconds); the least recently used go first. 0 turns the cache off.",
        min=0,
    )
    registry_file: str = setting(
        "",
        "Provider registry imported with 'server.py providers import' (oembed.com format), used "
        "on top of the built-in list. Empty: providers.json inside the store's data_dir.",
    )


@dataclass(frozen=True)
class EmbedRequest:
    """One oEmbed request, parameters resolved."""

    url: str
    page: PageRequest
    maxwidth: int | None = None
    maxheight: int | None = None
    always_og_frame: bool = False
    full_render: bool = False
    auto_render: bool = False
    render_route: str = "direct"
    org: str = ""
    """The organization asking (it holds at most its share of the farm's pages)."""


@dataclass
class Resolved:
    """What a tier produced. ``fields`` for native and discovery; ``page`` for og_frame, with
    the fetch that read it (``fetched``) for billing."""

    source: str
    fields: dict[str, Any] | None = None
    page: EmbedPage | None = None
    fetched: PageResult | None = None
    rendered: bool = False


class EmbedFailure(enum.Enum):
    """Why a URL gave no embed."""

    NOTHING_TO_EMBED = "nothing_to_embed"
    """No native embed, and no card: the page could not be read, or has nothing for one."""
    TARGET_REFUSED = "target_refused"
    """The page's address is refused by the address policy: no fetch was made."""
    TARGET_GONE = "target_gone"
    """The page answered that it does not exist (404, 410): a retry cannot help."""


GONE_STATUSES = frozenset({404, 410})
"""Statuses of a page that does not exist: its embed fails as the URL's fault."""


class EmbedError(ServiceError):
    """The URL resolves to nothing; ``message`` is safe to show."""


class EmbedResolver:
    """The three tiers, over the fetcher, the page fetcher, the farm and the worker pool."""

    def __init__(
        self,
        settings: OembedSettings,
        registry: ProviderRegistry,
        *,
        fetcher: Fetcher,
        pages: PageFetcher,
        pool: ConverterPool,
        farm: Farm,
    ) -> None:
        self.settings = settings
        self.registry = registry
        self.fetcher = fetcher
        self.pages = pages
        self.pool = pool
        self.farm = farm
        self._answers: BoundedCache[str, dict[str, Any]] = BoundedCache(
            settings.provider_cache_bytes, settings.provider_cache_seconds
        )
        self.answers = AnswerCache(settings.answer_cache_seconds, settings.answer_cache_bytes)

    async def resolve(self, request: EmbedRequest) -> Resolved:
        """The first tier that answers; :class:`EmbedError` when none does."""
        if not request.always_og_frame:
            native = await self.native(request)
            if native is not None:
                return Resolved("native", fields=native)
        page, fetched, rendered = await self.read_page(request)
        refused: dict[str, Any] | None = None
        if not request.always_og_frame:
            for fmt, endpoint in page.discovery:
                found = await self._provider(
                    endpoint_url_with_size(endpoint, request), fmt, request.url
                )
                if found is None:
                    continue
                found = discovered_fields(found)
                found["provider_name"] = found["provider_name"] or page.metadata.get(
                    "site_name", ""
                )
                snippet = discovered_snippet(found, request.url)
                if snippet is not None:
                    return Resolved("discovery", fields={**found, "html": snippet})
                log.info("discovered embed %s refused: not a plain iframe", _shown(endpoint))
                refused = refused or found
        if not page.has_metadata:
            if refused is not None:
                return Resolved("discovery", fields=_as_link(refused, request.url))
            raise EmbedError(
                EmbedFailure.NOTHING_TO_EMBED,
                "no native embed, and the page has no title, description or image for a card",
            )
        return Resolved("og_frame", page=page, fetched=fetched, rendered=rendered)

    async def native(self, request: EmbedRequest) -> dict[str, Any] | None:
        """The registry provider's embed, or None (no provider, or it failed)."""
        match = self.registry.match(request.url)
        if match is None:
            return None
        endpoint = endpoint_url(match, request.url, request.maxwidth, request.maxheight)
        cached = self._answers.get(endpoint) if request.page.cache_ok else None
        if cached is not None:
            return dict(cached)
        found = await self._provider(endpoint, "json", request.url)
        if found is not None:
            found["provider_name"] = found["provider_name"] or match.provider_name
            self._remember(endpoint, found)
        return found

    def _remember(self, endpoint: str, answer: dict[str, Any]) -> None:
        """Keep a provider's answer for ``provider_cache_seconds`` (bounded in bytes)."""
        self._answers.put(endpoint, dict(answer))

    async def _provider(self, endpoint: str, fmt: str, page_url: str) -> dict[str, Any] | None:
        deadline = time.monotonic() + self.settings.provider_timeout
        accept = "application/json" if fmt == "json" else "text/xml, application/xml"
        try:
            answer = await self.fetcher.fetch(
                endpoint, headers={"Accept": accept}, deadline=deadline
            )
        except ValueError:
            return None
        reason = _unusable(answer)
        if reason is None:
            data = parse_provider_answer(answer.text or "", fmt)
            if data is not None:
                return embed_fields(data, page_url)
            reason = "not a usable oEmbed answer"
        log.info("oEmbed endpoint %s skipped: %s", _shown(endpoint), reason)
        return None

    async def read_page(self, request: EmbedRequest) -> tuple[EmbedPage, PageResult, bool]:
        """The page's metadata and discovery links, fetched (or rendered) with the request's
        fetch controls; :class:`EmbedError` when the page cannot be read."""
        if request.full_render:
            fetched = await self._render(request)
            return await self._read(fetched, request.org), fetched, True
        fetched = await self.pages.get(request.page)
        failure = _page_failure(fetched.fetch, fetched.attempts)
        if failure:
            raise EmbedError(_failure_kind(fetched.fetch), failure)
        page = await self._read(fetched, request.org)
        if request.auto_render and page.app_shell and not page.has_metadata:
            try:
                rendered = await self._render(request)
                again = await self._read(rendered, request.org)
            except EmbedError as exc:
                log.info("auto_render of an app shell failed: %s", exc.message)
            else:
                if again.has_metadata:
                    return again, rendered, False
        return page, fetched, False

    async def _read(self, fetched: PageResult, org: str) -> EmbedPage:
        """The fetched page's embed facts, read in the conversion workers in ``org``'s share."""
        page = fetched.fetch
        link = page.headers.get("link", "")
        try:
            result: EmbedPage = await self.pool.run(
                read_embed_page, page.text or "", page.final_url, link, owner=org
            )
        except PoolBusyError as exc:
            raise ServiceError(
                FarmErrorKind.busy, "all conversion workers are busy; retry shortly", retry_after=2
            ) from exc
        except ConversionTimeoutError as exc:
            log.warning(
                "oEmbed: %s (%d bytes) not read within the conversion limit",
                page.final_url[:200],
                len(page.body),
            )
            raise EmbedError(
                EmbedFailure.NOTHING_TO_EMBED, "the page was too large or complex to read in time"
            ) from exc
        return result

    async def _render(self, request: EmbedRequest) -> PageResult:
        options = RenderOptions(
            navigation_timeout_ms=RENDER_TIMEOUT_MS, route=request.render_route, org=request.org
        )
        try:
            rendered = await self.farm.render(request.url, options)
        except (FarmError, ValueError) as exc:
            raise EmbedError(
                EmbedFailure.NOTHING_TO_EMBED, f"the page could not be rendered: {exc}"
            ) from exc
        result = rendered_result(request.url, rendered, request.render_route)
        failure = _page_failure(result.fetch)
        if failure:
            raise EmbedError(EmbedFailure.NOTHING_TO_EMBED, failure)
        return result


def endpoint_url_with_size(endpoint: str, request: EmbedRequest) -> str:
    """A discovered endpoint with maxwidth/maxheight added (it already names the page)."""
    parts = urlsplit(endpoint)
    query = parse_qsl(parts.query, keep_blank_values=True)
    names = {k for k, _ in query}
    for name, value in (("maxwidth", request.maxwidth), ("maxheight", request.maxheight)):
        if value and name not in names:
            query.append((name, str(value)))
    return urlunsplit(parts._replace(query=urlencode(query)))


def _as_link(found: dict[str, Any], page_url: str) -> dict[str, Any]:
    """A refused discovered answer reduced to a plain link to the page."""
    return {**found, "type": "link", "html": link_snippet(page_url, str(found.get("title", "")))}


def _unusable(answer: FetchResult) -> str | None:
    if answer.error is not None:
        return answer.message or answer.error.value
    if answer.status != 200:
        return f"status {answer.status}"
    if answer.text is None or len(answer.body) > MAX_PROVIDER_ANSWER:
        return "no text answer, or one too large"
    return None


def _page_failure(page: FetchResult, attempts: int = 0) -> str:
    """Why the page cannot be read ("" when it can); a failed fetch says how many ``attempts``
    were made (when given), as the Markdown endpoint does."""
    if page.error is not None:
        message = f"the page could not be fetched: {page.message or page.error.value}"
        if attempts > 0:
            message += f" (after {attempts} attempt{'' if attempts == 1 else 's'})"
        return message
    if not page.is_html or not (page.text or "").strip():
        return "the page is not HTML"
    return ""


def _failure_kind(page: FetchResult) -> EmbedFailure:
    """What a failed page fetch means for the embed: the URL's own fault (refused, gone), or
    nothing to embed this time."""
    if page.error is FetchError.address_not_allowed:
        return EmbedFailure.TARGET_REFUSED
    if page.error is FetchError.http_status and page.status in GONE_STATUSES:
        return EmbedFailure.TARGET_GONE
    return EmbedFailure.NOTHING_TO_EMBED


def _shown(url: str) -> str:
    """An endpoint URL for the log, without its query (it carries the page URL)."""
    return url.split("?", 1)[0][:200]


def with_cache_off(request: EmbedRequest) -> EmbedRequest:
    """The same request, bypassing the page cache (frame refresh)."""
    return replace(request, page=replace(request.page, cache_ok=False))
