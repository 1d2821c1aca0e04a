"""The MCP server's tools of a site's map and of batch and crawl jobs: ``map``, ``batch``,
``crawl``, ``get_job`` (status, progress and a page of results by cursor), ``wait_for_job``
(with progress notifications) and ``cancel_job``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations
from pydantic import Field

from pagecast_client.async_client import AsyncPagecast
from pagecast_client.errors import JobTimeoutError, PagecastError
from pagecast_client.jobs import Job
from pagecast_client.mcp_common import ToolContext, Url, call, client_of, given, refused

MAX_WAIT = 600
JobId = Annotated[str, Field(description="The job's id, as batch or crawl answered it.")]
Patterns = Annotated[
    list[str] | None,
    Field(description="Shell-style globs on the URL path, e.g. /docs/* (* also matches /)."),
]
Options = Annotated[
    dict[str, Any] | None,
    Field(
        description="Other Markdown options of every page, by their API names, e.g. "
        '{"include_tags": "article", "accept_lang": "fr", "wait_for_selector": "main"}.'
    ),
]
OnlyMain = Annotated[bool | None, Field(description="Drop navigation, sidebars and footers.")]
Chunking = Annotated[bool | None, Field(description="Split each page into chunks.")]
ChunkSize = Annotated[int | None, Field(description="Characters per chunk.", ge=200, le=20000)]
MaxChars = Annotated[int | None, Field(description="Cut each page's Markdown here.", ge=1)]
FullRender = Annotated[bool | None, Field(description="Render every page in a browser first.")]
Sanitize = Annotated[bool | None, Field(description="Scan each page for prompt injection.")]
Webhook = Annotated[
    str | None,
    Field(description="Called (POST, signed JSON) on each finished page and at the end."),
]
ResultsLimit = Annotated[
    int, Field(description="Results in the answer (0: status and progress alone).", ge=0, le=100)
]
READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=True)


def page_options(options: dict[str, Any] | None, **typed: Any) -> dict[str, Any]:
    """A job's Markdown options: ``options`` with the typed parameters the call set over it."""
    return {**(options or {}), **given(**typed)}


def job_answer(job: Job) -> dict[str, Any]:
    """A job as the API answered it, with ``ended`` (no page of it starts any more)."""
    return {**job.raw, "ended": job.ended}


