"""Fairness under attack: one organization's latency alone and beside another's heavy use.

One real Pagecast process (a throw-away SQLite store, loopback allowed, the shipped defaults
otherwise) serves a *victim* organization and one or more *attacker* organizations, each on a
plan of its own written into the config (high rate limits, no credit quota, job bounds wide
enough for the attacks). A local origin (a Tornado process of its own, several ports so that
each organization's jobs have a site of their own) serves the pages. Each scenario runs the
victim alone for ``--seconds``, then the same while the attacker runs (the farm's in interleaved
rounds, see 5), and a fresh Pagecast process is started for each scenario (on the same store),
so that none inherits another's queues. The victim makes sequential requests in a loop:

1. ``maps``: three attacker clients POST ``/api/3.0/map`` back to back on a site whose
   robots.txt names ten sitemaps of 5 MB of URLs each; the victim asks for the Markdown of a
   small page (``cache_ok=false``: every request fetches and converts).
2. ``large pages``: twenty attacker clients ask at once for the Markdown of ~3 MB pages (many
   paragraphs and links); the victim as above.
3. ``batches``: five attacker organizations each submit a batch of 1,000 URLs; the victim as
   above.
4. ``webhooks``: four attacker organizations run batches whose ``webhook_url`` never answers
   (the receiver holds each POST for 60 s); the victim runs 5-page batches with a webhook to a
   fast receiver, and its latency is from the batch's submission to each page event's arrival.
5. ``farm``: two attacker organizations keep eight screenshots each of a page that answers
   after 2 s in flight; the victim takes screenshots of a fast page. Its phases are
   interleaved: :data:`FARM_ROUNDS` rounds each of the victim alone then beside the attack,
   ``--seconds / FARM_ROUNDS`` each (the attack started :data:`RAMP_SECONDS` before each beside
   round, and stopped, its screenshots in flight finished, as long before the next alone
   round, the farm's background work on its pages done by then), the samples of each
   phase pooled. One alone phase then one beside phase would leave the farm's periodic events
   to one of them: the victim's pages retire after ``farm.page_reuse`` captures, so whichever
   phase is running then pays for their replacements, and caches warm up in the first phase.
   The ratios mean the same: the pooled beside p50 and p95 over the pooled alone ones.
6. ``results read``: an attacker reads its finished batch of ~2 MB Markdown pages through
   ``GET /api/3.0/jobs/{id}?limit=20``, three readers at once, over and over; the victim asks
   for Markdown as above.

During scenarios 4 and 6 the resident memory of Pagecast's process tree (the server, its
conversion workers and Chromium) is sampled, and its peak is compared with
:data:`MEMORY_CEILING_MB`. The output is one Markdown table: the victim's p50 and p95 alone and
beside the attacker, their ratios (the target: at most :data:`TARGET_RATIO`), its errors, and
what the attacker got done. A scenario that cannot run (Chromium missing, say) is reported as
such and the others go on. Nothing here tunes the server: the numbers are what the defaults do.

    python bench/fairness.py [--seconds 20] [--only maps,farm]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any
from urllib.parse import quote

import tornado.escape
import tornado.web
from pagecast_process import (
    PYTHON,
    ROOT,
    free_port,
    start_pagecast,
    stop_pagecast,
    tree_memory_mb,
    wait_for,
)
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.httpserver import HTTPServer

TARGET_RATIO = 1.5
"""The victim's p50 and p95 beside an attacker over its p50 and p95 alone should stay at most
this."""
MEMORY_CEILING_MB = 1024.0
"""The most memory (MiB) Pagecast's process tree (server, conversion workers, Chromium) may hold
while large results are read or webhooks hang, counted as PSS: the summed RSS counts the pages
Chromium's processes share once per process, over 1 GiB for an idle farm already, so it is
printed beside but not held to the ceiling."""
REQUEST_TIMEOUT = 120.0
RAMP_SECONDS = 2.0
"""Seconds the attack runs before the victim's measured requests start beside it."""
FARM_ROUNDS = 4
"""Alone and beside rounds of the farm scenario, interleaved (each phase's time split evenly)."""
ATTACKERS = 5
ORIGIN_PORTS = 8
"""Ports the origin listens on: one per organization's site, and one for the big sitemaps."""

PLANS = """
[plans.victim]
requests_per_second = 100000.0
burst = 100000
monthly_credits = 0
max_active_jobs = 100
max_queued_pages = 1000000
monthly_failed_pages = 0
[plans.attacker]
requests_per_second = 100000.0
burst = 100000
monthly_credits = 0
max_active_jobs = 100
max_queued_pages = 1000000
monthly_failed_pages = 0
"""

