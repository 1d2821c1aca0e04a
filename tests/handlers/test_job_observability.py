"""What an operator sees of jobs, over HTTP against the API and the metrics listener, with the
in-process runner, a local origin and a local webhook receiver:

- log lines of a job's start, its failed pages (URL without its query, the failure's kind), each
  webhook attempt and the job's end (status, pages done and failed, duration), and never a
  secret: not the webhook's secret, not a token in the webhook URL or in a page URL;
- the metrics scraped from the listener: jobs started and ended, pages done and failed, webhook
  deliveries by outcome, jobs active and pages queued in the database, lease takeovers;
- a job's end event reaches the receiver after every page event of the job: behind a slow
  page-event delivery, and after a page still in flight when the job was cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import peewee
import pytest
import tornado.web
from prometheus_client.parser import text_string_to_metric_families
from tornado.httpclient import AsyncHTTPClient

from app.config import Settings
from app.services import Services
from app.web import make_metrics_app
from services.webhooks import EVENT_ID_HEADER
from store import jobs as job_rows
from store.job_types import NewPage
from store.models import Organization
from tests.conftest import make_settings, serve_with_jobs
from tests.origin import Origin, serve

ENDED = ("completed", "cancelled", "failed", "quota_exceeded", "failure_limit")
PAGE_TOKEN = "page-token-4f1c"
HOOK_TOKEN = "hook-token-9a2e"
SECRET = "webhook-secret-0123456789abcdef"


@pytest.fixture
def settings(tmp_path: Path, request: pytest.FixtureRequest) -> Settings:
    settings = make_settings(tmp_path)
    settings.jobs.poll_interval = 0.05
    settings.cache.enabled = False
    settings.webhooks.backoff = 0.05
    if request.node.get_closest_marker("idle_runner") is not None:
        settings.jobs.workers = 0  # this process claims nothing: the pages stay queued
    return settings


@pytest.fixture
def app(io_loop: Any, services: Services) -> Iterator[tornado.web.Application]:
    yield from serve_with_jobs(io_loop, services)


@pytest.fixture
def metrics(io_loop: Any, services: Services) -> Iterator[Origin]:
    """The metrics listener of the process, on a port of its own."""
    origin = serve(make_metrics_app(services))
    yield origin
    io_loop.run_sync(origin.close)


@pytest.fixture
def key(services: Services) -> str:
    return services.store.create_key("acme", "pro").key


class _Page(tornado.web.RequestHandler):
    def initialize(self, release: asyncio.Event) -> None:
        self.release = release

    async def get(self, name: str) -> None:
        if name == "missing":
            self.set_status(404)
        if name == "held":  # answered once the test lets it go (4 s at most)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(4.0):
                    await self.release.wait()
        self.write(f"<html><head><title>{name}</title></head><body><article><h1>{name}</h1>")
        self.write(f"<p>The page {name} has a paragraph of text to convert.</p></article></body>")


@pytest.fixture
def release() -> asyncio.Event:
    """Set to let the origin answer ``/p/held``."""
    return asyncio.Event()


@pytest.fixture
def origin(io_loop: Any, release: asyncio.Event) -> Iterator[Origin]:
    """Pages ``/p/<name>``: ``missing`` answers 404, ``held`` once ``release`` is set."""
    site = serve(tornado.web.Application([(r"/p/(.*)", _Page, {"release": release})]))
    yield site
    io_loop.run_sync(site.close)


@dataclass
class Hook:
    """A webhook receiver: each request's event and when it arrived and was answered; page
    events are answered after ``page_delay`` seconds, and the first attempt at the events in
    ``refuse_once`` with a 503."""

    origin: Origin | None = None
    page_delay: float = 0.0
    refuse_once: set[str] = field(default_factory=set)
    calls: list[tuple[dict[str, Any], float, float, int]] = field(default_factory=list)

    def delivered(self) -> list[tuple[dict[str, Any], float, float]]:
        """The events answered 2xx: the event, when it arrived, when it was answered."""
        return [(event, came, went) for event, came, went, status in self.calls if status < 300]

    def url(self) -> str:
        assert self.origin is not None
        return self.origin.url(f"/hook?token={HOOK_TOKEN}")


@pytest.fixture
def hook(io_loop: Any) -> Iterator[Hook]:
    received = Hook()

    class Receiver(tornado.web.RequestHandler):
        async def post(self) -> None:
            came = time.monotonic()
            event = json.loads(self.request.body)
            event_id = self.request.headers[EVENT_ID_HEADER]
            status = 200
            if event["event"] == "page":
                await asyncio.sleep(received.page_delay)
            if event_id in received.refuse_once:
                received.refuse_once.discard(event_id)
                status = 503
            received.calls.append((event, came, time.monotonic(), status))
            self.set_status(status)

    received.origin = serve(tornado.web.Application([(r"/hook", Receiver)]))
    yield received
    io_loop.run_sync(received.origin.close)


async def post(client: AsyncHTTPClient, base_url: str, key: str, body: Any) -> dict[str, Any]:
    response = await client.fetch(
        f"{base_url}/api/3.0/batch",
        method="POST",
        body=json.dumps(body),
        headers={"X-API-Key": key, "Content-Type": "application/json"},
        raise_error=False,
    )
    assert response.code == 202, response.body
    answer: dict[str, Any] = json.loads(response.body)
    return answer


async def status(client: AsyncHTTPClient, base_url: str, key: str, job_id: str) -> str:
    response = await client.fetch(
        f"{base_url}/api/3.0/jobs/{job_id}?limit=0", headers={"X-API-Key": key}
    )
    return str(json.loads(response.body)["status"])


async def until(check: Any, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not await check():
        assert time.monotonic() < deadline, "not within the time"
        await asyncio.sleep(0.05)


async def scrape(
    client: AsyncHTTPClient, metrics: Origin
) -> dict[tuple[str, tuple[Any, ...]], float]:
    """Every sample the metrics listener answers, by name and labels."""
    response = await client.fetch(metrics.url("/metrics"))
    samples = {}
    for family in text_string_to_metric_families(response.body.decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: dict[tuple[str, tuple[Any, ...]], float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def changes(
    before: dict[tuple[str, tuple[Any, ...]], float],
    after: dict[tuple[str, tuple[Any, ...]], float],
    name: str,
    **labels: str,
) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def job_lines(caplog: pytest.LogCaptureFixture, job_id: str) -> list[str]:
    return [record.getMessage() for record in caplog.records if job_id in record.getMessage()]


@pytest.mark.gen_test(timeout=60)
async def test_a_job_is_logged_and_counted_from_start_to_end_without_secrets(
    http_client: AsyncHTTPClient,
    base_url: str,
    origin: Origin,
    hook: Hook,
    metrics: Origin,
    key: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    before = await scrape(http_client, metrics)
    urls = [origin.url(f"/p/a?token={PAGE_TOKEN}"), origin.url("/p/b"), origin.url("/p/c")]
    urls.append(origin.url(f"/p/missing?token={PAGE_TOKEN}"))
    body = {"urls": urls, "webhook_url": hook.url(), "webhook_secret": SECRET}
    accepted = await post(http_client, base_url, key, {**body, "options": {"retry": False}})
    job_id = accepted["id"]
    hook.refuse_once.add(f"{job_id}-1")  # the first page event is answered 503 once
    await until(lambda: _ended(http_client, base_url, key, job_id))
    await until(lambda: _heard(hook, 5))
    await asyncio.sleep(0.3)  # the last delivery's log line and count follow its answer
    after = await scrape(http_client, metrics)

    lines = job_lines(caplog, job_id)
    assert f"jobs: batch job {job_id} of acme started" in lines
    [end] = [line for line in lines if " ended " in line]
    assert end.startswith(f"jobs: batch job {job_id} of acme ended completed: 3 page(s) done, 1")
    assert end.endswith(" s") and float(end.split(" in ")[1][:-2]) >= 0
    [failed] = [line for line in lines if line.startswith("jobs: page ")]
    assert failed == (
        f"jobs: page {origin.url('/p/missing')}?... of job {job_id} failed: http_status"
    ), failed
    delivered = [line for line in lines if " delivered: " in line]
    assert len(delivered) == 5  # four pages and the end
    assert f"webhook job event {job_id}-end delivered: attempt 1, status 200" in delivered
    assert f"webhook page event {job_id}-1 delivered: attempt 2, status 200" in delivered
    assert (
        f"webhook page event {job_id}-1: attempt 1 failed (status 503); tried again later" in lines
    )
    # Pagecast's own lines (the test's servers log their requests as they were made) name
    # neither the webhook's token nor its secret, and the job's lines no page's token.
    own = [record for record in caplog.records if not record.name.startswith("tornado.")]
    assert not [
        line
        for line in (record.getMessage() for record in own)
        if HOOK_TOKEN in line or SECRET in line
    ]
    assert not [
        record.getMessage()
        for record in own
        if record.name.startswith("services.") and PAGE_TOKEN in record.getMessage()
    ]
    assert changes(before, after, "pagecast_jobs_started_total", kind="batch") == 1
    assert (
        changes(before, after, "pagecast_jobs_ended_total", kind="batch", status="completed") == 1
    )
    assert changes(before, after, "pagecast_job_pages_total", kind="batch", outcome="done") == 3
    assert changes(before, after, "pagecast_job_pages_total", kind="batch", outcome="failed") == 1
    assert changes(before, after, "pagecast_webhook_deliveries_total", outcome="delivered") == 5
    assert changes(before, after, "pagecast_webhook_deliveries_total", outcome="failed") == 0
    assert changes(before, after, "pagecast_webhook_attempts_total") == 6
    assert value(after, "pagecast_job_pages_in_flight") == 0
    # No label names a URL, a job or an organization.
    for name, labels in after:
        if name.startswith(("pagecast_job", "pagecast_webhook")):
            assert {label for label, _ in labels} <= {
                "kind",
                "status",
                "outcome",
                "state",
                "result",
            }


async def _ended(client: AsyncHTTPClient, base_url: str, key: str, job_id: str) -> bool:
    return await status(client, base_url, key, job_id) in ENDED


async def _heard(hook: Hook, count: int) -> bool:
    return len(hook.delivered()) >= count


@pytest.mark.idle_runner
@pytest.mark.gen_test(timeout=30)
async def test_queued_jobs_and_pages_are_read_into_the_gauges(
    http_client: AsyncHTTPClient, base_url: str, origin: Origin, metrics: Origin, key: str
) -> None:
    before = await scrape(http_client, metrics)
    assert value(before, "pagecast_job_pages_queued") == 0
    await post(http_client, base_url, key, {"urls": [origin.url(f"/p/{n}") for n in range(7)]})
    await post(http_client, base_url, key, {"urls": [origin.url("/p/x")]})

    async def counted() -> bool:
        samples = await scrape(http_client, metrics)
        return value(samples, "pagecast_job_pages_queued") == 8

    await until(counted, 10)
    samples = await scrape(http_client, metrics)
    assert value(samples, "pagecast_jobs_active", state="queued") == 2
    assert value(samples, "pagecast_jobs_active", state="running") == 0


async def _org_id(services: Services, org: str) -> int:
    def read(db: peewee.Database) -> int:
        return int(Organization.select(Organization.id).where(Organization.name == org).scalar(db))

    return await services.store.run(read, "test")


async def _dead_worker_job(services: Services, origin: Origin, hook: Hook, claims: int) -> str:
    """A job of one page created and claimed ``claims`` times by a worker that died (its lease
    expired at once), in one unit of the store's single writer: the runner sees the page only
    once it was left so."""
    org_id = await _org_id(services, "acme")
    job_id = job_rows.new_job_id()
    page = NewPage("k1", origin.url("/p/orphan"), f"127.0.0.1:{origin.port}")

    def left_by_a_dead_worker(db: peewee.Database) -> None:
        job_rows.create_job(
            db,
            job_id=job_id,
            org_id=org_id,
            plan="pro",
            kind="batch",
            options={"markdown": {}, "max_pages": 1},
            pages=[page],
            webhook_url=hook.url(),
            webhook_secret=SECRET,
        )
        for _ in range(claims):
            job_rows.claim_page(db, job_id=job_id, owner="dead", lease_seconds=-1)

    await services.store.run(left_by_a_dead_worker, "test", write=True)
    assert services.runner is not None
    services.runner.wake()
    return job_id


@pytest.mark.gen_test(timeout=60)
async def test_a_page_left_by_a_dead_worker_is_taken_over_or_abandoned(
    http_client: AsyncHTTPClient,
    base_url: str,
    services: Services,
    origin: Origin,
    hook: Hook,
    metrics: Origin,
    key: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    before = await scrape(http_client, metrics)
    taken = await _dead_worker_job(services, origin, hook, claims=1)
    await until(lambda: _ended(http_client, base_url, key, taken))
    assert await status(http_client, base_url, key, taken) == "completed"
    assert any(
        line.startswith("jobs: page ") and "taken over after its lease expired (attempt 2)" in line
        for line in job_lines(caplog, taken)
    )
    # Claimed by dead workers as often as a page may be: failed as abandoned, and the job, with
    # nothing done, failed; its page and end events are sent all the same.
    abandoned = await _dead_worker_job(services, origin, hook, claims=3)
    await until(lambda: _ended(http_client, base_url, key, abandoned))
    assert await status(http_client, base_url, key, abandoned) == "failed"
    await until(lambda: _heard(hook, 4))
    await asyncio.sleep(0.3)
    after = await scrape(http_client, metrics)
    assert changes(before, after, "pagecast_job_lease_takeovers_total", result="retried") == 1
    assert changes(before, after, "pagecast_job_lease_takeovers_total", result="abandoned") == 1
    assert changes(before, after, "pagecast_jobs_ended_total", kind="batch", status="failed") == 1
    assert changes(before, after, "pagecast_job_pages_total", kind="batch", outcome="failed") == 1
    lines = job_lines(caplog, abandoned)
    assert any("abandoned: its lease expired too often" in line for line in lines)
    assert any(line.endswith("failed: abandoned") for line in lines)
    events = [
        (event["event"], event.get("status"))
        for event, _, _ in hook.delivered()
        if event["job_id"] == abandoned
    ]
    assert events == [("page", "failed"), ("job", "failed")]


@pytest.mark.gen_test(timeout=60)
async def test_the_end_event_waits_for_a_slow_page_event_delivery(
    http_client: AsyncHTTPClient, base_url: str, origin: Origin, hook: Hook, key: str
) -> None:
    hook.page_delay = 1.0  # each page event takes a second to be answered
    body = {
        "urls": [origin.url(f"/p/{n}") for n in range(3)],
        "webhook_url": hook.url(),
        "webhook_secret": SECRET,
    }
    accepted = await post(http_client, base_url, key, body)
    job_id = accepted["id"]
    hook.refuse_once.add(f"{job_id}-2")  # and one of them is refused once: retried
    await until(lambda: _heard(hook, 4))
    await asyncio.sleep(0.5)  # nothing more comes
    delivered = hook.delivered()
    assert [event["event"] for event, _, _ in delivered].count("job") == 1
    end_came = next(came for event, came, _ in delivered if event["event"] == "job")
    pages = [went for event, _, went in delivered if event["event"] == "page"]
    assert len(pages) == 3
    assert all(went <= end_came for went in pages)
    # The end event arrived after every page event was answered, not merely sent.
    assert all(came < end_came for event, came, _, _ in hook.calls if event["event"] == "page")


@pytest.mark.gen_test(timeout=60)
async def test_a_cancelled_jobs_end_event_follows_the_page_in_flight(
    http_client: AsyncHTTPClient,
    base_url: str,
    origin: Origin,
    release: asyncio.Event,
    hook: Hook,
    key: str,
) -> None:
    body = {
        "urls": [origin.url("/p/fast"), origin.url("/p/held")],
        "webhook_url": hook.url(),
        "webhook_secret": SECRET,
    }
    accepted = await post(http_client, base_url, key, body)
    job_id = accepted["id"]
    await until(lambda: _heard(hook, 1))  # the fast page's event: the held page is in flight
    response = await http_client.fetch(
        f"{base_url}/api/3.0/jobs/{job_id}",
        method="DELETE",
        headers={"X-API-Key": key},
        raise_error=False,
    )
    assert response.code in (200, 202), response.body
    release.set()  # the page in flight is answered, converted and recorded after the end
    await until(lambda: _heard(hook, 3))
    await asyncio.sleep(0.5)
    events = [(event["event"], event.get("status")) for event, _, _ in hook.delivered()]
    assert events == [("page", "done"), ("page", "done"), ("job", "cancelled")]
