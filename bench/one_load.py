"""One page load for a screenshot and the page's Markdown against two requests, one after the
other, in one run, interleaved.

Starts a local origin on 127.0.0.1 (in this process, counting every request it answers) serving
a realistic article: its HTML answers after a delay, it pulls a stylesheet, six images and two
scripts that each answer after a delay, and one script writes a paragraph into the article once
it runs. Then one Pagecast server (as the other benchmarks start it, ``pagecast_process``) is
asked, in rounds that take turns so the machine's other work weighs on all alike:

- **one**: ``/api/3.0/markdown?format=json&screenshot=true``: one render for both;
- **two (full_render)**: a Markdown request with ``full_render=true`` (the same rendered page the
  screenshot sees), then a screenshot request with the same image options;
- **two (fetched)**: a Markdown request with the defaults (the HTML fetched without a browser),
  then the screenshot request: what a client that does not need the rendered text pays.

Every request has ``cache_ok=false`` and a URL of its own, so nothing is reused. Prints the
wall time (p50 and mean) of each, the ratio of **one** to each pair (the target: 0.7 or less
against full_render) and how many times the origin was asked for the page (its navigations
and fetches) per run of each.

    python bench/one_load.py [--rounds 8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from email.message import Message
from urllib.parse import quote

import tornado.web
from pagecast_process import free_port, start_pagecast, stop_pagecast, wait_for
from tornado.httpserver import HTTPServer
from tornado.ioloop import IOLoop

TARGET_RATIO = 0.7
PAGE_DELAY = 0.25
"""Seconds before the origin answers an article's HTML."""
ASSET_DELAY = 0.2
"""Seconds before it answers each image, the stylesheet and each script."""
IMAGES = 6
PARAGRAPH = (
    "The estuary's mills ground corn on the ebb: the tide filled a pond behind the dam, and "
    "the miller let it out through the wheel once the sea had fallen below the sluice. "
)
ARTICLE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Tide mills of the estuary</title><meta name="description" content="How tide mills work.">
<link rel="stylesheet" href="/assets/site.css"><script src="/assets/analytics.js" defer></script>
</head><body><header><nav><a href="/">Home</a> <a href="/news">News</a> <a href="/walks">Walks</a>
</nav></header><main><article><h1>Tide mills of the estuary</h1>{body}</article></main>
<aside><h3>Most read</h3><ul><li><a href="/a">Harbour dues rise</a></li></ul></aside>
<footer>Copyright Estuary Gazette</footer><script src="/assets/comments.js"></script></body></html>
"""
CSS = "body{font-family:serif;max-width:60em;margin:auto}img{width:100%;height:240px}"
SCRIPT = """document.addEventListener('DOMContentLoaded', () => {
  const p = document.createElement('p');
  p.textContent = 'Written by the page script: the last mill stopped in 1957, and the pond is '
    + 'now a nature reserve where waders feed at low water on the silt the dam still holds.';
  document.querySelector('article').appendChild(p);
});"""
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c6360f8cfc0f01f0005000201a5e0e2ea0000000049454e44ae426082"
)


def article() -> str:
    sections = []
    for index in range(IMAGES):
        sections.append(
            f"<h2>Section {index + 1}</h2><p>{PARAGRAPH * 3}</p>"
            f'<img src="/assets/photo-{index}.png" alt="Photo {index + 1}">'
        )
    return ARTICLE.format(body="".join(sections))


class Origin:
    """The origin, on its own IOLoop in a thread; ``hits`` counts the requests per path."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.port = free_port()
        self.loop: IOLoop | None = None
        ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self.thread.start()
        ready.wait(10)

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(asyncio.new_event_loop())
        logging.getLogger("tornado.access").setLevel(logging.ERROR)  # the pages' favicon 404s
        hits, page = self.hits, article()

        class Handler(tornado.web.RequestHandler):
            async def get(self, path: str) -> None:
                hits[self.request.path] += 1
                if path.startswith("page/"):
                    await asyncio.sleep(PAGE_DELAY)
                    self.set_header("Content-Type", "text/html; charset=utf-8")
                    self.finish(page)
                    return
                await asyncio.sleep(ASSET_DELAY)
                if path.endswith(".css"):
                    self.set_header("Content-Type", "text/css")
                    self.finish(CSS)
                elif path.endswith(".js"):
                    self.set_header("Content-Type", "application/javascript")
                    self.finish(SCRIPT if "comments" in path else "window.seen = 1;")
                elif path.endswith(".png"):
                    self.set_header("Content-Type", "image/png")
                    self.finish(PNG)
                else:
                    self.set_status(404)
                    self.finish("")

        server = HTTPServer(tornado.web.Application([(r"/(.*)", Handler)]))
        server.listen(self.port, "127.0.0.1")
        self.loop = IOLoop.current()
        ready.set()
        self.loop.start()

    def stop(self) -> None:
        if self.loop is not None:
            self.loop.add_callback(self.loop.stop)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


