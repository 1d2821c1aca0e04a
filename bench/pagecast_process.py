"""Shared by the benchmarks: free ports, waiting for a URL, a throw-away Pagecast process
(SQLite store in a temporary folder or a given Postgres database, loopback allowed, a key on an
unthrottled plan without a quota), whether its browser farm has work in flight in the background,
and the memory of its process tree."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
# The benchmarks import Pagecast's own modules (the farm's launch flags, the fetcher).
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):  # loopback only
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


def start_pagecast(
    tmp: str,
    api_port: int,
    postgres: str = "",
    log: Path | None = None,
    extra: str = "",
    allow_hosts: tuple[str, ...] = ("127.0.0.1",),
) -> tuple[subprocess.Popen[bytes], str]:
    """Start Pagecast on ``api_port`` with its data in ``tmp`` (and its tables in ``postgres``
    when given); the process and a key. ``extra`` is appended to its config file (whole TOML
    sections). Its output goes to ``log`` when given (else it is inherited). A server that does
    not come up is killed."""
    config = Path(tmp) / "config.toml"
    database = f'database_url = "{postgres}"\n' if postgres else ""
    config.write_text(
        f"[server]\nport = {api_port}\nframe_port = {free_port()}\n"
        f'metrics_port = {free_port()}\nlog_level = "warning"\n'
        f'[store]\ndata_dir = "{tmp}"\n{database}'
        f"[fetch]\nallow_hosts = {json.dumps(list(allow_hosts))}\n"
        "[plans.bench]\nrequests_per_second = 1000000.0\nburst = 1000000\n"
        "monthly_credits = 0\n" + extra
    )
    env = {**os.environ, "PAGECAST_CONFIG": str(config)}
    server = str(ROOT / "server.py")
    created = subprocess.run(
        [PYTHON, server, "keys", "create", "--org", "bench", "--plan", "bench"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    key = created.stdout.strip().splitlines()[-1]
    with contextlib.ExitStack() as stack:
        output = stack.enter_context(log.open("ab")) if log else None
        process = subprocess.Popen(
            [PYTHON, server], env=env, cwd=ROOT, stdout=output, stderr=output
        )
    try:
        wait_for(f"http://127.0.0.1:{api_port}/healthz")
    except BaseException:
        process.kill()
        process.wait(10)
        raise
    return process, key


def stop_pagecast(process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    """Stop gracefully (SIGTERM: drain, close the farm), or kill after ``timeout``."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def farm_quiet(api_port: int) -> bool:
    """Whether Pagecast's browser farm has nothing in flight in the background (from /readyz): no
    page being closed or reset after its capture, no warm context being made, no retired browser
    still closing."""
    url = f"http://127.0.0.1:{api_port}/readyz"
    try:
        with urllib.request.urlopen(url, timeout=2) as response:  # loopback only
            body = response.read()
    except urllib.error.HTTPError as exc:  # 503 while not ready: the body still tells
        body = exc.read()
    except OSError:
        return False
    farm = json.loads(body).get("farm", {})
    return (
        farm.get("background_pages", 0) == 0
        and not farm.get("filling", False)
        and farm.get("browsers", 1) <= 1
    )


def chromium_pids(root: int, exclude: frozenset[int] = frozenset()) -> set[int]:
    """Chromium browsers and renderers (not their helpers, which come and go with them) living
    under ``root``, leaving out the subtrees of ``exclude``."""
    # Imported here: Pagecast's root is put on sys.path only once this module has run.
    from browser.farm.procs import process_tree  # noqa: PLC0415

    pids: set[int] = set()
    skipped: set[int] = set(exclude)
    for info in process_tree(root):
        if info.pid in skipped or info.ppid in skipped:
            skipped.add(info.pid)
            continue
        if info.state == "Z":
            continue
        try:
            command = Path(f"/proc/{info.pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"chromium" in command and (b"--type=" not in command or b"--type=renderer" in command):
            pids.add(info.pid)
    return pids


def tree_memory_mb(pid: int) -> tuple[float, float, float]:
    """(summed RSS, summed PSS, the server process's own PSS) in MB of Pagecast's process tree,
    from one reading of each process: RSS counts Chromium's shared pages once per process, PSS
    divides them among sharers."""
    # Imported here: Pagecast's root is put on sys.path only once this module has run.
    from browser.farm.procs import process_tree, pss_bytes  # noqa: PLC0415

    tree = [info for info in process_tree(pid) if info.state != "Z"]
    rss = sum(info.rss_bytes for info in tree)
    pss = {info.pid: pss_bytes(info) for info in tree}
    return rss / 2**20, sum(pss.values()) / 2**20, pss.get(pid, 0) / 2**20


def chromium_browsers(root: int) -> list[int]:
    """The Chromium browser processes (not renderers or helpers) under Pagecast's process."""
    # Imported here: Pagecast's root is put on sys.path only once this module has run.
    from browser.farm.procs import process_tree  # noqa: PLC0415

    pids = []
    for info in process_tree(root):
        try:
            command = Path(f"/proc/{info.pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"chromium" in command and b"--type=" not in command:
            pids.append(info.pid)
    return pids


def tree_cpu_seconds(pid: int, exclude: frozenset[int] = frozenset()) -> float:
    """CPU seconds (user and system) of ``pid``'s process tree, with the children each process
    has reaped (Chromium's closed renderers, a browser launched and closed), leaving out the
    subtrees of ``exclude``."""
    # Imported here: Pagecast's root is put on sys.path only once this module has run.
    from browser.farm.procs import process_tree  # noqa: PLC0415

    total = 0.0
    skipped: set[int] = set(exclude)
    for info in process_tree(pid):
        if info.pid in skipped or info.ppid in skipped:
            skipped.add(info.pid)
            continue
        try:
            fields = Path(f"/proc/{info.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return total
