"""Screenshot latency, CPU and memory: Pagecast over HTTP against bare Playwright, in one run.

Six ways to shoot the same eight local sites (127.0.0.1 to 127.0.0.8, each its own page with a
stylesheet, a script and an image), round robin, with the same Chromium:
  - pagecast, one organization: the service over HTTP, every request with one key (its pages are
    reused between captures, reset to a clean state);
  - pagecast, a new organization each request: a key of its own each time (a fresh context);
  - bare fresh context: a Playwright script, one browser, a new context per shot;
  - bare fresh context with Playwright's default flags: the same, its browser launched the way
    a script of one's own launches it (the other bare scripts share Pagecast's flags, so that
    they measure what the service adds, not what its flags save);
  - bare reused page: a Playwright script, one page per worker reused and reset between shots
    (about:blank, cookies cleared, the site's storage cleared through the DevTools protocol);
  - launch per shot: a new browser per shot, the way command-line tools do it.
Each at concurrency 1, 2 and 4, the methods taking turns in rounds (--rounds) so that the
machine's other work weighs on all alike: p50/p95 latency, shots/s and CPU per shot (every
process of the run but the origin: the client, Pagecast and its Chromium, or the script's driver
and Chromium). After each turn the run waits until the service has no work in flight in the
background (pages closed or reset after their answers, warm contexts made up) and the bare
scripts' browsers and renderers have exited: that work is billed, in CPU, to the method that left
it, not to the next one.
Then Pagecast's RSS (server plus Chromium plus workers) after 100 and after --long shots, and a
chaos minute: Chromium killed every few seconds under load; every request must be answered (200
or 503), none hung.

    python bench/screenshot.py [--shots 40] [--rounds 5] [--long 2000] [--chaos 60]
        [--methods same,reused] [--concurrency 1,2]   (a quick look; --long 0 skips the memory)
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from bare_scripts import CHROMIUM, FLAGS, Bare
from pagecast_process import (
    PYTHON,
    chromium_browsers,
    chromium_pids,
    farm_quiet,
    free_port,
    start_pagecast,
    tree_cpu_seconds,
    tree_memory_mb,
    wait_for,
)
from playwright.async_api import async_playwright
from tornado.httpclient import AsyncHTTPClient

from app.config import load_settings
from store.store import Store

SETTLE_SECONDS = 3.0
QUIET_TIMEOUT = 30.0
"""Most seconds to wait, after a turn, for the service's background work and the bare scripts'
processes to end."""
QUIET_SETTLE = 0.3
"""Seconds more once they have."""
HOSTS = tuple(f"127.0.0.{n}" for n in range(1, 9))
ORIGIN = """
import asyncio, sys, tornado.web
COLORS = ["#234", "#432", "#243", "#324", "#342", "#423", "#333", "#135"]
class Page(tornado.web.RequestHandler):
    def get(self):
        n = int(self.request.host.split(":")[0].rsplit(".", 1)[1])
        self.write(
            f"<html><head><title>Site {n}</title><link rel=stylesheet href=/style.css>"
            f"<script src=/app.js></script></head><body style='background:{COLORS[n - 1]}'>"
            f"<h1>Benchmark site {n}</h1><img src=/logo.svg width=120 height=40>"
            + f"<p>Some text of site {n} to paint, in a paragraph of its own.</p>" * 40
            + "</body></html>")
class Asset(tornado.web.RequestHandler):
    def get(self, name):
        kinds = {"css": "text/css", "js": "text/javascript", "svg": "image/svg+xml"}
        self.set_header("Content-Type", kinds[name.rsplit(".", 1)[1]])
        self.set_header("Cache-Control", "max-age=600")
        self.write({
            "style.css": "body{font:16px sans-serif;color:#eee;margin:20px}h1{font-size:28px}",
            "app.js": "document.addEventListener('DOMContentLoaded',()=>{document.title+=' ok'});",
            "logo.svg": "<svg xmlns='http://www.w3.org/2000/svg' width='120' height='40'>"
                        "<rect width='120' height='40' fill='#fa0'/></svg>",
        }[name])
async def main():
    app = tornado.web.Application([(r"/(style\\.css|app\\.js|logo\\.svg)", Asset), (r"/", Page)])
    for host in sys.argv[2:]:
        app.listen(int(sys.argv[1]), host)
    await asyncio.Event().wait()
