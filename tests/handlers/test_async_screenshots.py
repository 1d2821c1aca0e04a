"""Screenshots captured in the background (``async=true``), end to end: a real server with the job
runner and the webhook outbox running, real Chromium, a SQLite and a Postgres store, an origin
whose page is held until the test lets it answer, and a local webhook receiver that checks
signatures."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import tornado.web
from PIL import Image
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from app.config import Settings
from app.services import Services
from browser.farm import Farm
from services.webhooks import EVENT_ID_HEADER, SIGNATURE_HEADER, verify
from tests.conftest import make_settings, running_farm, serve_with_jobs
from tests.origin import Origin, closed_port, serve

TALL = (
    "<html><body style='margin:0'><div style='height:3000px;background:#0a0'>tall</div>"
    "</body></html>"
)
HELD_SECONDS = 20.0
"""The longest a held page waits for the test to let it answer."""


class _Page(tornado.web.RequestHandler):
    """``/held/<name>``: answers once the test sets ``release`` (a slow origin); ``/tall`` at
    once."""

    def initialize(self, release: asyncio.Event) -> None:
        self.release = release

    async def get(self, name: str) -> None:
        if name.startswith("held/"):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.release.wait(), HELD_SECONDS)
        self.finish(TALL)


@dataclass
class Receiver:
    """What the webhook receiver heard: each POST's raw body and headers."""

    origin: Origin | None = None
    calls: list[tuple[bytes, dict[str, str]]] = field(default_factory=list)

    def url(self) -> str:
        assert self.origin is not None
        return self.origin.url("/hook?token=abc")

    def events(self) -> list[tuple[dict[str, Any], bytes, dict[str, str]]]:
        return [(json.loads(body), body, headers) for body, headers in self.calls]


@pytest.fixture
def settings(tmp_path: Path, base_url: str, database_url: str) -> Settings:
    settings = make_settings(tmp_path)
    settings.store.database_url = database_url  # each test on SQLite and on Postgres
    settings.server.base_url = base_url  # links point at the test server
    settings.farm.warm_contexts = 1
    settings.async_captures.max_pending = 2
    settings.webhooks.backoff = 0.05
    return settings


@pytest.fixture
def farm(io_loop: Any, settings: Settings) -> Iterator[Farm]:
    with running_farm(io_loop, settings) as started:
        yield started


@pytest.fixture
def app(io_loop: Any, services: Services) -> Iterator[tornado.web.Application]:
    yield from serve_with_jobs(io_loop, services)


@pytest.fixture
def key(services: Services) -> str:
    return services.store.create_key("shots", "pro").key


@pytest.fixture
def other_key(services: Services) -> str:
    return services.store.create_key("others", "pro").key


@pytest.fixture
def release() -> asyncio.Event:
    return asyncio.Event()


@pytest.fixture
def origin(io_loop: Any, release: asyncio.Event) -> Iterator[Origin]:
    site = serve(tornado.web.Application([(r"/(.*)", _Page, {"release": release})]))
    yield site
    release.set()
    io_loop.run_sync(site.close)


@pytest.fixture
def hook(io_loop: Any) -> Iterator[Receiver]:
    heard = Receiver()

    class Hook(tornado.web.RequestHandler):
        def post(self) -> None:
            heard.calls.append((self.request.body, dict(self.request.headers)))
            self.set_status(204)

    heard.origin = serve(tornado.web.Application([(r"/hook", Hook)]))
    yield heard
    io_loop.run_sync(heard.origin.close)


async def shot(
    client: AsyncHTTPClient, base_url: str, target: str, key: str, **params: str
) -> tuple[HTTPResponse, Any]:
    query = "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items())
    url = f"{base_url}/api/1.1/screenshot/{quote(target, safe='')}?app_id={key}&{query}"
    response = await client.fetch(url, raise_error=False, request_timeout=60)
    return response, json.loads(response.body)


