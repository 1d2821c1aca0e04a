"""The real process: ``python server.py`` with its three listeners, the keys CLI, the config
command, and a graceful SIGTERM that lets an in-flight request finish."""

from __future__ import annotations

import http.server
import json
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from app.config import Settings
from app.effective import known_variables
from bench.pagecast_process import free_port

ROOT = Path(__file__).resolve().parent.parent.parent


def fetch(url: str, timeout: float = 10) -> tuple[int, Any, bytes]:
    """Status, headers (case-insensitive) and body."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def run_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "server.py"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )


class SlowPage(http.server.BaseHTTPRequestHandler):
    """An origin page that takes a second to answer, served from a thread."""

    def do_GET(self) -> None:
        time.sleep(1.0)
        body = b"<html><body><h1>Slow but sure</h1></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def slow_origin() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SlowPage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/slow"
    server.shutdown()
    server.server_close()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    ports = {name: free_port() for name in ("PORT", "FRAME_PORT", "METRICS_PORT")}
    # The test harness's own PAGECAST_* variables are no settings: the server would warn.
    known = known_variables(Settings())
    inherited = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("PAGECAST_") or name in known
    }
    return {
        **inherited,
        "PAGECAST_CONFIG": str(ROOT / "config.toml"),
        "PAGECAST_STORE_DATA_DIR": str(tmp_path / "data"),
        "PAGECAST_FETCH_ALLOW_HOSTS": "127.0.0.1",
        "PAGECAST_CONVERT_WORKERS": "1",
        **{f"PAGECAST_SERVER_{name}": str(port) for name, port in ports.items()},
    }


def start_server(env: dict[str, str]) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "server.py")],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{env['PAGECAST_SERVER_PORT']}/healthz"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(
                f"server exited early:\n{process.stdout.read() if process.stdout else ''}"
            )
        try:
            if fetch(url, timeout=1)[0] == 200:
                return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise AssertionError("server did not come up")


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.kill()
        process.wait(10)
    if process.stdout:
        process.stdout.close()


def test_keys_cli_create_list_revoke(env: dict[str, str]) -> None:
    created = run_cli(env, "keys", "create", "--org", "acme", "--plan", "pro")
    assert created.returncode == 0, created.stderr
    key = created.stdout.strip().splitlines()[-1]
    assert key.startswith("pc_") and " " not in key
    listed = run_cli(env, "keys", "list")
    assert key[:11] in listed.stdout and "acme" in listed.stdout and "pro" in listed.stdout
    assert key not in listed.stdout
    signing = run_cli(env, "keys", "signing-secret", key[:11])
    assert signing.returncode == 0 and re.fullmatch(r"[0-9a-f]{64}\n", signing.stdout)
    assert f"signing secret of {key[:11]} (signed links): {signing.stdout}" in created.stdout
    assert run_cli(env, "keys", "revoke", key[:11]).returncode == 0
    assert run_cli(env, "keys", "signing-secret", key[:11]).returncode == 1
    assert run_cli(env, "keys", "revoke", key[:11]).returncode == 1
    bad_plan = run_cli(env, "keys", "create", "--org", "acme", "--plan", "platinum")
    assert bad_plan.returncode == 2 and "platinum" in bad_plan.stderr


def test_bad_config_exits_2_with_every_problem(env: dict[str, str]) -> None:
    result = run_cli(
        {**env, "PAGECAST_SERVER_PORT": "http", "PAGECAST_FETCH_MAX_REDIRECTS": "-1"},
        "keys",
        "list",
    )
    assert result.returncode == 2
    assert (
        "PAGECAST_SERVER_PORT" in result.stderr and "PAGECAST_FETCH_MAX_REDIRECTS" in result.stderr
    )
    assert "Traceback" not in result.stderr


def test_three_listeners_and_graceful_shutdown(env: dict[str, str], slow_origin: str) -> None:
    key = run_cli(env, "keys", "create", "--org", "acme").stdout.strip().splitlines()[-1]
    process = start_server(env)
    try:
        api = f"http://127.0.0.1:{env['PAGECAST_SERVER_PORT']}"
        frames = f"http://127.0.0.1:{env['PAGECAST_SERVER_FRAME_PORT']}"
        metrics = f"http://127.0.0.1:{env['PAGECAST_SERVER_METRICS_PORT']}"
        assert fetch(f"{frames}/healthz")[0] == 200
        status, _, body = fetch(f"{api}/readyz")
        assert status == 200 and json.loads(body)["checks"]["database"] is True

        # A request in flight when SIGTERM arrives is still answered.
        result: dict[str, object] = {}
        url = f"{api}/api/3.0/markdown/{quote(slow_origin, safe='')}?app_id={key}"
        worker = threading.Thread(target=lambda: result.update(answer=fetch(url, timeout=20)))
        worker.start()
        time.sleep(0.4)
        status, _, text = fetch(f"{metrics}/metrics")
        assert status == 200 and b"pagecast_requests_in_flight 1.0" in text
        process.send_signal(signal.SIGTERM)
        worker.join(20)
        status, headers, body = result["answer"]  # type: ignore[misc]
        assert status == 200 and b"# Slow but sure" in body
        assert headers["X-BILLING-REQUESTS"] == "1"
        assert process.wait(timeout=20) == 0
        output = process.stdout.read() if process.stdout else ""
        assert "stopped" in output and "Traceback" not in output
        # The banner says where a person starts: the playground and the reference.
        assert f"playground {api}/, API reference {api}/docs" in output
        assert key not in output  # keys never reach the logs
    finally:
        stop(process)


def test_metrics_listener_exposes_pagecast_metrics(env: dict[str, str]) -> None:
    key = run_cli(env, "keys", "create", "--org", "metrics-org").stdout.strip().splitlines()[-1]
    process = start_server(env)
    try:
        api = f"http://127.0.0.1:{env['PAGECAST_SERVER_PORT']}"
        fetch(f"{api}/api/3.0/markdown/{quote('http://127.0.0.1:1/', safe='')}?app_id={key}")
        fetch(f"{api}/openapi.json")
        # Loopback is allowed in this test, but Pagecast's own listeners never are targets.
        own = quote(f"http://127.0.0.1:{env['PAGECAST_SERVER_METRICS_PORT']}/metrics", safe="")
        status, _, body = fetch(f"{api}/api/3.0/markdown/{own}?app_id={key}")
        assert status == 400 and json.loads(body)["error"]["code"] == -3006
        _, _, text = fetch(f"http://127.0.0.1:{env['PAGECAST_SERVER_METRICS_PORT']}/metrics")
        body = text.decode()
        assert 'pagecast_requests_total{endpoint="markdown",status="400"} 2.0' in body
        assert "pagecast_request_duration_seconds_bucket" in body
        assert "process_resident_memory_bytes" in body
        assert "127.0.0.1:1" not in body and key not in body
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
        stop(process)


def test_providers_import(env: dict[str, str], tmp_path: Path) -> None:
    """The importer validates an oembed.com-format file and installs it in the data folder."""
    good = tmp_path / "providers.json"
    good.write_text(
        '[{"provider_name": "Clips", "provider_url": "https://clips.example",'
        ' "endpoints": [{"schemes": ["https://clips.example/c/*"],'
        ' "url": "https://clips.example/oembed"}]},'
        ' {"provider_name": "", "endpoints": []}]'
    )
    done = run_cli(env, "providers", "import", str(good))
    assert done.returncode == 0, done.stderr
    assert "imported 1 providers (1 problems skipped)" in done.stdout
    assert (tmp_path / "data" / "providers.json").read_bytes() == good.read_bytes()
    assert "skipped" in done.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert run_cli(env, "providers", "import", str(broken)).returncode == 2


def test_usage_command(env: dict[str, str]) -> None:
    assert run_cli(env, "keys", "create", "--org", "acme", "--plan", "free").returncode == 0
    listed = run_cli(env, "usage", "--org", "acme", "--month", "2026-01")
    assert listed.returncode == 0 and "no usage recorded" in listed.stdout
    assert run_cli(env, "usage", "--month", "2026-13").returncode == 2


def test_json_log_lines() -> None:
    from server import JsonFormatter  # noqa: PLC0415  (the module is also the CLI under test)

    record = logging.LogRecord("pagecast.access", logging.INFO, __file__, 1, "GET / 200", (), None)
    record.request_id = "abc"
    record.access = {"status": 200, "endpoint": "markdown", "tier": "direct"}
    line = json.loads(JsonFormatter().format(record))
    assert line["request_id"] == "abc" and line["status"] == 200 and line["tier"] == "direct"
    assert line["message"] == "GET / 200" and line["level"] == "info"
