"""HTTP overhead of Pagecast against a bare Tornado hello-world, measured in the same run.

Starts three local processes (a bare Tornado "hello" server, a tiny origin page, and Pagecast on a
throw-away SQLite store), drives each URL with wrk, and prints a table of requests per second,
latencies and the ratio to the bare server. Loopback only.

    python bench/http_overhead.py [--seconds 10] [--connections 16]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from urllib.parse import quote

from pagecast_process import PYTHON, free_port, start_pagecast, wait_for

HELLO = """
import asyncio, sys, tornado.web
class Hello(tornado.web.RequestHandler):
    def get(self):
        self.write("Hello, world")
class Page(tornado.web.RequestHandler):
    def get(self):
        self.write("<!doctype html><html><head><title>Tiny</title></head><body><h1>Tiny page</h1>"
                   "<p>A paragraph with <a href='/x'>a link</a>.</p></body></html>")
async def main():
    app = tornado.web.Application([(r"/", Hello), (r"/page", Page)])
    app.listen(int(sys.argv[1]), "127.0.0.1")
    await asyncio.Event().wait()
asyncio.run(main())
"""


def wrk(url: str, seconds: int, connections: int) -> dict[str, float]:
    out = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", url],
        capture_output=True,
        text=True,
        check=True,
        timeout=seconds + 30,
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    latency = {
        pct: _ms(value)
        for pct, value in re.findall(r"^\s+(50|99)%\s+([\d.]+\w+)", out, flags=re.MULTILINE)
    }
    return {
        "rps": rps,
        "p50": latency.get("50", 0.0),
        "p99": latency.get("99", 0.0),
        "non2xx": float(errors.group(1)) if errors else 0.0,
    }


def _ms(value: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(\w+)", value).groups()  # type: ignore[union-attr]
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        print("wrk is needed: apt-get install wrk", file=sys.stderr)
        return 2
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        hello_port, api_port = free_port(), free_port()
        hello = subprocess.Popen([PYTHON, "-c", HELLO, str(hello_port)])
        stack.callback(hello.terminate)
        pagecast, key = start_pagecast(tmp, api_port)
        stack.callback(pagecast.terminate)
        api = f"http://127.0.0.1:{api_port}"
        wait_for(f"http://127.0.0.1:{hello_port}/")
        page = quote(f"http://127.0.0.1:{hello_port}/page", safe="")
        targets = [
            ("tornado hello-world (bare)", f"http://127.0.0.1:{hello_port}/"),
            ("pagecast /healthz", f"{api}/healthz"),
            ("pagecast markdown, tiny local page", f"{api}/api/3.0/markdown/{page}?app_id={key}"),
        ]
        results = []
        for name, url in targets:
            wrk(url, 2, args.connections)  # warm-up
            results.append((name, wrk(url, args.seconds, args.connections)))
        base = results[0][1]["rps"]
        print(
            f"\n{'target':<38} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}"
            f" {'non-2xx':>8} {'vs bare':>8}"
        )
        for name, row in results:
            print(
                f"{name:<38} {row['rps']:>9.0f} {row['p50']:>8.2f} {row['p99']:>8.2f} "
                f"{row['non2xx']:>8.0f} {row['rps'] / base:>8.2f}"
            )
        print(json.dumps({name: row for name, row in results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
