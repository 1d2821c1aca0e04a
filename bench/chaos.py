"""Chaos suite: the mixed workload keeps running while things break underneath Pagecast.

Pagecast runs on Postgres (a fresh database) with its data folder on a small tmpfs of its own
(when run as root; otherwise the disk phase is skipped). While ``--concurrency`` clients send the
mixed workload of ``bench/workload.py`` back to back, the run goes through five phases:

1. ``steady``: nothing breaks;
2. ``chromium``: every Chromium browser process of Pagecast's farm is killed every 4 seconds;
3. ``postgres``: the PostgreSQL cluster is stopped for ``--outage`` seconds, then started;
4. ``disk``: the data folder's filesystem is filled to the last byte, then emptied again;
5. ``recovery``: nothing breaks; the service must heal by itself.

It checks that every request was answered: with success while nothing is broken, and otherwise
with success or a documented error (503 ``unavailable`` or ``busy`` in the endpoint's error
shape, or 502 ``frame_generation_failed`` for a frame that cannot be stored);
never a 500, a hang, a dropped connection or a body that is not JSON. The second half of the
recovery phase must answer everything with success. And nothing promised may be lost: every
hosted frame an oEmbed answer pointed to and every screenshot link a capture returned must
still load after the run, and the key must still list every frame through the frames API.
Prints a table per phase and exits non-zero on any violation.

    python -m bench.chaos [--phase-seconds 30] [--concurrency 4] [--outage 10]

It restarts the local PostgreSQL cluster: run it on a machine where nothing else needs it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import psycopg2
from tornado.httpclient import AsyncHTTPClient

from bench.pagecast_process import chromium_browsers, free_port, start_pagecast, stop_pagecast
from bench.sites import Sites, serve_sites
from bench.workload import Outcome, Record, Workload, drive, fetch, summary_table

PHASES = ("steady", "chromium", "postgres", "disk", "recovery")
ADMIN_URL = os.environ.get(
    "PAGECAST_TEST_PG_ADMIN", "postgresql://postgres@127.0.0.1:5432/postgres"
)
DATABASE = "pagecast_chaos"
ERROR_CODE = re.compile(rb'"(?:code|error)"\s*:\s*"?(-?[\w-]+)')
TMPFS_SIZE = "128m"
# What a request may answer while something underneath is broken (both error shapes): the
# documented "a backing service is down" and "busy, retry shortly", and for an oEmbed whose
# hosted frame cannot be stored, the documented 502 frame_generation_failed. A 500 is never
# acceptable: that would be Pagecast failing rather than reporting what failed.
DURING_FAULTS = {
    "503 unavailable",
    "503 -5004",
    "503 busy",
    "503 -5003",
    "502 frame_generation_failed",
}


def fresh_database() -> str:
    """Drop and create the chaos database; its URL."""
    connection = psycopg2.connect(ADMIN_URL, connect_timeout=10)
    connection.autocommit = True
    with connection.cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
        cursor.execute(f"CREATE DATABASE {DATABASE}")
    connection.close()
    return ADMIN_URL.rsplit("/", 1)[0] + f"/{DATABASE}"


def cluster() -> list[str]:
    """``pg_ctlcluster VERSION NAME`` of the local cluster."""
    listing = subprocess.run(
        ["pg_lsclusters", "--no-header"], capture_output=True, text=True, check=True, timeout=30
    ).stdout.split()
    return ["pg_ctlcluster", "--skip-systemctl-redirect", listing[0], listing[1]]


def postgres(action: str) -> None:
    subprocess.run([*cluster(), action], check=True, timeout=120, capture_output=True)


@contextlib.contextmanager
def small_disk(folder: Path) -> Iterator[bool]:
    """Mount a tmpfs of ``TMPFS_SIZE`` on ``folder`` when we may; whether it was mounted."""
    mounted = False
    if os.geteuid() == 0 and shutil.which("mount"):
        result = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={TMPFS_SIZE}", "tmpfs", str(folder)],
            capture_output=True,
            timeout=30,
            check=False,
        )
        mounted = result.returncode == 0
    try:
        yield mounted
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(folder)], timeout=30, check=False)


def fill(folder: Path) -> Path:
    """Write a file until the filesystem under ``folder`` is full; the file."""
    filler = folder / "filler"
    try:
        handle = filler.open("wb", buffering=0)
    except OSError:  # the screenshots written so far filled it already
        return filler
    with handle:
        for size in (2**20, 1024):  # megabytes, then the last partial one a kilobyte at a time
            with contextlib.suppress(OSError):
                while True:
                    handle.write(b"\0" * size)
                    handle.flush()
    return filler


class Breaker:
    """Runs the phases on a schedule and remembers when each began."""

    def __init__(self, server_pid: int, data_dir: Path, disk: bool, args: argparse.Namespace):
        self.server_pid = server_pid
        self.data_dir = data_dir
        self.disk = disk
        self.args = args
        self.started: dict[str, float] = {}
        self.kills = 0

    def phase_of(self, moment: float) -> str:
        current = PHASES[0]
        for name in PHASES:
            if name in self.started and self.started[name] <= moment:
                current = name
        return current

    async def run(self) -> None:
        seconds = self.args.phase_seconds
        loop = asyncio.get_running_loop()
        self.started["steady"] = time.monotonic()
        await asyncio.sleep(seconds)

        self.started["chromium"] = time.monotonic()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            await asyncio.sleep(4)
            for pid in chromium_browsers(self.server_pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                    self.kills += 1

        self.started["postgres"] = time.monotonic()
        await loop.run_in_executor(None, postgres, "stop")
        await asyncio.sleep(self.args.outage)
        await loop.run_in_executor(None, postgres, "start")
        await asyncio.sleep(max(0.0, seconds - self.args.outage))

        self.started["disk"] = time.monotonic()
        if self.disk:
            filler = await loop.run_in_executor(None, fill, self.data_dir)
            await asyncio.sleep(seconds)
            filler.unlink(missing_ok=True)
        else:
            await asyncio.sleep(seconds)

        self.started["recovery"] = time.monotonic()
        await asyncio.sleep(seconds)


def describe(outcome: Outcome) -> str:
    """``200``, or the status and the error code of a documented error, or why not answered."""
    if outcome.status == "200" or not outcome.status.isdigit():
        return outcome.status
    match = ERROR_CODE.search(outcome.body[:2000])
    try:
        json.loads(outcome.body)
    except ValueError:
        return f"{outcome.status} (not JSON)"
    return f"{outcome.status} {match.group(1).decode() if match else '(no code)'}"


async def still_there(urls: list[str]) -> tuple[int, list[str]]:
    """How many of ``urls`` load now, and the ones that do not."""
    client = AsyncHTTPClient(max_clients=8)
    missing = []
    for url in urls:
        status, _, _ = await fetch(client, url)
        if status != "200":
            missing.append(f"{status} {url}")
    return len(urls) - len(missing), missing


async def listed_frames(frames: list[str], key: str) -> int:
    """How many frames the key's frames API lists now (-1 when the key no longer works): the key
    and every frame row survived."""
    if not frames:
        return 0
    parts = urlsplit(frames[0])
    url = f"{parts.scheme}://{parts.netloc}/api/v1/frames?limit=1&app_id={key}"
    status, body, _ = await fetch(AsyncHTTPClient(), url)
    return int(json.loads(body)["total"]) if status == "200" else -1


async def run(args: argparse.Namespace) -> int:
    database = fresh_database()
    sites = serve_sites()
    with tempfile.TemporaryDirectory(prefix="pagecast-chaos-") as tmp:
        data_dir = Path(tmp) / "data"
        data_dir.mkdir()
        with small_disk(data_dir) as disk:
            port = free_port()
            process, key = start_pagecast(str(data_dir), port, postgres=database)
            try:
                return await chaos_run(args, process.pid, data_dir, disk, port, key, sites)
            finally:
                stop_pagecast(process)
                sites.close()
                with contextlib.suppress(subprocess.SubprocessError):
                    postgres("start")  # whatever happened, leave the cluster running


async def chaos_run(
    args: argparse.Namespace,
    server_pid: int,
    data_dir: Path,
    disk: bool,
    port: int,
    key: str,
    sites: Sites,
) -> int:
    workload = Workload(f"http://127.0.0.1:{port}", key, sites, seed=args.seed)
    record = Record()
    breaker = Breaker(server_pid, data_dir, disk, args)
    total = args.phase_seconds * len(PHASES)
    await asyncio.gather(breaker.run(), drive(workload, record, total, args.concurrency))

    print(
        f"\nchaos: {len(PHASES)} phases of {args.phase_seconds} s, {args.concurrency} clients, "
        f"Chromium killed {breaker.kills} times, Postgres down {args.outage} s, "
        f"disk phase {'on a full tmpfs' if disk else 'skipped (needs root for a tmpfs)'}\n"
    )
    problems: list[str] = []
    print("| phase | requests | answers | slowest s |\n|---|---:|---|---:|")
    for name in PHASES:
        rows = [o for o in record.outcomes if breaker.phase_of(o.started) == name]
        answers = Counter(describe(o) for o in rows)
        listed = ", ".join(f"{k}: {v}" for k, v in sorted(answers.items()))
        slowest = max((o.seconds for o in rows), default=0.0)
        print(f"| {name} | {len(rows)} | {listed} | {slowest:.1f} |")
        allowed = {"200"} if name == "steady" else {"200", *DURING_FAULTS}
        for answer, count in answers.items():
            if answer not in allowed:
                problems.append(f"{count} request(s) in {name} answered {answer!r}")
    print()
    print(summary_table(record.outcomes))

    settled = breaker.started["recovery"] + args.phase_seconds / 2
    late = [o for o in record.outcomes if o.started >= settled and o.status != "200"]
    if late:
        problems.append(
            f"{len(late)} request(s) failed late in recovery: "
            + ", ".join(sorted({describe(o) for o in late}))
        )
    frames_ok, frames_missing = await still_there(sorted(set(record.frames)))
    shots_ok, shots_missing = await still_there(sorted(set(record.screenshots)))
    print(
        f"\nafter the run: {frames_ok} of {len(set(record.frames))} hosted frames load, "
        f"{shots_ok} of {len(set(record.screenshots))} screenshot links load"
    )
    for missing in (frames_missing + shots_missing)[:10]:
        problems.append(f"lost: {missing}")
    listed = await listed_frames(record.frames, key)
    print(f"the key still works: its frames API lists {listed} frame(s)")
    if listed < len(set(record.frames)):
        problems.append(f"the frames API lists {listed} of {len(set(record.frames))} frames")
    if problems:
        print("\nPROBLEMS:\n" + "\n".join(f"- {problem}" for problem in problems))
        return 1
    print("\nevery request answered, recovered by itself, nothing lost")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phase-seconds", type=int, default=30)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--outage", type=int, default=10, help="seconds Postgres stays down")
    parser.add_argument("--seed", type=int, default=1)
    return asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
