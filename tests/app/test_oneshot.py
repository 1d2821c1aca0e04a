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
    served: list[str] = []  # noqa: RUF012  (the paths asked for, for the test to read)

    def do_GET(self) -> None:
        self.served.append(self.path)
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
    Page.served.clear()
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


def test_the_api_warnings_go_to_stderr(env: dict[str, str], page: str) -> None:  # noqa: F811
    # A text answer: the warnings come from the X-Pagecast-Warnings header, stdout is the page.
    done = run_cli(env, "markdown", page, "formt=json", "include_metadat=false")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# Hello") and "warning" not in done.stdout
    assert done.stderr.splitlines() == [
        "warning: not parameters of this endpoint, ignored: 'formt' (did you mean format?), "
        "'include_metadat' (did you mean include_metadata?)"
    ]
    # A JSON answer: one line for each warning it lists, whole.
    merged = page.replace("http://", "http:/")
    listed = run_cli(env, "markdown", merged, "format=json", "retyr=false")
    assert listed.returncode == 0, listed.stderr
    warnings = json.loads(listed.stdout)["warnings"]
    assert len(warnings) == 2
    assert "the target URL's scheme had one slash; read as two" in warnings
    assert "not parameters of this endpoint, ignored: 'retyr' (did you mean retry?)" in warnings
    assert listed.stderr.splitlines() == [f"warning: {warning}" for warning in warnings]
    # A refused request still tells what it ignored, before the error.
    failed = run_cli(env, "markdown", page, "format=yaml", "retyr=false")
    assert failed.returncode == 1 and failed.stdout == ""
    lines = failed.stderr.splitlines()
    assert "'retyr' (did you mean retry?)" in lines[0] and lines[0].startswith("warning: ")
    assert lines[1] == "markdown failed with 400:" and "-2200" in lines[2]


def test_a_url_without_its_scheme_is_refused_not_fetched(
    env: dict[str, str],  # noqa: F811
    page: str,
    tmp_path: Path,
) -> None:
    bare = page.removeprefix("http://")  # 127.0.0.1:PORT/
    for argv in (
        ("markdown", bare),
        ("screenshot", bare, "-o", str(tmp_path / "shot.png")),
        ("crawl", bare, "--out", str(tmp_path / "site")),
    ):
        done = run_cli(env, *argv)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr == (
            f"server.py {argv[0]}: {bare} is not a URL (no http:// or https://); "
            f"did you mean http://{bare}?\n"
        )
    assert Page.served == [], "nothing was fetched"
    assert not (tmp_path / "shot.png").exists() and not (tmp_path / "site").exists()
    named = run_cli(env, "markdown", "example.com/page?id=3")
    assert named.returncode == 2
    assert "did you mean https://example.com/page?id=3?" in named.stderr
    # The URL it suggests is the page.
    meant = run_cli(env, "markdown", f"http://{bare}")
    assert meant.returncode == 0 and meant.stdout.startswith("# Hello")
    assert Page.served == ["/"]


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
    # The card inline, in the responsive wrapper the hosted snippet has too.
    assert snippet.startswith('<div style="position:relative;width:100%;aspect-ratio:')
    assert "<iframe srcdoc=" in snippet and ' src="' not in snippet
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
    # An unknown parameter: warned about on stderr, the image alone on stdout.
    piped = run_bytes(env, "screenshot", "-o", "-", page, "format=png", "dimensions=xs", "qualty=5")
    assert piped.returncode == 0, piped.stderr
    assert piped.stderr.decode().splitlines() == [
        "warning: not parameters of this endpoint, ignored: 'qualty' (did you mean quality?)"
    ]
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
