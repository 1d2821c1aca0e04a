"""A page as Markdown: fetch it (or render it in the browser), convert it in the worker pool,
render an app shell that the fetched HTML turned out to be, and price the answer.

A render for Markdown fails the way a fetch does (the Markdown error shape has no browser codes):
its failures are told as :class:`~browser.fetch.client.FetchError` kinds, except a busy farm and a
selector that never appeared.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace

from browser.farm import Farm
from browser.farm.types import FarmError, FarmErrorKind, Readiness, RenderResult
from browser.fetch.charset import HTML_TYPES
from browser.fetch.client import Fetcher, FetchError, FetchResult
from convert.documents.conversion import PdfError, convert_document, document_kind
from convert.markdown.pipeline import METADATA_ONLY, PageConversion, convert_page
from convert.markdown.structure import Structure
from services.accounts.billing import CreditSettings, Usage, price
from services.fetch_policy import RENDER_TIMEOUT_MS, PageFetcher, PageResult, rendered_result
from services.markdown.answers import AnswerCache
from services.markdown.request import (
    MarkdownError,
    MarkdownFailure,
    MarkdownOptions,
    MarkdownPlan,
    MarkdownRequest,
    check_options,
    page_request,
    plan,
)
from services.pool import ConversionTimeoutError, ConverterPool, ConvertSettings, PoolBusyError
from services.target_guard import TargetProblem, TargetRefusedError, check_target
from store.cache import page_key
from store.results import StoredAnswer

log = logging.getLogger(__name__)

RENDER_TIERS = ("direct", "standard")
"""The tiers a browser can go through."""
BUSY_RETRY_AFTER = 5
"""Seconds a client is asked to wait when every conversion worker is busy."""


Failure = MarkdownFailure | FetchError | TargetProblem


FARM_FAILURES: dict[FarmErrorKind, Failure] = {
    FarmErrorKind.busy: MarkdownFailure.BUSY,
    FarmErrorKind.navigation_timeout: FetchError.timeout,
    FarmErrorKind.target_unreachable: FetchError.connect,
    FarmErrorKind.selector_not_found: MarkdownFailure.SELECTOR_NOT_FOUND,
    FarmErrorKind.capture_failed: FetchError.invalid_response,
}
"""The farm's failures as a Markdown request tells them (a fetch's kinds, mostly)."""


@dataclass
class MarkdownAnswer:
    """The converted page, how it was obtained, and its price."""

    got: PageResult
    result: PageConversion
    full_render: bool
    auto_render: bool
    credits: int
    readiness: Readiness | None = None
    """How the browser waited for the page after its load, when it rendered one."""
    render_note: str | None = None
    """What the client should know about a render: why it was not used or not billed."""
    degraded: bool = False
    """A render failed or gave no text: the answer is not kept for reuse (a retry may do
    better)."""

    @property
    def reusable(self) -> bool:
        """Whether the answer may be kept for reuse: nothing in it failed for the moment."""
        result = self.result
        return not (self.degraded or result.chunk_error or result.structure_error)

    @property
    def page_version(self) -> str:
        """Which fetch or render of the page the answer was converted from."""
        how = "rendered" if self.full_render or self.auto_render else "fetched"
        return f"{how} {self.got.fetched_at.isoformat()}"

    @property
    def structure(self) -> Structure | None:
        """The outline, links and images asked for; empty lists when reading them failed (beside
        the conversion's ``structure_error``); None when none was asked."""
        if self.result.structure is None and self.result.structure_error:
            return Structure()
        return self.result.structure


@dataclass(frozen=True)
class Reused:
    """A kept answer that answers a request, and what the request costs."""

    answer: StoredAnswer
    credits: int


@dataclass
class _Rendered:
    """A page the farm rendered, as a page result, with how it was waited for."""

    got: PageResult
    readiness: Readiness | None


class MarkdownService:
    """Markdown of a page, over the fetcher, the page fetcher, the farm and the worker pool."""

    def __init__(
        self,
        fetcher: Fetcher,
        pages: PageFetcher,
        farm: Farm,
        pool: ConverterPool,
        *,
        credits: CreditSettings,
        limits: ConvertSettings,
        answers: AnswerCache | None = None,
    ) -> None:
        self.fetcher = fetcher
        self.pages = pages
        self.farm = farm
        self.pool = pool
        self.credits = credits
        self.limits = limits
        self.answers = answers
        """Kept answers (None: every request is converted)."""

    @staticmethod
    def check(options: MarkdownOptions) -> None:
        """The rules between ``options`` and their selectors' syntax, before any fetch
        (:class:`MarkdownError`)."""
        check_options(options)

    async def reuse(self, request: MarkdownRequest, variant: Mapping[str, str]) -> Reused | None:
        """A kept answer to ``request`` with the parameters ``variant`` that shape the answer,
        when ``cache_ok`` allows one and one is young enough (``max_cache_age``); None
        otherwise. The plan's rules (proxy tiers, countries) are checked first, as for a
        fetch. A reused answer fetched and rendered nothing: it costs the base credit and the
        scan's (ai_sanitize), no proxy or render add-on."""
        if self.answers is None or not request.options.cache_ok:
            return None
        page = page_request(request)
        self.pages.check(page)
        key = self.answers.key(request.url, variant)
        if key is None:
            return None
        found = await self.answers.get(key, page.max_cache_age)
        if found is None:
            return None
        usage = Usage("markdown", "3.0", ai_sanitize=request.options.ai_sanitize)
        return Reused(found, price(self.credits, usage))

    def keep(
        self,
        request: MarkdownRequest,
        variant: Mapping[str, str],
        answer: MarkdownAnswer,
        body: str,
        headers: Mapping[str, str],
    ) -> None:
        """Keep the response made of ``answer`` (its ``body`` and ``headers``) for the next
        request with the same target and ``variant``, unless it is not reusable."""
        if self.answers is None or not answer.reusable:
            return
        key = self.answers.key(request.url, variant)
        if key is not None:
            version, made_at = answer.page_version, answer.got.fetched_at
            page = _page(request)
            kept = StoredAnswer(key, body, dict(headers), version, made_at, page)
            self.answers.keep(kept)

    async def run(self, request: MarkdownRequest) -> MarkdownAnswer:
        """Fetch or render the page and convert it; :class:`MarkdownError` (or the page
        fetcher's :class:`~services.fetch_policy.PageRequestError`) when it cannot be answered."""
        job = plan(request, self.limits)
        if job.render_first:
            return await self._render_first(job)
        got = await self.pages.get(job.page)
        if self.answers is not None and not got.cache_hit and got.fetch.ok:
            self.answers.saw(_page(request), got.fetched_at)  # older answers are superseded
        _raise_for_page(got.fetch, attempts=got.attempts)
        result = await self._convert(got.fetch, job)
        answer = MarkdownAnswer(got, result, False, False, 0)
        if result.app_shell and job.auto_render:
            answer = await self._auto_render(job, answer)
        answer.credits = self._price(job, answer.got, render=False)
        return answer

    async def convert_rendered(
        self, job: MarkdownPlan, rendered: RenderResult, tier: str
    ) -> MarkdownAnswer:
        """The page the browser rendered for ``job`` some other way (a capture that kept its
        HTML) converted as a render first would be, priced at nothing (the caller prices what
        it did); :class:`MarkdownError` when the page failed (an error status, no document)."""
        got = rendered_result(job.url, rendered, tier)
        _raise_for_page(got.fetch)
        result = await self._convert(got.fetch, job)
        answer = MarkdownAnswer(got, result, True, False, 0, rendered.readiness)
        if _words(result) == 0:
            answer.render_note = _empty_note(rendered.readiness, "nothing was converted")
            answer.degraded = True
        return answer

    async def convert_page(self, job: MarkdownPlan, page: FetchResult) -> PageConversion:
        """``page`` converted in the workers with ``job``'s options, in the share of the
        organization asking (:class:`MarkdownError` when the conversion fails)."""
        return await self._convert(page, job)

    async def _render_first(self, job: MarkdownPlan) -> MarkdownAnswer:
        """The page rendered from the start, billed as a render unless it yielded no text."""
        self.pages.check(job.page)  # the plan's and the proxies' rules hold for a render too
        try:
            await check_target(self.fetcher, job.url)
        except TargetRefusedError as exc:
            failure = FetchError.dns if exc.failure is TargetProblem.UNRESOLVED else exc.failure
            raise MarkdownError(failure, exc.message) from exc
        rendered = await self._render(job, job.render_tier)
        result = await self._convert(rendered.got.fetch, job)
        answer = MarkdownAnswer(rendered.got, result, True, False, 0, rendered.readiness)
        used = _words(result) > 0
        if not used:
            answer.render_note = _empty_note(rendered.readiness, "the render was not billed")
            answer.degraded = True
        answer.credits = self._price(job, rendered.got, render=used)
        return answer

    def _price(self, job: MarkdownPlan, got: PageResult, *, render: bool) -> int:
        usage = Usage(
            "markdown",
            "3.0",
            fetched_through=None if got.cache_hit else got.tier,
            render=render,
            ai_sanitize=job.ai_sanitize,
        )
        return price(self.credits, usage)

    async def _render(self, job: MarkdownPlan, tier: str) -> _Rendered:
        """The page rendered by the farm through ``tier``, as a fetch result."""
        if tier not in RENDER_TIERS:
            raise MarkdownError(
                MarkdownFailure.RENDER_TIER,
                f"rendering goes direct or through the standard tier, not the {tier} tier",
            )
        options = replace(job.render, route=tier, navigation_timeout_ms=RENDER_TIMEOUT_MS)
        try:
            rendered = await self.farm.render(job.url, options)
        except ValueError as exc:  # the route has no egress guard (a SOCKS-only standard tier)
            raise MarkdownError(
                MarkdownFailure.NO_BROWSER_PROXY,
                "use_proxy: the standard tier has no HTTP proxy for browsers",
            ) from exc
        except FarmError as exc:
            failure = FARM_FAILURES.get(exc.kind, FetchError.invalid_response)
            raise MarkdownError(
                failure, exc.message, retry_after=exc.retry_after, problems=exc.problems
            ) from exc
        result = rendered_result(job.url, rendered, tier)
        _raise_for_page(result.fetch)
        return _Rendered(result, rendered.readiness)

    async def _auto_render(self, job: MarkdownPlan, shell: MarkdownAnswer) -> MarkdownAnswer:
        """The app shell rendered through the tier that fetched it, when the render gives more
        text than the fetched page; else the fetched page, with a note saying why."""
        try:
            rendered = await self._render(job, shell.got.tier)
            result = await self._convert(rendered.got.fetch, job)
        except MarkdownError as exc:
            log.info("auto_render of an app shell failed (%s); answering the fetched page", exc)
            why = exc.message or exc.failure.value
            shell.render_note = f"auto_render failed ({why}); the page is answered as fetched"
            shell.degraded = True
            return shell
        if _words(result) > 0 and _words(result) >= _words(shell.result):
            return MarkdownAnswer(rendered.got, result, False, True, 0, rendered.readiness)
        shell.readiness = rendered.readiness
        if _words(result) == 0:
            shell.render_note = _empty_note(rendered.readiness, "the page is answered as fetched")
            shell.degraded = True
        else:
            shell.render_note = "the rendered page gave less text; the page is answered as fetched"
        return shell

    async def _convert(self, page: FetchResult, job: MarkdownPlan) -> PageConversion:
        """The page converted in the workers, in the share of the organization asking."""
        options = job.convert
        kind = None if page.is_html else document_kind(page.content_type, page.body)
        try:
            if kind is None:
                result: PageConversion = await self.pool.run(
                    convert_page,
                    page.text or "",
                    page.final_url,
                    options,
                    owner=job.org,
                    size=len(page.body),
                )
            else:
                result = await self.pool.run(
                    convert_document,
                    kind,
                    page.body,
                    page.text,
                    page.final_url,
                    options,
                    owner=job.org,
                    size=len(page.body),
                )
        except PoolBusyError as exc:
            raise MarkdownError(
                MarkdownFailure.BUSY,
                "all conversion workers are busy; retry shortly",
                retry_after=BUSY_RETRY_AFTER,
            ) from exc
        except ConversionTimeoutError as exc:
            raise _too_slow(page, exc.seconds) from exc
        except PdfError as exc:
            raise MarkdownError(
                MarkdownFailure.NOT_HTML, "the target returned a PDF that could not be read"
            ) from exc
        except Exception as exc:  # a worker's failure, whatever its type: never a traceback
            raise MarkdownError(MarkdownFailure.CONVERSION_FAILED) from exc
        return result


def _page(request: MarkdownRequest) -> str | None:
    """The page ``request``'s answers belong to (:func:`~store.cache.page_key`); None for a URL
    the cache cannot normalize."""
    try:
        return page_key(request.url, request.options.accept_lang)
    except ValueError:
        return None


def _too_slow(page: FetchResult, seconds: float) -> MarkdownError:
    """The failure of a conversion stopped at its time limit: the page's doing, not Pagecast's,
    so logged as one warning line with the page's size (no traceback) and told to the client."""
    size = f"{len(page.body) / 1_000_000:.1f} MB"
    log.warning(
        "conversion of %s (%s) stopped after %g s: the page is too large or complex",
        page.final_url[:200],
        size,
        seconds,
    )
    return MarkdownError(
        MarkdownFailure.CONVERSION_TIMEOUT,
        f"the page ({size}) was too large or complex to convert in {seconds:g} s",
    )


def _words(result: PageConversion) -> int:
    """The words of the page's own text a conversion gave (none when its body had no text and
    only the title and description stand in for it): how two results of one page are
    compared."""
    if result.extraction == METADATA_ONLY:
        return 0
    return len(result.markdown.split())


def _empty_note(readiness: Readiness | None, outcome: str) -> str:
    """Why a render gave nothing, with how long the page was waited for."""
    waited = ""
    if readiness is not None:
        waited = f" (waited {readiness.waited_ms} ms after load: {readiness.state.value})"
    return f"the rendered page yielded no text{waited}; {outcome}"


def _raise_for_page(page: FetchResult, *, attempts: int = 0) -> None:
    """Raise the failure of a failed or unusable page; a failed fetch says how many
    ``attempts`` were made (when given)."""
    if page.error is not None:
        raise MarkdownError(page.error, page.message or None, attempts=attempts)
    if page.is_html and not (page.text or "").strip():
        raise MarkdownError(MarkdownFailure.EMPTY_DOCUMENT, "the target returned an empty document")
    if not page.is_html and document_kind(page.content_type, page.body) is None:
        kind = page.content_type or "no content type"
        if page.content_type in HTML_TYPES:
            kind = f"binary data labelled {page.content_type}"
        raise MarkdownError(
            MarkdownFailure.NOT_HTML,
            f"the target returned {kind[:100]}; HTML, plain text, JSON and PDF are converted",
        )