SMALL_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Notes on {topic}</title></head><body><nav><a href="/">Home</a></nav>
<main><article><h1>Notes on {topic}</h1>
<p>Field notes on {topic}: what we measured, what went wrong and what we would do again.</p>
<h2>Method</h2><p>Every sample was taken twice, once at dawn and once at dusk.</p>
<ul><li>Two readings a day</li><li>One notebook per site</li></ul>
<table><tr><th>Site</th><th>Dawn</th></tr><tr><td>North</td><td>4.1</td></tr></table>
</article></main><footer>The field station</footer></body></html>"""


# The origin: its own process, several ports.


def large_page(target_bytes: int, links: bool) -> bytes:
    """An article of about ``target_bytes`` of HTML: paragraphs of prose, each with two links
    when ``links``."""
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>A long read</title>"]
    parts.append("</head><body><main><article><h1>A long read</h1>")
    size, number = 0, 0
    while size < target_bytes:
        text = (
            f"Paragraph {number} of the long read goes over the readings of the season once "
            "more, site by site, and compares every one with the season before it. "
        )
        if links:
            text += (
                f'See <a href="/small/ref-{number}">reading {number}</a> and '
                f'<a href="/small/site-{number % 97}">site {number % 97}</a> for the details.'
            )
        else:
            text *= 4
        if number % 50 == 0:
            parts.append(f"<h2>Part {number // 50}</h2>")
        paragraph = f"<p>{text}</p>\n"
        parts.append(paragraph)
        size += len(paragraph)
        number += 1
    parts.append("</article></main></body></html>")
    return "".join(parts).encode()


def sitemap(base: str, number: int, target_bytes: int) -> bytes:
    """A sitemap urlset of about ``target_bytes`` listing pages of ``base``."""
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    parts.append('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
    size, index = 0, 0
    while size < target_bytes:
        entry = f"<url><loc>{base}/small/map-{number}-{index}</loc></url>\n"
        parts.append(entry)
        size += len(entry)
        index += 1
    parts.append("</urlset>\n")
    return "".join(parts).encode()


class SmallPage(tornado.web.RequestHandler):
    """``/small/<topic>`` and ``/fast/<topic>``: a short article."""

    def get(self, topic: str) -> None:
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(SMALL_PAGE.format(topic=tornado.escape.xhtml_escape(topic)))


class SlowPage(SmallPage):
    """``/slow/<topic>``: a short article answered after 2 s."""

    async def get(self, topic: str) -> None:  # type: ignore[override]
        await asyncio.sleep(2.0)
        super().get(topic)


class StaticBody(tornado.web.RequestHandler):
    """A body built once, whatever the path's argument."""

    def initialize(self, body: bytes, content_type: str) -> None:
        self.body = body
        self.content_type = content_type

    def get(self, *_: str) -> None:
        self.set_header("Content-Type", self.content_type)
        self.finish(self.body)


class HangingReceiver(tornado.web.RequestHandler):
    """``POST /hang``: a webhook receiver that holds every request for 60 s."""

    async def post(self) -> None:
        await asyncio.sleep(60.0)
        self.finish("ok")


def origin_app(base: str, sitemaps: bool, bodies: dict[str, bytes]) -> tornado.web.Application:
    """The origin's routes for the site at ``base``; with ``sitemaps`` its robots.txt names the
    ten big sitemaps."""
    robots = "User-agent: *\nAllow: /\n"
    if sitemaps:
        robots += "".join(f"Sitemap: {base}/sitemap-{n}.xml\n" for n in range(10))
    html = "text/html; charset=utf-8"
    return tornado.web.Application(
        [
            (r"/robots\.txt", StaticBody, {"body": robots.encode(), "content_type": "text/plain"}),
            (r"/(?:small|fast)/(.*)", SmallPage),
            (r"/slow/(.*)", SlowPage),
            (r"/large/(.*)", StaticBody, {"body": bodies["large"], "content_type": html}),
            (r"/bigmd/(.*)", StaticBody, {"body": bodies["bigmd"], "content_type": html}),
            (r"/hang", HangingReceiver),
            (
                r"/sitemap-(\d+)\.xml",
                StaticBody,
                {"body": bodies["sitemap"], "content_type": "application/xml"},
            ),
            (r"/()", SmallPage),
        ],
        log_function=lambda handler: None,
    )


