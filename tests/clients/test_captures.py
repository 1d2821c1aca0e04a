"""Background screenshots through the Python client against a real Pagecast: a capture
accepted at once, its status read until it is done, its image downloaded, a failing target told
as the synchronous request's error, and the refusals (a webhook that is not http(s), an image
answer, a capture that does not exist)."""

from __future__ import annotations

import asyncio
import time

import pytest

from pagecast_client import (
    AsyncPagecast,
    CaptureAccepted,
    CaptureFailedError,
    CaptureStatus,
    InvalidRequestError,
    NotFoundError,
    Pagecast,
    PagecastError,
    Screenshot,
)
from tests.clients.pagecast_site import Site
from tests.origin import closed_port


@pytest.fixture(scope="module")
def pagecast(site: Site) -> Pagecast:
    with Pagecast(api_key=site.key, base_url=site.base_url) as client:
        yield client


def read_until_ended(pagecast: Pagecast, accepted: CaptureAccepted) -> CaptureStatus:
    """The capture's status, read every 0.2 s until it has ended (at most 60 s)."""
    deadline = time.monotonic() + 60
    while True:
        status = pagecast.screenshot_request(accepted)
        if status.ended or time.monotonic() > deadline:
            return status
        assert status.status == "pending" and status.result is None and status.error is None
        time.sleep(0.2)


def test_a_background_capture_is_read_until_done_and_downloaded(
    pagecast: Pagecast, site: Site
) -> None:
    accepted = pagecast.screenshot_async(f"{site.page}?background=1", format="png", dimensions="sm")
    assert isinstance(accepted, CaptureAccepted) and accepted.status == "pending"
    assert accepted.url == f"{site.base_url}/api/1.1/screenshot/requests/{accepted.id}"
    assert accepted.webhook_secret is None and len(accepted.request_id) == 32
    status = read_until_ended(pagecast, accepted)
    assert status.status == "done" and status.id == accepted.id and status.error is None
    assert status.created_at and status.ended_at and status.raw["result"]
    shot = status.result
    assert isinstance(shot, Screenshot) and (shot.width, shot.height) == (1024, 768)
    assert shot.response_code == 200 and shot.screenshot_url and shot.expires_at
    assert pagecast.download(shot)[:8] == b"\x89PNG\r\n\x1a\n"
    # Waiting on a capture that is done answers its screenshot at once, by id as by answer.
    assert pagecast.wait_for_screenshot(accepted.id).screenshot_url == shot.screenshot_url
    assert pagecast.wait_for_screenshot(status).raw == shot.raw


def test_a_failing_target_is_the_synchronous_request_s_error(pagecast: Pagecast) -> None:
    unreachable = f"http://127.0.0.1:{closed_port()}/"
    with pytest.raises(PagecastError) as synchronous:
        pagecast.screenshot(unreachable)
    accepted = pagecast.screenshot_async(unreachable)
    with pytest.raises(CaptureFailedError) as failed:
        pagecast.wait_for_screenshot(accepted, timeout=60, poll_interval=0.2)
    error = failed.value
    assert error.capture_id == accepted.id and error.status is None
    assert (error.code, error.stage) == (synchronous.value.code, synchronous.value.stage)
    assert error.code == "target_unreachable" and error.message
    assert error.request_id == accepted.request_id  # the id of the request that asked
    status = pagecast.screenshot_request(accepted)
    assert status.status == "failed" and status.result is None
    assert status.error is not None and status.error.code == error.code


def test_async_client_waits_for_the_screenshot(site: Site) -> None:
    async def capture() -> tuple[Screenshot, bytes]:
        async with AsyncPagecast(api_key=site.key, base_url=site.base_url) as pagecast:
            accepted = await pagecast.screenshot_async(f"{site.page}?background=2", dimensions="xs")
            shot = await pagecast.wait_for_screenshot(accepted, timeout=60, poll_interval=0.2)
            status = await pagecast.screenshot_request(accepted)
            assert status.status == "done" and status.result is not None
            assert status.result.screenshot_url == shot.screenshot_url
            return shot, await pagecast.download(shot)

    shot, image = asyncio.run(capture())
    assert shot.response_code == 200 and shot.width == 375
    assert image[:3] == b"\xff\xd8\xff"  # JPEG, the default format


def test_refusals(pagecast: Pagecast, site: Site) -> None:
    # Checked before the 202: a webhook that is not http(s), and an image answer.
    with pytest.raises(InvalidRequestError) as refused:
        pagecast.screenshot_async(site.page, webhook_url="ftp://example.com/hook")
    assert refused.value.status == 400 and "webhook_url" in str(refused.value.details)
    with pytest.raises(InvalidRequestError) as refused:
        pagecast.screenshot_async(site.page, response_type="image")
    assert "response_type" in str(refused.value.details)
    with pytest.raises(NotFoundError):
        pagecast.screenshot_request("0123456789abcdef")
    # The plain screenshot() takes neither async nor webhook_url.
    with pytest.raises(TypeError, match="webhook_url"):
        pagecast.screenshot(site.page, webhook_url="https://example.com/")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="poll_interval"):
        pagecast.wait_for_screenshot("0123456789abcdef", poll_interval=0)
