"""Jobs survive their processes: real ``server.py`` processes crawl the local crawl site.

- A server killed (SIGKILL) mid-crawl and started again finishes the crawl; no page recorded
  before the kill is fetched again, and only the pages in flight at the kill are fetched twice.
- Two servers on one Postgres database share a crawl: both work on it; one stopped (SIGTERM)
  mid-crawl finishes or gives back its pages in flight and the other finishes the crawl; no page
  is fetched twice.

Pages are fetched without retries (``options.retry = false``), so every request the site counts
is a fetch the job made.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg2
import pytest

from bench.pagecast_process import free_port, start_pagecast, stop_pagecast
from browser.farm.procs import process_tree
from convert.crawl.urls import url_key
from tests.conftest import fresh_database
from tests.crawl_site import CrawlSite, SiteShape

JOBS_CONFIG = """
[jobs]
workers = 2
lease_seconds = 2.0
poll_interval = 0.1
host_delay = 0.01
[convert]
workers = 1
[farm]
warm_contexts = 0
[cache]
enabled = false
"""
MAX_DEPTH = 10


class Server:
    """One ``server.py`` on a data folder (and a Postgres database when given)."""

    def __init__(self, tmp: Path, postgres: str = "") -> None:
        self.tmp = tmp
        self.postgres = postgres
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.key = ""

    @property
    def api(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Server:
        log = self.tmp / "server.log"
        self.process, self.key = start_pagecast(
            str(self.tmp), self.port, self.postgres, log=log, extra=JOBS_CONFIG
        )
        return self

    def kill(self) -> None:
        """SIGKILL the server, then what it started (its conversion workers would outlive it)."""
        assert self.process is not None
        started = [info.pid for info in process_tree(self.process.pid)][1:]
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        for pid in started:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def stop(self) -> None:
        if self.process is not None:
            stop_pagecast(self.process)

    def call(self, path: str, body: Any = None) -> dict[str, Any]:
        request = urllib.request.Request(
            self.api + path,
            data=None if body is None else json.dumps(body).encode(),
            headers={"X-API-Key": self.key, "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:  # loopback only
            return dict(json.load(response))


def crawl(server: Server, site: CrawlSite) -> str:
    body = {
        "url": site.url("/"),
        "max_depth": MAX_DEPTH,
        "max_pages": 1000,
        "options": {"retry": False},
    }
    return str(server.call("/api/3.0/crawl", body)["id"])


def wait_for(server: Server, job_id: str, *, ended: int | None = None) -> dict[str, Any]:
    """The job once ``ended`` of its pages finished (None: once it completed)."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        job = server.call(f"/api/3.0/jobs/{job_id}?limit=0")
        progress = job["progress"]
        if ended is not None and progress["done"] + progress["failed"] >= ended:
            return job
        if job["status"] == "completed":
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not get there: {job}")


def results(server: Server, job_id: str) -> dict[str, int]:
    """Every finished page (its crawl key) and its depth; each page once."""
    found: dict[str, int] = {}
    cursor = "0"
    while True:
        body = server.call(f"/api/3.0/jobs/{job_id}?limit=100&cursor={cursor}")
        for result in body["results"]:
            assert url_key(result["url"]) not in found, result["url"]
            found[url_key(result["url"])] = result["depth"]
        cursor = body["next_cursor"]
        if not body["has_more"]:
            return found


def path_of(url: str) -> str:
    """The site's counting key of a page URL."""
    return urlsplit(url).path.rstrip("/") or "/"


@pytest.fixture
def site() -> Iterator[CrawlSite]:
    with CrawlSite(SiteShape(pages=100, slow_pages=0)).running_in_thread() as running:
        yield running


def test_a_killed_server_resumes_the_crawl_when_started_again(
    tmp_path: Path, site: CrawlSite
) -> None:
    first = Server(tmp_path).start()
    try:
        job_id = crawl(first, site)
        wait_for(first, job_id, ended=25)
        first.kill()
    finally:
        first.stop()
    database = sqlite3.connect(tmp_path / "pagecast.db")
    recorded = {
        path_of(url)
        for (url,) in database.execute(
            "SELECT url FROM job_page WHERE job_id = ? AND status IN ('done', 'failed')",
            (job_id,),
        )
    }
    database.close()
    hits_at_kill = Counter(site.page_hits)
    assert len(recorded) >= 25
    second = Server(tmp_path).start()
    try:
        job = wait_for(second, job_id)
        assert results(second, job_id) == site.expected_crawl(max_depth=MAX_DEPTH)
        assert job["progress"]["failed"] == len(site.failing & set(site.expected_crawl()))
        # Pages recorded before the kill were not fetched again; pages in flight at the kill
        # (at most the two workers) were fetched once more.
        assert all(site.page_hits[path] == hits_at_kill[path] for path in recorded)
        twice = [path for path, hits in site.page_hits.items() if hits > 1]
        assert max(site.page_hits.values()) <= 2 and len(twice) <= 2

    finally:
        second.stop()


def test_two_servers_on_one_postgres_share_a_crawl_and_hand_over(
    tmp_path: Path, site: CrawlSite
) -> None:
    with fresh_database("pagecast_jobs") as (_, url):
        (tmp_path / "a").mkdir()
        (tmp_path / "b").mkdir()
        first = Server(tmp_path / "a", url).start()
        second = Server(tmp_path / "b", url).start()
        try:
            job_id = crawl(first, site)
            wait_for(first, job_id, ended=30)
            first.stop()  # SIGTERM: its pages in flight finish or go back to the queue
            wait_for(second, job_id)
            assert results(second, job_id) == site.expected_crawl(max_depth=MAX_DEPTH)
            assert max(site.page_hits.values()) == 1
            connection = psycopg2.connect(url)
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT lease_owner, COUNT(*) FROM job_page WHERE job_id = %s "
                    "GROUP BY lease_owner",
                    (job_id,),
                )
                owners = dict(cursor.fetchall())
            connection.close()
            assert len(owners) == 2 and min(owners.values()) >= 10, owners
        finally:
            first.stop()
            second.stop()