def serve_origin(ports: list[int], connection: Connection) -> None:
    """Serve the origin on ``ports`` (the last one with the big sitemaps) until told to stop."""

    async def run() -> None:
        last = f"http://127.0.0.1:{ports[-1]}"
        bodies = {
            "large": large_page(3_000_000, links=True),
            "bigmd": large_page(2_100_000, links=False),
            # One body serves all ten sitemaps: each is 5 MB, and the map reads them all.
            "sitemap": sitemap(last, 0, 5_000_000),
        }
        for port in ports:
            base = f"http://127.0.0.1:{port}"
            app = origin_app(base, port == ports[-1], bodies)
            HTTPServer(app, max_buffer_size=2**26).listen(port, "127.0.0.1")
        connection.send("ready")
        await asyncio.to_thread(connection.recv)

    asyncio.run(run())


@contextlib.contextmanager
def origin_process() -> Iterator[list[str]]:
    """The origin's base URLs (one per port; the last has the big sitemaps) while it runs."""
    ports = [free_port() for _ in range(ORIGIN_PORTS)]
    ours, theirs = multiprocessing.Pipe()
    process = multiprocessing.get_context("spawn").Process(
        target=serve_origin, args=(ports, theirs), daemon=True
    )
    process.start()
    try:
        if not ours.poll(60) or ours.recv() != "ready":
            raise RuntimeError("the origin did not come up")
        yield [f"http://127.0.0.1:{port}" for port in ports]
    finally:
        with contextlib.suppress(OSError):
            ours.send("stop")
        process.join(10)
        if process.is_alive():
            process.kill()


# The attacks: each in a process of its own, so its client never delays the victim's.


@dataclass
class AttackSpec:
    """What an attack does, where, and with which keys."""

    kind: str
    api: str
    keys: list[str]
    sites: list[str]
    job_id: str = ""
    """The finished job the ``results`` attack reads."""
    first: int = 0
    """The number of its first page (each round of an interleaved scenario asks for new
    pages: none of a round before is a capture to reuse)."""


@dataclass
class Tally:
    """What an attack got: answers by status, and notes."""

    statuses: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    bytes_read: int = 0

    def summary(self) -> str:
        """The answers by status and the notes, in one line."""
        answers = ", ".join(f"{code}: {n}" for code, n in sorted(self.statuses.items()))
        parts = [f"attacker answers {answers}" if answers else "no attacker answers"]
        return "; ".join(parts + self.notes)


async def send(
    client: AsyncHTTPClient, url: str, key: str, body: object = None, method: str = ""
) -> HTTPResponse:
    """One request with the key in a header, its answer whatever the status."""
    return await client.fetch(
        url,
        method=method or ("GET" if body is None else "POST"),
        body=None if body is None else json.dumps(body),
        headers={"X-API-Key": key, "Content-Type": "application/json"},
        request_timeout=REQUEST_TIMEOUT,
        raise_error=False,
    )


def status_of(response: HTTPResponse) -> str:
    """The answer's status, or the client's error (599) by name."""
    if response.code == 599:
        return f"599 {type(response.error).__name__}"
    return str(response.code)


async def loop_requests(
    count: int,
    one: Callable[[int], Awaitable[str]],
    tally: Tally,
    stop: asyncio.Event,
    first: int = 0,
) -> None:
    """``count`` clients, each calling ``one`` back to back until ``stop``, with numbers from
    ``first``."""
    numbers = iter(range(first, first + 10**9))

    async def client() -> None:
        while not stop.is_set():
            tally.statuses[await one(next(numbers))] += 1

    await asyncio.gather(*(client() for _ in range(count)))


async def submit_batches(
    client: AsyncHTTPClient, spec: AttackSpec, pages: int, webhook: str
) -> list[tuple[str, str]]:
    """One batch of ``pages`` URLs per key, each on its own site: (key, job id) of each."""
    jobs = []
    for number, key in enumerate(spec.keys):
        site = spec.sites[number]
        body: dict[str, Any] = {"urls": [f"{site}/small/a{number}-{i}" for i in range(pages)]}
        if webhook:
            body["webhook_url"] = webhook
        response = await send(client, f"{spec.api}/api/3.0/batch", key, body)
        if response.code != 202:
            raise RuntimeError(f"batch refused: {response.code} {response.body[:200]!r}")
        jobs.append((key, json.loads(response.body)["id"]))
    return jobs


async def end_batches(client: AsyncHTTPClient, api: str, jobs: list[tuple[str, str]]) -> str:
    """Cancel the attacker's jobs; what they had done by then."""
    done = failed = 0
    for key, job_id in jobs:
        answer = await send(client, f"{api}/api/3.0/jobs/{job_id}?limit=0", key)
        if answer.code == 200:
            progress = json.loads(answer.body)["progress"]
            done += progress["done"]
            failed += progress["failed"]
        await send(client, f"{api}/api/3.0/jobs/{job_id}", key, method="DELETE")
    return f"{len(jobs)} jobs: {done} pages done, {failed} failed before they were cancelled"


