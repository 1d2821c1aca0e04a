"""Two Pagecast processes, one installation: both ``server.py`` processes use the same fresh
Postgres database and the same S3 bucket (moto on 127.0.0.1), with their own ports and data
folders. A key issued once works on both, a frame made through one is served and managed by the
other, and a screenshot taken through one is fetched through the other's link."""

from __future__ import annotations

import http.client
import http.server
import io
import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from PIL import Image

from bench.pagecast_process import free_port, stop_pagecast
from tests.conftest import fresh_database
from tests.objectstore import ACCESS_KEY_ID, REGION, SECRET_ACCESS_KEY, LocalS3, local_s3

ROOT = Path(__file__).resolve().parent.parent.parent

PAGE = b"""<html><head><title>Shared harbour</title>
<meta property="og:title" content="Shared harbour">
<meta property="og:description" content="One installation, two hosts.">
<meta property="og:site_name" content="Quay News">
</head><body style="margin:0;background:#fff"><h1>Shared harbour</h1></body></html>"""


class Page(http.server.BaseHTTPRequestHandler):
    """The origin page both the oEmbed fallback and the screenshot read."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def origin() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/harbour"
    server.shutdown()
    server.server_close()


@pytest.fixture
def database() -> Iterator[str]:
    """A Postgres database of its own, created empty and dropped at the end."""
    with fresh_database("pagecast_hosts") as (_, url):
        yield url


@pytest.fixture
def s3() -> Iterator[LocalS3]:
    with local_s3() as server:
        yield server


class Host:
    """One running ``server.py``: its environment, addresses and log file."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = env
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def api(self) -> str:
        return f"http://127.0.0.1:{self.env['PAGECAST_SERVER_PORT']}"

    @property
    def frames(self) -> str:
        return f"http://127.0.0.1:{self.env['PAGECAST_SERVER_FRAME_PORT']}"

    def start(self) -> None:
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, str(ROOT / "server.py")],
                env=self.env,
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def wait_ready(self, seconds: float = 45, *, port_retries: int = 2) -> None:
        """Wait for /readyz; a port taken between its choice and the server's bind (the other
        host's own listeners take free ports too) is chosen again, ``port_retries`` times."""
        assert self.process is not None
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                log = self.log.read_text()
                if "Address already in use" in log and port_retries > 0:
                    port_retries -= 1
                    self.env.update(fresh_ports())
                    self.start()
                    continue
                raise AssertionError(f"server exited early:\n{log}")
            try:
                if get(f"{self.api}/readyz", timeout=2)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"server did not become ready:\n{self.log.read_text()}")

    def stop(self) -> None:
        if self.process is not None:
            stop_pagecast(self.process, timeout=20)


def fresh_ports() -> dict[str, str]:
    """The listeners' ports, each free when chosen."""
    names = ("PAGECAST_SERVER_PORT", "PAGECAST_SERVER_FRAME_PORT", "PAGECAST_SERVER_METRICS_PORT")
    return {name: str(free_port()) for name in names}


def host_env(tmp: Path, name: str, database: str, s3: LocalS3, bucket: str) -> dict[str, str]:
    return {
        **os.environ,
        "PAGECAST_CONFIG": str(ROOT / "config.toml"),
        **fresh_ports(),
        "PAGECAST_SERVER_LOG_LEVEL": "warning",
        "PAGECAST_STORE_DATABASE_URL": database,
        "PAGECAST_STORE_DATA_DIR": str(tmp / name),
        "PAGECAST_FETCH_ALLOW_HOSTS": "127.0.0.1",
        "PAGECAST_CONVERT_WORKERS": "1",
        "PAGECAST_FARM_WARM_CONTEXTS": "1",
        "PAGECAST_SCREENSHOTS_BACKEND": "s3",
        "PAGECAST_SCREENSHOTS_S3_ENDPOINT_URL": s3.endpoint_url,
        "PAGECAST_SCREENSHOTS_S3_BUCKET": bucket,
        "PAGECAST_SCREENSHOTS_S3_REGION": REGION,
        "PAGECAST_SCREENSHOTS_S3_ACCESS_KEY_ID": ACCESS_KEY_ID,
        "PAGECAST_SCREENSHOTS_S3_SECRET_ACCESS_KEY": SECRET_ACCESS_KEY,
        "PAGECAST_SCREENSHOTS_S3_ADDRESSING_STYLE": "path",
    }


