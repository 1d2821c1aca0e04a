"""One-shot commands for people without a running server: ``server.py screenshot``,
``server.py markdown`` and ``server.py oembed``.

Each starts Pagecast's services with a temporary SQLite store, serves the API application on a
loopback port for the length of one request, asks it exactly as a client would, and writes the
answer. The same parameter tables, fetchers, farm and converters answer; nothing is kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import socket
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote, urlencode

from tornado.httpclient import AsyncHTTPClient, HTTPClientError
from tornado.httpserver import HTTPServer

from app.config import PlanSettings, Settings
from app.services import close_services, open_services
from app.web import make_api_app

ROUTES = {
    "screenshot": "/api/1.1/screenshot/{}",
    "markdown": "/api/3.0/markdown/{}",
    "oembed": "/api/3.0/oembed/{}",
}
REQUEST_TIMEOUT = 180.0
PROGRESS_EVERY = 2.0
CLI_PLAN = "cli"


def parse_pairs(pairs: list[str]) -> dict[str, str]:
    """``name=value`` arguments as parameters (ValueError for anything else)."""
    params: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"parameters look like name=value, not {pair!r}")
        params[name] = value
    return params


async def run_once(
    settings: Settings, command: str, url: str, params: dict[str, str], output: Path | None
) -> int:
    """Answer one request; returns the process exit code (0 on a 2xx answer)."""
    with tempfile.TemporaryDirectory(prefix="pagecast-") as tmp:
        settings = _private(settings, tmp)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        sock.setblocking(False)
        port = sock.getsockname()[1]
        settings.server.port = port
        services = await open_services(settings, own_endpoints=[("127.0.0.1", port)])
        server = HTTPServer(make_api_app(services))
        server.add_sockets([sock])
        try:
            loop = asyncio.get_running_loop()
            key = (await loop.run_in_executor(None, services.store.create_key, "cli", CLI_PLAN)).key
            return await _ask(port, key, command, url=url, params=params, output=output)
        finally:
            server.stop()
            await close_services(services)


def _private(settings: Settings, folder: str) -> Settings:
    """The settings with a throw-away SQLite store (images included) and an unmetered plan for
    this one request."""
    settings = dataclasses.replace(settings)
    settings.store = dataclasses.replace(settings.store, database_url="", data_dir=folder)
    # The image goes to the throw-away folder too, never into a bucket shared with servers.
    settings.screenshots = dataclasses.replace(settings.screenshots, backend="filesystem")
    settings.server = dataclasses.replace(settings.server)
    settings.plans = {
        **settings.plans,
        CLI_PLAN: PlanSettings(
            badge=False,
            premium=True,
            superior=True,
            requests_per_second=1000.0,
            burst=1000,
            monthly_credits=0,
        ),
    }
    return settings


async def _ask(
    port: int, key: str, command: str, *, url: str, params: dict[str, str], output: Path | None
) -> int:
    query = dict(params)
    query["app_id"] = key
    if command == "screenshot":
        query["response_type"] = "image"
    target = f"http://127.0.0.1:{port}{ROUTES[command].format(quote(url, safe=''))}"
    progress = asyncio.create_task(_progress(command))
    try:
        response = await AsyncHTTPClient().fetch(
            f"{target}?{urlencode(query)}",
            request_timeout=REQUEST_TIMEOUT,
            raise_error=False,
        )
    except (HTTPClientError, OSError) as exc:
        print(f"\r{command} failed: {exc}", file=sys.stderr)
        return 1
    finally:
        progress.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await progress
    credits = response.headers.get("X-BILLING-REQUESTS", "0")
    if response.code >= 400:
        print(f"\r{command} failed with {response.code}:", file=sys.stderr)
        sys.stderr.write(response.body.decode("utf-8", "replace") + "\n")
        return 1
    if output is not None:
        await asyncio.get_running_loop().run_in_executor(None, output.write_bytes, response.body)
        print(
            f"\rwrote {len(response.body)} bytes to {output} ({credits} credits)", file=sys.stderr
        )
    elif command == "screenshot":
        print("\ra screenshot needs -o FILE", file=sys.stderr)
        return 2
    else:
        sys.stdout.write(response.body.decode("utf-8", "replace"))
        if not response.body.endswith(b"\n"):
            sys.stdout.write("\n")
    return 0


async def _progress(command: str) -> None:
    """A progress line on stderr while a long request runs (renders take seconds)."""
    started = time.monotonic()
    while True:
        await asyncio.sleep(PROGRESS_EVERY)
        if sys.stderr.isatty():
            print(
                f"\r{command}: working, {time.monotonic() - started:.0f}s", end="", file=sys.stderr
            )
        else:
            print(f"{command}: working, {time.monotonic() - started:.0f}s", file=sys.stderr)
