"""Crawl jobs against the single-page endpoint, and what a crawl does to another organization.

A real Pagecast (throw-away SQLite store, page cache off so every page is fetched, loopback
allowed) and the local crawl site of ``tests/crawl_site.py`` (``--pages`` pages, served from a
process of its own) run on this machine:

(1) crawl: one ``POST /api/3.0/crawl`` of the whole site (every page the site's robots.txt
    allows, about ``--pages`` of them), its job runner working ``--concurrency`` pages at once;
    pages/s from the submission to the job's end;
(2) single-page: the same URLs through ``GET /api/3.0/markdown/{url}`` by a client keeping
    ``--concurrency`` requests in flight; pages/s;
(3) fairness: another organization's single-page requests, one at a time for ``--probes``
    requests, alone and then while organization one's crawl runs: p50/p95 latency, and the
    p95 ratio (the target: at most 1.5).

    python bench/crawl.py [--pages 500] [--concurrency 4] [--probes 150] [--conversion-workers 1]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from urllib.parse import quote

from pagecast_process import PYTHON, ROOT, free_port, start_pagecast, stop_pagecast
from tornado.httpclient import AsyncHTTPClient

from tests.crawl_site import CrawlSite, SiteShape

TARGET_RATIO = 1.5
"""Another organization's p95 during a crawl over its p95 alone must stay at most this."""
REQUEST_TIMEOUT = 60.0


def extra_config(concurrency: int, conversion_workers: int) -> str:
    return (
        f"[jobs]\nworkers = {concurrency}\norg_workers = {concurrency}\n"
        f"host_concurrency = {concurrency}\npoll_interval = 0.1\n"
        f"conversion_workers = {conversion_workers}\n"
        "[cache]\nenabled = false\n"
    )