asyncio.run(main())
"""
Shoot = Callable[[int], Awaitable[None]]
"""One shot of site number ``n`` (0-7)."""


async def settled_memory(pid: int, api_port: int) -> tuple[float, float, float]:
    """Memory once the last contexts have closed and the warm pools are made up."""
    await quiet(api_port, set())
    await asyncio.sleep(SETTLE_SECONDS)
    return tree_memory_mb(pid)


def bare_processes() -> set[int]:
    """The bare scripts' Chromium browsers and renderers (Pagecast's and the origin left out)."""
    return chromium_pids(os.getpid(), ORIGINS | SERVERS)


async def quiet(api_port: int, before: set[int]) -> None:
    """Wait (at most QUIET_TIMEOUT) until Pagecast's farm has no work in flight in the background
    and the bare scripts' browsers and renderers started since ``before`` have exited, then
    QUIET_SETTLE more."""
    deadline = time.monotonic() + QUIET_TIMEOUT
    while time.monotonic() < deadline:
        calm = await asyncio.to_thread(farm_quiet, api_port)
        if calm and not bare_processes() - before:
            break
        await asyncio.sleep(0.05)
    else:
        print(f"(still busy after {QUIET_TIMEOUT:.0f} s: going on)", file=sys.stderr)
    await asyncio.sleep(QUIET_SETTLE)


@dataclass
class Runs:
    """What shots of one method measured, added up over rounds."""

    latencies: list[float] = field(default_factory=list)
    elapsed: float = 0.0
    cpu: float = 0.0
    errors: int = 0

    def summary(self) -> dict[str, float]:
        """Latency percentiles (ms), shots per second, CPU ms per shot, errors."""
        latencies = sorted(self.latencies) or [float("nan")]
        return {
            "p50": statistics.median(latencies) * 1000,
            "p95": latencies[max(int(len(latencies) * 0.95) - 1, 0)] * 1000,
            "rate": len(self.latencies) / self.elapsed if self.elapsed else 0.0,
            "cpu": self.cpu / max(len(self.latencies), 1) * 1000,
            "errors": self.errors,
        }


async def timed_runs(shoot: Shoot, shots: int, concurrency: int, runs: Runs, api_port: int) -> None:
    """``shots`` shots at ``concurrency``, the sites in turn, added to ``runs``: latencies,
    time until the last answer, CPU seconds of this process's tree (Pagecast or the script's
    Chromium; the origin left out) until the work they left is done too (see :func:`quiet`),
    errors."""
    sites = itertools.count()
    queue = iter(range(shots))

    async def worker() -> None:
        for _ in queue:
            started = time.perf_counter()
            try:
                await shoot(next(sites) % len(HOSTS))
            except Exception:  # counted and shown: a failed shot has no latency
                runs.errors += 1
                continue
            runs.latencies.append(time.perf_counter() - started)

    before = bare_processes()
    cpu_before = tree_cpu_seconds(os.getpid(), ORIGINS)
    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    runs.elapsed += time.perf_counter() - started
    await quiet(api_port, before)
    runs.cpu += tree_cpu_seconds(os.getpid(), ORIGINS) - cpu_before


ORIGINS: frozenset[int] = frozenset()
"""The origin's process, left out of the CPU counts."""
SERVERS: frozenset[int] = frozenset()
"""Pagecast's process, left out when waiting for the bare scripts' processes to exit."""


def new_org_keys(tmp: str, count: int) -> list[str]:
    """``count`` keys, each of an organization of its own, in the server's store."""
    settings = load_settings(Path(tmp) / "config.toml")
    store = Store(settings.store)
    store.open()
    try:
        return [store.create_key(f"bench-org-{n}", "bench").key for n in range(count)]
    finally:
        store.close_sync()


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--shots", type=int, default=40, help="shots per method and concurrency (launch: a 4th)"
    )
    parser.add_argument(
        "--long",
        type=int,
        default=2000,
        help="shots before the second RSS reading (0: no memory run)",
    )
    parser.add_argument(
        "--rounds", type=int, default=5, help="turns the methods take, each time a share of shots"
    )
    parser.add_argument("--chaos", type=int, default=60, help="seconds of the chaos run (0: skip)")
    parser.add_argument(
        "--skip-compare", action="store_true", help="only the memory and chaos runs"
    )
    parser.add_argument(
        "--methods",
        default="",
        help="only these methods, for a quick look (comma-separated, any of: "
        + ", ".join(SHORT_NAMES)
        + "); the ratios need same, new, fresh, fresh-default and reused",
    )
    parser.add_argument(
        "--concurrency", default="1,2,4", help="concurrencies compared (comma-separated)"
    )
    args = parser.parse_args()
    unknown = {name.strip() for name in args.methods.split(",") if name.strip()} - set(SHORT_NAMES)
    if unknown:
        parser.error(f"unknown --methods {', '.join(sorted(unknown))}")
    try:
        if not all(value > 0 for value in _concurrencies(args)):
            raise ValueError
    except ValueError:
        parser.error("--concurrency takes positive whole numbers, comma-separated")
    global ORIGINS, SERVERS  # noqa: PLW0603 (set once, before any measurement)
    origin_port, api_port = free_port(), free_port()
    origin = subprocess.Popen([PYTHON, "-c", ORIGIN, str(origin_port), *HOSTS])
    ORIGINS = frozenset({origin.pid})
    pages = [f"http://{host}:{origin_port}/" for host in HOSTS]
    with tempfile.TemporaryDirectory() as tmp:
        server, key = start_pagecast(tmp, api_port, allow_hosts=HOSTS)
        SERVERS = frozenset({server.pid})
        try:
            for page in pages:
                wait_for(page)
            orgs = new_org_keys(tmp, 0 if args.skip_compare else args.shots * 3 + 8)
            return await run(args, pages, api_port, key, orgs, server)
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(60)
            except subprocess.TimeoutExpired:
                server.kill()
            origin.terminate()
            origin.wait(10)


