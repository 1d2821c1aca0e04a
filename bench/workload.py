"""The mixed workload shared by the load and chaos suites.

Clients loop until a deadline, each request drawn (from a seeded generator) from five kinds:

- ``screenshot``: a 1366x768 PNG capture of an article page, ``cache_ok=false`` so every
  request takes a fresh context in the farm;
- ``markdown``: a new article URL each time, fetched and converted;
- ``markdown_cached``: one of a few article URLs, served from the page cache after the first;
- ``oembed``: a new card URL each time, resolved to an og_frame embed and a hosted frame;
- ``oembed_cached``: one of a few card URLs, answered from the oEmbed answer cache;
- ``oembed_discovery``: a new page announcing its own oEmbed endpoint, resolved by discovery
  (the page, then the provider's answer, both fetched).

Every answer is recorded with its latency; a request that gets no answer within the client's
timeout is recorded as ``hung``.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import quote

from tornado.httpclient import AsyncHTTPClient, HTTPClientError

from bench.sites import Sites

WEIGHTS = {
    "screenshot": 2,
    "markdown": 3,
    "markdown_cached": 3,
    "oembed": 2,
    "oembed_cached": 3,
    "oembed_discovery": 1,
}
# Longer than any request may take (navigation timeout, retry and margins): a request still
# unanswered at this point is hung, not slow.
CLIENT_TIMEOUT = 120.0
# After a 503, a client waits as its Retry-After says, at most this long (real clients back off;
# without it an outage turns into a flood of instant refusals).
MAX_BACKOFF = 2.0


@dataclass
class Outcome:
    kind: str
    status: str  # the HTTP status, or "hung" / the client-side error's name
    seconds: float
    started: float
    body: bytes = b""


@dataclass
class Record:
    """Everything a run answered, and the links it was promised (to check nothing was lost)."""

    outcomes: list[Outcome] = field(default_factory=list)
    frames: list[str] = field(default_factory=list)
    screenshots: list[str] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)
        if outcome.status != "200":
            return
        try:
            answer = json.loads(outcome.body)
        except ValueError:
            return
        if outcome.kind.startswith("oembed") and answer.get("frame_url"):
            self.frames.append(answer["frame_url"])  # a hosted frame (not a provider's player)
        elif outcome.kind == "screenshot" and "screenshotUrl" in answer:
            self.screenshots.append(answer["screenshotUrl"])


class Workload:
    """Builds request URLs for each kind against one Pagecast API and one origin."""

    def __init__(self, api: str, key: str, sites: Sites, seed: int = 1) -> None:
        self.api = api
        self.key = key
        self.sites = sites
        self.random = random.Random(seed)
        self.counter = 0

    def draw(self) -> tuple[str, str]:
        kind = self.random.choices(list(WEIGHTS), weights=list(WEIGHTS.values()))[0]
        return kind, self.url(kind)

    def url(self, kind: str) -> str:
        self.counter += 1
        fresh = f"{self.counter}-{self.random.randrange(10**9)}"
        few = self.random.randrange(5)
        if kind == "screenshot":
            target = self.sites.url(f"/article/shot-{few}")
            return self._api("api/1.1/screenshot", target, "dimensions=md&cache_ok=false")
        if kind == "markdown":
            return self._api("api/3.0/markdown", self.sites.url(f"/article/new-{fresh}"))
        if kind == "markdown_cached":
            return self._api("api/3.0/markdown", self.sites.url(f"/article/same-{few}"))
        if kind == "oembed":
            return self._api("api/1.1/oembed", self.sites.url(f"/card/new-{fresh}"))
        if kind == "oembed_cached":
            return self._api("api/1.1/oembed", self.sites.url(f"/card/same-{few}"))
        if kind == "oembed_discovery":
            return self._api("api/1.1/oembed", self.sites.url(f"/video/new-{fresh}"))
        raise ValueError(kind)

    def _api(self, path: str, target: str, extra: str = "") -> str:
        query = f"app_id={self.key}" + (f"&{extra}" if extra else "")
        return f"{self.api}/{path}/{quote(target, safe='')}?{query}"


async def fetch(client: AsyncHTTPClient, url: str) -> tuple[str, bytes, float]:
    """The status of one request (or why there was none), its body, and how long the client
    should wait before the next (from Retry-After on a 503)."""
    try:
        response = await client.fetch(url, request_timeout=CLIENT_TIMEOUT, raise_error=False)
    except HTTPClientError as exc:
        return ("hung" if exc.code == 599 else str(exc.code)), b"", 0.0
    except (OSError, TimeoutError) as exc:
        return type(exc).__name__, b"", 0.0
    if response.code == 599:
        return ("hung" if "Timeout" in str(response.error) else "no_answer"), b"", 0.0
    pause = 0.0
    if response.code == 503:
        try:
            pause = min(MAX_BACKOFF, float(response.headers.get("Retry-After", "1")))
        except ValueError:
            pause = 1.0
    return str(response.code), response.body or b"", pause


async def drive(workload: Workload, record: Record, seconds: float, concurrency: int) -> None:
    """``concurrency`` clients send requests back to back for ``seconds``."""
    client = AsyncHTTPClient(max_clients=concurrency * 2)
    deadline = time.monotonic() + seconds

    async def one_client() -> None:
        while time.monotonic() < deadline:
            kind, url = workload.draw()
            started = time.monotonic()
            status, body, pause = await fetch(client, url)
            record.add(Outcome(kind, status, time.monotonic() - started, started, body))
            if pause:
                await asyncio.sleep(pause)

    await asyncio.gather(*(one_client() for _ in range(concurrency)))


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def summary_table(outcomes: list[Outcome]) -> str:
    """Per kind: requests, answers by status, error rate, p50/p95/p99 latency of successes."""
    lines = [
        "| kind | requests | statuses | error rate | p50 ms | p95 ms | p99 ms |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for kind in [*WEIGHTS, "all"]:
        rows = [o for o in outcomes if kind in ("all", o.kind)]
        if not rows:
            continue
        statuses = Counter(o.status for o in rows)
        ok = [o.seconds * 1000 for o in rows if o.status == "200"]
        errors = len(rows) - statuses["200"]
        lines.append(
            f"| {kind} | {len(rows)} | "
            + ", ".join(f"{status}: {count}" for status, count in sorted(statuses.items()))
            + f" | {100 * errors / len(rows):.2f}% | {percentile(ok, 0.5):.0f} | "
            f"{percentile(ok, 0.95):.0f} | {percentile(ok, 0.99):.0f} |"
        )
    return "\n".join(lines)


def mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else float("nan")
