"""API errors: one exception type, one table of kinds, and one renderer per error shape.

Handlers raise :class:`ApiError` with a *kind* (``unauthorized``, ``fetch_timeout`` ...). The kind
decides the HTTP status and, per shape, the code clients see:

- the oEmbed shape (SPEC 7.1), also used by the screenshot endpoint and the frame host:
  ``{"success": false, "error": {"code", "message", "stage", "details"}}``;
- the Markdown shape (SPEC 7.2): ``{"error": {"code": int, "message"}, "request_id"}``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from services.accounts import AccountFailure
from services.embeds import EmbedFailure
from services.embeds.frames import FrameFailure
from services.failure import FarmErrorKind, FetchError, KeyFlaw, ServiceError, StoreUnavailable
from services.fetch_policy import PageProblem
from services.jobs.admission import AdmissionFailure
from services.jobs.service import JobFailure
from services.markdown import MarkdownFailure
from services.screenshots import ScreenshotFailure
from services.screenshots.deferred import DeferredFailure
from services.screenshots.signed import SignedLinkFailure
from services.site_map import MapFailure
from services.target_guard import TargetProblem

Shape = Literal["oembed", "markdown"]


@dataclass(frozen=True)
class ErrorKind:
    """How one kind of failure looks in each shape."""

    status: int
    oembed_code: str
    markdown_code: int
    stage: str
    message: str
    retry_after: int | None = None
    """Seconds for the Retry-After header when the raiser gives none."""


KINDS: dict[str, ErrorKind] = {
    # Client mistakes, found before any fetch.
    "invalid_parameter": ErrorKind(
        400, "invalid_request", -2203, "validation", "invalid parameter"
    ),
    "invalid_format": ErrorKind(
        400, "invalid_request", -2200, "validation", "invalid format; must be markdown or json"
    ),
    "invalid_max_chars": ErrorKind(
        400, "invalid_request", -2201, "validation", "invalid max_chars; must be a positive integer"
    ),
    "invalid_url": ErrorKind(
        400, "invalid_request", -2204, "validation", "the target URL must be an http or https URL"
    ),
    "body_too_large": ErrorKind(
        413, "payload_too_large", -2205, "validation", "the request body is too large"
    ),
    "unauthorized": ErrorKind(
        401,
        "unauthorized",
        -1000,
        "validation",
        "a valid API key is required (app_id, api-key, X-API-Key or Authorization: Bearer)",
    ),
    "conflicting_keys": ErrorKind(
        400,
        "invalid_request",
        -1007,
        "validation",
        "two different API keys in one request; send one key",
    ),
    "forbidden": ErrorKind(403, "forbidden", -1001, "validation", "the plan does not include this"),
    "rate_limited": ErrorKind(429, "rate_limited", -1002, "validation", "too many requests"),
    "quota_exceeded": ErrorKind(
        429, "quota_exceeded", -1003, "validation", "the monthly credit quota is used up"
    ),
    "not_found": ErrorKind(404, "not_found", -1004, "validation", "no such resource"),
    "job_limit": ErrorKind(
        429, "job_limit", -1011, "validation", "the plan's limits on jobs are reached", 60
    ),
    "method_not_allowed": ErrorKind(
        405, "method_not_allowed", -1005, "validation", "method not allowed"
    ),
    # Fetching the target (SPEC 7.2 "varies"; DESIGN section 6).
    "fetch_dns": ErrorKind(
        400, "target_unreachable", -3000, "fetch", "the target host could not be resolved"
    ),
    "fetch_connect": ErrorKind(
        400, "target_unreachable", -3001, "fetch", "could not connect to the target"
    ),
    "fetch_timeout": ErrorKind(
        400, "target_unreachable", -3002, "fetch", "the target did not answer in time"
    ),
    "fetch_blocked": ErrorKind(
        400, "target_unreachable", -3003, "fetch", "the target refused the request"
    ),
    "fetch_tls": ErrorKind(
        400, "target_unreachable", -3004, "fetch", "TLS handshake with the target failed"
    ),
    "fetch_redirects": ErrorKind(400, "target_unreachable", -3005, "fetch", "too many redirects"),
    "fetch_not_allowed": ErrorKind(
        400, "invalid_request", -3006, "validation", "the target address is not allowed"
    ),
    "fetch_too_large": ErrorKind(
        400, "target_unreachable", -3007, "fetch", "the target page is too large"
    ),
    "fetch_status": ErrorKind(
        400, "target_unreachable", -3008, "fetch", "the target answered with an error status"
    ),
    "fetch_invalid_response": ErrorKind(
        400, "target_unreachable", -3009, "fetch", "the target sent an invalid response"
    ),
    # Rendering in the browser (screenshots).
    "target_unreachable": ErrorKind(
        502, "target_unreachable", -3011, "fetch", "the target could not be reached"
    ),
    "navigation_timeout": ErrorKind(
        504, "navigation_timeout", -3010, "fetch", "the page did not load in time"
    ),
    "selector_not_found": ErrorKind(
        422, "selector_not_found", -4003, "capture", "the selector matched nothing on the page"
    ),
    "capture_failed": ErrorKind(500, "capture_failed", -4004, "capture", "the capture failed"),
    "gone": ErrorKind(410, "gone", -1010, "validation", "this link has expired"),
    # After a successful fetch.
    "no_html": ErrorKind(404, "no_html", -4000, "fetch", "the target returned no HTML content"),
    "ai_blocked": ErrorKind(
        422, "ai_blocked", -4001, "conversion", "blocked: high prompt-injection risk"
    ),
    "conversion_failed": ErrorKind(
        500, "conversion_failed", -4002, "conversion", "HTML-to-Markdown conversion failed"
    ),
    # oEmbed (SPEC 7.1) and frames (DESIGN section 6).
    "oembed_resolution_failed": ErrorKind(
        422,
        "oembed_resolution_failed",
        -4005,
        "fallback",
        "no native embed and no page metadata to build a card from",
    ),
    "oembed_target_gone": ErrorKind(
        422,
        "oembed_resolution_failed",
        -4007,
        "validation",
        "the page does not exist (404 or 410): nothing to embed",
    ),
    "frame_generation_failed": ErrorKind(
        502, "frame_generation_failed", -4006, "fallback", "the hosted frame could not be generated"
    ),
    "frame_not_found": ErrorKind(404, "frame_not_found", -1006, "validation", "no such frame"),
    # Our own trouble.
    "busy": ErrorKind(503, "busy", -5003, "internal", "the service is busy; retry shortly"),
    "unavailable": ErrorKind(
        503,
        "unavailable",
        -5004,
        "internal",
        "a backing service is unavailable; retry shortly",
        retry_after=5,
    ),
    "internal": ErrorKind(500, "internal_error", -5000, "internal", "internal error"),
}


class ApiError(Exception):
    """An error answered to the client in the endpoint's shape.

    ``message`` must be safe to show (no upstream error text, paths or secrets); it defaults to the
    kind's message. ``details`` appears in the oEmbed shape only.
    """

    def __init__(
        self,
        kind: str,
        message: str | None = None,
        *,
        details: Any = None,
        retry_after: int | None = None,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown error kind {kind!r}")
        self.kind = kind
        self.spec = KINDS[kind]
        self.message = message or self.spec.message
        self.details = details
        self.retry_after = retry_after if retry_after is not None else self.spec.retry_after
        self.extra = extra or {}
        self.headers = headers or {}
        super().__init__(f"{kind}: {self.message}")

    @property
    def status(self) -> int:
        return self.spec.status


def render(shape: Shape, error: ApiError, request_id: str) -> dict[str, Any]:
    """The JSON body of ``error`` in ``shape``."""
    if shape == "markdown":
        return {
            "error": {"code": error.spec.markdown_code, "message": error.message},
            "request_id": request_id,
            **error.extra,
        }
    return {
        "success": False,
        "error": {
            "code": error.spec.oembed_code,
            "message": error.message,
            "stage": error.spec.stage,
            "details": error.details,
        },
        "request_id": request_id,
    }


def from_status(status: int) -> ApiError:
    """Translate a bare HTTP status raised by Tornado itself (404 route, 405 method, ...)."""
    kind = {404: "not_found", 405: "method_not_allowed", 400: "invalid_parameter"}.get(status)
    if kind is None:
        return ApiError("internal")
    return ApiError(kind)


FAILURE_KINDS: dict[enum.Enum, str] = {
    FetchError.invalid_url: "invalid_url",
    FetchError.dns: "fetch_dns",
    FetchError.connect: "fetch_connect",
    FetchError.timeout: "fetch_timeout",
    FetchError.blocked: "fetch_blocked",
    FetchError.tls: "fetch_tls",
    FetchError.too_many_redirects: "fetch_redirects",
    FetchError.address_not_allowed: "fetch_not_allowed",
    FetchError.too_large: "fetch_too_large",
    FetchError.http_status: "fetch_status",
    FetchError.invalid_response: "fetch_invalid_response",
    FarmErrorKind.busy: "busy",
    FarmErrorKind.navigation_timeout: "navigation_timeout",
    FarmErrorKind.target_unreachable: "target_unreachable",
    FarmErrorKind.selector_not_found: "selector_not_found",
    FarmErrorKind.capture_failed: "capture_failed",
    TargetProblem.MALFORMED: "invalid_url",
    TargetProblem.NOT_ALLOWED: "fetch_not_allowed",
    TargetProblem.UNRESOLVED: "target_unreachable",
    AccountFailure.UNKNOWN_KEY: "unauthorized",
    AccountFailure.TOO_MANY_UNKNOWN_KEYS: "rate_limited",
    AccountFailure.UNKNOWN_PLAN: "forbidden",
    AccountFailure.RATE_LIMITED: "rate_limited",
    AccountFailure.QUOTA_EXCEEDED: "quota_exceeded",
    KeyFlaw.TOO_LONG: "invalid_parameter",
    KeyFlaw.NOT_ASCII: "unauthorized",
    KeyFlaw.SPACE_OR_CONTROL: "unauthorized",
    MarkdownFailure.INVALID_OPTION: "invalid_parameter",
    MarkdownFailure.RENDER_TIER: "invalid_parameter",
    MarkdownFailure.NO_BROWSER_PROXY: "invalid_parameter",
    MarkdownFailure.BUSY: "busy",
    MarkdownFailure.SELECTOR_NOT_FOUND: "selector_not_found",
    MarkdownFailure.CONVERSION_TIMEOUT: "conversion_failed",
    MarkdownFailure.CONVERSION_FAILED: "conversion_failed",
    MarkdownFailure.EMPTY_DOCUMENT: "no_html",
    MarkdownFailure.NOT_HTML: "no_html",
    ScreenshotFailure.INVALID_OPTION: "invalid_parameter",
    ScreenshotFailure.NO_STANDARD_PROXY: "invalid_parameter",
    ScreenshotFailure.NO_BROWSER_PROXY: "invalid_parameter",
    ScreenshotFailure.UNREADABLE: "capture_failed",
    ScreenshotFailure.UNKNOWN_LINK: "not_found",
    ScreenshotFailure.EXPIRED_LINK: "gone",
    ScreenshotFailure.GONE: "gone",
    SignedLinkFailure.REFUSED: "forbidden",
    DeferredFailure.TOO_MANY_PENDING: "rate_limited",
    DeferredFailure.WEBHOOK_REFUSED: "fetch_not_allowed",
    DeferredFailure.NOT_FOUND: "not_found",
    FrameFailure.NOT_FOUND: "frame_not_found",
    FrameFailure.BAD_CURSOR: "invalid_parameter",
    FrameFailure.GENERATION_FAILED: "frame_generation_failed",
    PageProblem.TIER_NOT_IN_PLAN: "forbidden",
    PageProblem.NOT_CONFIGURED: "invalid_parameter",
    EmbedFailure.NOTHING_TO_EMBED: "oembed_resolution_failed",
    EmbedFailure.TARGET_REFUSED: "fetch_not_allowed",
    EmbedFailure.TARGET_GONE: "oembed_target_gone",
    MapFailure.INVALID_PATTERN: "invalid_parameter",
    JobFailure.EMPTY_BATCH: "invalid_parameter",
    JobFailure.INVALID_URL: "invalid_url",
    JobFailure.INVALID_OPTION: "invalid_parameter",
    JobFailure.WEBHOOK_REFUSED: "fetch_not_allowed",
    JobFailure.NOT_FOUND: "not_found",
    AdmissionFailure.TOO_MANY_JOBS: "job_limit",
    AdmissionFailure.QUEUE_FULL: "job_limit",
    AdmissionFailure.NO_CREDITS: "quota_exceeded",
    AdmissionFailure.FAILURE_LIMIT: "job_limit",
}
"""Every failure kind of the layers below -> the API error it is answered as."""

PAGE_CAUSED: frozenset[enum.Enum] = frozenset({MarkdownFailure.CONVERSION_TIMEOUT})
"""Failures answered as one of Pagecast's own kinds (``conversion_failed``) that the target page
caused, being too large or complex to convert in time: the service logged them in one warning
line, so they are not logged again with a traceback."""


def failure_error(
    failure: enum.Enum,
    message: str | None = None,
    *,
    retry_after: int | None = None,
    attempts: int = 0,
    problems: tuple[tuple[str, str], ...] = (),
) -> ApiError:
    """The API error of a lower layer's ``failure``; ``attempts`` (fetches made) is said after
    the message when there were any; ``problems`` (parameter, why) become its details."""
    kind = FAILURE_KINDS.get(failure, "internal")  # unmapped: a bug, answered as one
    text = message or KINDS[kind].message
    if attempts > 0:
        text += f" (after {attempts} attempt{'' if attempts == 1 else 's'})"
    details = [{"parameter": name, "message": why} for name, why in problems] or None
    return ApiError(kind, text, retry_after=retry_after, details=details)


def from_exception(exc: BaseException | None) -> ApiError | None:
    """The API error a raised exception is answered with; None when it is not one of the
    failures the layers below report (an unexpected failure, answered as internal)."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, ServiceError):
        return failure_error(
            exc.failure,
            exc.message,
            retry_after=exc.retry_after,
            attempts=exc.attempts,
            problems=exc.problems,
        )
    if isinstance(exc, StoreUnavailable):
        # Wherever the database (or image storage) failed, the answer is the same: down for
        # now, retry shortly.
        return ApiError("unavailable")
    return None


class MarkdownPageErrors:
    """A failed page of a batch or crawl told as the Markdown endpoint would tell it (the job
    runner's :class:`~services.jobs.work.PageErrors`)."""

    def error(self, exc: BaseException) -> tuple[dict[str, Any], bool]:
        known = from_exception(exc)
        error = known or ApiError("internal")
        return {"code": error.spec.markdown_code, "message": error.message}, known is not None

    def blocked(self, ai_safety: Mapping[str, Any] | None) -> dict[str, Any]:
        return {
            "code": KINDS["ai_blocked"].markdown_code,
            "message": "the page was blocked: high prompt-injection risk",
            "ai_safety": dict(ai_safety or {}),
        }
