"""One exception family for every failure Pagecast answers, whatever the endpoint's error shape.

Pagecast answers errors in two shapes: the Markdown endpoint's
``{"error": {"code": -2203, "message": ...}, "request_id": ...}`` (a negative integer code) and
the shape of oEmbed, screenshots and frames,
``{"success": false, "error": {"code": "invalid_request", "message", "stage", "details"}}``
(a string code and a stage). Both become a :class:`PagecastError` subclass chosen by the HTTP
status, carrying the code, the stage (``None`` in the Markdown shape), the request id and,
for 429 and 503, the server's ``Retry-After``.
"""

from __future__ import annotations

import json
from typing import Any


class PagecastError(Exception):
    """A request Pagecast refused or could not answer."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: int | str | None = None,
        stage: str | None = None,
        request_id: str | None = None,
        details: Any = None,
        retry_after: float | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        """The HTTP status (``None`` when no answer came)."""
        self.code = code
        """``-2203``-style integer (Markdown) or ``invalid_request``-style string (others)."""
        self.stage = stage
        """``validation``, ``fetch``, ``fallback``... (oEmbed shape only)."""
        self.request_id = request_id
        """The answer's ``X-Request-Id``: quote it when asking about a request."""
        self.details = details
        self.retry_after = retry_after
        """Seconds the server asked to wait (429, 503)."""
        self.body = body

    def __str__(self) -> str:
        parts = [f"{self.code}" if self.code is not None else "", self.message]
        where = ", ".join(
            f"{name} {value}"
            for name, value in (
                ("status", self.status),
                ("stage", self.stage),
                ("request", self.request_id),
            )
            if value is not None
        )
        text = ": ".join(part for part in parts if part)
        return f"{text} ({where})" if where else text


class InvalidRequestError(PagecastError):
    """400 for the request itself: a parameter, the target URL (retrying does not help)."""


class TargetError(PagecastError):
    """The target page could not be fetched, rendered or embedded (Markdown 400 -3xxx and 404
    -4000; 422 and 502/504 of the other endpoints)."""


class AuthenticationError(PagecastError):
    """401: the key is missing, unknown or revoked."""


class PermissionDeniedError(PagecastError):
    """403: the plan does not include this."""


class NotFoundError(PagecastError):
    """404: no such frame (``frame_not_found``) or job (``-1004``) of the key's
    organization."""


class BlockedContentError(PagecastError):
    """422 -4001: ``ai_sanitize_mode=block`` refused a page with a high prompt-injection risk;
    ``ai_safety`` holds the report."""

    @property
    def ai_safety(self) -> dict[str, Any]:
        return dict(self.body.get("ai_safety") or {}) if isinstance(self.body, dict) else {}


class RateLimitError(PagecastError):
    """429: over the plan's rate (see ``retry_after``) or its monthly credits."""


class ServerError(PagecastError):
    """5xx from Pagecast itself (503 ``busy`` carries ``retry_after``)."""


class ConnectionFailedError(PagecastError):
    """Pagecast could not be reached, or did not answer in time."""


class JobTimeoutError(PagecastError):
    """A job did not end within the time :meth:`~pagecast_client.Pagecast.wait_for_job` was
    given; ``job`` is its last status read (the job itself goes on: cancel it, or wait again)."""

    def __init__(self, message: str, job: Any) -> None:
        super().__init__(message, request_id=getattr(job, "request_id", None) or None)
        self.job = job


class CaptureFailedError(PagecastError):
    """A background screenshot capture failed: ``code``, ``stage``, ``details`` and
    ``request_id`` (of the request that asked for it) are those of the error the synchronous
    request would have answered (``target_unreachable``, ``navigation_timeout``,
    ``capture_failed``...); ``status`` is None (the capture's status was read with 200)."""

    def __init__(self, message: str, *, capture_id: str, **info: Any) -> None:
        super().__init__(message, **info)
        self.capture_id = capture_id


class CaptureTimeoutError(PagecastError):
    """A background capture did not end within the time
    :meth:`~pagecast_client.Pagecast.wait_for_screenshot` was given; ``capture`` is its last
    status read (the capture itself goes on: wait again)."""

    def __init__(self, message: str, capture: Any) -> None:
        super().__init__(message, request_id=getattr(capture, "request_id", None) or None)
        self.capture = capture


PAGE_FAILURES = {-2204, -4002}
"""Markdown error codes about the page asked for rather than the request: a target URL that
is not http(s) or malformed, a page whose conversion failed."""


def is_page_failure(error: PagecastError) -> bool:
    """Whether ``error`` is about one page (it could not be fetched, was blocked, is not a URL,
    could not be converted), so that other pages may still load; the others (the key, the
    plan, a parameter, the rate, Pagecast unreachable) fail every page alike."""
    if isinstance(error, (TargetError, BlockedContentError)):
        return True
    return isinstance(error, (InvalidRequestError, ServerError)) and error.code in PAGE_FAILURES


NOT_FOUND = -1004
"""The Markdown shape's code of a resource that does not exist (a job)."""


def _status_class(status: int, code: int | str | None) -> type[PagecastError]:
    if status == 401:
        return AuthenticationError
    if status == 403:
        return PermissionDeniedError
    if status == 429:
        return RateLimitError
    if status == 422 and code == -4001:
        return BlockedContentError
    if status >= 500 and code not in ("target_unreachable", "navigation_timeout"):
        return ServerError
    if status == 404 and (isinstance(code, str) or code == NOT_FOUND):
        return NotFoundError
    if status == 400 and (isinstance(code, str) or (isinstance(code, int) and code > -3000)):
        return InvalidRequestError
    return TargetError


def error_from_response(
    status: int, body: bytes, request_id: str | None, retry_after: float | None
) -> PagecastError:
    """The exception for an error answer, read from either error shape (or from the status
    alone when the body is neither, e.g. a proxy's page in front of Pagecast)."""
    try:
        parsed: Any = json.loads(body)
    except ValueError:
        parsed = None
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if isinstance(error, dict):
        code = error.get("code")
        message = str(error.get("message") or f"HTTP {status}")
        stage = error.get("stage")
        details = error.get("details")
        request_id = parsed.get("request_id") or request_id
    else:
        code, stage, details = None, None, None
        message = f"HTTP {status}: {body[:200].decode('utf-8', 'replace')}".strip()
    cls = _status_class(status, code)
    return cls(
        message,
        status=status,
        code=code,
        stage=stage,
        request_id=request_id,
        details=details,
        retry_after=retry_after,
        body=parsed,
    )
