"""Map, batch and crawl through the Python client against a real Pagecast: the typed answers,
a job's progress and its results read a page at a time with the cursor, waiting for a job
(bounded and timed out), cancelling one, and the errors of a job that does not exist."""

from __future__ import annotations

import asyncio
import time

import pytest

from pagecast_client import (
    AsyncPagecast,
    InvalidRequestError,
    Job,
    JobAccepted,
    JobProgress,
    JobResult,
    JobTimeoutError,
    MapResult,
    NotFoundError,
    Pagecast,
    PageError,
)
from pagecast_client.jobs import Polling
from tests.clients.pagecast_site import Site
from tests.origin import closed_port

TITLE = "Sourdough at altitude"
UNREACHABLE = f"http://127.0.0.1:{closed_port()}/"


@pytest.fixture(scope="module")
def pagecast(site: Site) -> Pagecast:
    with Pagecast(api_key=site.key, base_url=site.base_url) as client:
        yield client


def test_map_answers_the_site_s_urls(pagecast: Pagecast, site: Site) -> None:
    found = pagecast.map(site.page)
    assert isinstance(found, MapResult) and found.credits == 1 and len(found.request_id) == 32
    assert found.url == site.page and found.urls[0] == site.page
    assert set(found.urls) == {site.page + path for path in ("", "recipes", "about", "privacy")}
    assert found.count == 4 and not found.truncated and found.complete
    assert found.robots == "absent" and found.sources["links"] == 3
    assert found.raw["urls"] == found.urls
    only = pagecast.map(site.page, include=["/recipes*"], sitemap="skip", limit=1)
    assert only.urls == [site.page] and only.truncated  # the start URL is always kept
    with pytest.raises(InvalidRequestError) as refused:
        pagecast.map(site.page, limit=0)
    assert refused.value.code == -2203 and "limit" in refused.value.message
    with pytest.raises(TypeError, match="depth"):
        pagecast.map(site.page, depth=2)  # type: ignore[call-arg]


def test_batch_progress_and_results_by_cursor(pagecast: Pagecast, site: Site) -> None:
    accepted = pagecast.batch(
        [site.page, site.injected_page, UNREACHABLE],
        options={"chunking": True, "chunk_size": 200, "cache_ok": False},
    )
    assert isinstance(accepted, JobAccepted) and accepted.status == "queued"
    assert (
        accepted.pages_queued == 3 and accepted.url == f"{site.base_url}/api/3.0/jobs/{accepted.id}"
    )
    job = pagecast.wait_for_job(accepted, timeout=90, poll_interval=0.2, max_poll_interval=1)
    assert isinstance(job, Job) and job.kind == "batch" and job.ended
    assert job.status == "completed" and job.stop_reason is None
    assert job.progress == JobProgress(total=3, done=2, failed=1, running=0, skipped=0, queued=0)
    assert job.credits == 2 and job.finished_at and job.expires_at and job.results == []

    first = pagecast.get_job(accepted.id, limit=1)
    assert len(first.results) == 1 and first.has_more and first.next_cursor
    rest = pagecast.get_job(accepted.id, cursor=first.next_cursor, limit=10)
    assert len(rest.results) == 2 and not rest.has_more
    seen = [result.seq for result in first.results + rest.results]
    results = list(pagecast.iter_job_results(job, limit=1))
    assert [result.seq for result in results] == seen == sorted(set(seen))

    by_url = {result.url: result for result in results}
    page = by_url[site.page]
    assert isinstance(page, JobResult) and page.ok and page.error is None
    assert page.metadata and page.metadata.title == TITLE and page.status_code == 200
    assert page.chunks and page.chunks[1].heading_path == [TITLE, "What changes"]
    assert page.markdown and page.usage and page.usage.character_count == len(page.markdown)
    assert page.credits == 1 and page.depth == 0
    failed = by_url[UNREACHABLE]
    assert not failed.ok and failed.status == "failed" and failed.markdown is None
    assert isinstance(failed.error, PageError) and failed.error.code == -3001
    assert failed.credits == 0