def get(url: str) -> tuple[int, Message, bytes]:
    with urllib.request.urlopen(url, timeout=120) as response:  # loopback only
        return response.status, response.headers, response.read()


class Runner:
    """The three ways of getting both outputs, each timed and its page's hits counted."""

    def __init__(self, origin: Origin, api: str, key: str) -> None:
        self.origin, self.api, self.key = origin, api, key
        self.serial = 0

    def _page(self, kind: str) -> tuple[str, str]:
        self.serial += 1
        path = f"/page/{kind}-{self.serial}"
        return path, quote(self.origin.url(path), safe="")

    def one(self) -> tuple[float, int]:
        path, target = self._page("one")
        started = time.perf_counter()
        _, headers, body = get(
            f"{self.api}/api/3.0/markdown/{target}?app_id={self.key}&format=json"
            "&screenshot=true&cache_ok=false"
        )
        elapsed = time.perf_counter() - started
        envelope = json.loads(body)
        assert "Written by the page script" in envelope["markdown"], "not the rendered page"
        assert envelope["screenshotUrl"] and int(headers["X-BILLING-REQUESTS"]) == 2
        return elapsed, self.origin.hits[path]

    def two(self, markdown_params: str) -> tuple[float, int]:
        path, target = self._page("two")
        started = time.perf_counter()
        _, _, body = get(
            f"{self.api}/api/3.0/markdown/{target}?app_id={self.key}&format=json"
            f"&cache_ok=false{markdown_params}"
        )
        _, _, shot = get(f"{self.api}/api/1.1/screenshot/{target}?app_id={self.key}&cache_ok=false")
        elapsed = time.perf_counter() - started
        assert json.loads(body)["markdown"] and json.loads(shot)["screenshotUrl"]
        return elapsed, self.origin.hits[path]


def row(name: str, runs: list[tuple[float, int]], ratio: str) -> str:
    """A table row: wall times in ms, the ratio given, and the page's loads per run."""
    times = [seconds * 1000 for seconds, _ in runs]
    loads = "/".join(str(hits) for hits in sorted({hits for _, hits in runs}))
    p50, mean = statistics.median(times), statistics.mean(times)
    return f"| {name} | {p50:.0f} | {mean:.0f} | {ratio} | {loads} |"


def ratio(one: list[tuple[float, int]], two: list[tuple[float, int]]) -> str:
    """The p50 of ``one`` over the p50 of ``two``."""
    return f"{statistics.median(s for s, _ in one) / statistics.median(s for s, _ in two):.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    origin = Origin()
    with ExitStack() as stack, tempfile.TemporaryDirectory() as data:
        stack.callback(origin.stop)
        wait_for(origin.url("/assets/site.css"))
        port = free_port()
        server, key = start_pagecast(data, port)
        stack.callback(stop_pagecast, server)
        runner = Runner(origin, f"http://127.0.0.1:{port}", key)
        ways: dict[str, Callable[[], tuple[float, int]]] = {
            "one: Markdown + screenshot=true": runner.one,
            "two: Markdown full_render, then screenshot": lambda: runner.two("&full_render=true"),
            "two: Markdown fetched, then screenshot": lambda: runner.two(""),
        }
        for way in ways.values():  # warm: the first render of a context, the workers' imports
            way()
        runs: dict[str, list[tuple[float, int]]] = {name: [] for name in ways}
        for round_ in range(args.rounds):
            order = list(ways.items())
            if round_ % 2:
                order.reverse()
            for name, way in order:
                runs[name].append(way())
        names = list(ways)
        one = runs[names[0]]
        print(f"\n{args.rounds} rounds, interleaved; wall time of getting both outputs\n")
        print("| way | p50 ms | mean ms | one / this (p50) | origin page loads per run |")
        print("|---|---|---|---|---|")
        print(row(names[0], one, "1.00"))
        for name in names[1:]:
            print(row(name, runs[name], ratio(one, runs[name])))
        versus_full = ratio(one, runs[names[1]])
        verdict = "met" if float(versus_full) <= TARGET_RATIO else "NOT met"
        print(f"\none / two (full_render): {versus_full} (target <= {TARGET_RATIO}: {verdict})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
