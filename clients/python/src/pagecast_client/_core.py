"""What the sync and async clients share: configuration, building each call, reading each
answer, and the retry rule. Only sending and sleeping differ between the two."""

from __future__ import annotations

import email.utils
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx

from pagecast_client import __version__
from pagecast_client.errors import (
    ConnectionFailedError,
    JobTimeoutError,
    PagecastError,
    error_from_response,
)
from pagecast_client.jobs import Job, JobAccepted, MapResult
from pagecast_client.models import (
    AiSafety,
    Embed,
    Frame,
    FramePage,
    MarkdownResult,
    Screenshot,
    Usage,
    pick,
)
from pagecast_client.params import (
    BatchParams,
    CrawlParams,
    FrameListParams,
    JobResultsParams,
    MapParams,
    MarkdownParams,
    OembedParams,
    ScreenshotParams,
    encode,
    encode_body,
)
from pagecast_client.signing import SigningSecret

T = TypeVar("T")

DEFAULT_BASE_URL = "http://127.0.0.1:8080"
KEY_VARIABLE = "PAGECAST_API_KEY"
URL_VARIABLE = "PAGECAST_URL"
FRAMES_VARIABLE = "PAGECAST_FRAMES_URL"
FRAMES_PATH = "/api/v1/frames"
JOBS_PATH = "/api/3.0/jobs"
# Answers worth sending again after the wait the server names.
RETRIED_STATUSES = frozenset({429, 503})


@dataclass
class Call(Generic[T]):
    """One request to make and how to read its answer. ``host`` is ``api`` or ``frames``."""

    method: str
    path: str
    parse: Callable[[httpx.Response], T]
    query: dict[str, str] = field(default_factory=dict)
    host: str = "api"
    body: dict[str, Any] | None = None
    """Sent as JSON (map, batch, crawl)."""


@dataclass
class Config:
    """Where Pagecast is, the key, and how patient to be."""

    api_key: str
    base_url: str
    frames_url: str | None
    timeout: float
    max_retries: int
    max_retry_wait: float

    @classmethod
    def resolve(
        cls,
        api_key: str | None,
        base_url: str | None,
        *,
        frames_url: str | None,
        timeout: float,
        max_retries: int,
        max_retry_wait: float,
    ) -> Config:
        key = api_key or os.environ.get(KEY_VARIABLE, "")
        if not key:
            raise PagecastError(f"no API key: set {KEY_VARIABLE} or pass one (api_key=, --key)")
        if max_retries < 0 or max_retry_wait < 0:
            raise ValueError("max_retries and max_retry_wait must not be negative")
        base = (base_url or os.environ.get(URL_VARIABLE) or DEFAULT_BASE_URL).rstrip("/")
        frames = frames_url or os.environ.get(FRAMES_VARIABLE)
        return cls(
            api_key=key,
            base_url=base,
            frames_url=frames.rstrip("/") if frames else None,
            timeout=timeout,
            max_retries=max_retries,
            max_retry_wait=max_retry_wait,
        )

    def headers(self) -> dict[str, str]:
        """Sent with every request: the key in a header (never in a URL that may be logged)."""
        return {"api-key": self.api_key, "User-Agent": f"pagecast-client/{__version__}"}


def target(url: str) -> str:
    """The target URL as one path segment."""
    return quote(url, safe="")


def credits_of(response: httpx.Response) -> int:
    try:
        return int(response.headers.get("X-BILLING-REQUESTS", "0"))
    except ValueError:
        return 0


def request_id_of(response: httpx.Response) -> str:
    return str(response.headers.get("X-Request-Id", ""))


