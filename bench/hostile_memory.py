"""Memory of the Pagecast server under hostile oEmbed pages: every page has a 5 MB ``<title>``
(and a 0.5 MB description) and lives at its own URL, so each request is a fresh fetch, parse,
frame write and answer-cache entry. Prints the server process's RSS before, during and after
the run, and whether the growth stays within the bound (50 MB).

Starts a local origin (a subprocess serving the same big page under /page/N) and Pagecast on a
throw-away SQLite store. Loopback only.

    python bench/hostile_memory.py [--requests 1000] [--concurrency 4] [--title-mb 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

from pagecast_process import PYTHON, free_port, start_pagecast, stop_pagecast, wait_for

BOUND_MB = 50.0
ORIGIN = """
import asyncio, sys, tornado.web
PORT, TITLE_BYTES = int(sys.argv[1]), int(sys.argv[2])
BODY = ("<!doctype html><html><head><meta charset='utf-8'><title>"
        + "T" * TITLE_BYTES + "</title>"
        + "<meta name='description' content='" + "D" * (TITLE_BYTES // 10) + "'>"
        + "</head><body><h1>Big title</h1></body></html>").encode()
class Page(tornado.web.RequestHandler):
    def get(self, number):
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(BODY)
async def main():
    tornado.web.Application([(r"/page/(\\d+)", Page), (r"/", Page, {})]).listen(PORT, "127.0.0.1")
    await asyncio.Event().wait()
asyncio.run(main())
"""


def rss_mb(pid: int) -> float:
    """The resident set of one process (not its children), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def one(api: str, key: str, url: str) -> int:
    endpoint = f"{api}/api/3.0/oembed/{quote(url, safe='')}?app_id={key}"
    try:
        with urllib.request.urlopen(endpoint, timeout=60) as response:  # loopback only
            json.loads(response.read())
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--title-mb", type=float, default=5.0)
    args = parser.parse_args()
    origin_port, api_port = free_port(), free_port()
    origin = subprocess.Popen(
        [PYTHON, "-c", ORIGIN, str(origin_port), str(int(args.title_mb * 2**20))]
    )
    try:
        with tempfile.TemporaryDirectory(prefix="pagecast-hostile-") as tmp:
            wait_for(f"http://127.0.0.1:{origin_port}/page/0")
            server, key = start_pagecast(tmp, api_port)
            try:
                return run(server.pid, f"http://127.0.0.1:{api_port}", key, origin_port, args)
            finally:
                stop_pagecast(server)
    finally:
        origin.terminate()
        origin.wait(30)


def run(pid: int, api: str, key: str, origin_port: int, args: argparse.Namespace) -> int:
    started_at = rss_mb(pid)
    one(api, key, f"http://127.0.0.1:{origin_port}/page/0")  # imports, workers, first parse
    before = rss_mb(pid)
    print(
        f"server RSS at start: {started_at:.1f} MB, after the first request: {before:.1f} MB "
        f"({args.title_mb:g} MB titles, {args.concurrency} at a time)"
    )
    statuses: dict[int, int] = {}
    started = time.monotonic()
    urls = [f"http://127.0.0.1:{origin_port}/page/{n}" for n in range(1, args.requests + 1)]
    with ThreadPoolExecutor(args.concurrency) as threads:
        for done, status in enumerate(threads.map(lambda u: one(api, key, u), urls), 1):
            statuses[status] = statuses.get(status, 0) + 1
            if done % max(1, args.requests // 10) == 0:
                print(f"  {done:>5} requests  RSS {rss_mb(pid):7.1f} MB  statuses {statuses}")
    elapsed = time.monotonic() - started
    after = rss_mb(pid)
    growth = after - before
    print(f"server RSS after {args.requests} requests: {after:.1f} MB ({elapsed:.0f} s)")
    verdict = "within" if growth <= BOUND_MB else "OVER"
    print(
        f"growth {growth:+.1f} MB since the first request ({after - started_at:+.1f} MB since "
        f"start): {verdict} the {BOUND_MB:g} MB bound"
    )
    return 0 if growth <= BOUND_MB else 1


if __name__ == "__main__":
    sys.exit(main())