CURSOR = re.compile(rb'"next_cursor":\s*"?([^",}]*)"?,\s*"has_more":\s*(true|false)')


def read_on(body: bytes) -> tuple[bool, str]:
    """Whether a job's answer has more results and its next cursor, found in the answer's tail
    (the fields after the results) without parsing the megabytes before them, so that the
    reading client takes little of the machine's CPU from the server."""
    found = CURSOR.search(body[-4096:])
    if found:
        return found.group(2) == b"true", found.group(1).decode()
    page = json.loads(body)
    return bool(page["has_more"]), str(page["next_cursor"])


async def attack(spec: AttackSpec, started: Callable[[], None], stop: asyncio.Event) -> Tally:
    """Run ``spec``'s attack until ``stop``; ``started`` is called once it is under way."""
    client = AsyncHTTPClient(force_instance=True, max_clients=64, max_body_size=2**30)
    tally = Tally()
    api, key = spec.api, spec.keys[0]
    if spec.kind == "maps":
        site = spec.sites[-1]
        maps: Counter[str] = Counter()

        async def one_map(_: int) -> str:
            body = {"url": site + "/", "limit": 5000}
            response = await send(client, f"{api}/api/3.0/map", key, body)
            if response.code == 200:
                answer = json.loads(response.body)
                maps["complete" if answer["complete"] else "cut short"] += 1
                maps["sitemaps read"] += answer["sitemaps_read"]
            return status_of(response)

        started()
        await loop_requests(3, one_map, tally, stop)
        tally.notes.append(", ".join(f"{name} {n}" for name, n in sorted(maps.items())))
    elif spec.kind == "large":

        async def one_large(number: int) -> str:
            target = quote(f"{spec.sites[0]}/large/{number}", safe="")
            url = f"{api}/api/3.0/markdown?url={target}&cache_ok=false"
            response = await send(client, url, key)
            tally.bytes_read += len(response.body or b"")
            return status_of(response)

        started()
        await loop_requests(20, one_large, tally, stop)
        tally.notes.append(f"{tally.bytes_read / 2**20:.0f} MiB of Markdown read")
    elif spec.kind in ("batches", "webhooks"):
        hook = f"{spec.sites[-1]}/hang" if spec.kind == "webhooks" else ""
        jobs = await submit_batches(client, spec, 1000 if spec.kind == "batches" else 250, hook)
        tally.statuses["202"] += len(jobs)
        started()
        await stop.wait()
        tally.notes.append(await end_batches(client, api, jobs))
    elif spec.kind == "farm":

        async def one_shot(number: int) -> str:
            owner = spec.keys[number % 2]
            target = quote(f"{spec.sites[number % 2]}/slow/{number}", safe="")
            url = f"{api}/api/1.1/screenshot?url={target}"
            return status_of(await send(client, url, owner))

        started()
        await loop_requests(16, one_shot, tally, stop, spec.first)
    elif spec.kind == "results":

        async def one_read(_: int) -> str:
            cursor, status = "0", "200"
            while status == "200":
                url = f"{api}/api/3.0/jobs/{spec.job_id}?limit=20&cursor={cursor}"
                response = await send(client, url, key)
                status = status_of(response)
                tally.bytes_read += len(response.body or b"")
                if response.code != 200:
                    break
                more, cursor = read_on(response.body)
                if not more or stop.is_set():
                    break
                tally.statuses[status] += 1
            return status

        started()
        await loop_requests(3, one_read, tally, stop)
        tally.notes.append(f"{tally.bytes_read / 2**20:.0f} MiB of results read")
    else:
        raise ValueError(spec.kind)
    return tally


def run_attack(spec: AttackSpec, connection: Connection) -> None:
    """The attack's process: ``started`` once under way, its :class:`Tally` once stopped."""

    async def run() -> None:
        stop = asyncio.Event()

        async def wait_for_stop() -> None:
            await asyncio.to_thread(connection.recv)
            stop.set()

        waiter = asyncio.create_task(wait_for_stop())
        try:
            tally = await attack(spec, lambda: connection.send("started"), stop)
        except Exception as exc:  # reported to the bench, which notes it
            connection.send(Tally(notes=[f"attack failed: {exc!r}"[:300]]))
            raise
        connection.send(tally)
        await waiter

    asyncio.run(run())


