"""Fetcher overhead against a bare pycurl loop, and fast-request latency beside slow-drip fetches.

Starts a tiny Tornado origin in its own process (so it never shares the measuring event loop),
then measures, in this process:

(a) the same tiny page fetched N times sequentially and with concurrency 16, by a bare pycurl loop
    (one reused Easy handle; a CurlMulti of 16 handles), by Tornado's CurlAsyncHTTPClient alone,
    and by :class:`browser.fetch.client.Fetcher` (that client plus the SSRF guard, pinning, limits,
    header parsing, decoding off the IOLoop, metrics); the difference per request between the
    Fetcher and bare pycurl is the fetcher's overhead;
(b) the p95 latency of sequential fast fetches alone, then while 50 slow-drip fetches (one byte a
    second) are in flight through the same Fetcher; their ratio must stay under 1.5.

Each figure is the median of ``--rounds`` rounds. Loopback only; bounded to about a minute.

    python bench/fetch.py [--requests 2000] [--rounds 5] [--fast 400] [--slow 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pycurl
from tornado.curl_httpclient import CurlAsyncHTTPClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from browser.fetch.client import Fetcher, FetchSettings  # noqa: E402

PYTHON = sys.executable
CONCURRENCY = 16
MAX_P95_RATIO = 1.5

ORIGIN = """
import asyncio, sys, tornado.web
from tornado.iostream import StreamClosedError
PAGE = (b"<!doctype html><html><head><title>Tiny</title></head><body><h1>Tiny page</h1>"
        b"<p>A paragraph with <a href='/x'>a link</a>.</p></body></html>")
class Page(tornado.web.RequestHandler):
    def get(self):
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.write(PAGE)
RELEASE = [asyncio.Event()]
class Drip(tornado.web.RequestHandler):
    async def get(self):
        self.set_header("Content-Type", "text/html")
        release = RELEASE[0]
        try:
            for _ in range(120):
                self.write(b"x")
                await self.flush()
                try:
                    await asyncio.wait_for(release.wait(), 1)
                    break
                except TimeoutError:
                    pass
        except StreamClosedError:
            pass
class Release(tornado.web.RequestHandler):
    def get(self):
        RELEASE[0].set()
        RELEASE[0] = asyncio.Event()
async def main():
    tornado.web.Application([(r"/page", Page), (r"/drip", Drip), (r"/release", Release)]).listen(
        int(sys.argv[1]), "127.0.0.1")
    await asyncio.Event().wait()
asyncio.run(main())
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def origin() -> Iterator[str]:
    """The origin process; yields its base URL."""
    port = free_port()
    process = subprocess.Popen([PYTHON, "-c", ORIGIN, str(port)])
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{base}/page", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the origin did not come up") from None
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(10)


# -- (a) overhead -----------------------------------------------------------------------------


def _easy(url: str, sink: list[bytes]) -> pycurl.Curl:
    curl = pycurl.Curl()
    curl.setopt(pycurl.URL, url)
    curl.setopt(pycurl.WRITEFUNCTION, sink.append)
    return curl


def bare_sequential(url: str, count: int) -> float:
    """Seconds for ``count`` fetches with one reused Easy handle (keep-alive, like the client)."""
    sink: list[bytes] = []
    curl = _easy(url, sink)
    started = time.perf_counter()
    for _ in range(count):
        curl.perform()
        if curl.getinfo(pycurl.RESPONSE_CODE) != 200:
            raise RuntimeError("bare fetch failed")
    elapsed = time.perf_counter() - started
    curl.close()
    return elapsed


def bare_concurrent(url: str, count: int) -> float:
    """Seconds for ``count`` fetches by a CurlMulti keeping 16 transfers in flight."""
    multi = pycurl.CurlMulti()
    sink: list[bytes] = []
    handles = [_easy(url, sink) for _ in range(CONCURRENCY)]
    started = time.perf_counter()
    queued = 0
    for curl in handles:
        multi.add_handle(curl)
        queued += 1
    done = 0
    while done < count:
        while multi.perform()[0] == pycurl.E_CALL_MULTI_PERFORM:
            pass
        _, finished, failed = multi.info_read()
        if failed:
            raise RuntimeError(f"bare fetch failed: {failed[0][2]}")
        for curl in finished:
            done += 1
            multi.remove_handle(curl)
            if queued < count:
                multi.add_handle(curl)
                queued += 1
        if done < count:
            multi.select(1.0)
    elapsed = time.perf_counter() - started
    for curl in handles:
        curl.close()
    multi.close()
    return elapsed


class TornadoClient:
    """Tornado's curl client alone, behind the same interface as the Fetcher."""

    def __init__(self) -> None:
        self.client = CurlAsyncHTTPClient(force_instance=True, max_clients=CONCURRENCY)

    async def fetch(self, url: str) -> Any:
        response = await self.client.fetch(url, raise_error=False)
        response.ok = response.code == 200
        return response


