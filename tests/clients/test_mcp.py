"""The MCP server, driven by the MCP SDK's own client against a real Pagecast: over stdio as
``server.py mcp`` starts it, and over streamable HTTP as ``pagecast-mcp`` serves it. An agent
lists the three tools with described parameters and gets Markdown, an image and an embed."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import ImageContent, TextContent

from bench.pagecast_process import ROOT, free_port
from tests.clients.pagecast_site import Site
from tests.origin import closed_port

CLIENT_SOURCE = str(ROOT / "clients" / "python" / "src")


def environment(site: Site) -> dict[str, str]:
    """The MCP server's environment: the key, and no other Pagecast variables."""
    kept = {name: value for name, value in os.environ.items() if not name.startswith("PAGECAST_")}
    return {**kept, "PAGECAST_API_KEY": site.key, "PAGECAST_CONFIG": str(site.config)}


def text_of(result: object) -> str:
    content = result.content  # type: ignore[attr-defined]
    assert isinstance(content[0], TextContent), content
    return content[0].text


async def use_pagecast_tools(session: ClientSession, site: Site) -> None:
    """What an agent does: list the tools, then read, look at and embed the page."""
    await session.initialize()
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(tools) == {"markdown", "screenshot", "oembed"}
    for tool in tools.values():
        assert tool.description
        properties = tool.inputSchema["properties"]
        assert "ctx" not in properties and tool.inputSchema["required"] == ["url"]
        assert all(spec.get("description") for spec in properties.values()), tool.name

    page = await session.call_tool("markdown", {"url": site.page})
    assert text_of(page).startswith("# Sourdough at altitude\n") and not page.isError
    answer = await session.call_tool(
        "markdown", {"url": site.page, "query": "how hot to bake", "query_top_k": 1}
    )
    assert "## 1. Sourdough at altitude > " in text_of(answer) and "(relevance 0." in text_of(
        answer
    )

    shot = await session.call_tool("screenshot", {"url": site.page, "dimensions": "xs"})
    image = shot.content[0]
    assert isinstance(image, ImageContent) and image.mimeType == "image/jpeg"
    assert base64.b64decode(image.data)[:3] == b"\xff\xd8\xff"

    embed = json.loads(text_of(await session.call_tool("oembed", {"url": site.page})))
    assert embed["source"] == "og_frame" and embed["html"].startswith("<iframe")

    refused = await session.call_tool("markdown", {"url": f"http://127.0.0.1:{closed_port()}/"})
    assert refused.isError and "-3001" in text_of(refused)


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(scenario(), 90))


def test_stdio_from_server_py(site: Site) -> None:
    server = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "server.py"), "mcp", "--url", site.base_url],
        env=environment(site),
        cwd=str(ROOT),
    )

    async def scenario() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await use_pagecast_tools(session, site)

    run(scenario)


async def listening(port: int, process: asyncio.subprocess.Process) -> None:
    """Once the port accepts connections (the server's start takes a few seconds)."""
    for _ in range(300):
        assert process.returncode is None, "the MCP server exited"
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        writer.close()
        await writer.wait_closed()
        return
    raise AssertionError("the MCP server did not listen")


@asynccontextmanager
async def http_server(site: Site) -> AsyncIterator[str]:
    """``pagecast-mcp --transport streamable-http`` (the console script's module) listening."""
    port = free_port()
    env = {**environment(site), "PAGECAST_URL": site.base_url, "PYTHONPATH": CLIENT_SOURCE}
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "pagecast_client.mcp_server"),
        *("--transport", "streamable-http", "--port", str(port)),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        await listening(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 10)


def test_streamable_http(site: Site) -> None:
    async def scenario() -> None:
        async with (
            http_server(site) as url,
            streamable_http_client(url) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await use_pagecast_tools(session, site)

    run(scenario)
