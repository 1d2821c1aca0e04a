"""Screenshots captured in the background: ``async=true`` on the screenshot endpoint answers 202
with the capture's id (:func:`accept`), and ``GET /api/1.1/screenshot/requests/{capture_id}``
answers its state to the organization that asked for it. The synchronous answer's result and
error bodies are made here too, so that both tell a capture alike."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from handlers.base import ApiHandler, params_error
from handlers.errors import ApiError, from_exception, render
from handlers.jobs import http_url
from handlers.params.param import ParamProblem
from handlers.params.screenshot import ScreenshotParams
from handlers.params.screenshot_requests import CAPTURE_STATUS_PARAMS, CaptureStatusParams
from services.screenshots import ScreenshotRecord, ScreenshotRequest, Shot
from services.screenshots.deferred import DeferredCaptures, told

STATUS_PATH = "/api/1.1/screenshot/requests/"


def shot_json(shot: Shot, base_url: str) -> dict[str, Any]:
    """The JSON result of a capture, its link under ``base_url``."""
    record = shot.record
    body: dict[str, Any] = {
        "screenshotUrl": link(record, base_url),
        "dimensions": {"width": record.width, "height": record.height},
        "requestInfo": {"host": record.host, "responseCode": record.response_code},
        "expiresAt": record.expires_at.isoformat().replace("+00:00", "Z"),
        "cached": shot.image is None,
    }
    if shot.pages is not None:
        body["pages"] = shot.pages
    if shot.readiness is not None:
        body["timing"] = shot.readiness.as_dict()
    return body


def link(record: ScreenshotRecord, base_url: str) -> str:
    """The 24-hour link of a stored capture."""
    return f"{base_url}/screenshots/{record.filename}"


class ScreenshotAnswers:
    """A background capture's end told as the screenshot endpoint answers (the service's
    :class:`~services.screenshots.deferred.CaptureAnswers`)."""

    def __init__(self, base_url: Callable[[], str]) -> None:
        self.base_url = base_url

    def result(self, shot: Shot) -> dict[str, Any]:
        return shot_json(shot, self.base_url())

    def error(self, exc: BaseException, request_id: str) -> dict[str, Any]:
        error = from_exception(exc) or ApiError("internal")
        return render("oembed", error, request_id)


def deferred(handler: ApiHandler) -> DeferredCaptures:
    """The background captures, or ``unavailable`` in a process that runs none."""
    service = handler.services.deferred_captures
    if service is None:
        raise ApiError("unavailable", "background captures are not served by this process")
    return service


async def accept(handler: ApiHandler, request: ScreenshotRequest, params: ScreenshotParams) -> None:
    """Answer ``async=true``: 202 with the capture's id, its status URL and its webhook's
    signing secret; the capture goes on in the background."""
    webhook_url = params.webhook_url
    problems = []
    if webhook_url and not http_url(webhook_url):
        problems.append(ParamProblem("webhook_url", "must be an http or https URL"))
    if params.response_type != "json":
        problems.append(ParamProblem("response_type", "must be json with async=true"))
    if problems:
        raise params_error(problems)
    accepted = await deferred(handler).submit(request, webhook_url, handler.request_id)
    base = handler.services.server.public_base_url()
    body: dict[str, Any] = {
        "id": accepted.id,
        "status": "pending",
        "url": f"{base}{STATUS_PATH}{accepted.id}",
    }
    if accepted.secret is not None:
        body["webhook_secret"] = accepted.secret
    handler.write_json(body, status=202)


class CaptureStatusHandler(ApiHandler):
    """``GET /api/1.1/screenshot/requests/{capture_id}``: pending, done (with the result) or failed
    (with the error), for the organization that asked for the capture only."""

    endpoint = "screenshot_requests"
    error_shape = "oembed"
    params = CAPTURE_STATUS_PARAMS
    uses_quota = False
    background = True

    async def get(self, capture_id: str) -> None:
        self.parse_params(CaptureStatusParams)
        state = await deferred(self).status(self.caller.org_id, capture_id)
        body = told(state.id, state.status, state.answer)
        body["createdAt"] = state.created_at.isoformat().replace("+00:00", "Z")
        if state.ended_at is not None:
            body["endedAt"] = state.ended_at.isoformat().replace("+00:00", "Z")
        self.write_json(body)


ROUTES: list[tuple[str, Any]] = [
    (r"/api/1\.1/screenshot/requests/([^/]+)", CaptureStatusHandler),
]
