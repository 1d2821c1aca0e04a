"""The one-shot commands (``server.py markdown|oembed|screenshot URL``) against a local page,
through the same API code paths, with nothing left behind."""

from __future__ import annotations

import http.server
import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from tests.app.test_server import env, run_cli  # noqa: F401  (env is a fixture)

PAGE = (
    b"<html><head><title>Local</title><meta property='og:title' content='Local page'></head>"
    b"<body><h1>Hello</h1><p>Some words here for the page, with commas, and more.</p></body></html>"
)


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def page() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_markdown_and_oembed_one_shot(env: dict[str, str], page: str) -> None:  # noqa: F811
    done = run_cli(env, "markdown", page, "format=json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["markdown"].startswith("# Hello")
    embed = run_cli(env, "oembed", page)
    assert embed.returncode == 0 and json.loads(embed.stdout)["source"] == "og_frame"
    bad = run_cli(env, "markdown", page, "format=yaml")
    assert bad.returncode == 1 and "-2200" in bad.stderr
    assert run_cli(env, "markdown", page, "not-a-pair").returncode == 2
    assert not (Path(env["PAGECAST_STORE_DATA_DIR"]) / "pagecast.db").exists(), "nothing kept"


@pytest.mark.chromium
def test_screenshot_one_shot(env: dict[str, str], page: str, tmp_path: Path) -> None:  # noqa: F811
    target = tmp_path / "shot.png"
    done = run_cli(env, "screenshot", page, "format=png", "dimensions=sm", "-o", str(target))
    assert done.returncode == 0, done.stderr
    with Image.open(io.BytesIO(target.read_bytes())) as image:
        assert image.size == (1024, 768)
    assert run_cli(env, "screenshot", page).returncode == 2
