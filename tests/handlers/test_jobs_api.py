"""Batch and crawl jobs over HTTP, worked on by the in-process runner against the local crawl
site: a batch of 200 URLs (duplicates, failing pages, a refused address) completes with each page
fetched once and billed as the Markdown endpoint bills it; results page with a cursor; a crawl
finds exactly the pages its scope and robots.txt allow; the plan's quota stops a job; a job is
cancelled; malformed requests are refused."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import peewee
import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient

from app.config import Settings
from app.services import Services
from convert.crawl.urls import url_key
from services.accounts import PlanSettings
from services.webhooks import EVENT_ID_HEADER, SIGNATURE_HEADER, verify
from store import jobs as job_rows
from store.job_types import RUNNING, NewPage
from store.models import JobPage, Organization, utc_now
from store.store import Store
from tests.conftest import make_settings, serve_with_jobs
from tests.crawl_site import CrawlSite, SiteShape
from tests.origin import Origin, serve

ENDED = ("completed", "cancelled", "failed", "quota_exceeded", "failure_limit")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.jobs.poll_interval = 0.05
    settings.cache.enabled = False  # every page fetched, so the site's counts tell
    settings.webhooks.backoff = 0.05
    settings.jobs.results_max_bytes = 20_000  # a results page is cut by bytes before its limit
    # Small plans whose job bounds the tests reach.
    settings.plans["flaky"] = PlanSettings(
        requests_per_second=100, burst=100, monthly_credits=0, monthly_failed_pages=2
    )
    settings.plans["small"] = PlanSettings(
        requests_per_second=100, burst=100, max_active_jobs=1, max_queued_pages=5
    )
    return settings


@pytest.fixture
def app(io_loop: Any, services: Services) -> Iterator[tornado.web.Application]:
    yield from serve_with_jobs(io_loop, services)


@pytest.fixture
def site(io_loop: Any) -> Iterator[CrawlSite]:
    started = CrawlSite().start()
    yield started
    io_loop.run_sync(started.close)


@pytest.fixture
def key(services: Services) -> str:
    return services.store.create_key("acme", "pro").key  # polls stay within its rate


async def post(
    client: AsyncHTTPClient, base_url: str, path: str, key: str, body: Any
) -> tuple[int, dict[str, Any]]:
    response = await client.fetch(
        f"{base_url}{path}",
        method="POST",
        body=body if isinstance(body, bytes) else json.dumps(body),
        headers={"X-API-Key": key, "Content-Type": "application/json"},
        raise_error=False,
    )
    return response.code, json.loads(response.body)


async def get(
    client: AsyncHTTPClient, base_url: str, path: str, key: str, method: str = "GET"
) -> tuple[int, dict[str, Any]]:
    response = await client.fetch(
        f"{base_url}{path}", method=method, headers={"X-API-Key": key}, raise_error=False
    )
    return response.code, json.loads(response.body)


async def wait_ended(
    client: AsyncHTTPClient, base_url: str, job_id: str, key: str, seconds: float = 60
) -> dict[str, Any]:
    async with asyncio.timeout(seconds):
        while True:
            code, body = await get(client, base_url, f"/api/3.0/jobs/{job_id}?limit=0", key)
            assert code == 200, body
            if body["status"] in ENDED:
                return body
            await asyncio.sleep(0.1)


async def all_results(
    client: AsyncHTTPClient, base_url: str, job_id: str, key: str, limit: int = 100
) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    cursor = "0"
    while True:
        path = f"/api/3.0/jobs/{job_id}?limit={limit}&cursor={cursor}"
        code, body = await get(client, base_url, path, key)
        assert code == 200, body
        results += body["results"]
        cursor = body["next_cursor"]
        if not body["has_more"]:
            return results


@pytest.mark.gen_test(timeout=90)
async def test_a_batch_of_200_urls_completes_each_page_fetched_once(
    http_client: AsyncHTTPClient, base_url: str, site: CrawlSite, key: str
) -> None:
    urls = [site.url(f"/docs/page-{i}") for i in range(1, 196)]
    urls += [site.url("/docs/broken"), site.url("/docs/missing"), "http://10.0.0.1/internal"]
    urls += [site.url("/docs/page-1#intro"), site.url("/docs/page-2/?utm_source=mail")]
    code, accepted = await post(
        http_client, base_url, "/api/3.0/batch", key, {"urls": urls, "options": {"max_chars": 400}}
    )
    assert code == 202, accepted
    assert accepted["pages_queued"] == 198  # the two variants are pages 1 and 2 again
    job = await wait_ended(http_client, base_url, accepted["id"], key)
    assert job["status"] == "completed"
    assert job["progress"] == {
        "total": 198,
        "done": 195,
        "failed": 3,
        "running": 0,
        "skipped": 0,
        "queued": 0,
    }
    assert job["credits"] == 195  # a direct fetch costs the Markdown base; failures nothing
    code, first = await get(http_client, base_url, f"/api/3.0/jobs/{accepted['id']}?limit=70", key)
    assert code == 200 and 1 <= len(first["results"]) < 70 and first["has_more"] is True
    assert len(json.dumps(first["results"])) < 20_000 + 4_000  # the cap, and one result past it
    results = await all_results(http_client, base_url, accepted["id"], key, limit=70)
    assert [result["seq"] for result in results] == list(range(1, 199))
    by_url = {result["url"]: result for result in results}
    assert len(by_url) == 198
    page = by_url[site.url("/docs/page-7")]
    assert page["status"] == "done" and page["credits"] == 1
    assert page["markdown"].startswith("# ") and len(page["markdown"]) <= 400
    assert page["metadata"]["title"] and page["final_url"] == site.url("/docs/page-7")
    errors = {
        url: by_url[url]["error"]["code"]
        for url in (site.url("/docs/broken"), site.url("/docs/missing"), "http://10.0.0.1/internal")
    }
    assert errors == {
        site.url("/docs/broken"): -3008,
        site.url("/docs/missing"): -3008,
        "http://10.0.0.1/internal": -3006,
    }
    assert all(by_url[url]["credits"] == 0 for url in errors)
    # Each page fetched once; failing ones retried as the Markdown endpoint retries them.
    assert len(site.page_hits) == 197
    assert {path for path, hits in site.page_hits.items() if hits > 1} == {"/docs/broken"}


@pytest.mark.gen_test(timeout=60)
async def test_a_crawl_finds_exactly_the_allowed_pages(
    http_client: AsyncHTTPClient, base_url: str, site: CrawlSite, key: str
) -> None:
    body = {"url": site.url("/"), "max_depth": 4, "max_pages": 1000}
    code, accepted = await post(http_client, base_url, "/api/3.0/crawl", key, body)
    assert code == 202, accepted
    job = await wait_ended(http_client, base_url, accepted["id"], key)
    assert job["status"] == "completed", job
    results = await all_results(http_client, base_url, accepted["id"], key)
    found = {url_key(result["url"]): result["depth"] for result in results}
    assert found == site.expected_crawl(max_depth=4)
    assert job["credits"] == sum(1 for result in results if result["status"] == "done")
    failed = {url_key(result["url"]) for result in results if result["status"] == "failed"}
    assert failed == site.failing & set(found)
    assert {path for path, hits in site.page_hits.items() if hits > 1} <= {
        path for path in site.page_hits if site.url(path) in site.failing
    }
    assert not site.trap_hits and not site.foreign_hits
    assert site.file_hits["/robots.txt"] == 1


@pytest.mark.gen_test(timeout=60)
async def test_a_crawl_within_patterns_and_a_page_limit(
    http_client: AsyncHTTPClient, base_url: str, site: CrawlSite, key: str
) -> None:
    body = {
        "url": site.url("/"),
        "max_depth": 6,
        "include": ["/docs/page-*"],
        "exclude": ["/docs/page-1?"],
    }
    code, accepted = await post(http_client, base_url, "/api/3.0/crawl", key, body)
    assert code == 202, accepted
    job = await wait_ended(http_client, base_url, accepted["id"], key)
    results = await all_results(http_client, base_url, accepted["id"], key)
    found = {url_key(result["url"]) for result in results}
    expected = site.expected_crawl(
        max_depth=6, include=("/docs/page-*",), exclude=("/docs/page-1?",)
    )
    assert found == set(expected)
    # A crawl whose start page fails has failed.
    body = {"url": site.url("/docs/missing")}
    code, accepted = await post(http_client, base_url, "/api/3.0/crawl", key, body)
    job = await wait_ended(http_client, base_url, accepted["id"], key)
    assert (job["status"], job["progress"]["failed"], job["credits"]) == ("failed", 1, 0)
    # max_pages stops the queue, the start page included.
    body = {"url": site.url("/"), "max_depth": 6, "max_pages": 10}
    code, accepted = await post(http_client, base_url, "/api/3.0/crawl", key, body)
    job = await wait_ended(http_client, base_url, accepted["id"], key)
    assert job["status"] == "completed" and job["progress"]["total"] == 10


@pytest.mark.gen_test(timeout=60)
async def test_a_big_job_does_not_hold_up_another_organizations(
    http_client: AsyncHTTPClient, base_url: str, site: CrawlSite, key: str, services: Services
) -> None:
    other = services.store.create_key("globex", "pro").key
    big = {"urls": [site.url(f"/docs/page-{i}") for i in range(1, 121)]}
    small = {"urls": [site.url(f"/docs/page-{i}") for i in range(200, 204)]}
    _, first = await post(http_client, base_url, "/api/3.0/batch", key, big)
    _, second = await post(http_client, base_url, "/api/3.0/batch", other, small)
    done = await wait_ended(http_client, base_url, second["id"], other)
    _, meanwhile = await get(http_client, base_url, f"/api/3.0/jobs/{first['id']}?limit=0", key)
    assert done["status"] == "completed"
    # The small job finished while the big one, started first, was still under way.
    assert meanwhile["status"] == "running" and meanwhile["progress"]["done"] < 100, meanwhile
    await wait_ended(http_client, base_url, first["id"], key)


@pytest.mark.gen_test(timeout=60)
async def test_a_crawl_keeps_the_sites_crawl_delay(
    http_client: AsyncHTTPClient, base_url: str, key: str
) -> None:
    polite = CrawlSite(SiteShape(pages=20, slow_pages=0, crawl_delay=0.25)).start()
    try:
        body = {"url": polite.url("/"), "max_pages": 6, "max_depth": 5}
        started = time.monotonic()
        code, accepted = await post(http_client, base_url, "/api/3.0/crawl", key, body)
        assert code == 202, accepted
        job = await wait_ended(http_client, base_url, accepted["id"], key)
        assert job["status"] == "completed" and job["progress"]["done"] == 6
        assert time.monotonic() - started >= 5 * 0.25  # six fetches, five delays between them
    finally:
        await polite.close()


@pytest.mark.gen_test(timeout=60)
async def test_a_job_is_admitted_for_the_pages_its_credits_pay_for(
    http_client: AsyncHTTPClient, base_url: str, site: CrawlSite, services: Services
) -> None:
    metered = services.store.create_key("metered-org", "metered").key  # 3 credits a month
    urls = [site.url(f"/docs/page-{i}") for i in range(1, 7)]
    code, accepted = await post(http_client, base_url, "/api/3.0/batch", metered, {"urls": urls})
    assert code == 202, accepted
    assert accepted["pages_queued"] == accepted["pages_admitted"] == 3
    assert accepted["admission_bound"] == "monthly_credits"
    job = await wait_ended(http_client, base_url, accepted["id"], metered)
    assert job["status"] == "completed"
    assert (job["progress"]["done"], job["progress"]["total"], job["credits"]) == (3, 3, 3)
    code, refused = await post(http_client, base_url, "/api/3.0/batch", metered, {"urls": urls})
    assert code == 429 and refused["error"]["code"] == -1003


@pytest.mark.gen_test(timeout=60)
async def test_the_quota_spent_elsewhere_stops_a_job_and_cancel_skips_the_rest(
    http_client: AsyncHTTPClient, base_url: str, site: CrawlSite, services: Services
) -> None:
    metered = services.store.create_key("metered-org", "metered").key  # 3 credits a month
    urls = [site.url(f"/docs/slow-{k}") for k in range(3)]
    code, accepted = await post(http_client, base_url, "/api/3.0/batch", metered, {"urls": urls})
    assert code == 202 and accepted["pages_queued"] == 3, accepted
    services.store.record_usage("metered-org", "markdown", 3)  # single requests spend the month
    job = await wait_ended(http_client, base_url, accepted["id"], metered)
    assert job["status"] == "quota_exceeded" and job["stop_reason"] == "quota_exceeded"
    assert job["progress"]["skipped"] >= 1
    assert job["progress"]["done"] + job["progress"]["skipped"] == 3

    other = services.store.create_key("other-org", "pro").key
    slow = [site.url(f"/docs/slow-{k}") for k in range(3)] * 1
    slow += [site.url(f"/docs/page-{i}") for i in range(100, 160)]
    code, accepted = await post(http_client, base_url, "/api/3.0/batch", other, {"urls": slow})
    assert code == 202
    path = f"/api/3.0/jobs/{accepted['id']}"
    assert (await get(http_client, base_url, path, metered))[0] == 404  # not its job
    code, cancelled = await get(http_client, base_url, path, other, method="DELETE")
    assert code == 200 and cancelled["status"] == "cancelled"
    assert cancelled["progress"]["skipped"] > 40
    for _ in range(50):  # the pages in flight finish (five seconds at most); nothing more starts
        _, later = await get(http_client, base_url, path, other)
        if later["progress"]["running"] == 0:
            break
        await asyncio.sleep(0.1)
    progress = later["progress"]
    assert progress["skipped"] == cancelled["progress"]["skipped"] and progress["running"] == 0
    assert progress["done"] + progress["failed"] + progress["skipped"] == 63


@pytest.mark.gen_test(timeout=60)
async def test_the_quota_another_process_spent_stops_a_running_job(
    http_client: AsyncHTTPClient, base_url: str, services: Services
) -> None:
    """The runner reads the month's credits anew before its next page (not the store's
    longer-lived quota cache): what another process charged and stored stops a running job."""
    site = CrawlSite(SiteShape(slow_seconds=1.5)).start()
    try:
        metered = services.store.create_key("metered-org", "metered").key  # 3 credits a month
        body = {"urls": [site.url(f"/docs/slow-{k}") for k in range(1, 4)]}
        code, accepted = await post(http_client, base_url, "/api/3.0/batch", metered, body)
        assert code == 202 and accepted["pages_queued"] == 3, accepted
        path = f"/api/3.0/jobs/{accepted['id']}?limit=0"
        for _ in range(100):  # the first pages are claimed: the month's credits were read
            _, seen = await get(http_client, base_url, path, metered)
            if seen["progress"]["running"]:
                break
            await asyncio.sleep(0.02)
        other = Store(services.settings.store)  # another process on the database
        other.open()
        try:
            other.record_usage("metered-org", "markdown", 3)
            assert await other.flush_usage() == 1
        finally:
            await other.close()
        job = await wait_ended(http_client, base_url, accepted["id"], metered)
    finally:
        await site.close()
    assert job["status"] == "quota_exceeded", job
    assert job["progress"]["skipped"] >= 1


@pytest.mark.gen_test(timeout=60)
async def test_failed_pages_use_up_the_plans_allowance(
    http_client: AsyncHTTPClient, base_url: str, site: CrawlSite, services: Services
) -> None:
    flaky = services.store.create_key("flaky-org", "flaky").key  # 2 failed pages a month
    urls = [site.url(f"/docs/missing-{k}") for k in range(8)]  # every one a 404
    code, accepted = await post(http_client, base_url, "/api/3.0/batch", flaky, {"urls": urls})
    assert code == 202, accepted
    job = await wait_ended(http_client, base_url, accepted["id"], flaky)
    assert job["status"] == "failure_limit" and job["stop_reason"] == "failure_limit"
    assert job["progress"]["failed"] < 8 and job["progress"]["skipped"] > 0
    code, refused = await post(http_client, base_url, "/api/3.0/batch", flaky, {"urls": urls})
    assert code == 429 and refused["error"]["code"] == -1011
    assert "failed job pages" in refused["error"]["message"]


@pytest.mark.gen_test(timeout=60)
async def test_abandoned_pages_use_up_the_plans_allowance_too(
    http_client: AsyncHTTPClient, base_url: str, site: CrawlSite, services: Services
) -> None:
    """Pages whose workers died as often as a page may be claimed fail as abandoned when the
    runner comes to them: each counts against the monthly failed pages (and, free, as a page of
    its job's kind), so the job stops once the allowance is used."""
    flaky = services.store.create_key("flaky-org", "flaky").key  # 2 failed pages a month
    job_id = job_rows.new_job_id()
    pages = [site.url(f"/docs/page-{k}") for k in range(6)]

    def left_by_dead_workers(db: peewee.Database) -> None:
        org = Organization.select().where(Organization.name == "flaky-org").get(db)
        job_rows.create_job(
            db,
            job_id=job_id,
            org_id=org.id,
            plan="flaky",
            kind="batch",
            options={"markdown": {}, "max_pages": len(pages), "page_price": 1},
            pages=[NewPage(url_key(url), url, urlsplit(url).netloc) for url in pages],
        )
        # Each page claimed as often as it may be, by workers that died: their leases expired.
        JobPage.update(
            status=RUNNING,
            attempts=services.settings.jobs.max_attempts,
            lease_owner="dead",
            lease_expires=utc_now() - timedelta(seconds=1),
        ).where(JobPage.job == job_id).execute(db)

    await services.store.run(left_by_dead_workers, "test", write=True)
    assert services.runner is not None
    services.runner.wake()
    job = await wait_ended(http_client, base_url, job_id, flaky)
    assert job["status"] == "failure_limit", job
    progress = job["progress"]
    assert progress["done"] == 0 and 2 <= progress["failed"] < 6 and progress["skipped"] > 0
    assert not site.page_hits  # nothing was fetched: every page failed as abandoned
    assert await services.store.month_requests("flaky-org", "batch") == progress["failed"]
    assert await services.store.month_credits("flaky-org") == 0
    code, refused = await post(http_client, base_url, "/api/3.0/batch", flaky, {"urls": pages})
    assert code == 429 and "failed job pages" in refused["error"]["message"]


@pytest.mark.gen_test(timeout=60)
async def test_active_jobs_and_queued_pages_are_bounded_by_the_plan(
    http_client: AsyncHTTPClient, base_url: str, site: CrawlSite, services: Services
) -> None:
    small = services.store.create_key("small-org", "small").key  # 1 active job, 5 pages
    slow = [site.url(f"/docs/slow-{k}") for k in range(8)]
    code, accepted = await post(http_client, base_url, "/api/3.0/batch", small, {"urls": slow})
    assert code == 202 and accepted["pages_queued"] == 5, accepted
    assert accepted["admission_bound"] == "max_queued_pages"
    code, refused = await post(http_client, base_url, "/api/3.0/batch", small, {"urls": slow[:1]})
    assert code == 429 and refused["error"]["code"] == -1011
    assert "active jobs" in refused["error"]["message"]
    _, cancelled = await get(
        http_client, base_url, f"/api/3.0/jobs/{accepted['id']}", small, method="DELETE"
    )
    assert cancelled["status"] == "cancelled"
    code, again = await post(http_client, base_url, "/api/3.0/batch", small, {"urls": slow[:1]})
    assert code == 202 and again["pages_queued"] == 1 and "admission_bound" not in again


@pytest.mark.gen_test(timeout=60)
async def test_options_that_do_nothing_are_ignored_with_a_warning(
    http_client: AsyncHTTPClient, base_url: str, site: CrawlSite, key: str
) -> None:
    options = {"chunk_overlap": 50, "proxy_country": "de", "chunking": True, "max_chunks": 3}
    response = await http_client.fetch(
        f"{base_url}/api/3.0/batch",
        method="POST",
        body=json.dumps({"urls": [site.url("/docs/page-1")], "options": options}),
        headers={"X-API-Key": key, "Content-Type": "application/json"},
        raise_error=False,
    )
    accepted = json.loads(response.body)
    assert response.code == 202, accepted
    # chunking (and what shapes chunks) applies to a job's pages whatever the format, which a
    # job does not have; a country without a forced proxy tier does nothing.
    warning = (
        "options.proxy_country ignored: it applies only with use_proxy=true or use_premium=true "
        "or use_superior=true"
    )
    assert response.headers["X-Pagecast-Warnings"] == warning
    assert accepted["warnings"] == [warning]
    job = await wait_ended(http_client, base_url, accepted["id"], key)
    assert job["status"] == "completed", job
    (result,) = await all_results(http_client, base_url, accepted["id"], key)
    assert len(result["chunks"]) <= 3 and result["chunks"], result


@pytest.mark.gen_test(timeout=30)
async def test_malformed_job_requests_are_refused(
    http_client: AsyncHTTPClient, base_url: str, key: str
) -> None:
    one = ["https://example.com/"]
    cases: list[tuple[str, Any, int]] = [
        ("/api/3.0/batch", b"not json", -2203),
        ("/api/3.0/batch", [], -2203),
        ("/api/3.0/batch", {"urls": []}, -2203),
        ("/api/3.0/batch", {"urls": ["ftp://example.com/"]}, -2204),
        ("/api/3.0/batch", {"urls": ["https://example.com/"] * 1001}, -2203),
        (
            "/api/3.0/batch",
            {"urls": one, "options": {"format": "json"}},
            -2203,
        ),
        ("/api/3.0/batch", {"urls": one, "options": {"max_chars": 0}}, -2201),
        ("/api/3.0/batch", {"urls": ["https://x.org/"], "options": {"include_tags": "a[["}}, -2203),
        ("/api/3.0/batch", {"urls": ["https://x.org/"], "webhook_url": "file:///etc"}, -2203),
        ("/api/3.0/crawl", {"max_depth": 2}, -2203),
        ("/api/3.0/crawl", {"url": "mailto:a@b.c"}, -2204),
        ("/api/3.0/crawl", {"url": "https://x.org/", "max_pages": 10**7}, -2203),
    ]
    for path, body, code in cases:
        status, answer = await post(http_client, base_url, path, key, body)
        assert "error" in answer, (path, body, answer)
        assert (status, answer["error"]["code"]) == (400, code), (path, body, answer)
    status, answer = await get(http_client, base_url, "/api/3.0/jobs/0123abcd", key)
    assert (status, answer["error"]["code"]) == (404, -1004)


@pytest.mark.gen_test(timeout=30)
async def test_a_malformed_body_is_told_plainly(
    http_client: AsyncHTTPClient, base_url: str, key: str
) -> None:
    cases: list[tuple[str, Any, str]] = [
        (
            "/api/3.0/batch",
            b'{"urls": [',
            "body is not valid JSON: expecting value at line 1, column 11 (character 10)",
        ),
        ("/api/3.0/batch", {"urls": "http://example.com/"}, "urls must be an array of strings"),
        ("/api/3.0/batch", b"", "body is empty: send a JSON object"),
        ("/api/3.0/batch", [], "body must be a JSON object, not an array"),
        ("/api/3.0/crawl", {"url": 5}, "url must be a JSON string"),
    ]
    for path, body, message in cases:
        status, answer = await post(http_client, base_url, path, key, body)
        assert status == 400 and answer["error"]["code"] == -2203, answer
        assert answer["error"]["message"] == f"invalid parameters: {message}", (body, answer)


@dataclass
class Receiver:
    """A webhook receiver on 127.0.0.1: every request's body and headers; the first attempt
    at each page event is answered 500 (so every page event is retried once)."""

    origin: Origin
    calls: list[tuple[bytes, dict[str, str]]]


@pytest.fixture
def receiver(io_loop: Any) -> Iterator[Receiver]:
    calls: list[tuple[bytes, dict[str, str]]] = []
    refused: set[str] = set()

    class Hook(tornado.web.RequestHandler):
        def post(self) -> None:
            calls.append((self.request.body, dict(self.request.headers)))
            event_id = self.request.headers.get(EVENT_ID_HEADER, "")
            if not event_id.endswith("-end") and event_id not in refused:
                refused.add(event_id)
                self.set_status(500)

    class Gone(tornado.web.RequestHandler):
        def post(self) -> None:
            calls.append((self.request.body, dict(self.request.headers)))
            self.set_status(410)

    origin = serve(tornado.web.Application([(r"/hook", Hook), (r"/gone", Gone)]))
    yield Receiver(origin, calls)
    io_loop.run_sync(origin.close)


@pytest.mark.gen_test(timeout=60)
async def test_a_webhook_sees_every_event_signed(
    http_client: AsyncHTTPClient, base_url: str, site: CrawlSite, key: str, receiver: Receiver
) -> None:
    secret = "s3cret-for-the-hook-0123456789"
    body = {
        "urls": [site.url(f"/docs/page-{i}") for i in range(1, 6)] + [site.url("/docs/missing")],
        "webhook_url": receiver.origin.url("/hook"),
        "webhook_secret": secret,
    }
    code, accepted = await post(http_client, base_url, "/api/3.0/batch", key, body)
    assert code == 202 and "webhook_secret" not in accepted
    await wait_ended(http_client, base_url, accepted["id"], key)
    for _ in range(200):  # ten seconds at most
        if len(receiver.calls) >= 6 * 2 + 1:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)  # nothing more comes
    assert all(verify(secret, raw, headers[SIGNATURE_HEADER]) for raw, headers in receiver.calls)
    events = {headers[EVENT_ID_HEADER]: json.loads(raw) for raw, headers in receiver.calls}
    pages = [event for event in events.values() if event["event"] == "page"]
    assert sorted(event["seq"] for event in pages) == list(range(1, 7))
    assert {event["status"] for event in pages} == {"done", "failed"}
    assert [event["status"] for event in events.values() if event["event"] == "job"] == [
        "completed"
    ]
    assert len(receiver.calls) == 6 * 2 + 1  # each page event retried once after its 500
    status, job = await get(http_client, base_url, f"/api/3.0/jobs/{accepted['id']}", key)
    assert status == 200 and job["webhook"] == {
        "delivered": 7,
        "failed": 0,
        "pending": 0,
        "last_error": None,
        "last_error_at": None,
    }
    # A webhook the SSRF guard refuses is refused with the job.
    body["webhook_url"] = "http://169.254.169.254/latest/hook"
    code, refused = await post(http_client, base_url, "/api/3.0/batch", key, body)
    assert (code, refused["error"]["code"]) == (400, -3006)
    # A secret is made when none is sent, and answered once.
    del body["webhook_secret"]
    body["webhook_url"] = receiver.origin.url("/hook")
    code, accepted = await post(http_client, base_url, "/api/3.0/batch", key, body)
    assert code == 202 and len(accepted["webhook_secret"]) == 64


