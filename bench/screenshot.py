"""Screenshot latency and memory: Pagecast over HTTP against bare Playwright, in one run.

Three ways to shoot the same local page with the same Chromium:
  - pagecast: the service over HTTP (warm farm, cache_ok=false so every request captures);
  - fresh context: a bare Playwright script, one browser, a new context per shot;
  - launch per shot: a new browser per shot, the way command-line tools do it.
Each at concurrency 1, 2 and 4: p50/p95 latency and shots/s. Then Pagecast's RSS (server plus
Chromium plus workers) after 100 and after --long shots, and a chaos minute: Chromium killed
every few seconds under load; every request must be answered (200 or 503), none hung.

    python bench/screenshot.py [--shots 40] [--long 2000] [--chaos 60]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from urllib.parse import quote

from pagecast_process import (
    PYTHON,
    chromium_browsers,
    free_port,
    start_pagecast,
    tree_memory_mb,
    wait_for,
)
from playwright.async_api import async_playwright
from tornado.httpclient import AsyncHTTPClient

from browser.farm.browser import LAUNCH_ARGS

CHROMIUM = "/usr/bin/chromium"
FLAGS = list(LAUNCH_ARGS)  # the flags Pagecast launches Chromium with
SETTLE_SECONDS = 3.0
ORIGIN = """
import asyncio, sys, tornado.web
class Page(tornado.web.RequestHandler):
    def get(self):
        self.write("<html><head><title>Bench</title></head><body style='font:16px sans-serif'>"
                   "<h1>Benchmark page</h1>" + "<p>Some text to paint.</p>" * 40 + "</body></html>")
async def main():
    tornado.web.Application([(r"/", Page)]).listen(int(sys.argv[1]), "127.0.0.1")
    await asyncio.Event().wait()
asyncio.run(main())
"""


async def settled_memory(pid: int) -> tuple[float, float, float]:
    """Memory once the last contexts have closed and the warm pools are made up."""
    await asyncio.sleep(SETTLE_SECONDS)
    return tree_memory_mb(pid)


async def timed_runs(shoot, shots: int, concurrency: int) -> dict[str, float]:  # type: ignore[no-untyped-def]
    latencies: list[float] = []
    queue = iter(range(shots))

    errors = 0

    async def worker() -> None:
        nonlocal errors
        for _ in queue:
            started = time.perf_counter()
            try:
                await shoot()
            except Exception:  # counted and shown: a failed shot has no latency
                errors += 1
                continue
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "p50": statistics.median(latencies) * 1000,
        "p95": latencies[int(len(latencies) * 0.95) - 1] * 1000,
        "rate": len(latencies) / elapsed,
        "errors": errors,
    }


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", type=int, default=40, help="shots per method and concurrency")
    parser.add_argument(
        "--long", type=int, default=2000, help="shots before the second RSS reading"
    )
    parser.add_argument("--chaos", type=int, default=60, help="seconds of the chaos run (0: skip)")
    parser.add_argument(
        "--skip-compare", action="store_true", help="only the memory and chaos runs"
    )
    args = parser.parse_args()
    origin_port, api_port = free_port(), free_port()
    origin = subprocess.Popen([PYTHON, "-c", ORIGIN, str(origin_port)])
    page = f"http://127.0.0.1:{origin_port}/"
    with tempfile.TemporaryDirectory() as tmp:
        server, key = start_pagecast(tmp, api_port)
        try:
            wait_for(page)
            return await run(args, page, api_port, key, server)
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(60)
            except subprocess.TimeoutExpired:
                server.kill()
            origin.terminate()
            origin.wait(10)


async def run(
    args: argparse.Namespace, page: str, api_port: int, key: str, server: subprocess.Popen[bytes]
) -> int:
    client = AsyncHTTPClient(max_clients=16)
    target = quote(page, safe="")
    url = f"http://127.0.0.1:{api_port}/api/1.1/screenshot/{target}?app_id={key}&cache_ok=false"
    url += "&format=png"

    async def via_pagecast() -> None:
        response = await client.fetch(url, request_timeout=60)
        assert response.code == 200

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)

        async def fresh_context() -> None:
            context = await browser.new_context(viewport={"width": 1366, "height": 768})
            try:
                tab = await context.new_page()
                await tab.goto(page)
                await tab.screenshot(type="png")
            finally:
                await context.close()

        async def launch_per_shot() -> None:
            own = await playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            try:
                tab = await own.new_page(viewport={"width": 1366, "height": 768})
                await tab.goto(page)
                await tab.screenshot(type="png")
            finally:
                await own.close()

        for _ in range(5):  # warm-up
            await via_pagecast()
            await fresh_context()
        rows = []
        for concurrency in () if args.skip_compare else (1, 2, 4):
            for name, shoot, shots in (
                ("pagecast (HTTP, warm)", via_pagecast, args.shots),
                ("bare Playwright, fresh context", fresh_context, args.shots),
                ("launch per shot", launch_per_shot, max(args.shots // 4, 4)),
            ):
                rows.append((concurrency, name, await timed_runs(shoot, shots, concurrency)))
        await browser.close()

    print(f"\n{'conc':>4} {'method':<32} {'p50 ms':>8} {'p95 ms':>8} {'shots/s':>8} {'errors':>6}")
    for concurrency, name, row in rows:
        print(
            f"{concurrency:>4} {name:<32} {row['p50']:>8.0f} {row['p95']:>8.0f} "
            f"{row['rate']:>8.2f} {row['errors']:>6.0f}"
        )
    for concurrency in () if args.skip_compare else (1, 2, 4):
        mine = next(r for c, n, r in rows if c == concurrency and n.startswith("pagecast"))
        bare = next(r for c, n, r in rows if c == concurrency and n.startswith("bare"))
        launch = next(r for c, n, r in rows if c == concurrency and n.startswith("launch"))
        print(
            f"concurrency {concurrency}: p50 vs fresh context {mine['p50'] / bare['p50']:.2f}x, "
            f"launch per shot / pagecast {launch['p50'] / mine['p50']:.1f}x"
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

    await shoot_many(100)
    readings = [(100, await settled_memory(server.pid))]
    for count in range(500, args.long + 1, 500):
        await shoot_many(count - readings[-1][0])
        readings.append((count, await settled_memory(server.pid)))
    print("\nMemory of Pagecast (server, Chromium, workers), idle after N shots:")
    print(f"{'shots':>6} {'RSS MB':>8} {'PSS MB':>8} {'server PSS':>10}")
    for count, (rss, pss, own) in readings:
        print(f"{count:>6} {rss:>8.0f} {pss:>8.0f} {own:>10.0f}")
    (_, (rss_0, pss_0, _)), (last, (rss_n, pss_n, _)) = readings[0], readings[-1]
    print(
        f"after {last} vs after 100: RSS {(rss_n / rss_0 - 1) * 100:+.0f}%, "
        f"PSS {(pss_n / pss_0 - 1) * 100:+.0f}%"
    )

    if args.chaos:
        await chaos(args.chaos, via_pagecast, server.pid, client, url)
    return 0


async def chaos(
    seconds: int, via_pagecast, server_pid: int, client: AsyncHTTPClient, url: str
) -> None:  # type: ignore[no-untyped-def]
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
