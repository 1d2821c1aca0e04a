"""Who may call the MCP server over streamable HTTP: ``pagecast-mcp`` listening on 127.0.0.1,
asked over real HTTP without its token, with another, with a foreign Host or Origin, and by the
MCP SDK's own client with the token; and the start refused beyond loopback without one.

None of these calls reaches Pagecast (initialize and the tool list are the MCP server's own), so
the key is any and the API an address nothing listens on."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from bench.pagecast_process import ROOT, free_port
from pagecast_client.mcp_http import (
    TOKEN_VARIABLE,
    ExposureError,
    bearer_matches,
    exposure_warning,
    http_access,
    is_loopback,
)
from tests.clients.test_mcp import CLIENT_SOURCE, REQUIRED

TOKEN = secrets.token_urlsafe(24)
PROXY_HOST = "mcp.example"
APP_ORIGIN = "https://app.example"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "pagecast-tests", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@dataclass
class Listener:
    """A running ``pagecast-mcp --transport streamable-http`` and what it wrote to stderr."""

    port: int
    stderr: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def initialize(self, **headers: str) -> httpx.Response:
        """An MCP ``initialize`` POSTed with these headers (``Host``, ``Origin``, ...)."""
        sent = {**MCP_HEADERS, **{name.replace("_", "-"): value for name, value in headers.items()}}
        return httpx.post(self.url, json=INITIALIZE, headers=sent, timeout=10)


def environment(token: str | None) -> dict[str, str]:
    """A key (never used), an API nothing listens on, and the MCP token when given."""
    kept = {name: value for name, value in os.environ.items() if not name.startswith("PAGECAST_")}
    env = {
        **kept,
        "PAGECAST_API_KEY": "pc_unused",
        "PAGECAST_URL": "http://127.0.0.1:1",
        "PYTHONPATH": CLIENT_SOURCE,
    }
    return {**env, TOKEN_VARIABLE: token} if token else env


def wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    """Once the port accepts connections (the server's start takes a few seconds)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, "the MCP server exited"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            time.sleep(0.1)
            continue
        return
    raise AssertionError("the MCP server did not listen")


def start(folder: Path, token: str | None, *options: str) -> Iterator[Listener]:
    """``pagecast-mcp`` over streamable HTTP on 127.0.0.1, stopped when the test is done."""
    port = free_port()
    command = [sys.executable, "-m", "pagecast_client.mcp_server", "--transport", "streamable-http"]
    stderr = folder / f"mcp-{port}.log"
    with stderr.open("wb") as log:
        process = subprocess.Popen(
            [*command, "--port", str(port), *options],
            env=environment(token),
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    try:
        wait_listening(port, process)
        yield Listener(port, stderr)
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Listener]:
    """With a token, a proxy's name allowed as Host and an application's origin allowed."""
    options = ("--allowed-host", PROXY_HOST, "--allowed-origin", APP_ORIGIN)
    yield from start(tmp_path_factory.mktemp("mcp"), TOKEN, *options)


@pytest.fixture
def open_on_loopback(tmp_path: Path) -> Iterator[Listener]:
    """Without a token, as loopback allows."""
    yield from start(tmp_path, None)


def error_of(response: httpx.Response) -> dict[str, Any]:
    """The JSON error of a refusal."""
    assert response.headers["content-type"] == "application/json", response.text
    error: dict[str, Any] = response.json()["error"]
    return error


def answered(response: httpx.Response) -> bool:
    """Whether the MCP server itself answered the initialize."""
    return response.status_code == 200 and '"serverInfo"' in response.text


def test_without_the_token_401(guarded: Listener) -> None:
    refused = guarded.initialize()
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"].startswith("Bearer ")
    assert error_of(refused)["code"] == "unauthorized"


def test_with_another_token_401(guarded: Listener) -> None:
    for header in (f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}", f"Basic {TOKEN}", "Bearer"):
        refused = guarded.initialize(Authorization=header)
        assert refused.status_code == 401, header
        assert refused.headers["www-authenticate"].startswith("Bearer ")
        assert 'error="invalid_token"' in refused.headers["www-authenticate"]
        assert error_of(refused)["code"] == "unauthorized"


def test_with_the_token_an_mcp_client_lists_the_tools(guarded: Listener) -> None:
    async def scenario() -> set[str]:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with (
            httpx.AsyncClient(headers=headers, timeout=30) as http,
            streamable_http_client(guarded.url, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return {tool.name for tool in (await session.list_tools()).tools}

    assert asyncio.run(asyncio.wait_for(scenario(), 60)) == set(REQUIRED)
    assert answered(guarded.initialize(Authorization=f"bearer {TOKEN}")), "the scheme's any case"


def test_a_host_that_names_another_server_403(guarded: Listener) -> None:
    bearer = f"Bearer {TOKEN}"
    for host in ("evil.example", f"evil.example:{guarded.port}", f"127.0.0.1:{guarded.port + 1}"):
        refused = guarded.initialize(Authorization=bearer, Host=host)
        assert refused.status_code == 403, host
        assert error_of(refused)["code"] == "host_not_allowed"
    refused = guarded.initialize(Host="evil.example")
    assert refused.status_code == 403, "Host is judged before the token"
    for host in (f"localhost:{guarded.port}", f"[::1]:{guarded.port}", PROXY_HOST):
        assert answered(guarded.initialize(Authorization=bearer, Host=host)), host


def test_a_foreign_origin_403(guarded: Listener) -> None:
    bearer = f"Bearer {TOKEN}"
    for origin in ("http://evil.example", f"http://evil.example:{guarded.port}", "null"):
        refused = guarded.initialize(Authorization=bearer, Origin=origin)
        assert refused.status_code == 403, origin
        assert error_of(refused)["code"] == "origin_not_allowed"


def test_allowed_and_same_host_origins_pass(guarded: Listener) -> None:
    bearer = f"Bearer {TOKEN}"
    same_host = (f"http://127.0.0.1:{guarded.port}", f"http://localhost:{guarded.port}")
    for origin in (APP_ORIGIN, f"https://{PROXY_HOST}", *same_host):
        assert answered(guarded.initialize(Authorization=bearer, Origin=origin)), origin
    refused = guarded.initialize(Origin=APP_ORIGIN)
    assert refused.status_code == 401, "an allowed origin still needs the token"


def test_on_loopback_no_token_is_needed_but_host_and_origin_are_checked(
    open_on_loopback: Listener,
) -> None:
    assert answered(open_on_loopback.initialize())
    assert open_on_loopback.initialize(Host="evil.example").status_code == 403
    assert open_on_loopback.initialize(Origin="http://evil.example").status_code == 403
    assert "beyond this machine" not in open_on_loopback.stderr.read_text()


def test_beyond_loopback_a_token_is_required() -> None:
    for host in ("0.0.0.0", "::", "192.0.2.1", "mcp.example"):
        assert not is_loopback(host), host
        with pytest.raises(ExposureError, match=r"--token or \$PAGECAST_MCP_TOKEN"):
            http_access(host, 8765)
        with pytest.raises(ExposureError):
            http_access(host, 8765, "")
        access = http_access(host, 8765, TOKEN)
        assert access.token == TOKEN
        warning = exposure_warning(host, 8765, access)
        assert warning and "beyond this machine" in warning and access.hosts[0] in warning
    for host in ("127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LocalHost"):
        assert is_loopback(host), host
        assert http_access(host, 8765).token is None
        assert exposure_warning(host, 8765, http_access(host, 8765)) is None


def test_a_token_unfit_for_a_header_or_too_short_is_refused() -> None:
    for token in (
        "short",
        "with a space in it",
        "non-ascii-tökenxxxxxxxx",
        "tab\tinside-the-token",
    ):
        with pytest.raises(ExposureError):
            http_access("127.0.0.1", 8765, token)


def test_the_hosts_and_origins_accepted_by_default() -> None:
    public = http_access("192.0.2.1", 8765, TOKEN)
    assert public.hosts == ("192.0.2.1:8765",)
    assert public.origins == ("http://192.0.2.1:8765", "https://192.0.2.1:8765")
    loopback = http_access("::1", 8765)
    assert loopback.hosts == ("[::1]:8765", "localhost:8765", "127.0.0.1:8765")
    everywhere = http_access("0.0.0.0", 8765, TOKEN, allowed_hosts=["MCP.example:*"])
    assert everywhere.hosts == (
        "0.0.0.0:8765",
        "localhost:8765",
        "127.0.0.1:8765",
        "[::1]:8765",
        "mcp.example:*",
    )
    assert "https://mcp.example:*" in everywhere.origins
    on_80 = http_access("127.0.0.1", 80, allowed_origins=["https://app.example/"])
    assert "127.0.0.1" in on_80.hosts and "localhost" in on_80.hosts
    assert on_80.origins[-1] == "https://app.example"


def test_bearer_matches_only_the_token() -> None:
    assert bearer_matches(f"Bearer {TOKEN}", TOKEN) and bearer_matches(f"BEARER  {TOKEN}", TOKEN)
    for header in (None, "", TOKEN, f"Basic {TOKEN}", f"Bearer {TOKEN}.", "Bearer ", "Bearer é"):
        assert not bearer_matches(header, TOKEN), header


def test_server_py_refuses_to_listen_beyond_loopback_without_a_token() -> None:
    # 192.0.2.1 is a documentation address no machine has: were the refusal missing, binding it
    # would fail rather than listen.
    env = {**environment(None), "PAGECAST_CONFIG": str(ROOT / "config.toml")}
    options = ("--transport", "streamable-http", "--host", "192.0.2.1", "--port", "8765")
    done = subprocess.run(
        [sys.executable, str(ROOT / "server.py"), "mcp", *options],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "192.0.2.1:8765 is reachable beyond this machine" in done.stderr
    assert "--token or $PAGECAST_MCP_TOKEN" in done.stderr
