"""An MCP server that gives an agent Pagecast's tools: ``markdown`` (with chunking and a query),
``screenshot`` (the image itself, as MCP image content) and ``oembed`` here; the frames API's
(:mod:`pagecast_client.mcp_frames`) and the map and job tools
(:mod:`pagecast_client.mcp_jobs`) beside.

It talks to a running Pagecast with a key, over stdio (an agent starts it) or streamable HTTP
(it listens)::

    PAGECAST_API_KEY=pc_... pagecast-mcp --url http://127.0.0.1:8080
    pagecast-mcp --transport streamable-http --port 8765     # http://127.0.0.1:8765/mcp

Over HTTP it takes a bearer token of its own (``--token`` or ``PAGECAST_MCP_TOKEN``), which it
requires unless it listens on loopback, and checks every request's Host and Origin
(:mod:`pagecast_client.mcp_http`).

Needs the ``mcp`` extra: ``pip install './clients/python[mcp]'``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from mcp.server.fastmcp import FastMCP, Image
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import Field

from pagecast_client._core import DEFAULT_BASE_URL, KEY_VARIABLE, URL_VARIABLE, Config
from pagecast_client.async_client import AsyncPagecast
from pagecast_client.errors import PagecastError
from pagecast_client.mcp_common import ToolContext, Url, call, client_of, given
from pagecast_client.mcp_frames import add_frame_tools
from pagecast_client.mcp_http import (
    TOKEN_VARIABLE,
    ExposureError,
    HttpAccess,
    http_access,
    serve_http,
)
from pagecast_client.mcp_jobs import add_job_tools
from pagecast_client.models import MarkdownResult

INSTRUCTIONS = (
    "Pagecast reads web pages for you. `markdown` gives a page's main content as Markdown "
    "(navigation and boilerplate removed); with `query` only the passages that answer it, best "
    "first, each under its heading path. `screenshot` shows what the page looks like. `oembed` "
    "gives an embeddable card (iframe HTML) for a URL; `list_frames`, `get_frame`, "
    "`refresh_frame` and `delete_frame` manage the hosted cards it makes. For many pages: "
    "`map` lists a site's URLs at once; `batch` (a list of URLs) and `crawl` (a site from a "
    "start page) start jobs in the background, read with `wait_for_job` and `get_job` (results "
    "a page at a time, by cursor) and stopped with `cancel_job`."
)


def passages(page: MarkdownResult) -> str:
    """Chunks as text an agent can read: each under its heading path, with its score."""
    title = page.metadata.title if page.metadata else ""
    parts = [f"# {title}" if title else "# Passages"]
    for number, chunk in enumerate(page.chunks or [], 1):
        where = " > ".join(chunk.heading_path) or "(top of the page)"
        score = f" (relevance {chunk.relevance_score:.2f})" if chunk.relevance_score else ""
        parts.append(f"## {number}. {where}{score}\n\n{chunk.text}")
    if len(parts) == 1:
        parts.append("No passage of the page matches.")
    return "\n\n".join(parts)


def build_server(
    api_key: str | None = None,
    base_url: str | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    transport_security: TransportSecuritySettings | None = None,
) -> FastMCP[AsyncPagecast]:
    """The MCP server, with its tools bound to one Pagecast client (made when the server
    starts, closed when it stops). ``transport_security`` is the MCP SDK's Host and Origin
    checks for streamable HTTP (:meth:`HttpAccess.transport_security`); without it the SDK's
    default applies."""
    # Resolved now, so a missing key is said at start rather than at the first tool call.
    Config.resolve(api_key, base_url, frames_url=None, timeout=0, max_retries=0, max_retry_wait=0)

    @asynccontextmanager
    async def lifespan(server: FastMCP[AsyncPagecast]) -> AsyncIterator[AsyncPagecast]:
        async with AsyncPagecast(api_key, base_url) as client:
            yield client

    server: FastMCP[AsyncPagecast] = FastMCP(
        "pagecast",
        instructions=INSTRUCTIONS,
        host=host,
        port=port,
        lifespan=lifespan,
        transport_security=transport_security,
    )

    @server.tool(
        description="A web page as clean Markdown (main content only). With `query`: only the "
        "passages that answer it, best first, each under its heading path. With `chunking`: the "
        "whole page in chunks under their heading paths."
    )
    async def markdown(
        url: Url,
        ctx: ToolContext,
        *,
        query: Annotated[
            str | None,
            Field(description="Keywords or a question; returns only the matching passages."),
        ] = None,
        query_top_k: Annotated[int, Field(description="Passages for a query.", ge=1)] = 5,
        chunking: Annotated[bool, Field(description="Return the page in chunks.")] = False,
        chunk_size: Annotated[
            int, Field(description="Characters per chunk.", ge=200, le=20000)
        ] = 2000,
        max_chars: Annotated[
            int | None, Field(description="Cut the Markdown at this length.", ge=1)
        ] = None,
        only_main_content: Annotated[
            bool, Field(description="Drop navigation, sidebars and footers.")
        ] = True,
        include_comments: Annotated[
            bool, Field(description="Add readers' comments after the content, with authors.")
        ] = False,
        include_tags: Annotated[
            str | None, Field(description="Comma-separated CSS selectors to keep.")
        ] = None,
        exclude_tags: Annotated[
            str | None, Field(description="Comma-separated CSS selectors to drop.")
        ] = None,
        full_render: Annotated[
            bool, Field(description="Render in a browser first (slower; for script-built pages).")
        ] = False,
        ai_sanitize: Annotated[
            bool, Field(description="Scan for prompt injection and strip risky content.")
        ] = False,
    ) -> str:
        params = given(
            only_main_content=only_main_content,
            include_comments=include_comments,
            full_render=full_render,
            ai_sanitize=ai_sanitize,
            max_chars=max_chars,
            include_tags=include_tags,
            exclude_tags=exclude_tags,
        )
        if query:
            params.update(query=query, query_top_k=query_top_k, include_markdown=False)
        elif chunking:
            params.update(chunking=True, chunk_size=chunk_size, include_markdown=False)
        page = await call(client_of(ctx).markdown(url, **params))
        text = passages(page) if query or chunking else page.markdown or ""
        if page.ai_safety is not None:
            text += f"\n\n(prompt-injection risk: {page.ai_safety.risk_level})"
        if page.usage.truncated:
            text += f"\n\n(cut at {page.usage.max_chars} characters)"
        return text

    @server.tool(
        description="A screenshot of a web page, as an image. Viewports: xs phone 375x812, sm "
        "tablet 1024x768, md laptop 1366x768, lg desktop 1920x1080. With include_markdown: the "
        "page's Markdown after the image, from the same page load.",
        structured_output=False,
    )
    async def screenshot(
        url: Url,
        ctx: ToolContext,
        *,
        dimensions: Annotated[
            Literal["xs", "sm", "md", "lg"], Field(description="Viewport preset.")
        ] = "md",
        full_page: Annotated[bool, Field(description="The whole scrollable page.")] = False,
        format: Annotated[
            Literal["jpeg", "png", "webp"], Field(description="Image format.")
        ] = "jpeg",
        dark_mode: Annotated[bool, Field(description="Ask the page for its dark theme.")] = False,
        selector: Annotated[
            str | None, Field(description="CSS selector: capture only this element.")
        ] = None,
        wait_for_selector: Annotated[
            str | None, Field(description="Wait for this CSS selector before capturing.")
        ] = None,
        capture_delay: Annotated[
            int | None, Field(description="Milliseconds to wait before capturing.", ge=0, le=10000)
        ] = None,
        include_markdown: Annotated[
            bool,
            Field(description="Also the page's Markdown, from the same page load (1 credit more)."),
        ] = False,
    ) -> list[Image | str]:
        params = given(
            dimensions=dimensions,
            full_page=full_page,
            format=format,
            dark_mode=dark_mode,
            selector=selector,
            wait_for_selector=wait_for_selector,
            capture_delay=capture_delay,
        )
        client = client_of(ctx)
        if not include_markdown:
            shot = await call(client.screenshot(url, response_type="image", **params))
            return [Image(data=shot.image, format=format)]
        # One load for both: the JSON result carries the Markdown, its link the image.
        shot = await call(client.screenshot(url, include_markdown=True, **params))
        image = await call(client.download(shot))
        return [Image(data=image, format=format), shot.markdown or ""]

    @server.tool(
        description="An oEmbed embed for a URL: the site's own player or post where it has one, "
        "else a hosted card built from the page. Returns the oEmbed JSON (html is an iframe)."
    )
    async def oembed(
        url: Url,
        ctx: ToolContext,
        *,
        maxwidth: Annotated[int | None, Field(description="Maximum width in pixels.", ge=1)] = None,
        maxheight: Annotated[
            int | None, Field(description="Maximum height in pixels.", ge=1)
        ] = None,
        theme: Annotated[
            Literal["light", "dark", "auto"], Field(description="Hosted card theme.")
        ] = "auto",
        template: Annotated[
            Literal["default", "compact", "horizontal"] | None,
            Field(description="Hosted card layout."),
        ] = None,
        always_og_frame: Annotated[
            bool, Field(description="A hosted card even when the site has its own embed.")
        ] = False,
    ) -> dict[str, Any]:
        params = given(
            theme=theme,
            always_og_frame=always_og_frame,
            maxwidth=maxwidth,
            maxheight=maxheight,
            template=template,
        )
        embed = await call(client_of(ctx).oembed(url, **params))
        return dict(embed.raw)

    add_job_tools(server)
    add_frame_tools(server)
    return server


def build_parser(default_url: str | None = None) -> argparse.ArgumentParser:
    """``pagecast-mcp``'s options."""
    parser = argparse.ArgumentParser(
        prog="pagecast-mcp",
        description="Pagecast's tools over MCP: markdown, screenshot, oembed, frames, map, jobs.",
    )
    parser.add_argument(
        "--url",
        default=os.environ.get(URL_VARIABLE) or default_url or DEFAULT_BASE_URL,
        help=f"Pagecast's API (default: ${URL_VARIABLE}, else {default_url or DEFAULT_BASE_URL})",
    )
    parser.add_argument("--key", help=f"API key (default: ${KEY_VARIABLE})")
    parser.add_argument("--transport", choices=("stdio", "streamable-http"), default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="streamable-http: listen address")
    parser.add_argument("--port", type=int, default=8765, help="streamable-http: port")
    parser.add_argument(
        "--token",
        default=os.environ.get(TOKEN_VARIABLE),
        help=f"streamable-http: the bearer token callers send (default: ${TOKEN_VARIABLE}); "
        "required unless --host is loopback",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="HOST[:PORT]",
        help="streamable-http: another Host header to accept, e.g. a reverse proxy's name "
        "(NAME:* for any port); repeatable",
    )
    parser.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="streamable-http: a browser Origin to accept besides the allowed hosts' own, "
        "e.g. https://app.example; repeatable",
    )
    return parser


def main(argv: Sequence[str] | None = None, default_url: str | None = None) -> int:
    """``pagecast-mcp``: run the MCP server until its transport closes. A listener reachable
    beyond this machine without a token is refused (exit status 2)."""
    args = build_parser(default_url).parse_args(argv)
    access: HttpAccess | None = None
    try:
        if args.transport == "streamable-http":
            access = http_access(
                args.host,
                args.port,
                args.token,
                allowed_hosts=args.allowed_host,
                allowed_origins=args.allowed_origin,
            )
        server = build_server(
            args.key,
            args.url,
            host=args.host,
            port=args.port,
            transport_security=access.transport_security() if access else None,
        )
    except (ExposureError, PagecastError) as exc:
        print(f"pagecast-mcp: {exc}", file=sys.stderr)
        return 2
    if access is None:
        server.run(transport="stdio")
    else:
        asyncio.run(serve_http(server, access))
    return 0


if __name__ == "__main__":
    sys.exit(main())
