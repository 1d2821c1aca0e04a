"""A Markdown request as the service takes it, and how it becomes the options of the parts below.

:class:`MarkdownOptions` are the Markdown endpoint's parameters that shape the page (how it is
fetched or rendered, converted, chunked, ranked and scanned), typed, with the endpoint's
defaults; a batch or crawl job stores them with the job (:meth:`MarkdownOptions.stored`).
:class:`MarkdownRequest` adds the page and who asks. :func:`plan` turns a request into a
:class:`MarkdownPlan`: the page fetcher's :class:`~services.fetch_policy.PageRequest`, the farm's
:class:`~browser.farm.types.RenderOptions` and the converter's
:class:`~convert.markdown.pipeline.ConvertOptions`, every rule between options checked first
(:func:`check_options`).
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from browser.farm.types import WAIT_TIMEOUT_MS, RenderOptions
from convert.html.document import SelectorError, check_selectors, split_selectors
from convert.markdown.chunks import ChunkOptions
from convert.markdown.pipeline import ConvertOptions, StructureRequest
from convert.markdown.structure import StructureLimits
from convert.safety import MODES as SAFETY_MODES
from services.failure import ServiceError
from services.fetch_policy import PageRequest
from services.options import options_of
from services.pool import ConvertSettings


class MarkdownFailure(enum.Enum):
    """What went wrong, beyond the fetch's and the farm's own kinds."""

    INVALID_OPTION = "invalid_option"
    """Options that contradict each other, or a selector that is not CSS."""
    RENDER_TIER = "render_tier"
    """Rendering was asked through a tier a browser cannot use."""
    NO_BROWSER_PROXY = "no_browser_proxy"
    """The standard tier has no HTTP proxy a browser can use (a SOCKS-only tier)."""
    BUSY = "busy"
    """Every conversion worker (or the farm) stayed busy."""
    SELECTOR_NOT_FOUND = "selector_not_found"
    CONVERSION_TIMEOUT = "conversion_timeout"
    CONVERSION_FAILED = "conversion_failed"
    EMPTY_DOCUMENT = "empty_document"
    NOT_HTML = "not_html"


class MarkdownError(ServiceError):
    """A Markdown request that cannot be answered. ``message`` is safe to show (None: the
    kind's own words); ``attempts`` is how many fetches were made, when that is worth saying."""


@dataclass(frozen=True)
class MarkdownOptions:
    """How a page is fetched and converted: the Markdown endpoint's parameters that shape the
    page (not the answer's format), with the endpoint's defaults."""

    # Main content.
    only_main_content: bool = True
    include_comments: bool = False
    include_tags: str | None = None
    exclude_tags: str | None = None
    max_chars: int | None = None
    # Chunks and the query.
    chunking: bool = False
    chunk_size: int = 2000
    chunk_overlap: int = 0
    heading_aware: bool = True
    heading_aware_level: int = 2
    max_chunks: int = 500
    query: str | None = None
    query_top_k: int = 5
    # Structure.
    include_headings: bool = False
    include_links: bool = False
    include_images: bool = False
    # Fetch controls.
    auto_render: bool = True
    auto_proxy: bool = True
    retry: bool = True
    max_retries: int = 4
    retry_escalate: bool = True
    full_render: bool = False
    wait_for_selector: str | None = None
    scroll_to_bottom: bool = False
    load_more_selector: str | None = None
    wait_timeout: int = WAIT_TIMEOUT_MS
    """Milliseconds."""
    use_proxy: bool = False
    use_premium: bool = False
    use_superior: bool = False
    proxy_country: str | None = None
    cache_ok: bool = True
    max_cache_age: int | None = None
    """Milliseconds."""
    accept_lang: str | None = None
    # The prompt-injection scan.
    ai_sanitize: bool = False
    ai_sanitize_mode: str = "sanitize"

    @classmethod
    def of(cls, values: Any) -> MarkdownOptions:
        """The options read off any object with attributes of the same names (a handler's
        typed parameters)."""
        return options_of(cls, values)

    def stored(self) -> dict[str, str]:
        """What a job keeps: every option that has a value, spelled as the query spells it, so
        that the job runs with the options it was given whatever later defaults are, and any
        version of Pagecast on the same database reads them (a rolling upgrade)."""
        kept = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is not None:
                kept[field.name] = (
                    ("true" if value else "false") if isinstance(value, bool) else str(value)
                )
        return kept

    @classmethod
    def from_stored(cls, stored: Mapping[str, Any]) -> MarkdownOptions:
        """The options a job kept (:meth:`stored`; also JSON values, and the sent options only,
        as earlier versions kept them). Names this version does not know are passed over; a
        value that cannot be read is :class:`MarkdownError` ``INVALID_OPTION``."""
        hints = typing.get_type_hints(cls)
        values = {}
        for field in dataclasses.fields(cls):
            if field.name in stored:
                found = _typed(hints[field.name], stored[field.name])
                if found is not _UNREADABLE:
                    values[field.name] = found
                    continue
                raise MarkdownError(
                    MarkdownFailure.INVALID_OPTION,
                    f"the job's stored option {field.name} cannot be read",
                )
        if values.get("ai_sanitize_mode", "sanitize") not in SAFETY_MODES:
            values.pop("ai_sanitize_mode")  # as the endpoint reads an unknown mode: the default
        return cls(**values)

    @property
    def render_first(self) -> bool:
        """Whether the browser renders the page from the start (full_render, a selector to wait
        for or click, scrolling)."""
        return bool(
            self.full_render
            or self.wait_for_selector
            or self.scroll_to_bottom
            or self.load_more_selector
        )

    @property
    def forced_tier(self) -> str:
        """The proxy tier the options start with (direct when none is forced)."""
        if self.use_superior:
            return "superior"
        if self.use_premium:
            return "premium"
        return "standard" if self.use_proxy else "direct"


_UNREADABLE = object()
"""What :func:`_typed` gives for a value it cannot read."""


def _typed(hint: Any, value: Any) -> Any:
    """A stored ``value`` as the type ``hint`` says: a string spelled as the query spells it,
    or a JSON value."""
    kinds = set(typing.get_args(hint)) or {hint}
    if value is None:
        return None if type(None) in kinds else _UNREADABLE
    if bool in kinds:
        if isinstance(value, bool):
            return value
        spelled = str(value).strip().lower()
        return {"true": True, "1": True, "false": False, "0": False}.get(spelled, _UNREADABLE)
    if int in kinds:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            return int(str(value).strip())
        except ValueError:
            return _UNREADABLE
    return value.strip() if isinstance(value, str) else _UNREADABLE


@dataclass(frozen=True)
class MarkdownRequest:
    """One page to turn into Markdown, for an organization whose plan allows ``proxy_tiers``."""

    url: str
    org: str
    proxy_tiers: frozenset[str]
    options: MarkdownOptions = MarkdownOptions()


@dataclass(frozen=True)
class MarkdownPlan:
    """A request resolved into the options of the parts that answer it."""

    url: str
    org: str
    """The organization asking (its share of the conversion workers and the farm)."""
    page: PageRequest
    convert: ConvertOptions
    render: RenderOptions
    """The browser's options, for a render first or an app shell's (its ``route`` is set per
    render)."""
    render_first: bool
    """The browser from the start (full_render, a selector to wait for, scrolling)."""
    render_tier: str
    """The tier a render-first request goes through."""
    auto_render: bool
    ai_sanitize: bool


def check_options(options: MarkdownOptions) -> None:
    """The rules between options and the selectors' syntax, all before any fetch;
    :class:`MarkdownError` (``INVALID_OPTION``) for the first one broken."""
    _convert_options(options, StructureLimits())


def page_request(request: MarkdownRequest) -> PageRequest:
    """What ``request`` asks of the page fetcher (the plan's ``page``, made alone)."""
    options = request.options
    max_cache_age = options.max_cache_age
    return PageRequest(
        url=request.url,
        allowed_tiers=request.proxy_tiers,
        accept_lang=options.accept_lang,
        use_proxy=options.use_proxy,
        use_premium=options.use_premium,
        use_superior=options.use_superior,
        proxy_country=(options.proxy_country or "").strip().lower() or None,
        auto_proxy=options.auto_proxy,
        retry=options.retry,
        max_retries=options.max_retries,
        retry_escalate=options.retry_escalate,
        cache_ok=options.cache_ok,
        max_cache_age=None if max_cache_age is None else max_cache_age / 1000,
    )


def plan(request: MarkdownRequest, limits: ConvertSettings) -> MarkdownPlan:
    """The parts' options for ``request`` under the server's ``limits`` (the structure lists'
    caps, the elements of a page converted)."""
    options = request.options
    convert = _convert_options(
        options,
        StructureLimits(
            headings=limits.max_headings, links=limits.max_links, images=limits.max_images
        ),
    )
    convert = dataclasses.replace(convert, max_elements=limits.max_elements)
    page = page_request(request)
    return MarkdownPlan(
        url=request.url,
        org=request.org,
        page=page,
        convert=convert,
        render=RenderOptions(
            wait_for_selector=options.wait_for_selector or None,
            scroll_to_bottom=options.scroll_to_bottom,
            load_more_selector=options.load_more_selector or None,
            wait_timeout_ms=options.wait_timeout,
            org=request.org,
        ),
        render_first=options.render_first,
        render_tier=options.forced_tier,
        auto_render=options.auto_render,
        ai_sanitize=options.ai_sanitize,
    )


def _convert_options(options: MarkdownOptions, limits: StructureLimits) -> ConvertOptions:
    if options.chunk_overlap > options.chunk_size // 2:
        raise MarkdownError(
            MarkdownFailure.INVALID_OPTION,
            "invalid parameters: chunk_overlap must be at most half of chunk_size",
        )
    include = _selectors("include_tags", split_selectors(options.include_tags))
    exclude = _selectors("exclude_tags", split_selectors(options.exclude_tags))
    for name in ("wait_for_selector", "load_more_selector"):
        if getattr(options, name):
            _selectors(name, (getattr(options, name),))
    chunking = None
    if options.chunking or options.query:
        chunking = ChunkOptions(
            size=options.chunk_size,
            overlap=options.chunk_overlap,
            heading_aware=options.heading_aware,
            heading_level=options.heading_aware_level,
            max_chunks=options.max_chunks,
        )
    return ConvertOptions(
        only_main_content=options.only_main_content,
        include_comments=options.include_comments,
        include_tags=include,
        exclude_tags=exclude,
        max_chars=options.max_chars,
        structure=StructureRequest(
            headings=options.include_headings,
            links=options.include_links,
            images=options.include_images,
            limits=limits,
        ),
        chunking=chunking,
        query=options.query or None,
        query_top_k=options.query_top_k,
        safety_mode=options.ai_sanitize_mode if options.ai_sanitize else None,
    )


def _selectors(name: str, selectors: tuple[str, ...]) -> tuple[str, ...]:
    try:
        check_selectors(name, selectors)
    except SelectorError as exc:
        raise MarkdownError(
            MarkdownFailure.INVALID_OPTION,
            f"invalid parameters: {exc.parameter} has an invalid CSS selector: "
            f"{exc.selector[:200]}",
        ) from exc
    return selectors
