"""The set-up's Chromium works with Playwright: it launches headless with the flags Pagecast uses,
renders a local page and takes a screenshot; those flags keep Playwright's disabled features and
give a context no renderer beside its page's."""

from __future__ import annotations

import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from browser.farm.flags import LAUNCH_ARGS

CHROMIUM = os.environ.get("PAGECAST_TEST_CHROMIUM", "/usr/bin/chromium")
FLAGS = list(LAUNCH_ARGS)  # exactly how the farm launches Chromium


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<html><body style='background:#0a0'><h1 id='t'>Rendered</h1></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def page_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.mark.chromium
def test_chromium_renders_a_local_page(page_url: str) -> None:
    assert shutil.which(CHROMIUM), "Chromium is missing: run bash deploy/bootstrap.sh setup"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, timeout=30_000)
        try:
            page = browser.new_page(viewport={"width": 400, "height": 300})
            page.goto(page_url, timeout=15_000)
            assert page.text_content("#t", timeout=5_000) == "Rendered"
            image = page.screenshot(type="png", timeout=15_000)
            assert image.startswith(b"\x89PNG") and len(image) > 500
        finally:
            browser.close()


@pytest.mark.chromium
def test_the_flags_keep_playwrights_disabled_features_and_one_renderer_a_context(
    page_url: str,
) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, timeout=30_000)
        try:
            session = browser.new_browser_cdp_session()
            processes = session.send("SystemInfo.getProcessInfo")["processInfo"]
            pid = next(p["id"] for p in processes if p["type"] == "browser")
            command = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
            switches = [
                set(arg.split("=", 1)[1].split(","))
                for arg in command
                if arg.startswith("--disable-features=")
            ]
            # Chromium keeps only the last one: it must repeat what Playwright's turns off.
            assert len(switches) >= 2
            assert all(earlier <= switches[-1] for earlier in switches[:-1])

            page = browser.new_context().new_page()
            page.goto(page_url, timeout=15_000)
            page.screenshot(type="png", timeout=15_000)
            processes = session.send("SystemInfo.getProcessInfo")["processInfo"]
            assert [p["type"] for p in processes].count("renderer") == 1
            targets = session.send("Target.getTargets", {"filter": [{}]})["targetInfos"]
            assert [t["url"] for t in targets if t["type"] == "page"] == [page_url]
            assert not [t["url"] for t in targets if t["url"].startswith("chrome://")]
        finally:
            browser.close()
