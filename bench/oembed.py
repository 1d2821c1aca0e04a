"""Cached oEmbed throughput of Pagecast against a bare Tornado hello-world, in the same run.

Starts a bare Tornado "hello" server, a local origin (Open Graph pages under /page/N and
/video/N) with a fake oEmbed provider beside it, and Pagecast on a throw-away SQLite store whose
imported provider registry sends the origin's /video/* URLs to that provider. Once one request
each has filled the caches, wrk drives: hello-world, a cached og_frame answer, a cached native
answer, and the hosted frame page. Prints requests per second, latencies, non-2xx counts and
the ratio to hello-world, then whether each Pagecast target reaches half of hello-world.
Loopback only.

    python bench/oembed.py [--seconds 10] [--connections 16]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import quote

from http_overhead import HELLO, wrk
from pagecast_process import PYTHON, free_port, start_pagecast, wait_for

TARGET_RATIO = 0.5
FAKES = """
import asyncio, sys, tornado.web
ORIGIN, PROVIDER = int(sys.argv[1]), int(sys.argv[2])
class Page(tornado.web.RequestHandler):
    def get(self, kind, number):
        self.write(
            "<!doctype html><html><head><meta charset='utf-8'>"
            f"<title>Bench {kind} {number}</title>"
            f"<meta property='og:title' content='Bench {kind} {number}'>"
            "<meta property='og:description' content='A page for the oEmbed benchmark.'>"
            f"<meta property='og:image' content='http://127.0.0.1:{ORIGIN}/image.png'>"
            "<meta property='og:site_name' content='Bench'>"
            f"</head><body><h1>Bench {kind} {number}</h1></body></html>")
class Provider(tornado.web.RequestHandler):
    def get(self):
        self.write({"type": "video", "version": "1.0", "provider_name": "Bench",
                    "html": f"<iframe src='http://127.0.0.1:{ORIGIN}/video/1' width='640' "
                            "height='360' frameborder='0'></iframe>",
                    "width": 640, "height": 360})
async def main():
    tornado.web.Application([(r"/(page|video)/(\\d+)", Page)]).listen(ORIGIN, "127.0.0.1")
    tornado.web.Application([(r"/oembed", Provider)]).listen(PROVIDER, "127.0.0.1")
    await asyncio.Event().wait()
asyncio.run(main())
"""


def write_registry(data_dir: str, origin_port: int, provider_port: int) -> None:
    """The imported registry (oembed.com format) Pagecast reads from its data dir at start."""
    registry = [
        {
            "provider_name": "Bench",
            "provider_url": f"http://127.0.0.1:{origin_port}/",
            "endpoints": [
                {
                    "schemes": [f"http://127.0.0.1:{origin_port}/video/*"],
                    "url": f"http://127.0.0.1:{provider_port}/oembed",
                    "formats": ["json"],
                }
            ],
        }
    ]
    (Path(data_dir) / "providers.json").write_text(json.dumps(registry), encoding="utf-8")


def spawn(stack: ExitStack, *argv: str) -> None:
    """A helper process that is stopped when ``stack`` closes."""
    process = subprocess.Popen([PYTHON, "-c", *argv])
    stack.callback(stop, process)


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()


def get(url: str) -> bytes:
    """One GET (loopback only); raises on an error status."""
    with urllib.request.urlopen(url, timeout=30) as response:
        body: bytes = response.read()
        return body


def oembed(api: str, key: str, url: str, source: str) -> tuple[str, dict[str, object]]:
    """The oEmbed URL for ``url`` and its first answer, checked to come from ``source``."""
    endpoint = f"{api}/api/3.0/oembed/{quote(url, safe='')}?app_id={key}"
    answer = json.loads(get(endpoint))
    if answer.get("source") != source:
        raise RuntimeError(f"{url}: expected source {source!r}, got {answer.get('source')!r}")
    return endpoint, answer


def measure(targets: list[tuple[str, str]], seconds: int, connections: int) -> list[dict]:
    """wrk over each target in turn, after one request each has filled the caches."""
    for _, url in targets:
        get(url)
    return [wrk(url, seconds, connections) for _, url in targets]


def report(targets: list[tuple[str, str]], results: list[dict]) -> None:
    base = results[0]["rps"]
    print(
        f"\n{'target':<34} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'non-2xx':>8} {'vs hello':>9}"
    )
    for (name, _), row in zip(targets, results, strict=True):
        print(
            f"{name:<34} {row['rps']:>9.0f} {row['p50']:>8.2f} {row['p99']:>8.2f}"
            f" {row['non2xx']:>8.0f} {row['rps'] / base:>9.2f}"
        )
    print(f"\ntarget >= {TARGET_RATIO:.0%} of hello-world:")
    for (name, _), row in zip(targets[1:], results[1:], strict=True):
        verdict = "ok" if row["rps"] >= TARGET_RATIO * base else "NOT MET"
        errors = f" ({row['non2xx']:.0f} non-2xx responses)" if row["non2xx"] else ""
        print(f"  {name:<32} {verdict}{errors}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        print("wrk is needed: apt-get install wrk", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        hello_port, origin_port, provider_port = free_port(), free_port(), free_port()
        spawn(stack, HELLO, str(hello_port))
        spawn(stack, FAKES, str(origin_port), str(provider_port))
        write_registry(tmp, origin_port, provider_port)
        api_port = free_port()
        pagecast, key = start_pagecast(tmp, api_port)
        stack.callback(stop, pagecast)
        hello = f"http://127.0.0.1:{hello_port}/"
        origin = f"http://127.0.0.1:{origin_port}"
        wait_for(hello)
        wait_for(f"{origin}/page/1")
        api = f"http://127.0.0.1:{api_port}"
        og_frame, answer = oembed(api, key, f"{origin}/page/1", "og_frame")
        native, _ = oembed(api, key, f"{origin}/video/1", "native")
        targets = [
            ("tornado hello-world (bare)", hello),
            ("pagecast oEmbed og_frame, cached", og_frame),
            ("pagecast oEmbed native, cached", native),
            ("pagecast frame page", str(answer["frame_url"])),
        ]
        report(targets, measure(targets, args.seconds, args.connections))
    return 0


if __name__ == "__main__":
    sys.exit(main())