class AttackProcess:
    """An attack running in a process of its own."""

    def __init__(self, spec: AttackSpec) -> None:
        self.connection, theirs = multiprocessing.Pipe()
        self.process = multiprocessing.get_context("spawn").Process(
            target=run_attack, args=(spec, theirs), daemon=True
        )

    async def start(self) -> None:
        """Start the process and wait until its attack is under way."""
        self.process.start()
        message = await asyncio.to_thread(self.connection.recv)
        if isinstance(message, Tally):
            raise RuntimeError("; ".join(message.notes))

    async def stop(self) -> Tally:
        """Stop the attack; what it got."""
        self.connection.send("stop")
        tally: Tally = await asyncio.to_thread(self.connection.recv)
        await asyncio.to_thread(self.process.join, 30)
        if self.process.is_alive():
            self.process.kill()
        return tally


# The victim and what is measured.


@dataclass
class Sample:
    """The victim's latencies (ms) and errors over one phase, and the memory peak (MiB)."""

    latencies: list[float] = field(default_factory=list)
    timings: list[tuple[float, str]] = field(default_factory=list)
    """Each success's latency (ms) and its ``Server-Timing`` header (where the server's time
    went: ``queue``, ``fetch``, ``conversion``, ``navigation``, ``capture``...)."""
    errors: Counter[str] = field(default_factory=Counter)
    peak_tree_rss_mb: float = 0.0
    peak_tree_pss_mb: float = 0.0
    peak_server_mb: float = 0.0
    server_cpu: float = 0.0
    """The server process's own CPU time (its threads, not its children) over the phase, as a
    share of one core."""
    seconds: float = 0.0
    """How long the phase ran."""

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies) if self.latencies else float("nan")

    @property
    def p95(self) -> float:
        if len(self.latencies) < 2:
            return self.p50
        return statistics.quantiles(self.latencies, n=20)[-1]


class WebhookReceiver:
    """The victim's fast webhook receiver (in the bench's own loop): when each page event of a
    job arrived, and a future for its end event."""

    def __init__(self) -> None:
        self.arrivals: dict[str, list[float]] = {}
        self.changed: dict[str, asyncio.Event] = {}
        receiver = self

        class Handler(tornado.web.RequestHandler):
            def post(self) -> None:
                receiver.record(json.loads(self.request.body))
                self.finish("ok")

        self.port = free_port()
        self.server = HTTPServer(tornado.web.Application([(r"/hook", Handler)]))
        self.server.listen(self.port, "127.0.0.1")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def record(self, event: dict[str, Any]) -> None:
        """Note a page event's arrival (events of other kinds, the job's end, are not timed)."""
        job = str(event["job_id"])
        if event["event"] == "page":
            self.arrivals.setdefault(job, []).append(time.perf_counter())
            self.changed.setdefault(job, asyncio.Event()).set()

    async def wait_for_pages(self, job: str, pages: int, timeout: float) -> list[float]:
        """When each of ``job``'s page events arrived, once ``pages`` of them have or after
        ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        changed = self.changed.setdefault(job, asyncio.Event())
        while len(self.arrivals.get(job, [])) < pages and time.monotonic() < deadline:
            changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), deadline - time.monotonic())
        self.changed.pop(job, None)
        return self.arrivals.pop(job, [])


@dataclass
class Victim:
    """The victim organization: its key, its site, the API and its webhook receiver."""

    api: str
    key: str
    site: str
    receiver: WebhookReceiver
    client: AsyncHTTPClient
    counter: int = 0

    def next_number(self) -> int:
        self.counter += 1
        return self.counter

    async def markdown(self, sample: Sample) -> None:
        """One Markdown request for a small page, fetched and converted anew."""
        target = quote(f"{self.site}/small/victim", safe="")
        url = f"{self.api}/api/3.0/markdown?url={target}&cache_ok=false"
        started = time.perf_counter()
        response = await send(self.client, url, self.key)
        self.count(sample, response, started)

    async def screenshot(self, sample: Sample) -> None:
        """One screenshot of a fast page (a new URL each time: no reused capture)."""
        target = quote(f"{self.site}/fast/{self.next_number()}", safe="")
        url = f"{self.api}/api/1.1/screenshot?url={target}"
        started = time.perf_counter()
        response = await send(self.client, url, self.key)
        self.count(sample, response, started)

    async def webhook_batch(self, sample: Sample, pages: int = 5) -> None:
        """A batch of ``pages`` small pages with a webhook: one latency per page event, from
        the submission to its arrival; a page without an event within 60 s is an error."""
        number = self.next_number()
        body = {
            "urls": [f"{self.site}/small/v{number}-{i}" for i in range(pages)],
            "webhook_url": self.receiver.url,
        }
        started = time.perf_counter()
        response = await send(self.client, f"{self.api}/api/3.0/batch", self.key, body)
        if response.code != 202:
            sample.errors[status_of(response)] += pages
            await asyncio.sleep(0.5)
            return
        job = json.loads(response.body)["id"]
        arrivals = await self.receiver.wait_for_pages(job, pages, 60.0)
        sample.latencies += [(moment - started) * 1000 for moment in arrivals]
        if len(arrivals) < pages:
            sample.errors["no page event in 60 s"] += pages - len(arrivals)

    @staticmethod
    def count(sample: Sample, response: HTTPResponse, started: float) -> None:
        """A success's latency, or an error by status."""
        if response.code == 200:
            took = (time.perf_counter() - started) * 1000
            sample.latencies.append(took)
            sample.timings.append((took, response.headers.get("Server-Timing", "")))
        else:
            sample.errors[status_of(response)] += 1