async def status(client: AsyncHTTPClient, url: str, key: str) -> tuple[int, dict[str, Any]]:
    response = await client.fetch(url, headers={"X-API-Key": key}, raise_error=False)
    return response.code, json.loads(response.body)


async def until(check: Any, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not await check():
        assert time.monotonic() < deadline, "not within the time"
        await asyncio.sleep(0.1)


async def heard(hook: Receiver, count: int = 1) -> None:
    async def arrived() -> bool:
        return len(hook.calls) >= count

    await until(arrived)


async def credits(services: Services, org: str) -> int:
    return await services.store.month_credits(org)


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_accepted_at_once_then_signed_webhook_and_status_done(
    http_client, base_url, services, origin, hook, release, key
) -> None:
    before = await credits(services, "shots")
    started = time.monotonic()
    response, body = await shot(
        http_client,
        base_url,
        origin.url("/held/one"),
        key,
        full_page="true",
        format="png",
        webhook_url=hook.url(),
        **{"async": "true"},
    )
    answered = time.monotonic() - started
    assert response.code == 202, body
    assert answered < 2.0  # the page is held for up to 20 s: the answer did not wait for it
    assert response.headers["X-BILLING-REQUESTS"] == "0"
    assert set(body) == {"id", "status", "url", "webhook_secret"}
    assert body["status"] == "pending"
    assert body["url"] == f"{base_url}/api/1.1/screenshot/requests/{body['id']}"

    code, state = await status(http_client, body["url"], key)
    assert code == 200 and state["status"] == "pending" and "result" not in state
    assert hook.calls == []

    release.set()
    await heard(hook)
    [(event, raw, headers)] = hook.events()
    assert verify(body["webhook_secret"], raw, headers[SIGNATURE_HEADER])
    assert not verify("another secret of sixteen+", raw, headers[SIGNATURE_HEADER])
    assert headers[EVENT_ID_HEADER] == event["event_id"]
    assert event["event"] == "screenshot" and event["id"] == body["id"]
    assert event["status"] == "done"
    result = event["result"]
    assert {"screenshotUrl", "dimensions", "requestInfo", "expiresAt", "cached"} <= set(result)
    assert result["cached"] is False and result["requestInfo"]["responseCode"] == 200

    image = await http_client.fetch(result["screenshotUrl"])
    picture = Image.open(io.BytesIO(image.body))
    assert picture.format == "PNG" and picture.height >= 3000  # the whole tall page
    assert (picture.width, picture.height) == (
        result["dimensions"]["width"],
        result["dimensions"]["height"],
    )

    code, state = await status(http_client, body["url"], key)
    assert code == 200 and state["status"] == "done"
    assert state["result"] == result and "endedAt" in state
    # Charged once, when the capture ended, what a synchronous capture costs.
    assert await credits(services, "shots") - before == services.settings.credits.screenshot


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_a_failing_target_is_told_as_the_synchronous_error(
    http_client, base_url, services, hook, key
) -> None:
    target = f"http://127.0.0.1:{closed_port()}/gone"
    sync, sync_error = await shot(http_client, base_url, target, key)
    assert sync.code == 502, sync_error
    before = await credits(services, "shots")

    response, body = await shot(
        http_client, base_url, target, key, webhook_url=hook.url(), **{"async": "true"}
    )
    assert response.code == 202, body
    await heard(hook)
    [(event, raw, headers)] = hook.events()
    assert verify(body["webhook_secret"], raw, headers[SIGNATURE_HEADER])
    assert event["status"] == "failed" and event["id"] == body["id"]
    assert event["success"] is False and "result" not in event
    assert event["error"] == sync_error["error"]  # code, message, stage, details
    assert event["request_id"] == response.headers["X-Request-Id"]

    code, state = await status(http_client, body["url"], key)
    assert code == 200 and state["status"] == "failed"
    assert state["error"] == sync_error["error"]
    assert await credits(services, "shots") == before  # a failed capture costs nothing


@pytest.mark.gen_test(timeout=60)
async def test_a_private_webhook_is_refused_as_a_batch_refuses_it(
    http_client, base_url, origin, key
) -> None:
    private = "http://10.0.0.1/hook"
    response, body = await shot(
        http_client, base_url, origin.url("/tall"), key, webhook_url=private, **{"async": "true"}
    )
    batch = await http_client.fetch(
        f"{base_url}/api/3.0/batch",
        method="POST",
        body=json.dumps({"urls": [origin.url("/tall")], "webhook_url": private}),
        headers={"X-API-Key": key, "Content-Type": "application/json"},
        raise_error=False,
    )
    refused = json.loads(batch.body)
    assert response.code == batch.code == 400, (body, refused)
    assert body["error"]["message"] == refused["error"]["message"]
    assert body["error"]["message"].startswith("webhook_url: ")

    response, body = await shot(
        http_client, base_url, origin.url("/tall"), key, webhook_url="ftp://x/", **{"async": "1"}
    )
    assert response.code == 400 and body["error"]["details"][0]["parameter"] == "webhook_url"


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_the_status_is_the_owning_organizations_only(
    http_client, base_url, origin, release, key, other_key
) -> None:
    response, body = await shot(http_client, base_url, origin.url("/held/x"), key, **{"async": "1"})
    assert response.code == 202 and "webhook_secret" not in body
    code, state = await status(http_client, body["url"], other_key)
    assert code == 404 and state["error"]["code"] == "not_found"
    code, state = await status(http_client, body["url"].replace(body["id"], "0" * 32), key)
    assert code == 404
    anonymous = await http_client.fetch(body["url"], raise_error=False)
    assert anonymous.code == 401

    release.set()

    async def done() -> bool:
        return (await status(http_client, body["url"], key))[1]["status"] == "done"

    await until(done)  # without a webhook, the status endpoint alone tells the end
    code, state = await status(http_client, body["url"], other_key)
    assert code == 404


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_pending_captures_are_bounded_per_organization(
    http_client, base_url, origin, release, key, other_key
) -> None:
    accepted = []
    for name in ("a", "b"):
        response, body = await shot(
            http_client, base_url, origin.url(f"/held/{name}"), key, **{"async": "true"}
        )
        assert response.code == 202, body
        accepted.append(body)
    response, body = await shot(
        http_client, base_url, origin.url("/held/c"), key, **{"async": "true"}
    )
    assert response.code == 429 and body["error"]["code"] == "rate_limited", body
    assert "2 background captures pending" in body["error"]["message"]
    assert int(response.headers["Retry-After"]) > 0
    assert response.headers["X-BILLING-REQUESTS"] == "0"
    # Another organization's bound is its own.
    response, other = await shot(
        http_client, base_url, origin.url("/held/d"), other_key, **{"async": "true"}
    )
    assert response.code == 202, other

    release.set()

    async def ended() -> bool:
        states = [await status(http_client, body["url"], key) for body in accepted]
        return all(state["status"] == "done" for _, state in states)

    await until(ended)
    response, body = await shot(
        http_client, base_url, origin.url("/held/e"), key, **{"async": "true"}
    )
    assert response.code == 202, body


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=90)
async def test_without_async_the_answer_is_the_synchronous_one(
    http_client, base_url, origin, hook, key
) -> None:
    response, body = await shot(
        http_client, base_url, origin.url("/tall"), key, webhook_url=hook.url()
    )
    assert response.code == 200, body
    assert "screenshotUrl" in body and "id" not in body
    assert "webhook_url ignored" in response.headers["X-Pagecast-Warnings"]
    response, body = await shot(
        http_client, base_url, origin.url("/tall"), key, **{"async": "false"}
    )
    assert response.code == 200 and "screenshotUrl" in body
    await asyncio.sleep(0.5)
    assert hook.calls == []