SAME_ORG = "pagecast, one organization"
NEW_ORG = "pagecast, new organization each"
FRESH = "bare, fresh context"
FRESH_DEFAULT = "bare, fresh context, default flags"
REUSED = "bare, reused page"
LAUNCH = "launch per shot"
SHORT_NAMES = {
    "same": SAME_ORG,
    "new": NEW_ORG,
    "fresh": FRESH,
    "fresh-default": FRESH_DEFAULT,
    "reused": REUSED,
    "launch": LAUNCH,
}


async def compare(
    args: argparse.Namespace, pages: list[str], api_port: int, same_org: Shoot, new_org: Shoot
) -> list[tuple[int, str, dict[str, float]]]:
    """Every method at concurrency 1, 2 and 4: a row of results for each."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        default_browser = await playwright.chromium.launch(executable_path=CHROMIUM)
        bare = Bare(playwright, browser, pages)
        own_script = Bare(playwright, default_browser, pages)
        for site in range(len(pages)):  # warm-up: every site once each way
            await same_org(site)
            await bare.fresh_context(site)
            await own_script.fresh_context(site)
        # A reused page for each worker at the highest concurrency, opened now: the turns then
        # open none (their renderers would outlive the turn).
        await asyncio.gather(*(bare.reused_page(site) for site in range(4)))
        rows: list[tuple[int, str, dict[str, float]]] = []
        methods = (
            (SAME_ORG, same_org, args.shots),
            (NEW_ORG, new_org, args.shots),
            (FRESH, bare.fresh_context, args.shots),
            (FRESH_DEFAULT, own_script.fresh_context, args.shots),
            (REUSED, bare.reused_page, args.shots),
            (LAUNCH, bare.launch_per_shot, max(args.shots // 4, 4)),
        )
        if args.methods:
            chosen = {SHORT_NAMES[name.strip()] for name in args.methods.split(",") if name.strip()}
            methods = tuple(method for method in methods if method[0] in chosen)
        for concurrency in _concurrencies(args):
            # The methods take turns in rounds (each round in another order), so that what the
            # machine's other work does to one is done to all.
            measured = {name: Runs() for name, _, _ in methods}
            for turn in range(args.rounds):
                order = methods[turn % len(methods) :] + methods[: turn % len(methods)]
                for name, shoot, shots in order:
                    share = max(shots // args.rounds, 1)
                    await timed_runs(shoot, share, concurrency, measured[name], api_port)
            rows.extend((concurrency, name, measured[name].summary()) for name, _, _ in methods)
        await browser.close()
        await default_browser.close()
    return rows


def _concurrencies(args: argparse.Namespace) -> tuple[int, ...]:
    return tuple(int(value) for value in args.concurrency.split(","))


async def run(
    args: argparse.Namespace,
    pages: list[str],
    api_port: int,
    key: str,
    orgs: list[str],
    server: subprocess.Popen[bytes],
) -> int:
    client = AsyncHTTPClient(max_clients=16)
    base = f"http://127.0.0.1:{api_port}/api/1.1/screenshot/"
    targets = [quote(page, safe="") for page in pages]
    org_keys = iter(orgs)

    async def shot(site: int, app_id: str) -> None:
        url = f"{base}{targets[site]}?app_id={app_id}&cache_ok=false&format=png"
        response = await client.fetch(url, request_timeout=60)
        assert response.code == 200

    async def same_org(site: int) -> None:
        await shot(site, key)

    async def new_org(site: int) -> None:
        await shot(site, next(org_keys))

    async def via_pagecast() -> None:
        await shot(0, key)

    rows = [] if args.skip_compare else await compare(args, pages, api_port, same_org, new_org)

    print(
        f"\n{'conc':>4} {'method':<34} {'p50 ms':>8} {'p95 ms':>8} {'shots/s':>8} "
        f"{'CPU ms/shot':>11} {'errors':>6}"
    )
    for concurrency, name, row in rows:
        print(
            f"{concurrency:>4} {name:<34} {row['p50']:>8.0f} {row['p95']:>8.0f} "
            f"{row['rate']:>8.2f} {row['cpu']:>11.0f} {row['errors']:>6.0f}"
        )
    for concurrency in () if args.skip_compare else _concurrencies(args):
        by_name = {n: r for c, n, r in rows if c == concurrency}
        if not all(name in by_name for name in (SAME_ORG, NEW_ORG, FRESH, FRESH_DEFAULT, REUSED)):
            if SAME_ORG in by_name and REUSED in by_name:
                ratio = by_name[SAME_ORG]["p50"] / by_name[REUSED]["p50"]
                print(f"concurrency {concurrency}: one organization p50 / bare reused {ratio:.2f}x")
            continue
        mine, fresh = by_name[SAME_ORG], by_name[FRESH]
        print(
            f"concurrency {concurrency}: one organization p50 / bare reused page "
            f"{mine['p50'] / by_name[REUSED]['p50']:.2f}x (target <= 1.2), shots/s / bare fresh "
            f"context {mine['rate'] / fresh['rate']:.2f}x (target >= 1.8 at 2); new organization "
            f"each p50 / bare fresh context {by_name[NEW_ORG]['p50'] / fresh['p50']:.2f}x "
            "(target <= 1.2); one organization shots/s / bare fresh context with default flags "
            f"{mine['rate'] / by_name[FRESH_DEFAULT]['rate']:.2f}x"
        )

    done = 0

    async def shoot_many(count: int) -> None:
        nonlocal done
        semaphore = asyncio.Semaphore(4)

        async def one() -> None:
            nonlocal done
            async with semaphore:
                await via_pagecast()
                done += 1

        await asyncio.gather(*(one() for _ in range(count)))

    if args.long > 0:
        await memory_run(args.long, shoot_many, server.pid, api_port)

    if args.chaos:
        url = f"{base}{targets[0]}?app_id={key}&cache_ok=false&format=png"
        await chaos(args.chaos, server.pid, client, url)
    return 0


async def memory_run(
    long: int,
    shoot_many: Callable[[int], Awaitable[None]],
    server_pid: int,
    api_port: int,
) -> None:
    """Pagecast's memory after 100 shots and after ``long``."""
    await shoot_many(100)
    readings = [(100, await settled_memory(server_pid, api_port))]
    for count in range(500, long + 1, 500):
        await shoot_many(count - readings[-1][0])
        readings.append((count, await settled_memory(server_pid, api_port)))
    print("\nMemory of Pagecast (server, Chromium, workers), idle after N shots:")
    print(f"{'shots':>6} {'RSS MB':>8} {'PSS MB':>8} {'server PSS':>10}")
    for count, (rss, pss, own) in readings:
        print(f"{count:>6} {rss:>8.0f} {pss:>8.0f} {own:>10.0f}")
    (_, (rss_0, pss_0, _)), (last, (rss_n, pss_n, _)) = readings[0], readings[-1]
    print(
        f"after {last} vs after 100: RSS {(rss_n / rss_0 - 1) * 100:+.0f}%, "
        f"PSS {(pss_n / pss_0 - 1) * 100:+.0f}%"
    )


async def chaos(seconds: int, server_pid: int, client: AsyncHTTPClient, url: str) -> None:
    outcomes: dict[str, int] = {}
    deadline = time.monotonic() + seconds
    kills = 0

    async def load() -> None:
        while time.monotonic() < deadline:
            try:
                response = await client.fetch(url, request_timeout=90, raise_error=False)
                key = str(response.code)
            except Exception as exc:  # a hang would show up as a timeout here
                key = type(exc).__name__
            outcomes[key] = outcomes.get(key, 0) + 1

    async def killer() -> None:
        nonlocal kills
        while time.monotonic() < deadline:
            await asyncio.sleep(4)
            for pid in chromium_browsers(server_pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                    kills += 1
                except ProcessLookupError:
                    pass

    await asyncio.gather(killer(), *(load() for _ in range(4)))
    print(f"\nchaos: {seconds} s, Chromium killed {kills} times; answers by status: {outcomes}")
    unexpected = {k: v for k, v in outcomes.items() if k not in ("200", "503")}
    print(
        "every request answered with 200 or 503" if not unexpected else f"UNEXPECTED: {unexpected}"
    )


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