async def sample_memory(pid: int, sample: Sample, stop: asyncio.Event) -> None:
    """The peaks of the process tree's summed RSS and PSS and of the server process's own RSS,
    every 0.5 s."""
    while not stop.is_set():
        rss, pss, _ = await asyncio.to_thread(tree_memory_mb, pid)
        own = server_rss_mb(pid)
        sample.peak_tree_rss_mb = max(sample.peak_tree_rss_mb, rss)
        sample.peak_tree_pss_mb = max(sample.peak_tree_pss_mb, pss)
        sample.peak_server_mb = max(sample.peak_server_mb, own)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


def server_rss_mb(pid: int) -> float:
    """The resident memory of one process (not its children), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def measure(
    one: Callable[[Sample], Awaitable[None]], seconds: float, pid: int, watch_memory: bool
) -> Sample:
    """Call ``one`` back to back for ``seconds``; the server's CPU share meanwhile, and its
    memory when ``watch_memory``."""
    sample = Sample()
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_memory(pid, sample, stop)) if watch_memory else None
    started, cpu = time.monotonic(), process_cpu_seconds(pid)
    while time.monotonic() < started + seconds:
        await one(sample)
    sample.seconds = time.monotonic() - started
    sample.server_cpu = (process_cpu_seconds(pid) - cpu) / sample.seconds
    stop.set()
    if sampler:
        await sampler
    return sample


def pooled(samples: list[Sample]) -> Sample:
    """One phase's rounds as one sample: their latencies and errors together, the memory peaks'
    highest, the server's CPU share over their time together."""
    pool = Sample()
    for sample in samples:
        pool.latencies += sample.latencies
        pool.timings += sample.timings
        pool.errors += sample.errors
        pool.peak_tree_rss_mb = max(pool.peak_tree_rss_mb, sample.peak_tree_rss_mb)
        pool.peak_tree_pss_mb = max(pool.peak_tree_pss_mb, sample.peak_tree_pss_mb)
        pool.peak_server_mb = max(pool.peak_server_mb, sample.peak_server_mb)
        pool.seconds += sample.seconds
    if pool.seconds:
        pool.server_cpu = sum(s.server_cpu * s.seconds for s in samples) / pool.seconds
    return pool


def process_cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) one process has used, all its threads, not its
    children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# Scenarios.


@dataclass
class Scenario:
    """A row of the table: the attack, how the victim measures, whether memory is watched."""

    name: str
    attack: str
    victim: str
    memory: bool = False
    rounds: int = 1
    """Alone and beside rounds, interleaved (1: one alone phase, then one beside)."""


SCENARIOS = [
    Scenario("maps of oversized sitemaps", "maps", "markdown"),
    Scenario("20 large pages at once", "large", "markdown"),
    Scenario("5 organizations' 1,000-URL batches", "batches", "markdown"),
    Scenario("hanging webhook receivers", "webhooks", "webhook", memory=True),
    Scenario("two organizations filling the farm", "farm", "screenshot", rounds=FARM_ROUNDS),
    Scenario("results read (~2 MB pages, 3 at once)", "results", "markdown", memory=True),
]


