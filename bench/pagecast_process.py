"""Shared by the benchmarks: free ports, waiting for a URL, and a throw-away Pagecast process
(SQLite store in a temporary folder, loopback allowed, a key on an unthrottled plan)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
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


def start_pagecast(tmp: str, api_port: int) -> tuple[subprocess.Popen[bytes], str]:
    """Start Pagecast on ``api_port`` with its data in ``tmp``; the process and a key."""
    config = Path(tmp) / "config.toml"
    config.write_text(
        f"[server]\nport = {api_port}\nframe_port = {free_port()}\n"
        f'metrics_port = {free_port()}\nlog_level = "warning"\n[store]\ndata_dir = "{tmp}"\n'
        '[fetch]\nallow_hosts = ["127.0.0.1"]\n'
        "[plans.bench]\nrequests_per_second = 1000000.0\nburst = 1000000\n"
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
    process = subprocess.Popen([PYTHON, server], env=env, cwd=ROOT)
    wait_for(f"http://127.0.0.1:{api_port}/healthz")
    return process, key
