"""Load suite: a mixed workload against local origins for a few minutes.

Starts a local origin site and Pagecast (a throw-away SQLite store, or Postgres with
``--postgres URL``), then runs the mixed workload of ``bench/workload.py`` (screenshots,
Markdown new and cached, oEmbed new and cached) from ``--concurrency`` clients for ``--seconds``.
Prints p50/p95/p99 latency and the answers by status per kind, the error rate, and the memory
of Pagecast's whole process tree (server, Chromium, conversion workers) sampled over the run.
Exits non-zero when any request failed or hung.

    python -m bench.load [--seconds 180] [--concurrency 4] [--postgres URL]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time

from bench.pagecast_process import free_port, start_pagecast, stop_pagecast, tree_memory_mb
from bench.sites import serve_sites
from bench.workload import Record, Workload, drive, summary_table


async def sample_memory(
    pid: int, every: float, until: float, into: list[tuple[float, ...]]
) -> None:
    started = time.monotonic()
    while time.monotonic() < until:
        rss, pss, own = tree_memory_mb(pid)
        into.append((time.monotonic() - started, rss, pss, own))
        await asyncio.sleep(every)


async def run(args: argparse.Namespace) -> int:
    sites = serve_sites()
    with tempfile.TemporaryDirectory(prefix="pagecast-load-") as tmp:
        port = free_port()
        process, key = start_pagecast(tmp, port, postgres=args.postgres)
        try:
            workload = Workload(f"http://127.0.0.1:{port}", key, sites, seed=args.seed)
            warm = Record()
            await drive(workload, warm, seconds=10, concurrency=args.concurrency)
            record = Record()
            memory: list[tuple[float, ...]] = []
            until = time.monotonic() + args.seconds
            await asyncio.gather(
                drive(workload, record, args.seconds, args.concurrency),
                sample_memory(process.pid, args.seconds / 12, until, memory),
            )
            memory.append((args.seconds, *tree_memory_mb(process.pid)))
        finally:
            stop_pagecast(process)
            sites.close()
    outcomes = record.outcomes
    print(
        f"\nload: {args.seconds} s, {args.concurrency} clients, "
        f"store {'postgres' if args.postgres else 'sqlite'}, "
        f"{len(outcomes)} requests ({len(outcomes) / args.seconds:.1f} req/s)\n"
    )
    print(summary_table(outcomes))
    print("\n| t s | summed RSS MB | PSS MB | server PSS MB |\n|---:|---:|---:|---:|")
    for moment, rss, pss, own in memory:
        print(f"| {moment:.0f} | {rss:.0f} | {pss:.0f} | {own:.0f} |")
    failed = [o for o in outcomes if o.status != "200"]
    if failed:
        print(f"\n{len(failed)} request(s) did not succeed")
        return 1
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=180)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--postgres", default="", help="a database URL (default: SQLite)")
    return asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
