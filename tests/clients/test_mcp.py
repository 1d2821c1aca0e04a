"""The MCP server, driven by the MCP SDK's own client against a real Pagecast: over stdio as
``server.py mcp`` starts it, and over streamable HTTP as ``pagecast-mcp`` serves it. An agent
lists the tools with described parameters and gets Markdown, an image and an embed; maps a
site, runs, waits for (with progress), pages through and cancels jobs; and manages the hosted
frames."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import ImageContent, TextContent

from bench.pagecast_process import ROOT, free_port
from tests.clients.pagecast_site import Site
from tests.origin import closed_port

CLIENT_SOURCE = str(ROOT / "clients" / "python" / "src")
UNREACHABLE = f"http://127.0.0.1:{closed_port()}/"
# Every tool, and the arguments it cannot go without.
REQUIRED = {
    "markdown": ["url"],
    "screenshot": ["url"],
    "oembed": ["url"],
    "list_frames": [],
    "get_frame": ["embed_id"],
    "refresh_frame": ["embed_id"],
    "delete_frame": ["embed_id"],
    "map": ["url"],
    "batch": ["urls"],
    "crawl": ["url"],
    "get_job": ["job_id"],
    "wait_for_job": ["job_id"],
    "cancel_job": ["job_id"],
}


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
    assert set(tools) == set(REQUIRED)
    for tool in tools.values():
        assert tool.description
        properties = tool.inputSchema["properties"]
        assert "ctx" not in properties
        assert tool.inputSchema.get("required", []) == REQUIRED[tool.name], tool.name
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
    both = await session.call_tool("screenshot", {"url": site.page, "include_markdown": True})
    image, text = both.content
    assert isinstance(image, ImageContent) and image.mimeType == "image/jpeg"
    assert isinstance(text, TextContent) and text.text.startswith("# Sourdough at altitude\n")

    embed = json.loads(text_of(await session.call_tool("oembed", {"url": site.page})))
    assert embed["source"] == "og_frame" and "<iframe src=" in embed["html"]

    refused = await session.call_tool("markdown", {"url": f"http://127.0.0.1:{closed_port()}/"})
    assert refused.isError and "-3001" in text_of(refused)


async def call_json(session: ClientSession, tool: str, arguments: dict[str, Any]) -> Any:
    """A tool's JSON answer (an error fails the test)."""
    result = await session.call_tool(tool, arguments)
    assert not result.isError, text_of(result)
    return json.loads(text_of(result))


async def use_job_and_frame_tools(session: ClientSession, site: Site) -> None:
    """What an agent does with a site and the hosted cards: map it, batch two of its pages,
    wait with progress, read the results by cursor, cancel a long job, crawl; then list,
    read, refresh and delete the card the oembed tool made."""
    await session.initialize()
    found = await call_json(session, "map", {"url": site.page, "sitemap": "skip"})
    assert found["urls"][0] == site.page and site.page + "recipes" in found["urls"]

    accepted = await call_json(
        session,
        "batch",
        {"urls": [site.page, UNREACHABLE], "chunking": True, "options": {"cache_ok": False}},
    )
    assert accepted["status"] == "queued" and accepted["pages_queued"] == 2
    told: list[tuple[float, float | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        told.append((done, total))

    waited = await session.call_tool(
        "wait_for_job", {"job_id": accepted["id"], "timeout": 60}, progress_callback=progress
    )
    job = json.loads(text_of(waited))
    assert job["ended"] and not job["timed_out"] and job["status"] == "completed"
    assert job["progress"]["done"] == 1 and job["progress"]["failed"] == 1
    assert {result["url"] for result in job["results"]} == {site.page, UNREACHABLE}
    chunked = next(result for result in job["results"] if result["url"] == site.page)
    assert chunked["chunks"][0]["heading_path"] == ["Sourdough at altitude"]
    assert told and told[-1] == (2, 2)
    first = await call_json(session, "get_job", {"job_id": accepted["id"], "limit": 1})
    assert len(first["results"]) == 1 and first["has_more"]
    rest = await call_json(
        session, "get_job", {"job_id": accepted["id"], "cursor": first["next_cursor"]}
    )
    assert len(rest["results"]) == 1 and not rest["has_more"]
    assert rest["results"][0]["url"] != first["results"][0]["url"]

    many = [f"{site.page}?copy={number}" for number in range(200)]
    long = await call_json(session, "batch", {"urls": many, "options": {"cache_ok": False}})
    late = await call_json(session, "wait_for_job", {"job_id": long["id"], "timeout": 0.3})
    assert late["timed_out"] and not late["ended"]
    cancelled = await call_json(session, "cancel_job", {"job_id": long["id"]})
    assert cancelled["status"] == "cancelled" and cancelled["ended"]

    crawl = await call_json(session, "crawl", {"url": site.page, "max_pages": 2})
    crawled = await call_json(session, "wait_for_job", {"job_id": crawl["id"], "timeout": 60})
    assert crawled["progress"]["total"] == 2 and len(crawled["results"]) == 2
    missing = await session.call_tool("get_job", {"job_id": "nosuchjob"})
    assert missing.isError and "-1004" in text_of(missing)

    embed = await call_json(session, "oembed", {"url": site.page, "template": "horizontal"})
    embed_id = embed["embed_id"]
    listed = await call_json(session, "list_frames", {"limit": 200})
    assert embed_id in [frame["embed_id"] for frame in listed["frames"]] and listed["total"] >= 1
    frame = await call_json(session, "get_frame", {"embed_id": embed_id})
    assert frame["url"] == site.page and frame["template"] == "horizontal"
    refreshed = await call_json(session, "refresh_frame", {"embed_id": embed_id})
    assert refreshed["refreshed_at"] and refreshed["embed_id"] == embed_id
    assert await call_json(session, "delete_frame", {"embed_id": embed_id}) == {"deleted": embed_id}
    gone = await session.call_tool("get_frame", {"embed_id": embed_id})
    assert gone.isError and "frame_not_found" in text_of(gone)


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


def test_job_and_frame_tools_over_stdio(site: Site) -> None:
    server = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "server.py"), "mcp", "--url", site.base_url],
        env=environment(site),
        cwd=str(ROOT),
    )

    async def scenario() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await use_job_and_frame_tools(session, site)

    run(scenario)


def test_streamable_http(site: Site) -> None:
    async def scenario() -> None:
        async with (
            http_server(site) as url,
            streamable_http_client(url) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await use_pagecast_tools(session, site)

    run(scenario)
