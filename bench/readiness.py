"""What the readiness wait costs and what it gets: two Pagecast servers in one run, one with the
wait off (``farm.ready_timeout = 0``, the build before it: a capture at ``load``) and one with the
defaults, against a local site of pages that build themselves after ``load``.

1. Screenshot latency (PNG, viewport, ``cache_ok=false``) of a static page and of a page that
   writes its content 300 ms after ``load``, the two servers interleaved round by round: p50 of
   each, and the median extra time the wait adds.
2. Every app page of the site through both servers with default parameters: whether the Markdown
   holds the page's text, whether the screenshot shows it, how long each took, and how the wait
   ended.

    python bench/readiness.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import signal
import statistics
import subprocess
import tempfile
import time
from urllib.parse import quote

from pagecast_process import PYTHON, ROOT, free_port, start_pagecast, wait_for
from PIL import Image
from tornado.httpclient import AsyncHTTPClient

from tests.spa_site import ARTICLE_WORDS, SCRIPTS

BUILDS = {"wait off": "[farm]\nready_timeout = 0\n", "wait on": ""}
TIMED_PAGES = ("static", "timer300")
APP_PAGES = ("static", "timer300", "timer2s", "fetch", "route", "polling", "socket", "restless")
CONTENT_PIXEL = (1300, 200)
GREEN = (0, 170, 0)


class Server:
    """One Pagecast under test."""

    def __init__(self, name: str, port: int, key: str) -> None:
        self.name = name
        self.base = f"http://127.0.0.1:{port}"
        self.key = key
        self.client = AsyncHTTPClient(force_instance=True)

    async def screenshot(self, page: str) -> tuple[float, bool, str]:
        """Seconds, whether the image shows the content, and how the wait ended."""
        url = f"{self.base}/api/1.1/screenshot/{quote(page, safe='')}?app_id={self.key}"
        started = time.perf_counter()
        response = await self.client.fetch(url + "&format=png&cache_ok=false", request_timeout=90)
        elapsed = time.perf_counter() - started
        body = json.loads(response.body)
        image = await self.client.fetch(body["screenshotUrl"], request_timeout=30)
        with Image.open(io.BytesIO(image.body)) as picture:
            shows = picture.convert("RGB").getpixel(CONTENT_PIXEL) == GREEN
        return elapsed, shows, body.get("timing", {}).get("ready", "-")

    async def markdown(self, page: str) -> tuple[float, bool]:
        """Seconds and whether the Markdown holds the page's text."""
        url = f"{self.base}/api/3.0/markdown/{quote(page, safe='')}?app_id={self.key}"
        started = time.perf_counter()
        response = await self.client.fetch(url, request_timeout=90)
        return time.perf_counter() - started, ARTICLE_WORDS in response.body.decode()


async def timed(servers: list[Server], site: str, rounds: int) -> None:
    times: dict[tuple[str, str], list[float]] = {}
    for page in TIMED_PAGES:  # one warm-up capture each
        for server in servers:
            await server.screenshot(f"{site}/app/{page}")
    for round_number in range(rounds):
        order = servers if round_number % 2 == 0 else list(reversed(servers))
        for page in TIMED_PAGES:
            for server in order:
                elapsed, _, _ = await server.screenshot(f"{site}/app/{page}")
                times.setdefault((page, server.name), []).append(elapsed * 1000)
    print(f"\nScreenshot latency, {rounds} rounds interleaved (ms)\n")
    print("| page | " + " | ".join(f"p50 {s.name}" for s in servers) + " | extra (median) |")
    print("|---|" + "---:|" * (len(servers) + 1))
    for page in TIMED_PAGES:
        off, on = (times[(page, s.name)] for s in servers)
        extra = statistics.median(b - a for a, b in zip(off, on, strict=True))
        p50s = " | ".join(f"{statistics.median(times[(page, s.name)]):.0f}" for s in servers)
        print(f"| {page} | {p50s} | {extra:+.0f} |")


async def content(servers: list[Server], site: str) -> None:
    print("\nApp pages with default parameters: text in the Markdown, content in the screenshot\n")
    columns = ("page", "build", "Markdown text", "Markdown s", "screenshot shows it")
    print("| " + " | ".join((*columns, "screenshot s", "wait")) + " |")
    print("|---|---|---|---:|---|---:|---|")
    for page in APP_PAGES:
        for server in servers:
            md_s, has_text = await server.markdown(f"{site}/app/{page}")
            shot_s, shows, ready = await server.screenshot(f"{site}/app/{page}")
            print(
                f"| {page} | {server.name} | {'yes' if has_text else 'no'} | {md_s:.2f} | "
                f"{'yes' if shows else 'no'} | {shot_s:.2f} | {ready} |"
            )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="interleaved rounds of timing")
    args = parser.parse_args()
    assert set(APP_PAGES) - {"static"} <= set(SCRIPTS)
    site_port = free_port()
    origin = subprocess.Popen(
        [PYTHON, "-c", "from tests.spa_site import main; main()", str(site_port)], cwd=ROOT
    )
    site = f"http://127.0.0.1:{site_port}"
    processes: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            wait_for(f"{site}/app/static")
            servers = []
            for name, extra in BUILDS.items():
                port = free_port()
                folder = f"{tmp}/{name.replace(' ', '-')}"
                subprocess.run(["mkdir", "-p", folder], check=True)
                process, key = start_pagecast(folder, port, extra=extra)
                processes.append(process)
                servers.append(Server(name, port, key))
            await timed(servers, site, args.rounds)
            await content(servers, site)
        finally:
            for process in processes:
                process.send_signal(signal.SIGTERM)
            for process in processes:
                try:
                    process.wait(60)
                except subprocess.TimeoutExpired:
                    process.kill()
            origin.terminate()
            origin.wait(10)


if __name__ == "__main__":
    asyncio.run(main())