def other_key(tmp: str) -> str:
    """A key of a second organization on the benchmark's plan."""
    created = subprocess.run(
        [PYTHON, str(ROOT / "server.py"), "keys", "create", "--org", "other", "--plan", "bench"],
        env={"PAGECAST_CONFIG": str(Path(tmp) / "config.toml"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return created.stdout.strip().splitlines()[-1]


async def call(client: AsyncHTTPClient, url: str, key: str, body: object = None) -> dict:
    response = await client.fetch(
        url,
        method="GET" if body is None else "POST",
        body=None if body is None else json.dumps(body),
        headers={"X-API-Key": key, "Content-Type": "application/json"},
        request_timeout=REQUEST_TIMEOUT,
    )
    return dict(json.loads(response.body))


async def run_crawl(
    client: AsyncHTTPClient, api: str, key: str, site: str, poll: float = 0.05
) -> tuple[float, list[str], dict]:
    """Seconds from submission to the end (the job polled every ``poll`` seconds), the URLs
    done, and the job."""
    body = {"url": site + "/", "max_depth": 50, "max_pages": 10_000, "options": {"retry": False}}
    started = time.perf_counter()
    job_id = (await call(client, f"{api}/api/3.0/crawl", key, body))["id"]
    while True:
        job = await call(client, f"{api}/api/3.0/jobs/{job_id}?limit=0", key)
        if job["status"] not in ("queued", "running"):
            break
        await asyncio.sleep(poll)
    elapsed = time.perf_counter() - started
    urls: list[str] = []
    cursor = "0"
    while True:
        page = await call(client, f"{api}/api/3.0/jobs/{job_id}?limit=100&cursor={cursor}", key)
        urls += [result["url"] for result in page["results"] if result["status"] == "done"]
        cursor = page["next_cursor"]
        if not page["has_more"]:
            return elapsed, urls, job


async def single_pages(
    client: AsyncHTTPClient, api: str, key: str, urls: list[str], concurrency: int
) -> tuple[float, int]:
    """Seconds for every URL through the Markdown endpoint, ``concurrency`` at a time; errors."""
    queue = list(urls)
    errors = 0

    async def worker() -> None:
        nonlocal errors
        while queue:
            url = queue.pop()
            response = await client.fetch(
                f"{api}/api/3.0/markdown/{quote(url, safe='')}?retry=false",
                headers={"X-API-Key": key},
                request_timeout=REQUEST_TIMEOUT,
                raise_error=False,
            )
            errors += response.code != 200

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - started, errors


async def probe(client: AsyncHTTPClient, api: str, key: str, url: str, count: int) -> list[float]:
    """Latencies in ms of ``count`` sequential single-page requests."""
    latencies = []
    target = f"{api}/api/3.0/markdown/{quote(url, safe='')}"
    for _ in range(count):
        started = time.perf_counter()
        await client.fetch(target, headers={"X-API-Key": key}, request_timeout=REQUEST_TIMEOUT)
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


async def bench(api: str, key: str, other: str, site: str, args: argparse.Namespace) -> int:
    client = AsyncHTTPClient(max_clients=max(args.concurrency * 2, 10))
    probe_url = site + "/docs/page-7"
    await probe(client, api, other, probe_url, 10)  # warm-up: workers, connections
    elapsed, urls, job = await run_crawl(client, api, key, site)
    crawl_rate = len(urls) / elapsed
    single_elapsed, errors = await single_pages(client, api, key, urls, args.concurrency)
    single_rate = len(urls) / single_elapsed
    print(
        f"\n(1)-(2) {len(urls)} pages ({job['progress']['failed']} failed pages not counted), "
        f"concurrency {args.concurrency}"
    )
    print(f"{'method':<32} {'seconds':>8} {'pages/s':>8} {'vs single-page':>15}")
    for name, seconds, rate in (
        ("crawl job", elapsed, crawl_rate),
        ("single-page endpoint (client)", single_elapsed, single_rate),
    ):
        print(f"{name:<32} {seconds:>8.2f} {rate:>8.1f} {rate / single_rate:>15.2f}")
    if errors:
        print(f"  single-page errors: {errors}")

    alone = await probe(client, api, other, probe_url, args.probes)
    # Polled as a client would poll a long job: its polls are not what is measured.
    crawl_task = asyncio.create_task(run_crawl(client, api, key, site, poll=1.0))
    await asyncio.sleep(1.0)  # the crawl is under way
    during = await probe(client, api, other, probe_url, args.probes)
    crawling = not crawl_task.done()
    await crawl_task
    ratio = p95(during) / p95(alone)
    print(f"\n(3) another organization's single-page requests, {args.probes} one at a time")
    print(f"{'when':<28} {'p50 ms':>8} {'p95 ms':>8}")
    print(f"{'alone':<28} {statistics.median(alone):>8.1f} {p95(alone):>8.1f}")
    print(f"{'during a crawl':<28} {statistics.median(during):>8.1f} {p95(during):>8.1f}")
    verdict = "ok" if ratio <= TARGET_RATIO else "over the target"
    print(f"p95 ratio {ratio:.2f} (target <= {TARGET_RATIO}): {verdict}")
    if not crawling:
        print("warning: the crawl ended before the probes did; raise --pages")
    return 0 if ratio <= TARGET_RATIO else 1


def serve_site(pages: int, connection: Connection) -> None:
    """The crawl site in a process of its own (so that neither it nor the measuring client
    slows the other), until told to stop."""
    with CrawlSite(SiteShape(pages=pages, slow_pages=0)).running_in_thread() as site:
        connection.send(site.base_url)
        connection.recv()


@contextlib.contextmanager
def site_process(pages: int) -> Iterator[str]:
    """The crawl site's base URL while its process runs."""
    ours, theirs = multiprocessing.Pipe()
    process = multiprocessing.get_context("spawn").Process(
        target=serve_site, args=(pages, theirs), daemon=True
    )
    process.start()
    try:
        yield str(ours.recv())
    finally:
        ours.send("stop")
        process.join(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--probes", type=int, default=150)
    parser.add_argument(
        "--conversion-workers", type=int, default=1, help="jobs.conversion_workers (default 1)"
    )
    args = parser.parse_args()
    with site_process(args.pages) as site, tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        extra = extra_config(args.concurrency, args.conversion_workers)
        process, key = start_pagecast(tmp, port, log=Path(tmp) / "server.log", extra=extra)
        try:
            other = other_key(tmp)
            return asyncio.run(bench(f"http://127.0.0.1:{port}", key, other, site, args))
        finally:
            stop_pagecast(process)


if __name__ == "__main__":
    sys.exit(main())