def add_job_tools(server: FastMCP[AsyncPagecast]) -> None:
    """Register the map and job tools."""

    @server.tool(
        name="map",
        description="The URLs of a site, at once: the start URL, its page's links, then its "
        "sitemaps' URLs, within the site and robots.txt. Use it to choose pages for batch.",
        annotations=READ_ONLY,
    )
    async def site_map(
        url: Url,
        ctx: ToolContext,
        *,
        include: Patterns = None,
        exclude: Patterns = None,
        subdomains: Annotated[
            bool, Field(description="Also keep URLs on subdomains of the start host.")
        ] = False,
        sitemap: Annotated[
            Literal["include", "skip", "only"],
            Field(description="Sitemaps and links (include), links only, or sitemaps only."),
        ] = "include",
        limit: Annotated[int, Field(description="Most URLs answered.", ge=1, le=5000)] = 1000,
    ) -> dict[str, Any]:
        params = given(
            include=include, exclude=exclude, subdomains=subdomains, sitemap=sitemap, limit=limit
        )
        return dict((await call(client_of(ctx).map(url, **params))).raw)

    @server.tool(
        description="Start a job that makes many pages (up to 1,000 URLs) Markdown in the "
        "background; answers its id at once. Follow it with wait_for_job or get_job.",
    )
    async def batch(
        urls: Annotated[list[str], Field(description="The pages' absolute http(s) URLs.")],
        ctx: ToolContext,
        *,
        only_main_content: OnlyMain = None,
        chunking: Chunking = None,
        chunk_size: ChunkSize = None,
        max_chars: MaxChars = None,
        full_render: FullRender = None,
        ai_sanitize: Sanitize = None,
        options: Options = None,
        webhook_url: Webhook = None,
    ) -> dict[str, Any]:
        markdown = page_options(
            options,
            only_main_content=only_main_content,
            chunking=chunking,
            chunk_size=chunk_size,
            max_chars=max_chars,
            full_render=full_render,
            ai_sanitize=ai_sanitize,
        )
        pending = client_of(ctx).batch(urls, **given(options=markdown, webhook_url=webhook_url))
        return dict((await call(pending)).raw)

    @server.tool(
        description="Start a job that crawls a site from a start page, breadth first, on its "
        "host and within robots.txt, and makes each page Markdown; answers its id at once. "
        "Follow it with wait_for_job or get_job.",
    )
    async def crawl(
        url: Url,
        ctx: ToolContext,
        *,
        max_pages: Annotated[
            int, Field(description="Most pages fetched, the start page included.", ge=1)
        ] = 20,
        max_depth: Annotated[
            int, Field(description="Most links followed from the start page.", ge=0, le=100)
        ] = 3,
        include: Patterns = None,
        exclude: Patterns = None,
        subdomains: Annotated[
            bool, Field(description="Also follow links to subdomains of the start host.")
        ] = False,
        only_main_content: OnlyMain = None,
        chunking: Chunking = None,
        chunk_size: ChunkSize = None,
        max_chars: MaxChars = None,
        full_render: FullRender = None,
        ai_sanitize: Sanitize = None,
        options: Options = None,
        webhook_url: Webhook = None,
    ) -> dict[str, Any]:
        markdown = page_options(
            options,
            only_main_content=only_main_content,
            chunking=chunking,
            chunk_size=chunk_size,
            max_chars=max_chars,
            full_render=full_render,
            ai_sanitize=ai_sanitize,
        )
        params = given(
            max_pages=max_pages,
            max_depth=max_depth,
            include=include,
            exclude=exclude,
            subdomains=subdomains,
            options=markdown,
            webhook_url=webhook_url,
        )
        return dict((await call(client_of(ctx).crawl(url, **params))).raw)

    @server.tool(
        description="A job's status, progress (total, done, failed, running, skipped, queued) "
        "and credits, with its finished pages (Markdown or error) after the cursor. Read on "
        "with next_cursor while has_more is true.",
        annotations=READ_ONLY,
    )
    async def get_job(
        job_id: JobId,
        ctx: ToolContext,
        *,
        cursor: Annotated[
            str | None, Field(description="next_cursor of the previous answer; none: the first.")
        ] = None,
        limit: ResultsLimit = 5,
    ) -> dict[str, Any]:
        job = await call(client_of(ctx).get_job(job_id, **given(cursor=cursor, limit=limit)))
        return job_answer(job)

    @server.tool(
        description="Wait for a job to end (reporting its progress), then answer it as get_job "
        "does with its first results. When it has not ended in `timeout` seconds, answers its "
        "status with timed_out: true (the job goes on).",
        annotations=READ_ONLY,
    )
    async def wait_for_job(
        job_id: JobId,
        ctx: ToolContext,
        *,
        # The tool's argument (the client's wait_for_job keeps the job's last status on timeout).
        timeout: Annotated[  # noqa: ASYNC109
            float, Field(description="Seconds to wait at most.", gt=0, le=MAX_WAIT)
        ] = 120,
        limit: ResultsLimit = 5,
    ) -> dict[str, Any]:
        client = client_of(ctx)

        async def progress(job: Job) -> None:
            done = job.progress.ended
            await ctx.report_progress(done, job.progress.total or None, f"{done} pages finished")

        try:
            await client.wait_for_job(job_id, timeout=timeout, on_progress=progress)
        except JobTimeoutError as exc:
            return {**job_answer(exc.job), "timed_out": True}
        except PagecastError as exc:
            raise refused(exc) from exc
        return {**job_answer(await call(client.get_job(job_id, limit=limit))), "timed_out": False}

    @server.tool(
        description="Cancel a job: its queued pages are skipped, pages under way finish. "
        "Answers the job as it now stands.",
        annotations=ToolAnnotations(destructiveHint=True, idempotentHint=True),
    )
    async def cancel_job(job_id: JobId, ctx: ToolContext) -> dict[str, Any]:
        return job_answer(await call(client_of(ctx).cancel_job(job_id)))