@pytest.fixture
def hosts(tmp_path: Path, database: str, s3: LocalS3) -> Iterator[tuple[Host, Host, str]]:
    """Hosts A and B on one database and one bucket (started together), and the bucket."""
    bucket = s3.bucket()
    pair = (
        Host(host_env(tmp_path, "a", database, s3, bucket), tmp_path / "a.log"),
        Host(host_env(tmp_path, "b", database, s3, bucket), tmp_path / "b.log"),
    )
    try:
        for host in pair:
            host.start()
        for host in pair:
            host.wait_ready()
        yield pair[0], pair[1], bucket
    finally:
        for host in pair:
            host.stop()
    for host in pair:
        assert SECRET_ACCESS_KEY not in host.log.read_text()


def get(url: str, headers: dict[str, str] | None = None, timeout: float = 60) -> tuple[int, Any]:
    """Status and body (JSON decoded when it is JSON), following redirects."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, kind, body = response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        status, kind, body = error.code, error.headers["Content-Type"], error.read()
    return status, json.loads(body) if kind and "json" in kind else body


def request(method: str, url: str, headers: dict[str, str]) -> http.client.HTTPResponse:
    """One request, redirects not followed."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.netloc, timeout=30)
    target = f"{parts.path}?{parts.query}" if parts.query else parts.path
    connection.request(method, target, headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


@pytest.mark.chromium
@pytest.mark.postgres
@pytest.mark.timeout(120)
def test_two_processes_share_keys_frames_and_screenshots(
    hosts: tuple[Host, Host, str], origin: str, s3: LocalS3
) -> None:
    a, b, bucket = hosts
    issued = subprocess.run(
        [sys.executable, str(ROOT / "server.py"), "keys", "create", "--org", "harbour"],
        env=a.env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=True,
    )
    key = issued.stdout.strip().splitlines()[-1]
    target = quote(origin, safe="")

    # An og_frame embed made through A...
    status, embed = get(f"{a.api}/api/3.0/oembed/{target}?app_id={key}&always_og_frame=true")
    assert status == 200, embed
    assert embed["source"] == "og_frame"
    frame_url = embed["frame_url"]
    assert frame_url.startswith(f"{a.frames}/oembed/")
    # ...is served by B's frame host and listed, read and deleted through B's frames API.
    status, page = get(frame_url.replace(a.frames, b.frames, 1))
    assert status == 200 and b"Shared harbour" in page
    status, listing = get(f"{b.frames}/api/v1/frames", headers={"api-key": key})
    assert status == 200, listing
    assert [frame["embed_id"] for frame in listing["frames"]] == [embed["embed_id"]]
    status, record = get(f"{b.frames}/api/v1/frames/{embed['embed_id']}?app_id={key}")
    assert status == 200 and record["metadata"]["title"] == "Shared harbour"
    deleted = request("DELETE", f"{b.frames}/api/v1/frames/{embed['embed_id']}", {"api-key": key})
    assert deleted.status == 204
    status, gone = get(f"{a.frames}/api/v1/frames/{embed['embed_id']}?app_id={key}")
    assert status == 404 and gone["error"]["code"] == "frame_not_found"

    # A screenshot taken through A: its link, asked of B, redirects into the shared bucket.
    status, shot = get(f"{a.api}/api/1.1/screenshot/{target}?app_id={key}&format=png")
    assert status == 200, shot
    path = urlsplit(shot["screenshotUrl"]).path
    assert shot["screenshotUrl"] == f"{a.api}{path}"
    assert s3.keys(bucket) == [f"screenshots/{path.rsplit('/', 1)[1]}"]
    redirect = request("GET", f"{b.api}{path}", {})
    assert redirect.status == 302
    assert (redirect.getheader("Location") or "").startswith(f"{s3.endpoint_url}/{bucket}/")
    status, image = get(f"{b.api}{path}")
    assert status == 200
    assert Image.open(io.BytesIO(image)).size == (1366, 768)
    # The same request through B reuses A's capture: one installation, one cache of links.
    status, again = get(f"{b.api}/api/1.1/screenshot/{target}?app_id={key}&format=png")
    assert status == 200 and again["screenshotUrl"] == f"{b.api}{path}"
