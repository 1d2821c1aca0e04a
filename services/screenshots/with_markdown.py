"""One page load for several outputs: a screenshot and the page's Markdown (or metadata) from the
same visit of the browser farm.

The capture keeps the page's HTML (:attr:`~browser.farm.types.CaptureOptions.keep_html`), read
in the same visit once the page is ready; the HTML is converted in the conversion workers with
the Markdown endpoint's own conversion, in the share of the organization asking. Two entries:

- :meth:`OneLoadService.markdown_with_screenshot`, the Markdown endpoint's ``screenshot=true``:
  the Markdown request's options, the page rendered once (as ``full_render`` would), pictured
  with the screenshot options asked;
- :meth:`OneLoadService.screenshot_with_markdown`, the screenshot endpoint's
  ``include_markdown`` / ``include_metadata``: the capture as asked, and the page converted with
  the Markdown endpoint's defaults.

Either is billed as the two requests would be, less what was not done twice: the screenshot's
price (its base and the proxy tier the browser went through) plus the Markdown base (and the
scan's add-on, ai_sanitize); no render add-on and no second proxy add-on, as the page was
loaded once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from browser.farm.types import FarmErrorKind, RenderResult
from browser.fetch.client import FetchError, FetchResult
from convert.markdown.pipeline import PageConversion
from services.accounts.billing import CreditSettings, Usage, price
from services.fetch_policy import RENDER_TIMEOUT_MS
from services.markdown.request import (
    MarkdownError,
    MarkdownFailure,
    MarkdownOptions,
    MarkdownRequest,
    plan,
)
from services.markdown.service import FARM_FAILURES, RENDER_TIERS, MarkdownAnswer, MarkdownService
from services.screenshots.request import (
    ScreenshotError,
    ScreenshotOptions,
    ScreenshotRequest,
)
from services.screenshots.service import ScreenshotService, Shot
from services.target_guard import TargetProblem, TargetRefusedError

NOT_WITH_SCREENSHOT = ("load_more_selector",)
"""Markdown options a capture cannot do in the same visit (it clicks nothing): refused with
screenshot=true rather than done by a second load."""


@dataclass
class MarkdownShot:
    """A Markdown answer and the screenshot taken in the same visit; ``answer.credits`` is the
    price of both."""

    answer: MarkdownAnswer
    shot: Shot


@dataclass
class ShotPage:
    """A fresh capture with the page converted from the same visit; ``credits`` is the price of
    both."""

    shot: Shot
    page: PageConversion
    credits: int


class OneLoadService:
    """A screenshot and the page's Markdown from one load, over the screenshot and Markdown
    services."""

    def __init__(
        self, screenshots: ScreenshotService, markdown: MarkdownService, credits: CreditSettings
    ) -> None:
        self.screenshots = screenshots
        self.markdown = markdown
        self.credits = credits

    async def markdown_with_screenshot(
        self, request: MarkdownRequest, picture: ScreenshotOptions, org_id: int
    ) -> MarkdownShot:
        """``request``'s page rendered once: pictured with ``picture`` (its format, size and
        color scheme; how the page is loaded and waited for comes from ``request``) and
        converted as a render first would be. :class:`MarkdownError` (or the screenshot's and
        the page fetcher's errors for their own rules) when it cannot be answered."""
        options = request.options
        refused = [name for name in NOT_WITH_SCREENSHOT if getattr(options, name)]
        if refused:
            raise MarkdownError(
                MarkdownFailure.INVALID_OPTION,
                f"invalid parameters: {', '.join(refused)} cannot be combined with "
                "screenshot=true (the capture clicks nothing); send two requests",
                problems=tuple((name, "not with screenshot=true") for name in refused),
            )
        job = plan(request, self.markdown.limits)
        tier = job.render_tier
        if tier not in RENDER_TIERS:
            raise MarkdownError(
                MarkdownFailure.RENDER_TIER,
                f"screenshot=true renders direct or through the standard tier, not the {tier} tier",
            )
        self.markdown.pages.check(job.page)  # the plan's and the proxies' rules, as a render's
        loaded = replace(
            picture,
            use_proxy=tier == "standard",
            wait_for_selector=options.wait_for_selector,
            wait_timeout=options.wait_timeout,
            scroll_to_bottom=options.scroll_to_bottom,
            navigation_timeout=RENDER_TIMEOUT_MS,
            cache_ok=False,
        )
        shot = await self._take(ScreenshotRequest(request.url, request.org, org_id, loaded))
        rendered = RenderResult(
            html=shot.html or "",
            final_url=shot.final_url or request.url,
            status=shot.record.response_code,
            readiness=shot.readiness,
        )
        answer = await self.markdown.convert_rendered(job, rendered, tier)
        answer.credits = shot.credits + self._markdown_base(ai_sanitize=job.ai_sanitize)
        return MarkdownShot(answer, shot)

    async def screenshot_with_markdown(self, request: ScreenshotRequest) -> ShotPage:
        """A fresh capture of ``request`` that kept its HTML, and that HTML converted with the
        Markdown endpoint's defaults (main content only), whatever status the page answered
        (the result's ``requestInfo.responseCode`` tells it)."""
        shot = await self.screenshots.take(request, keep_html=True)
        markdown = MarkdownRequest(request.url, request.org, frozenset(), MarkdownOptions())
        job = plan(markdown, self.markdown.limits)
        final_url = shot.final_url or request.url
        page = FetchResult(
            url=request.url,
            final_url=final_url,
            status=shot.record.response_code or 200,
            content_type="text/html",
            text=shot.html or "",
        )
        converted = await self.markdown.convert_page(job, page)
        return ShotPage(shot, converted, shot.credits + self._markdown_base(ai_sanitize=False))

    async def _take(self, request: ScreenshotRequest) -> Shot:
        """The capture for a Markdown request, its failures told as a Markdown request tells a
        render's (the Markdown error shape has fetch codes, not browser ones)."""
        try:
            return await self.screenshots.take(request, keep_html=True)
        except TargetRefusedError as exc:
            failure = FetchError.dns if exc.failure is TargetProblem.UNRESOLVED else exc.failure
            raise MarkdownError(failure, exc.message) from exc
        except ScreenshotError as exc:
            if not isinstance(exc.failure, FarmErrorKind):
                raise
            raise MarkdownError(
                FARM_FAILURES.get(exc.failure, FetchError.invalid_response),
                exc.message,
                retry_after=exc.retry_after,
                problems=exc.problems,
            ) from exc

    def _markdown_base(self, *, ai_sanitize: bool) -> int:
        """The Markdown part's price: its base and the scan, nothing fetched or rendered."""
        return price(self.credits, Usage("markdown", "3.0", ai_sanitize=ai_sanitize))
