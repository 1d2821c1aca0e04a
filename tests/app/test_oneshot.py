"""The one-shot commands (``server.py markdown|oembed|screenshot URL``) against a local page,
through the same API code paths, with nothing left behind."""

from __future__ import annotations

import http.server
import io
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from tests.app.test_server import ROOT, env, run_cli  # noqa: F401  (env is a fixture)

PAGE = (
    b"<html><head><title>Local</title><meta property='og:title' content='Local page'></head>"
    b"<body><h1>Hello</h1><p>Some words here for the page, with commas, and more.</p></body></html>"
)


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path != "/":
            self.send_error(404)
            return
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


def test_markdown_one_shot(env: dict[str, str], page: str, tmp_path: Path) -> None:  # noqa: F811
    done = run_cli(env, "markdown", page, "format=json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["markdown"].startswith("# Hello")
    assert done.stderr == "", "only the result, unless -v"
    # The output file's extension chooses the format; options and parameters in any order.
    target = tmp_path / "page.json"
    verbose = run_cli(env, "markdown", "-o", str(target), page, "include_metadata=false", "-v")
    assert verbose.returncode == 0, verbose.stderr
    envelope = json.loads(target.read_text())
    assert envelope["markdown"].startswith("# Hello") and "metadata" not in envelope
    assert verbose.stdout == ""
    assert f"wrote {target.stat().st_size} bytes to {target} (1 credit)" in verbose.stderr
    assert "INFO pagecast.access" in verbose.stderr, "-v logs"
    plain = run_cli(env, "markdown", page, "-o", "-")
    assert plain.stdout.startswith("# Hello") and plain.stderr == ""
    bad = run_cli(env, "markdown", page, "format=yaml")
    assert bad.returncode == 1 and "-2200" in bad.stderr
    assert run_cli(env, "markdown", page, "not-a-pair").returncode == 2
    assert not (Path(env["PAGECAST_STORE_DATA_DIR"]) / "pagecast.db").exists(), "nothing kept"


def test_refused_loopback_names_the_setting(env: dict[str, str], page: str) -> None:  # noqa: F811
    closed = {key: value for key, value in env.items() if key != "PAGECAST_FETCH_ALLOW_HOSTS"}
    done = run_cli(closed, "markdown", page)
    assert done.returncode == 1 and "-3006" in done.stderr
    assert "fetch.allow_hosts" in done.stderr
    assert "PAGECAST_FETCH_ALLOW_HOSTS=127.0.0.1 " in done.stderr
    # An allowed host that fails for another reason gets no such hint.
    missing = run_cli(env, "markdown", page + "missing", "retry=false")
    assert missing.returncode == 1 and "allow_hosts" not in missing.stderr


def test_oembed_one_shot_hands_out_the_card_itself(
    env: dict[str, str],  # noqa: F811
    page: str,
    tmp_path: Path,
) -> None:
    embed = run_cli(env, "oembed", page)
    assert embed.returncode == 0, embed.stderr
    answer = json.loads(embed.stdout)
    assert answer["source"] == "og_frame"
    assert "frame_url" not in answer and "embed_id" not in answer, "nothing that dies with us"
    snippet = answer["html"]
    assert snippet.startswith("<iframe srcdoc=") and ' src="' not in snippet
    assert 'sandbox="allow-popups allow-popups-to-escape-sandbox"' in snippet
    assert "Local page" in snippet and "127.0.0.1:8081" not in snippet
    card = tmp_path / "card.html"
    saved = run_cli(env, "oembed", page, "-o", str(card), "theme=dark", "-v")
    assert saved.returncode == 0, saved.stderr
    text = card.read_text()
    assert text.startswith("<!DOCTYPE html>") and "Local page" in text
    assert "lives only as long as this command" in saved.stderr


@pytest.mark.chromium
def test_screenshot_one_shot(env: dict[str, str], page: str, tmp_path: Path) -> None:  # noqa: F811
    # Parameters and options mixed, as people type them.
    target = tmp_path / "shot.png"
    done = run_cli(env, "screenshot", page, "-o", str(target), "format=png", "dimensions=sm")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""
    with Image.open(io.BytesIO(target.read_bytes())) as image:
        assert image.format == "PNG" and image.size == (1024, 768)
    # No format: the extension says which; -o - writes the image to standard output.
    webp = tmp_path / "shot.webp"
    assert run_cli(env, "screenshot", page, "-o", str(webp)).returncode == 0
    with Image.open(io.BytesIO(webp.read_bytes())) as image:
        assert image.format == "WEBP"
    piped = run_bytes(env, "screenshot", "-o", "-", page, "format=png", "dimensions=xs")
    assert piped.returncode == 0, piped.stderr
    with Image.open(io.BytesIO(piped.stdout)) as image:
        assert image.format == "PNG" and image.size == (375, 812)
    refused = run_cli(env, "screenshot", page)
    assert refused.returncode == 2 and "-o -" in refused.stderr


def run_bytes(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[bytes]:  # noqa: F811
    return subprocess.run(
        [sys.executable, str(ROOT / "server.py"), *args],
        env=env,
        capture_output=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
