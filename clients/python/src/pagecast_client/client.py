"""The clients: :class:`Pagecast` (blocking) and :class:`AsyncPagecast` (asyncio), over httpx.

Both take the key as ``api_key=`` or from ``PAGECAST_API_KEY``, and the server as
``base_url=`` or from ``PAGECAST_URL`` (default ``http://127.0.0.1:8080``). A 429 or 503 whose
``Retry-After`` is at most ``max_retry_wait`` seconds is sent again after that wait, up to
``max_retries`` times; any other error answer raises a :class:`~pagecast_client.PagecastError`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from types import TracebackType
from typing import Any, Generic, Literal, TypeVar, Unpack

import httpx

from pagecast_client import _core, captures
from pagecast_client._core import Call, Config
from pagecast_client.captures import CaptureAccepted, CaptureRef, CaptureStatus
from pagecast_client.jobs import Job, JobAccepted, JobResult, MapResult, Polling
from pagecast_client.models import Embed, Frame, FramePage, MarkdownResult, Screenshot
from pagecast_client.params import (
    BatchParams,
    CrawlParams,
    FrameListParams,
    JobResultsParams,
    MapParams,
    MarkdownParams,
    OembedParams,
    ScreenshotParams,
)
from pagecast_client.signing import SigningSecret

T = TypeVar("T")
Version = Literal["1.1", "3.0"]
JobRef = str | JobAccepted | Job
"""A job: its id, or what its submission or a read answered."""


H = TypeVar("H", httpx.Client, httpx.AsyncClient)


class _Settings(Generic[H]):
    """The configuration both clients take, and their httpx client (``http_client``: one of
    your own, with its transports and limits; the Pagecast client does not close it)."""

    _http_class: type[H]

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        frames_url: str | None = None,
        timeout: float = 90.0,
        max_retries: int = 2,
        max_retry_wait: float = 30.0,
        http_client: H | None = None,
    ) -> None:
        self.config = Config.resolve(
            api_key,
            base_url,
            frames_url=frames_url,
            timeout=timeout,
            max_retries=max_retries,
            max_retry_wait=max_retry_wait,
        )
        self._http: H = http_client or self._http_class(timeout=timeout)
        self._owns_http = http_client is None

    def _request(self, call: Call[Any], url: str) -> dict[str, Any]:
        """The arguments of httpx's ``request`` for a call."""
        headers = self.config.headers()
        if call.host == "absolute":
            # A screenshot link may be on an object store: the key goes to Pagecast alone.
            del headers["api-key"]
        return {
            "method": call.method,
            "url": url,
            "params": call.query,
            "json": call.body,
            "headers": headers,
            # A link to an image in an object store answers with a redirect to it.
            "follow_redirects": call.host == "absolute",
        }

    def _url(self, call: Call[Any], frames: str | None) -> str:
        if call.host == "absolute":
            return call.path
        return (frames or "" if call.host == "frames" else self.config.base_url) + call.path