@dataclass
class Row:
    """One scenario's outcome."""

    scenario: Scenario
    alone: Sample | None = None
    beside: Sample | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class Bench:
    """The store, the keys and the origin every scenario shares."""

    tmp: str
    sites: list[str]
    seconds: float
    receiver: WebhookReceiver
    keys: dict[str, str] = field(default_factory=dict)

    @contextlib.asynccontextmanager
    async def pagecast(self) -> AsyncIterator[tuple[int, str]]:
        """A fresh Pagecast process on the shared store: its pid and API base URL."""
        port = free_port()
        log = Path(self.tmp) / "server.log"
        process, _ = await asyncio.to_thread(start_pagecast, self.tmp, port, log=log, extra=PLANS)
        try:
            yield process.pid, f"http://127.0.0.1:{port}"
        finally:
            await asyncio.to_thread(stop_pagecast, process)

    def create_keys(self) -> None:
        """A key for the victim and each attacker organization, each on its plan."""
        orgs = [("victim", "victim")] + [(f"attacker-{n}", "attacker") for n in range(ATTACKERS)]
        env = {"PAGECAST_CONFIG": str(Path(self.tmp) / "config.toml"), "PATH": "/usr/bin:/bin"}
        for org, plan in orgs:
            created = subprocess.run(
                [PYTHON, str(ROOT / "server.py"), "keys", "create", "--org", org, "--plan", plan],
                env=env,
                capture_output=True,
                text=True,
                check=True,
                timeout=60,
            )
            self.keys[org] = created.stdout.strip().splitlines()[-1]

    def attacker_keys(self, count: int) -> list[str]:
        return [self.keys[f"attacker-{n}"] for n in range(count)]

    async def prepare_results(self, api: str, client: AsyncHTTPClient) -> tuple[str, str]:
        """A finished batch of 16 pages of ~2 MB of Markdown each; its id and a note."""
        key = self.keys["attacker-0"]
        urls = [f"{self.sites[1]}/bigmd/{n}" for n in range(16)]
        response = await send(client, f"{api}/api/3.0/batch", key, {"urls": urls})
        if response.code != 202:
            raise RuntimeError(f"batch refused: {response.code}")
        job = json.loads(response.body)["id"]
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            answer = json.loads((await send(client, f"{api}/api/3.0/jobs/{job}?limit=0", key)).body)
            if answer["status"] not in ("queued", "running"):
                break
            await asyncio.sleep(1.0)
        first = await send(client, f"{api}/api/3.0/jobs/{job}?limit=1", key)
        results = json.loads(first.body)["results"]
        size = len(results[0].get("markdown") or "") if results else 0
        done = answer["progress"]["done"]
        return job, f"job of {done} pages of {size / 1e6:.1f} MB of Markdown each"

    async def run(self, scenario: Scenario) -> Row:
        """One scenario on a fresh Pagecast: warm-up, the victim alone, then beside the
        attack."""
        row = Row(scenario)
        async with self.pagecast() as (pid, api):
            client = AsyncHTTPClient(force_instance=True, max_clients=16, max_body_size=2**30)
            victim = Victim(api, self.keys["victim"], self.sites[0], self.receiver, client)
            one: Callable[[Sample], Awaitable[None]] = {
                "markdown": victim.markdown,
                "screenshot": victim.screenshot,
                "webhook": victim.webhook_batch,
            }[scenario.victim]
            spec = AttackSpec(scenario.attack, api, [], self.sites[1:])
            if scenario.attack == "results":
                spec.job_id, note = await self.prepare_results(api, client)
                row.notes.append(note)
            spec.keys = self.attacker_keys(
                {"batches": 5, "webhooks": 4, "farm": 2}.get(scenario.attack, 1)
            )
            warm = Sample()
            for _ in range(3):
                await one(warm)
            if not warm.latencies:
                errors = ", ".join(f"{code} x{n}" for code, n in warm.errors.items())
                row.notes.append(f"could not run: the victim's warm-up failed ({errors})")
                return row
            alone: list[Sample] = []
            beside: list[Sample] = []
            tally = Tally()
            seconds = self.seconds / scenario.rounds
            for number in range(scenario.rounds):
                spec.first = number * 2 * 10**9  # even: each page stays with its organization
                if number:  # the attack's pages closed or reset in the background first
                    await asyncio.sleep(RAMP_SECONDS)
                alone.append(await measure(one, seconds, pid, scenario.memory))
                attacker = AttackProcess(spec)
                await attacker.start()
                await asyncio.sleep(RAMP_SECONDS)
                beside.append(await measure(one, seconds, pid, scenario.memory))
                got = await attacker.stop()
                tally.statuses += got.statuses
                tally.bytes_read += got.bytes_read
                tally.notes += [note for note in got.notes if note not in tally.notes]
            row.alone, row.beside = pooled(alone), pooled(beside)
            row.notes.insert(0, tally.summary())
        return row


# The report.


def ratio(beside: float, alone: float) -> str:
    """``beside / alone`` with a mark when over the target."""
    if not alone or alone != alone or beside != beside:
        return "-"
    value = beside / alone
    return f"{value:.2f}" + (" (over)" if value > TARGET_RATIO else "")


def errors_cell(row: Row) -> str:
    """The victim's errors alone / beside, with their statuses beside."""
    if row.alone is None or row.beside is None:
        return "-"
    alone, beside = sum(row.alone.errors.values()), sum(row.beside.errors.values())
    cell = f"{alone} / {beside}"
    kinds = row.alone.errors + row.beside.errors
    if kinds:
        cell += " (" + ", ".join(f"{code} x{n}" for code, n in kinds.most_common(3)) + ")"
    return cell


