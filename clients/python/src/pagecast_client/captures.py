"""Screenshots captured in the background (``async=true``): the typed answers and the calls.

A background capture is accepted at once (:class:`CaptureAccepted`); the page is captured by
the server as the synchronous request would capture it. Its status (:class:`CaptureStatus`) is
``pending``, then ``done`` with the :class:`~pagecast_client.Screenshot` the synchronous request
would have answered, or ``failed`` with the error it would have answered, as a
:class:`~pagecast_client.CaptureFailedError`. Like every result, each keeps the JSON as ``raw``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx

from pagecast_client import _core
from pagecast_client._core import Call
from pagecast_client.errors import CaptureFailedError, CaptureTimeoutError
from pagecast_client.models import Screenshot, pick
from pagecast_client.params import ScreenshotParams, encode

STATUS_PATH = "/api/1.1/screenshot/requests"
CAPTURE_ENDED = frozenset({"done", "failed"})
"""The statuses of a background capture that has ended."""


@dataclass
class CaptureAccepted:
    """A background capture, accepted: its id, and where to read its status."""

    id: str
    status: str
    """``pending``."""
    url: str
    """Where to GET the capture's status."""
    webhook_secret: str | None = None
    """The webhook's signing secret, when a ``webhook_url`` was given: shown once."""
    request_id: str = ""
    warnings: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(
        cls, body: dict[str, Any], request_id: str, warnings: list[str]
    ) -> CaptureAccepted:
        return pick(cls, body, request_id=request_id, warnings=warnings, raw=body)


@dataclass
class CaptureStatus:
    """A background capture's state: ``pending``, ``done`` (``result``) or ``failed``
    (``error``)."""

    id: str
    status: str
    created_at: str | None = None
    ended_at: str | None = None
    result: Screenshot | None = None
    """When done: the answer the synchronous request would have given."""
    error: CaptureFailedError | None = None
    """When failed: the error the synchronous request would have answered."""
    request_id: str = ""
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def ended(self) -> bool:
        """Whether the capture has ended, done or failed."""
        return self.status in CAPTURE_ENDED

    @classmethod
    def from_json(cls, body: dict[str, Any], request_id: str, credits: int) -> CaptureStatus:
        status = str(body.get("status", ""))
        result = body.get("result")
        error = None
        if status == "failed":
            error = failure_of(str(body.get("id", "")), body)
        return cls(
            id=str(body.get("id", "")),
            status=status,
            created_at=body.get("createdAt"),
            ended_at=body.get("endedAt"),
            result=Screenshot.from_json(result, request_id, credits)
            if isinstance(result, dict)
            else None,
            error=error,
            request_id=request_id,
            raw=body,
        )


def failure_of(capture_id: str, body: dict[str, Any]) -> CaptureFailedError:
    """The error of a failed capture, from the error members its status carries."""
    error = body.get("error")
    error = error if isinstance(error, dict) else {}
    return CaptureFailedError(
        str(error.get("message") or f"background capture {capture_id} failed"),
        capture_id=capture_id,
        code=error.get("code"),
        stage=error.get("stage"),
        request_id=body.get("request_id"),
        details=error.get("details"),
        body=body,
    )


CaptureRef = str | CaptureAccepted | CaptureStatus
"""A background capture: its id, or what its submission or a status read answered."""


def capture_id_of(capture: CaptureRef) -> str:
    return capture if isinstance(capture, str) else capture.id


def _accepted(response: httpx.Response) -> CaptureAccepted:
    return CaptureAccepted.from_json(
        _core.json_of(response), _core.request_id_of(response), _core.warnings_of(response)
    )


def _status(response: httpx.Response) -> CaptureStatus:
    return CaptureStatus.from_json(
        _core.json_of(response), _core.request_id_of(response), _core.credits_of(response)
    )


def screenshot_async_call(
    url: str, webhook_url: str | None, params: Mapping[str, Any]
) -> Call[CaptureAccepted]:
    """``async=true`` (and ``webhook_url``) beside the screenshot's own keywords."""
    query = encode("screenshot_async", ScreenshotParams, params)
    query["async"] = "true"
    if webhook_url is not None:
        query["webhook_url"] = webhook_url
    return Call("GET", f"/api/1.1/screenshot/{_core.target(url)}", _accepted, query)


def screenshot_request_call(capture: CaptureRef) -> Call[CaptureStatus]:
    return Call("GET", f"{STATUS_PATH}/{quote(capture_id_of(capture), safe='')}", _status)


def ended(status: CaptureStatus, timeout: float, over: bool) -> Screenshot | None:
    """The capture's screenshot when it is done; its error raised when it failed, or a
    timeout when the time is ``over``; None to poll again."""
    if status.status == "done" and status.result is not None:
        return status.result
    if status.status == "failed":
        raise status.error or failure_of(status.id, status.raw)
    if over:
        raise CaptureTimeoutError(
            f"background capture {status.id} is still {status.status} after {timeout:g} s",
            status,
        )
    return None
