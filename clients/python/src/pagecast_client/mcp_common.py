"""What the MCP server's tool modules share: the Pagecast client of a tool call, a client call
whose refusal becomes a tool error, and the parameters a call set."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Annotated, Any, TypeVar

from mcp.server.fastmcp import Context
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import Field

from pagecast_client.async_client import AsyncPagecast
from pagecast_client.errors import PagecastError

T = TypeVar("T")
ToolContext = Context[Any, AsyncPagecast, Any]
Url = Annotated[str, Field(description="The page's absolute http(s) URL.")]


def client_of(ctx: ToolContext) -> AsyncPagecast:
    """The Pagecast client the server made when it started."""
    return ctx.request_context.lifespan_context


def given(**values: Any) -> dict[str, Any]:
    """The parameters a tool call set (``None`` is left to Pagecast's default)."""
    return {name: value for name, value in values.items() if value is not None}


def refused(error: PagecastError) -> ToolError:
    """The tool error an agent reads for a refusal of Pagecast's: its code and request id."""
    return ToolError(f"Pagecast refused: {error}")


async def call(pending: Awaitable[T]) -> T:
    """A client call's result; Pagecast's refusals become tool errors the agent reads."""
    try:
        return await pending
    except PagecastError as exc:
        raise refused(exc) from exc