def table(rows: list[Row]) -> str:
    """The Markdown table: a row per scenario, then the memory rows."""
    lines = [
        "| scenario | victim p50 alone ms | p50 beside ms | ratio | p95 alone ms "
        "| p95 beside ms | ratio | victim errors (alone / beside) | notes |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for row in rows:
        alone, beside = row.alone, row.beside
        if alone is None or beside is None:
            lines.append(
                f"| {row.scenario.name} | - | - | - | - | - | - | - | {'; '.join(row.notes)} |"
            )
            continue
        counts = (
            f"{len(alone.latencies)} / {len(beside.latencies)} victim samples; server process "
            f"CPU {alone.server_cpu:.0%} / {beside.server_cpu:.0%} of a core"
        )
        lines.append(
            f"| {row.scenario.name} | {alone.p50:.0f} | {beside.p50:.0f} | "
            f"{ratio(beside.p50, alone.p50)} | {alone.p95:.0f} | {beside.p95:.0f} | "
            f"{ratio(beside.p95, alone.p95)} | {errors_cell(row)} | "
            f"{'; '.join([counts, *row.notes])} |"
        )
    for row in rows:
        if not row.scenario.memory or row.beside is None or row.alone is None:
            continue
        alone, beside = row.alone, row.beside
        peak = beside.peak_tree_pss_mb
        verdict = "within" if peak <= MEMORY_CEILING_MB else "over"
        lines.append(
            f"| peak memory: {row.scenario.name} | - | - | - | - | - | - | - | "
            f"process tree PSS {peak:.0f} MiB beside ({alone.peak_tree_pss_mb:.0f} alone), "
            f"summed RSS {beside.peak_tree_rss_mb:.0f} ({alone.peak_tree_rss_mb:.0f}); "
            f"server process RSS {beside.peak_server_mb:.0f} ({alone.peak_server_mb:.0f}); "
            f"ceiling {MEMORY_CEILING_MB:.0f} MiB of tree PSS: {verdict} |"
        )
    return "\n".join(lines)


async def run(args: argparse.Namespace) -> int:
    """Every scenario asked for, one after the other; the table."""
    chosen = [s for s in SCENARIOS if not args.only or s.attack in args.only.split(",")]
    receiver = WebhookReceiver()
    rows: list[Row] = []
    with origin_process() as sites, tempfile.TemporaryDirectory(prefix="pagecast-fair-") as tmp:
        wait_for(sites[0] + "/small/up")
        bench = Bench(tmp, sites, args.seconds, receiver)
        async with bench.pagecast():  # writes the config with the plans, makes the store
            await asyncio.to_thread(bench.create_keys)
        for scenario in chosen:
            started = time.monotonic()
            print(f"{scenario.name}...", file=sys.stderr, flush=True)
            try:
                row = await bench.run(scenario)
            except Exception as exc:  # one scenario failing must not stop the others
                row = Row(scenario, notes=[f"could not run: {exc!r}"[:300]])
            rows.append(row)
            print(f"  {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    print(
        f"\nfairness: {args.seconds:.0f} s alone and {args.seconds:.0f} s beside per scenario, "
        f"{platform.python_version()}, target ratio <= {TARGET_RATIO}\n"
    )
    print(table(rows))
    if args.timings:
        print(slowest_timings(rows))
    return 0


def slowest_timings(rows: list[Row]) -> str:
    """Where the server's time went in the victim's slowest twentieth of answers (at or above
    its p95), alone and beside the attack: the mean milliseconds of each ``Server-Timing``
    entry."""
    lines = ["\nThe victim's slowest answers (p95 and above): mean ms per Server-Timing entry\n"]
    for row in rows:
        for phase, sample in (("alone", row.alone), ("beside", row.beside)):
            if sample is None or not sample.timings:
                continue
            slow = [header for took, header in sample.timings if took >= sample.p95]
            spent: Counter[str] = Counter()
            for header in slow:
                for entry in header.split(","):
                    name, _, rest = entry.strip().partition(";")
                    found = re.search(r"dur=([0-9.]+)", rest)
                    if name and found:
                        spent[name] += float(found.group(1))
            means = ", ".join(f"{name} {ms / len(slow):.0f}" for name, ms in spent.most_common())
            lines.append(f"- {row.scenario.name}, {phase} ({len(slow)} answers): {means or '-'}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="per phase (default 20)")
    parser.add_argument(
        "--only", default="", help="attacks to run, comma-separated (maps,large,batches,...)"
    )
    parser.add_argument(
        "--timings",
        action="store_true",
        help="also print where the server's time went in the victim's slowest answers",
    )
    return asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
