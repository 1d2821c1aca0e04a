"""The asyncio Pagecast client (:class:`AsyncPagecast`): the methods of
:class:`~pagecast_client.client.Pagecast`, awaited."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable, Sequence
from types import TracebackType
from typing import Any, TypeVar, Unpack

import httpx

from pagecast_client import _core, captures
from pagecast_client._core import Call
from pagecast_client.captures import CaptureAccepted, CaptureRef, CaptureStatus
from pagecast_client.client import JobRef, Version, _Settings
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


class AsyncPagecast(_Settings[httpx.AsyncClient]):
    """The asyncio Pagecast client: the same methods as :class:`Pagecast`, awaited.

    >>> async with AsyncPagecast() as pagecast:  # doctest: +SKIP
    ...     page = await pagecast.markdown("https://example.com/", query="pricing")
    """

    _http_class = httpx.AsyncClient

    async def __aenter__(self) -> AsyncPagecast:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def markdown(self, url: str, **params: Unpack[MarkdownParams]) -> MarkdownResult:
        """The page as Markdown (see :meth:`Pagecast.markdown`)."""
        return await self._run(_core.markdown_call(url, params))

    async def screenshot(self, url: str, **params: Unpack[ScreenshotParams]) -> Screenshot:
        """A capture (see :meth:`Pagecast.screenshot`)."""
        return await self._run(_core.screenshot_call(url, params))

    async def screenshot_async(
        self, url: str, *, webhook_url: str | None = None, **params: Unpack[ScreenshotParams]
    ) -> CaptureAccepted:
        """A background capture (see :meth:`Pagecast.screenshot_async`)."""
        return await self._run(captures.screenshot_async_call(url, webhook_url, params))

    async def screenshot_request(self, capture: CaptureRef) -> CaptureStatus:
        return await self._run(captures.screenshot_request_call(capture))

    async def wait_for_screenshot(
        self,
        capture: CaptureRef,
        *,
        timeout: float = 300.0,  # noqa: ASYNC109 (as wait_for_job: the error keeps the status)
        poll_interval: float = 1.0,
        max_poll_interval: float = 10.0,
    ) -> Screenshot:
        polling = Polling(timeout, poll_interval, max_poll_interval)
        while True:
            status = await self.screenshot_request(capture)
            shot = captures.ended(status, timeout, polling.over())
            if shot is not None:
                return shot
            await asyncio.sleep(polling.next_pause())

    async def download(self, screenshot: Screenshot | str) -> bytes:
        return await self._run(_core.download_call(screenshot))

    async def signing_secret(self) -> SigningSecret:
        """The key's signing secret (see :meth:`Pagecast.signing_secret`)."""
        return await self._run(_core.signing_secret_call())

    async def oembed(
        self, url: str, *, version: Version = "3.0", **params: Unpack[OembedParams]
    ) -> Embed:
        return await self._run(_core.oembed_call(url, version, params))

    async def list_frames(self, **params: Unpack[FrameListParams]) -> FramePage:
        return await self._run(_core.list_frames_call(params))

    async def iter_frames(self, *, limit: int | None = None) -> AsyncIterator[Frame]:
        cursor: str | None = None
        while True:
            page = await self.list_frames(**_core.page_of(limit, cursor))
            for frame in page.frames:
                yield frame
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    async def get_frame(self, embed_id: str) -> Frame:
        return await self._run(_core.get_frame_call(embed_id))

    async def refresh_frame(self, embed_id: str) -> Frame:
        return await self._run(_core.refresh_frame_call(embed_id))

    async def delete_frame(self, embed_id: str) -> None:
        await self._run(_core.delete_frame_call(embed_id))

    async def map(self, url: str, **params: Unpack[MapParams]) -> MapResult:
        return await self._run(_core.map_call(url, params))

    async def batch(self, urls: str | Sequence[str], **params: Unpack[BatchParams]) -> JobAccepted:
        return await self._run(_core.batch_call(urls, params))

    async def crawl(self, url: str, **params: Unpack[CrawlParams]) -> JobAccepted:
        return await self._run(_core.crawl_call(url, params))

    async def get_job(self, job: JobRef, **params: Unpack[JobResultsParams]) -> Job:
        return await self._run(_core.get_job_call(_core.job_id_of(job), params))

    async def iter_job_results(
        self, job: JobRef, *, cursor: str | None = None, limit: int | None = None
    ) -> AsyncIterator[JobResult]:
        while True:
            page = await self.get_job(job, **_core.results_page(cursor, limit))
            for result in page.results:
                yield result
            if not page.has_more or page.next_cursor == cursor:
                return
            cursor = page.next_cursor

    async def cancel_job(self, job: JobRef) -> Job:
        return await self._run(_core.cancel_job_call(_core.job_id_of(job)))

    async def wait_for_job(
        self,
        job: JobRef,
        *,
        # The sync client's keyword: on timeout the error carries the last status read, which
        # a caller's asyncio.timeout would lose.
        timeout: float = 600.0,  # noqa: ASYNC109
        poll_interval: float = 1.0,
        max_poll_interval: float = 10.0,
        on_progress: Callable[[Job], object] | None = None,
    ) -> Job:
        polling = Polling(timeout, poll_interval, max_poll_interval)
        while True:
            status = await self.get_job(job, limit=0)
            if on_progress is not None:
                told = on_progress(status)
                if inspect.isawaitable(told):
                    await told
            over = polling.over()
            if status.settled or (status.ended and over):
                return status
            if over:
                raise _core.job_timeout(status, timeout)
            await asyncio.sleep(polling.next_pause())

    async def openapi(self) -> dict[str, Any]:
        response = await self._send(Call("GET", "/openapi.json", _core.check))
        return dict(_core.check(response).json())

    async def _frames_url(self) -> str:
        if self.config.frames_url is None:
            self.config.frames_url = _core.frames_host_from(await self.openapi())
        return self.config.frames_url

    async def _send(self, call: Call[Any]) -> httpx.Response:
        frames = await self._frames_url() if call.host == "frames" else None
        url = self._url(call, frames)
        try:
            return await self._http.request(**self._request(call, url))
        except httpx.HTTPError as exc:
            raise _core.transport_error(exc, url) from exc

    async def _run(self, call: Call[T]) -> T:
        attempt = 0
        while True:
            response = await self._send(call)
            wait = _core.wait_before_retry(response, attempt, self.config)
            if wait is None:
                return call.parse(_core.check(response))
            attempt += 1
            await asyncio.sleep(wait)