class Pagecast(_Settings[httpx.Client]):
    """A blocking Pagecast client. Use it as a context manager, or call :meth:`close`.

    >>> with Pagecast(api_key="pc_...") as pagecast:  # doctest: +SKIP
    ...     page = pagecast.markdown("https://example.com/", chunking=True)
    """

    _http_class = httpx.Client

    def __enter__(self) -> Pagecast:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def markdown(self, url: str, **params: Unpack[MarkdownParams]) -> MarkdownResult:
        """The page as Markdown. The client asks for ``format=json`` (the envelope with
        metadata, chunks...) unless told ``format="markdown"``."""
        return self._run(_core.markdown_call(url, params))

    def screenshot(self, url: str, **params: Unpack[ScreenshotParams]) -> Screenshot:
        """A capture: a link for 24 hours, or the bytes with ``response_type="image"``."""
        return self._run(_core.screenshot_call(url, params))

    def screenshot_async(
        self, url: str, *, webhook_url: str | None = None, **params: Unpack[ScreenshotParams]
    ) -> CaptureAccepted:
        """Capture in the background (``async=true``): answered at once with the capture's id;
        read it with :meth:`screenshot_request` or :meth:`wait_for_screenshot`, or be told at
        ``webhook_url`` (POST, signed with :attr:`CaptureAccepted.webhook_secret`)."""
        return self._run(captures.screenshot_async_call(url, webhook_url, params))

    def screenshot_request(self, capture: CaptureRef) -> CaptureStatus:
        """A background capture's status: ``pending``, ``done`` (``result``, a
        :class:`Screenshot`) or ``failed`` (``error``, a :class:`CaptureFailedError`)."""
        return self._run(captures.screenshot_request_call(capture))

    def wait_for_screenshot(
        self,
        capture: CaptureRef,
        *,
        timeout: float = 300.0,
        poll_interval: float = 1.0,
        max_poll_interval: float = 10.0,
    ) -> Screenshot:
        """A background capture's screenshot once it is done; raises its
        :class:`CaptureFailedError` when it failed, :class:`CaptureTimeoutError` when it is
        still pending after ``timeout`` seconds. Polls as :meth:`wait_for_job` does."""
        polling = Polling(timeout, poll_interval, max_poll_interval)
        while True:
            status = self.screenshot_request(capture)
            shot = captures.ended(status, timeout, polling.over())
            if shot is not None:
                return shot
            time.sleep(polling.next_pause())

    def download(self, screenshot: Screenshot | str) -> bytes:
        """The image behind a screenshot's link (the link needs no key)."""
        return self._run(_core.download_call(screenshot))

    def signing_secret(self) -> SigningSecret:
        """The key's prefix and signing secret, for :func:`pagecast_client.sign_screenshot_url`."""
        return self._run(_core.signing_secret_call())

    def oembed(
        self, url: str, *, version: Version = "3.0", **params: Unpack[OembedParams]
    ) -> Embed:
        """An embed: the provider's own, a discovered one, or a hosted card."""
        return self._run(_core.oembed_call(url, version, params))

    def list_frames(self, **params: Unpack[FrameListParams]) -> FramePage:
        """One page of the organization's hosted frames, newest first."""
        return self._run(_core.list_frames_call(params))

    def iter_frames(self, *, limit: int | None = None) -> Iterator[Frame]:
        """Every hosted frame, page after page."""
        cursor: str | None = None
        while True:
            page = self.list_frames(**_core.page_of(limit, cursor))
            yield from page.frames
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def get_frame(self, embed_id: str) -> Frame:
        return self._run(_core.get_frame_call(embed_id))

    def refresh_frame(self, embed_id: str) -> Frame:
        """Read the page again and rebuild the card."""
        return self._run(_core.refresh_frame_call(embed_id))

    def delete_frame(self, embed_id: str) -> None:
        self._run(_core.delete_frame_call(embed_id))

    def map(self, url: str, **params: Unpack[MapParams]) -> MapResult:
        """The URLs of ``url``'s site, from its sitemaps and the start page's links, at once."""
        return self._run(_core.map_call(url, params))

    def batch(self, urls: str | Sequence[str], **params: Unpack[BatchParams]) -> JobAccepted:
        """Start a job that makes up to 1,000 pages Markdown with one set of ``options``."""
        return self._run(_core.batch_call(urls, params))

    def crawl(self, url: str, **params: Unpack[CrawlParams]) -> JobAccepted:
        """Start a job that crawls a site from ``url``, breadth first, within its scope and
        robots.txt, and makes each page Markdown."""
        return self._run(_core.crawl_call(url, params))

    def get_job(self, job: JobRef, **params: Unpack[JobResultsParams]) -> Job:
        """A job's status, progress and credits, and its results after ``cursor`` (at most
        ``limit``; ``limit=0`` for the status alone)."""
        return self._run(_core.get_job_call(_core.job_id_of(job), params))

    def iter_job_results(
        self, job: JobRef, *, cursor: str | None = None, limit: int | None = None
    ) -> Iterator[JobResult]:
        """Every result the job has so far, from ``cursor`` on, ``limit`` per request (all of
        them once :meth:`wait_for_job` has returned)."""
        while True:
            page = self.get_job(job, **_core.results_page(cursor, limit))
            yield from page.results
            if not page.has_more or page.next_cursor == cursor:
                return
            cursor = page.next_cursor

    def cancel_job(self, job: JobRef) -> Job:
        """Cancel a job: its queued pages are skipped, pages under way finish. Answers the job
        as it now stands (or as it ended, when it had)."""
        return self._run(_core.cancel_job_call(_core.job_id_of(job)))

    def wait_for_job(
        self,
        job: JobRef,
        *,
        timeout: float = 600.0,
        poll_interval: float = 1.0,
        max_poll_interval: float = 10.0,
        on_progress: Callable[[Job], object] | None = None,
    ) -> Job:
        """The job once it has ended and the pages it had under way are recorded (its status
        alone; read its results with :meth:`iter_job_results`). Polls after ``poll_interval``
        seconds, each pause half as long again up to ``max_poll_interval``; raises
        :class:`JobTimeoutError` when it has not ended after ``timeout`` seconds (an ended job
        whose last pages are still under way then is answered as it stands). ``on_progress``
        is called with each status read (the async client awaits what it returns)."""
        polling = Polling(timeout, poll_interval, max_poll_interval)
        while True:
            status = self.get_job(job, limit=0)
            if on_progress is not None:
                on_progress(status)
            over = polling.over()
            if status.settled or (status.ended and over):
                return status
            if over:
                raise _core.job_timeout(status, timeout)
            time.sleep(polling.next_pause())

    def openapi(self) -> dict[str, Any]:
        """The server's ``/openapi.json``."""
        response = self._send(Call("GET", "/openapi.json", _core.check))
        return dict(_core.check(response).json())

    def _frames_url(self) -> str:
        if self.config.frames_url is None:
            self.config.frames_url = _core.frames_host_from(self.openapi())
        return self.config.frames_url

    def _send(self, call: Call[Any]) -> httpx.Response:
        frames = self._frames_url() if call.host == "frames" else None
        url = self._url(call, frames)
        try:
            return self._http.request(**self._request(call, url))
        except httpx.HTTPError as exc:
            raise _core.transport_error(exc, url) from exc

    def _run(self, call: Call[T]) -> T:
        attempt = 0
        while True:
            response = self._send(call)
            wait = _core.wait_before_retry(response, attempt, self.config)
            if wait is None:
                return call.parse(_core.check(response))
            attempt += 1
            time.sleep(wait)