async def fetcher_sequential(fetcher: Fetcher | TornadoClient, url: str, count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        if not (await fetcher.fetch(url)).ok:
            raise RuntimeError("fetch failed")
    return time.perf_counter() - started


async def fetcher_concurrent(fetcher: Fetcher | TornadoClient, url: str, count: int) -> float:
    async def worker(share: int) -> None:
        for _ in range(share):
            if not (await fetcher.fetch(url)).ok:
                raise RuntimeError("fetch failed")

    shares = [count // CONCURRENCY + (n < count % CONCURRENCY) for n in range(CONCURRENCY)]
    started = time.perf_counter()
    await asyncio.gather(*(worker(share) for share in shares))
    return time.perf_counter() - started


# -- (b) latency beside slow drips ------------------------------------------------------------


async def fast_latencies(fetcher: Fetcher, url: str, count: int) -> list[float]:
    latencies = []
    for _ in range(count):
        started = time.perf_counter()
        if not (await fetcher.fetch(url)).ok:
            raise RuntimeError("fetch failed")
        latencies.append(time.perf_counter() - started)
    return latencies


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


async def with_drips(fetcher: Fetcher, base: str, slow: int, fast: int) -> tuple[list[float], int]:
    """Fast latencies measured while ``slow`` drip fetches are in flight; also how many were.

    The origin ends the drips when told to (``/release``), so they finish as ordinary fetches.
    """
    drips = [asyncio.ensure_future(fetcher.fetch(f"{base}/drip?n={n}")) for n in range(slow)]
    await asyncio.sleep(1.5)  # every drip connected and dripping
    latencies = await fast_latencies(fetcher, f"{base}/page", fast)
    in_flight = sum(not drip.done() for drip in drips)
    await fetcher.fetch(f"{base}/release")
    finished = await asyncio.wait_for(asyncio.gather(*drips), 10)
    if not all(result.ok for result in finished):
        raise RuntimeError("a drip fetch failed")
    return latencies, in_flight


async def run(base: str, args: argparse.Namespace) -> dict[str, float]:
    page = f"{base}/page"
    settings = FetchSettings(
        allow_hosts=["127.0.0.1"], total_timeout=60, low_speed_time=60, max_concurrent=128
    )
    fetcher = Fetcher(settings)
    tornado_client = TornadoClient()
    loop = asyncio.get_running_loop()
    await fetcher_sequential(fetcher, page, 200)  # warm-up: handles, connections, executor
    await fetcher_sequential(tornado_client, page, 200)
    bare_sequential(page, 200)
    n = args.requests
    times: dict[str, list[float]] = {}
    for _ in range(args.rounds):  # interleaved, so that noise spreads over every contender
        measured = {
            "seq_bare": await loop.run_in_executor(None, bare_sequential, page, n),
            "seq_tornado": await fetcher_sequential(tornado_client, page, n),
            "seq_fetcher": await fetcher_sequential(fetcher, page, n),
            "con_bare": await loop.run_in_executor(None, bare_concurrent, page, n),
            "con_tornado": await fetcher_concurrent(tornado_client, page, n),
            "con_fetcher": await fetcher_concurrent(fetcher, page, n),
        }
        for name, seconds in measured.items():
            times.setdefault(name, []).append(seconds)
    tornado_client.client.close()
    alone, beside, in_flight = [], [], []
    for _ in range(args.rounds):
        alone.append(p95(await fast_latencies(fetcher, page, args.fast)))
        latencies, flying = await with_drips(fetcher, base, args.slow, args.fast)
        beside.append(p95(latencies))
        in_flight.append(flying)
    fetcher.close()
    return {
        **{f"{name}_us": statistics.median(runs) / n * 1e6 for name, runs in times.items()},
        "p95_alone_ms": statistics.median(alone) * 1e3,
        "p95_beside_ms": statistics.median(beside) * 1e3,
        "drips_in_flight": min(in_flight),
    }


def report(row: dict[str, float], args: argparse.Namespace) -> bool:
    print(f"\n(a) {args.requests} fetches of a tiny local page, median of {args.rounds} rounds")
    print("µs per request")
    columns = ("bare pycurl", 12), ("Tornado", 8), ("Fetcher", 8), ("overhead", 9), ("ratio", 6)
    print(f"{'mode':<16}" + "".join(f" {name:>{width}}" for name, width in columns))
    for mode, key in (("sequential", "seq"), (f"concurrency {CONCURRENCY}", "con")):
        bare, tornado, ours = (row[f"{key}_{who}_us"] for who in ("bare", "tornado", "fetcher"))
        print(
            f"{mode:<16} {bare:>12.0f} {tornado:>8.0f} {ours:>8.0f} {ours - bare:>9.0f} "
            f"{ours / bare:>6.2f}"
        )
    ratio = row["p95_beside_ms"] / row["p95_alone_ms"]
    print(f"\n(b) p95 of {args.fast} sequential fast fetches, median of {args.rounds} rounds")
    print(f"{'condition':<34} {'p95 ms':>8}")
    print(f"{'alone':<34} {row['p95_alone_ms']:>8.2f}")
    beside = f"beside {row['drips_in_flight']:.0f} slow-drip fetches"
    print(f"{beside:<34} {row['p95_beside_ms']:>8.2f}")
    verdict = "ok" if ratio < MAX_P95_RATIO else "TOO HIGH"
    print(f"{'ratio':<34} {ratio:>8.2f}  (limit {MAX_P95_RATIO}: {verdict})")
    print(json.dumps({**row, "p95_ratio": ratio}))
    return ratio < MAX_P95_RATIO


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--fast", type=int, default=400)
    parser.add_argument("--slow", type=int, default=50)
    args = parser.parse_args()
    started = time.monotonic()
    with origin() as base:
        row = asyncio.run(run(base, args))
    ok = report(row, args)
    print(f"\n{time.monotonic() - started:.0f} s in all")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
