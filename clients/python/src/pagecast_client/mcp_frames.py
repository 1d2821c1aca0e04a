"""The MCP server's tools of the frames API (on the frame host): list the hosted cards the
``oembed`` tool made, read one, refresh it from its page, delete it."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations
from pydantic import Field

from pagecast_client.async_client import AsyncPagecast
from pagecast_client.mcp_common import ToolContext, call, client_of, given

EmbedId = Annotated[str, Field(description="The frame's embed_id, as the oembed tool gave it.")]
READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)


def add_frame_tools(server: FastMCP[AsyncPagecast]) -> None:
    """Register ``list_frames``, ``get_frame``, ``refresh_frame`` and ``delete_frame``."""

    @server.tool(
        description="The hosted oEmbed cards (frames) of this key's organization, newest first, "
        "a page at a time: {frames, next_cursor, total}.",
        annotations=READ_ONLY,
    )
    async def list_frames(
        ctx: ToolContext,
        *,
        limit: Annotated[int, Field(description="Frames in this page.", ge=1, le=200)] = 50,
        cursor: Annotated[
            str | None, Field(description="next_cursor of the previous page; none: the first.")
        ] = None,
    ) -> dict[str, Any]:
        page = await call(client_of(ctx).list_frames(**given(limit=limit, cursor=cursor)))
        return {
            "frames": [frame.raw for frame in page.frames],
            "next_cursor": page.next_cursor,
            "total": page.total,
        }

    @server.tool(
        description="One hosted frame: its page URL, frame_url, layout, size, the page's "
        "metadata and the card's HTML.",
        annotations=READ_ONLY,
    )
    async def get_frame(embed_id: EmbedId, ctx: ToolContext) -> dict[str, Any]:
        return dict((await call(client_of(ctx).get_frame(embed_id))).raw)

    @server.tool(
        description="Read a hosted frame's page again (no cache) and rebuild its card; returns "
        "the updated frame.",
        annotations=ToolAnnotations(idempotentHint=True),
    )
    async def refresh_frame(embed_id: EmbedId, ctx: ToolContext) -> dict[str, Any]:
        return dict((await call(client_of(ctx).refresh_frame(embed_id))).raw)

    @server.tool(
        description="Delete a hosted frame: its frame_url stops answering.",
        annotations=ToolAnnotations(destructiveHint=True, idempotentHint=False),
    )
    async def delete_frame(embed_id: EmbedId, ctx: ToolContext) -> dict[str, Any]:
        await call(client_of(ctx).delete_frame(embed_id))
        return {"deleted": embed_id}
