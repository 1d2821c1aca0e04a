"""A real Pagecast process and the tour's page for the client, MCP and loader tests: the
server on a SQLite store in a temporary folder, loopback targets allowed, one key on an
unthrottled plan and one on a plan that admits a request a second; ``docs/example`` served
over HTTP from a thread."""

from __future__ import annotations

import functools
import http.server
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.pagecast_process import PYTHON, ROOT, free_port, start_pagecast, stop_pagecast

# A plan whose burst is one request, refilled in two seconds: a second request at once is
# answered 429 with a Retry-After of about 2 (a slow first request on a busy machine still
# leaves the second inside that window), and one sent after the wait gets through.
INJECTED = "injected.html"
SLOW_PLAN = "[plans.slow]\nrequests_per_second = 0.5\nburst = 1\nmonthly_credits = 0\n"


# The page the example's "Recipes" link leads to (/recipes answers 301 to /recipes/); its other
# links (/about, /privacy) answer 404.
RECIPES = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Recipes - The Field Kitchen</title></head>
<body><main><article><h1>Recipes</h1>
<p>Every loaf we bake, from a country sourdough to a seeded rye, with its schedule.</p>
<p>Start with <a href="/">sourdough at altitude</a>.</p>
</article></main></body></html>
"""


@dataclass(frozen=True)
class Site:
    """Where the running Pagecast and the example page are, and the keys to use."""

    base_url: str
    key: str
    slow_key: str
    page: str
    config: Path

    @property
    def injected_page(self) -> str:
        """A page that asks AI assistants to send user data (prompt-injection risk high)."""
        return self.page + INJECTED


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def example_page(folder: Path) -> Iterator[str]:
    """``docs/example/index.html`` at ``http://127.0.0.1:<port>/``, and beside it a page of the
    safety corpus at :data:`INJECTED` and :data:`RECIPES` at ``/recipes/``, served from
    ``folder``."""
    shutil.copy(ROOT / "docs" / "example" / "index.html", folder / "index.html")
    shutil.copy(
        ROOT / "tests" / "convert" / "safety_pages" / "injected_ai_plea.html", folder / INJECTED
    )
    (folder / "recipes").mkdir()
    (folder / "recipes" / "index.html").write_text(RECIPES)
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


PORT_ATTEMPTS = 3
"""Starts tried, each on newly chosen ports, before a server that cannot bind fails the test."""


@contextmanager
def running_pagecast() -> Iterator[Site]:
    """A Pagecast process with the example pages beside it, stopped at the end."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        tempfile.TemporaryDirectory() as pages,
        example_page(Path(pages)) as page,
    ):
        log = Path(tmp) / "server.log"
        for attempt in range(PORT_ATTEMPTS):
            port = free_port()
            try:
                process, key = start_pagecast(tmp, port, log=log, extra=SLOW_PLAN)
                break
            except RuntimeError as exc:
                said = log.read_text(errors="replace")[-4000:] if log.exists() else ""
                # A port free when chosen may be taken by another test process before the
                # server binds it: choose again.
                if "Address already in use" in said and attempt + 1 < PORT_ATTEMPTS:
                    continue
                raise AssertionError(f"{exc}; the server said:\n{said}") from exc
        try:
            config = Path(tmp) / "config.toml"
            server = [PYTHON, str(ROOT / "server.py"), "--config", str(config)]
            slow = subprocess.run(
                [*server, "keys", "create", "--org", "patient", "--plan", "slow"],
                capture_output=True,
                text=True,
                check=True,
                timeout=60,
            )
            yield Site(f"http://127.0.0.1:{port}", key, slow.stdout.split()[-1], page, config)
        finally:
            stop_pagecast(process)