def retry_after(response: httpx.Response) -> float | None:
    """``Retry-After`` in seconds, from either of its forms (seconds or an HTTP date)."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass  # not a number of seconds: an HTTP date, read next
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def wait_before_retry(response: httpx.Response, attempt: int, config: Config) -> float | None:
    """Seconds to wait before sending again, or ``None`` to give up: only 429 and 503 that
    name a wait no longer than ``max_retry_wait``, at most ``max_retries`` times."""
    if response.status_code not in RETRIED_STATUSES or attempt >= config.max_retries:
        return None
    wait = retry_after(response)
    if wait is None or wait > config.max_retry_wait:
        return None
    return wait


def check(response: httpx.Response) -> httpx.Response:
    """The response when it succeeded; else its error, raised."""
    if response.status_code >= 400:
        raise error_from_response(
            response.status_code,
            response.content,
            request_id_of(response) or None,
            retry_after(response),
        )
    return response


def transport_error(exc: httpx.HTTPError, url: str) -> PagecastError:
    return ConnectionFailedError(f"cannot reach Pagecast at {url}: {exc.__class__.__name__}")


def warnings_of(response: httpx.Response) -> list[str]:
    header = response.headers.get("X-Pagecast-Warnings")
    return header.split(" | ") if header else []


def json_of(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except json.JSONDecodeError as exc:
        raise PagecastError(
            "Pagecast answered something that is not JSON",
            status=response.status_code,
            request_id=request_id_of(response) or None,
        ) from exc
    if not isinstance(body, dict):
        raise PagecastError("Pagecast answered JSON that is not an object")
    return body


def _markdown_result(response: httpx.Response) -> MarkdownResult:
    if response.headers.get("Content-Type", "").startswith("application/json"):
        return MarkdownResult.from_json(json_of(response), credits_of(response))
    headers = response.headers
    score = headers.get("X-AI-Safety-Score")
    return MarkdownResult(
        request_id=request_id_of(response),
        credits=credits_of(response),
        markdown=response.text,
        usage=Usage(
            character_count=int(headers.get("X-Markdown-Character-Count", len(response.text))),
            truncated="X-Markdown-Truncated" in headers,
            truncation_reason=headers.get("X-Markdown-Truncation-Reason"),
        ),
        ai_safety=None
        if score is None
        else AiSafety(risk_score=float(score), risk_level=headers.get("X-AI-Safety-Level", "")),
        screenshot_url=headers.get("X-Screenshot-Url"),
        warnings=warnings_of(response),
    )


def _screenshot(response: httpx.Response) -> Screenshot:
    kind = response.headers.get("Content-Type", "")
    if kind.startswith("application/json"):
        return Screenshot.from_json(
            json_of(response), request_id_of(response), credits_of(response)
        )
    return Screenshot(
        request_id=request_id_of(response),
        credits=credits_of(response),
        image=response.content,
        content_type=kind.split(";")[0],
    )


def _embed(response: httpx.Response) -> Embed:
    body = json_of(response)
    return pick(
        Embed, body, request_id=request_id_of(response), credits=credits_of(response), raw=body
    )


def _frame(response: httpx.Response) -> Frame:
    return Frame.from_json(json_of(response))


def _frame_page(response: httpx.Response) -> FramePage:
    body = json_of(response)
    return FramePage(
        frames=[Frame.from_json(frame) for frame in body.get("frames", [])],
        next_cursor=body.get("next_cursor"),
        total=int(body.get("total", 0)),
    )


def _nothing(response: httpx.Response) -> None:
    return None


def _bytes(response: httpx.Response) -> bytes:
    return response.content


def markdown_call(url: str, params: Mapping[str, Any]) -> Call[MarkdownResult]:
    query = encode("markdown", MarkdownParams, params, {"format": "json"})
    return Call("GET", f"/api/3.0/markdown/{target(url)}", _markdown_result, query)


def screenshot_call(url: str, params: Mapping[str, Any]) -> Call[Screenshot]:
    query = encode("screenshot", ScreenshotParams, params)
    return Call("GET", f"/api/1.1/screenshot/{target(url)}", _screenshot, query)


def _signing_secret(response: httpx.Response) -> SigningSecret:
    body = json_of(response)
    return SigningSecret(key_id=str(body["key_id"]), signing_secret=str(body["signing_secret"]))


def signing_secret_call() -> Call[SigningSecret]:
    return Call("GET", "/api/1.1/signing-secret", _signing_secret)


def oembed_call(url: str, version: str, params: Mapping[str, Any]) -> Call[Embed]:
    if version not in ("1.1", "3.0"):
        raise ValueError("version must be '1.1' or '3.0'")
    query = encode("oembed", OembedParams, params)
    return Call("GET", f"/api/{version}/oembed/{target(url)}", _embed, query)


def list_frames_call(params: Mapping[str, Any]) -> Call[FramePage]:
    query = encode("list_frames", FrameListParams, params)
    return Call("GET", FRAMES_PATH, _frame_page, query, host="frames")


def page_of(limit: int | None, cursor: str | None) -> FrameListParams:
    """The keywords of one page of the frames list."""
    page = FrameListParams()
    if limit is not None:
        page["limit"] = limit
    if cursor is not None:
        page["cursor"] = cursor
    return page


def _frame_path(embed_id: str, action: str = "") -> str:
    return f"{FRAMES_PATH}/{quote(embed_id, safe='')}{action}"


def get_frame_call(embed_id: str) -> Call[Frame]:
    return Call("GET", _frame_path(embed_id), _frame, host="frames")


def refresh_frame_call(embed_id: str) -> Call[Frame]:
    return Call("POST", _frame_path(embed_id, "/refresh"), _frame, host="frames")


def delete_frame_call(embed_id: str) -> Call[None]:
    return Call("DELETE", _frame_path(embed_id), _nothing, host="frames")


def _map_result(response: httpx.Response) -> MapResult:
    return MapResult.from_json(json_of(response), credits_of(response))


def _accepted(response: httpx.Response) -> JobAccepted:
    return JobAccepted.from_json(json_of(response), request_id_of(response))


def _job(response: httpx.Response) -> Job:
    return Job.from_json(json_of(response), request_id_of(response))


def map_call(url: str, params: Mapping[str, Any]) -> Call[MapResult]:
    body = encode_body("map", MapParams, params, {"url": url})
    return Call("POST", "/api/3.0/map", _map_result, body=body)


def batch_call(urls: str | Sequence[str], params: Mapping[str, Any]) -> Call[JobAccepted]:
    listed = [urls] if isinstance(urls, str) else list(urls)
    body = encode_body("batch", BatchParams, params, {"urls": listed})
    return Call("POST", "/api/3.0/batch", _accepted, body=body)


def crawl_call(url: str, params: Mapping[str, Any]) -> Call[JobAccepted]:
    body = encode_body("crawl", CrawlParams, params, {"url": url})
    return Call("POST", "/api/3.0/crawl", _accepted, body=body)


def _job_path(job_id: str) -> str:
    return f"{JOBS_PATH}/{quote(job_id, safe='')}"


def get_job_call(job_id: str, params: Mapping[str, Any]) -> Call[Job]:
    query = encode("get_job", JobResultsParams, params)
    return Call("GET", _job_path(job_id), _job, query)


def cancel_job_call(job_id: str) -> Call[Job]:
    return Call("DELETE", _job_path(job_id), _job)


def job_id_of(job: str | JobAccepted | Job) -> str:
    """A job's id, given it or what its submission or a read answered."""
    return job if isinstance(job, str) else job.id


