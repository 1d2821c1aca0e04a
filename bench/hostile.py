"""Hostile pages against a running Pagecast: memory, answers and time per page kind, and what
ordinary screenshots of another organization see meanwhile.

For each kind of hostile page (tests/hostile.py: stacked gzip, a gzip bomb, an endless body, a
reset mid-body, a megabyte of headers, a download, a redirect to gopher, script that fills V8's
heap, script that fills canvases, script that never yields, a page that drips), an
"attacker" organization asks for ``--at-once`` screenshots of it at the same time while a
"victim" organization takes ordinary screenshots one after another. Then the attacker keeps ten
dripping pages in flight. Prints one Markdown table: peak memory of Pagecast's process tree
(PSS, Chromium included), the attacker's answers and slowest time, and the victim's latency
beside its latency alone.

    python -m bench.hostile [--at-once 4] [--navigation-ms 30000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import quote

from tornado.httpclient import AsyncHTTPClient

from bench.pagecast_process import (
    PYTHON,
    ROOT,
    free_port,
    start_pagecast,
    stop_pagecast,
    tree_memory_mb,
    wait_for,
)

KINDS = (
    "gzip-gzip",
    "gzip-bomb",
    "endless",
    "reset",
    "huge-headers",
    "download",
    "to-gopher",
    "js-heap",
    "canvases",
    "js-loop",
    "drip",
)


class Bench:
    def __init__(self, api: str, origin: str, attacker: str, victim: str, pid: int) -> None:
        self.api, self.origin, self.attacker, self.victim, self.pid = (
            api,
            origin,
            attacker,
            victim,
            pid,
        )
        self.client = AsyncHTTPClient(max_clients=64)

    async def shot(self, path: str, key: str, navigation_ms: int) -> tuple[int, float]:
        target = quote(f"{self.origin}{path}", safe="")
        url = (
            f"{self.api}/api/1.1/screenshot/{target}?app_id={key}"
            f"&navigationTimeout={navigation_ms}&cache_ok=false&response_type=image"
        )
        started = time.monotonic()
        response = await self.client.fetch(url, raise_error=False, request_timeout=180)
        return response.code, time.monotonic() - started

    async def victim_until(self, done: asyncio.Event) -> list[tuple[int, float]]:
        results = []
        while not done.is_set():
            results.append(await self.shot("/ordinary", self.victim, 30_000))
        return results

    async def peak_memory(self, done: asyncio.Event) -> float:
        peak = 0.0
        while not done.is_set():
            peak = max(peak, (await asyncio.to_thread(tree_memory_mb, self.pid))[1])
            await asyncio.sleep(0.2)
        return peak

    async def case(self, path: str, count: int, navigation_ms: int) -> dict[str, object]:
        done = asyncio.Event()
        memory = asyncio.ensure_future(self.peak_memory(done))
        victim = asyncio.ensure_future(self.victim_until(done))
        await asyncio.sleep(0.5)
        attacks = await asyncio.gather(
            *(self.shot(path, self.attacker, navigation_ms) for _ in range(count))
        )
        done.set()
        ordinary = await victim
        return {
            "answers": Counter(code for code, _ in attacks),
            "slowest": max(seconds for _, seconds in attacks),
            "peak": await memory,
            "victim": ordinary,
        }


def quantile(values: list[float], q: float) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[int(q * 100) - 1]


def victim_cells(results: list[tuple[int, float]], alone_p95: float) -> str:
    ok = [seconds for code, seconds in results if code == 200]
    failed = len(results) - len(ok)
    if not ok:
        return f"none answered ({failed} failed)"
    p95 = quantile(ok, 0.95)
    return (
        f"{len(ok)}/{len(results)} ok | {quantile(ok, 0.5) * 1000:.0f} | "
        f"{p95 * 1000:.0f} | {p95 / alone_p95:.2f}x"
    )


async def run(args: argparse.Namespace) -> int:
    origin_port, api_port = free_port(), free_port()
    origin = subprocess.Popen(
        [PYTHON, "-m", "tests.hostile", str(origin_port)], cwd=ROOT, stdout=subprocess.DEVNULL
    )
    try:
        wait_for(f"http://127.0.0.1:{origin_port}/ordinary")
        with tempfile.TemporaryDirectory() as tmp:
            process, attacker = start_pagecast(tmp, api_port, log=Path(tmp) / "server.log")
            try:
                env = {**os.environ, "PAGECAST_CONFIG": str(Path(tmp) / "config.toml")}
                command = ["keys", "create", "--org", "victim", "--plan", "bench"]
                created = subprocess.run(
                    [PYTHON, str(ROOT / "server.py"), *command],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                    timeout=60,
                )
                victim = created.stdout.strip().splitlines()[-1]
                bench = Bench(
                    f"http://127.0.0.1:{api_port}",
                    f"http://127.0.0.1:{origin_port}",
                    attacker,
                    victim,
                    process.pid,
                )
                await report(bench, args)
                log = (Path(tmp) / "server.log").read_text(errors="replace")
                print(f"\nserver log: {log.count('Traceback')} tracebacks")
            finally:
                stop_pagecast(process)
    finally:
        origin.kill()
        origin.wait(10)
    return 0


async def report(bench: Bench, args: argparse.Namespace) -> None:
    for _ in range(3):  # warm up
        await bench.shot("/ordinary", bench.victim, 30_000)
    start_mb = (await asyncio.to_thread(tree_memory_mb, bench.pid))[1]
    alone = [(await bench.shot("/ordinary", bench.victim, 30_000))[1] for _ in range(20)]
    alone_p50, alone_p95 = quantile(alone, 0.5), quantile(alone, 0.95)
    print(f"Pagecast tree at rest: {start_mb:.0f} MB PSS")
    print(
        f"ordinary screenshot alone: p50 {alone_p50 * 1000:.0f} ms, "
        f"p95 {alone_p95 * 1000:.0f} ms (20 shots)\n"
    )
    print(
        "| page kind | at once | answers | slowest s | peak tree MB | victim ok "
        "| victim p50 ms | victim p95 ms | p95 / alone |"
    )
    print("|---|---:|---|---:|---:|---|---:|---:|---:|")
    kinds = args.only.split(",") if args.only else [*KINDS, "drip10"]
    cases = [("drip", 10) if kind == "drip10" else (kind, args.at_once) for kind in kinds]
    for kind, count in cases:
        result = await bench.case(f"/{kind}", count, args.navigation_ms)
        answers = ", ".join(f"{n}x{code}" for code, n in sorted(result["answers"].items()))  # type: ignore[attr-defined]
        print(
            f"| {kind} | {count} | {answers} | {result['slowest']:.1f} | "
            f"{result['peak']:.0f} | {victim_cells(result['victim'], alone_p95)} |",  # type: ignore[arg-type]
            flush=True,
        )
    end_mb = (await asyncio.to_thread(tree_memory_mb, bench.pid))[1]
    print(f"\nPagecast tree after the run: {end_mb:.0f} MB PSS")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--at-once", type=int, default=4, help="hostile pages at once per kind")
    parser.add_argument("--navigation-ms", type=int, default=30_000, help="navigationTimeout")
    parser.add_argument(
        "--only", default="", help="comma-separated page kinds (drip10: ten drips at once)"
    )
    return asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