@pytest.mark.gen_test(timeout=60)
async def test_a_job_tells_what_became_of_its_webhook_events(
    http_client: AsyncHTTPClient, base_url: str, site: CrawlSite, key: str, receiver: Receiver
) -> None:
    body = {"urls": [site.url("/docs/page-1")], "webhook_url": receiver.origin.url("/gone")}
    code, accepted = await post(http_client, base_url, "/api/3.0/batch", key, body)
    assert code == 202
    await wait_ended(http_client, base_url, accepted["id"], key)
    path = f"/api/3.0/jobs/{accepted['id']}"
    for _ in range(200):  # the receiver answers 410: each event is given up at once
        status, job = await get(http_client, base_url, path, key)
        if status == 200 and job["webhook"]["pending"] == 0:
            break
        await asyncio.sleep(0.05)
    hook = job["webhook"]
    assert (hook["delivered"], hook["failed"], hook["pending"]) == (0, 2, 0), hook
    assert hook["last_error"] == "given up after 1 attempt(s): status 410"
    assert hook["last_error_at"] is not None
    # A job without a webhook has none to tell of.
    code, plain = await post(http_client, base_url, "/api/3.0/batch", key, {"urls": body["urls"]})
    status, job = await get(http_client, base_url, f"/api/3.0/jobs/{plain['id']}", key)
    assert (code, status, job["webhook"]) == (202, 200, None)