def test_crawl_follows_the_links_in_scope(pagecast: Pagecast, site: Site) -> None:
    accepted = pagecast.crawl(site.page, max_pages=10, max_depth=1, exclude=["/privacy"])
    job = pagecast.wait_for_job(accepted, timeout=90, poll_interval=0.2)
    assert job.kind == "crawl" and job.status == "completed"
    results = {result.url: result for result in pagecast.iter_job_results(job)}
    assert set(results) == {site.page, site.page + "recipes", site.page + "about"}
    assert results[site.page].depth == 0 and results[site.page + "recipes"].depth == 1
    recipes = results[site.page + "recipes"]
    assert recipes.ok and recipes.metadata and recipes.metadata.title.startswith("Recipes")
    assert not results[site.page + "about"].ok  # 404
    assert job.progress.done == 2 and job.progress.failed == 1 and job.credits == 2


def test_a_wait_that_times_out_then_a_cancel(pagecast: Pagecast, site: Site) -> None:
    urls = [f"{site.page}?copy={number}" for number in range(200)]
    accepted = pagecast.batch(urls, options={"cache_ok": False})
    started = time.monotonic()
    with pytest.raises(JobTimeoutError) as late:
        pagecast.wait_for_job(accepted, timeout=0.5, poll_interval=0.1, max_poll_interval=0.2)
    assert 0.5 <= time.monotonic() - started < 5
    assert late.value.job.id == accepted.id and not late.value.job.ended
    assert "after 0.5 s" in str(late.value)
    cancelled = pagecast.cancel_job(accepted)
    assert cancelled.status == "cancelled" and cancelled.stop_reason == "cancelled"
    ended = pagecast.wait_for_job(accepted, timeout=60, poll_interval=0.2)
    assert ended.status == "cancelled" and ended.progress.total == 200
    assert ended.progress.skipped > 0 and ended.progress.queued == 0
    assert ended.progress.done + ended.progress.failed + ended.progress.skipped == 200
    # Cancelling an ended job answers it as it ended.
    assert pagecast.cancel_job(accepted.id).status == "cancelled"
    with pytest.raises(ValueError, match="poll_interval"):
        pagecast.wait_for_job(accepted, poll_interval=0)


def test_a_job_of_nobody(pagecast: Pagecast) -> None:
    with pytest.raises(NotFoundError) as missing:
        pagecast.get_job("nosuchjob")
    assert missing.value.status == 404 and missing.value.code == -1004
    with pytest.raises(NotFoundError):
        pagecast.cancel_job("nosuchjob")
    with pytest.raises(InvalidRequestError) as refused:
        pagecast.batch([])
    assert refused.value.code == -2203
    with pytest.raises(TypeError, match="include_links"):
        pagecast.batch(["https://example.com/"], options={"include_links": True})  # type: ignore[typeddict-unknown-key]


def test_async_jobs(site: Site) -> None:
    async def scenario() -> None:
        async with AsyncPagecast(api_key=site.key, base_url=site.base_url) as client:
            found = await client.map(site.page, sitemap="skip")
            assert site.page + "recipes" in found.urls
            accepted = await client.crawl(site.page, max_pages=2, max_depth=1)
            job = await client.wait_for_job(accepted, timeout=90, poll_interval=0.2)
            assert job.status == "completed" and job.progress.total == 2
            urls = [result.url async for result in client.iter_job_results(job, limit=1)]
            assert len(urls) == 2 and urls[0] == site.page
            assert (await client.cancel_job(job)).status == "completed"
            with pytest.raises(JobTimeoutError):
                running = await client.batch(
                    [f"{site.page}?again={n}" for n in range(200)], options={"cache_ok": False}
                )
                await client.wait_for_job(running, timeout=0.2, poll_interval=0.1)
            assert (await client.cancel_job(running)).status == "cancelled"

    asyncio.run(scenario())


def test_the_pauses_between_polls_grow_to_their_bound_within_the_timeout() -> None:
    polling = Polling(timeout=60, interval=0.1, max_interval=0.3)
    pauses = [round(polling.next_pause(), 3) for _ in range(5)]
    assert pauses == [0.1, 0.15, 0.225, 0.3, 0.3] and not polling.over()
    short = Polling(timeout=0.05, interval=1, max_interval=5)
    assert 0 < short.next_pause() <= 0.05
    time.sleep(0.06)
    assert short.over() and short.next_pause() == 0
    for timeout, interval, bound in ((-1, 1, 1), (1, 0, 1), (1, 2, 1)):
        with pytest.raises(ValueError, match="poll_interval"):
            Polling(timeout, interval, bound)