def results_page(cursor: str | None, limit: int | None) -> JobResultsParams:
    """The keywords of one page of a job's results."""
    page = JobResultsParams()
    if cursor is not None:
        page["cursor"] = cursor
    if limit is not None:
        page["limit"] = limit
    return page


def job_timeout(job: Job, timeout: float) -> JobTimeoutError:
    progress = job.progress
    return JobTimeoutError(
        f"job {job.id} is still {job.status} after {timeout:g} s "
        f"({progress.ended} of {progress.total} pages finished)",
        job,
    )


def download_call(link: str | Screenshot) -> Call[bytes]:
    url = link.screenshot_url if isinstance(link, Screenshot) else link
    if not url:
        raise ValueError("this screenshot has no link (it was asked with response_type=image)")
    return Call("GET", url, _bytes, host="absolute")


def frames_host_from(openapi: dict[str, Any]) -> str:
    """The frame host, as the server's ``/openapi.json`` names it for the frames API."""
    try:
        servers = openapi["paths"][FRAMES_PATH]["get"]["servers"]
        return str(servers[0]["url"]).rstrip("/")
    except (KeyError, IndexError, TypeError) as exc:
        raise PagecastError(
            f"the server's /openapi.json does not name the frame host; pass frames_url= or set "
            f"{FRAMES_VARIABLE}"
        ) from exc
