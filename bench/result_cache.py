"""Kept Markdown answers: a repeated Markdown request (same page, same parameters) against
``/healthz`` of the same server, in one run, interleaved.

Starts a bare Tornado origin serving a tiny page and two Pagecast servers on throw-away SQLite
stores: one as configured by default (answers kept), one with ``[cache] results = false`` (every
request converts the cached page again, as before answers were kept). Checks that a reused
answer is the first answer (the Markdown body byte for byte; the JSON envelope but for its
request id and ``debug.cache``), then drives each URL with wrk in rounds that take turns, so
the machine's other work weighs on all alike, and prints requests per second, latencies and the
ratio to ``/healthz`` (the target: 0.5 or more).

    python bench/result_cache.py [--seconds 4] [--rounds 3] [--connections 16]
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
from typing import Any
from urllib.parse import quote

from http_overhead import HELLO, wrk
from pagecast_process import PYTHON, free_port, start_pagecast, wait_for

TARGET_RATIO = 0.5


def get(url: str) -> tuple[bytes, dict[str, str]]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read(), dict(response.headers)


def same_answer(url: str) -> tuple[str, str]:
    """The X-Cache of a first and a second request to ``url``, after checking that the second
    answer is the first one (an AssertionError when it is not)."""
    first, first_headers = get(url)
    second, second_headers = get(url)
    if "format=json" in url:
        one, two = json.loads(first), json.loads(second)
        for body in (one, two):
            body["request_id"] = "-"
            body["debug"]["cache"] = "-"
        assert one == two, "the reused envelope differs from the first"
    else:
        assert first == second, "the reused Markdown differs from the first"
    for name in ("Content-Type", "X-Markdown-Character-Count"):
        assert first_headers.get(name) == second_headers.get(name), name
    return first_headers.get("X-Cache", "-"), second_headers.get("X-Cache", "-")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=4, help="length of one wrk round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=16)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        print("wrk is needed: apt-get install wrk", file=sys.stderr)
        return 2
    with ExitStack() as stack, tempfile.TemporaryDirectory() as kept_dir:
        off_dir = stack.enter_context(tempfile.TemporaryDirectory())
        origin_port, kept_port, off_port = free_port(), free_port(), free_port()
        origin = subprocess.Popen([PYTHON, "-c", HELLO, str(origin_port)])
        stack.callback(origin.terminate)
        kept, kept_key = start_pagecast(kept_dir, kept_port)
        stack.callback(kept.terminate)
        off, off_key = start_pagecast(off_dir, off_port, extra="[cache]\nresults = false\n")
        stack.callback(off.terminate)
        wait_for(f"http://127.0.0.1:{origin_port}/")
        page = quote(f"http://127.0.0.1:{origin_port}/page", safe="")
        api, api_off = f"http://127.0.0.1:{kept_port}", f"http://127.0.0.1:{off_port}"
        markdown = f"{api}/api/3.0/markdown/{page}?app_id={kept_key}"
        checks = {
            "markdown": same_answer(markdown),
            "json": same_answer(markdown + "&format=json"),
        }
        assert checks["markdown"] == ("miss", "hit"), checks
        assert checks["json"] == ("miss", "hit"), checks
        print(f"hit equals miss (X-Cache of the two requests): {checks}")
        targets = [
            ("pagecast /healthz", f"{api}/healthz"),
            ("markdown, kept answer (X-Cache: hit)", markdown),
            ("markdown, kept answer, format=json", markdown + "&format=json"),
            (
                "markdown, answers off (page cache)",
                f"{api_off}/api/3.0/markdown/{page}?app_id={off_key}",
            ),
        ]
        totals: dict[str, dict[str, Any]] = {
            name: {"requests": 0.0, "seconds": 0.0, "p50": [], "p99": [], "non2xx": 0.0}
            for name, _ in targets
        }
        for _, url in targets:
            wrk(url, 2, args.connections)  # warm-up
        for _ in range(args.rounds):
            for name, url in targets:
                row = wrk(url, args.seconds, args.connections)
                total = totals[name]
                total["requests"] += row["rps"] * args.seconds
                total["seconds"] += args.seconds
                total["p50"].append(row["p50"])
                total["p99"].append(row["p99"])
                total["non2xx"] += row["non2xx"]
        rps = {name: total["requests"] / total["seconds"] for name, total in totals.items()}
        base = rps[targets[0][0]]
        print(
            f"\n{'target':<40} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}"
            f" {'non-2xx':>8} {'vs healthz':>10}"
        )
        for name, total in totals.items():
            p50 = sorted(total["p50"])[len(total["p50"]) // 2]
            p99 = max(total["p99"])
            print(
                f"{name:<40} {rps[name]:>9.0f} {p50:>8.2f} {p99:>8.2f} "
                f"{total['non2xx']:>8.0f} {rps[name] / base:>10.2f}"
            )
        ratio = rps[targets[1][0]] / base
        verdict = "meets" if ratio >= TARGET_RATIO else "misses"
        print(f"\nkept answer / healthz = {ratio:.2f} ({verdict} the {TARGET_RATIO} target)")
        print(json.dumps({name: round(value, 1) for name, value in rps.items()}))
        return 0 if ratio >= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
