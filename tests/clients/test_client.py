"""The Python client against a real Pagecast: typed results of every endpoint, both error
shapes as one exception family, Retry-After honoured, the frames API, the key from the
environment, and a parameter list that cannot fall behind the server's /openapi.json."""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import inspect
import sys
import time
import tomllib

import httpx
import pytest

from bench.pagecast_process import ROOT
from pagecast_client import (
    AsyncPagecast,
    AuthenticationError,
    BlockedContentError,
    CaptureAccepted,
    CaptureStatus,
    Chunk,
    ConnectionFailedError,
    Embed,
    Frame,
    Heading,
    InvalidRequestError,
    MarkdownResult,
    Metadata,
    NotFoundError,
    Pagecast,
    PagecastError,
    RateLimitError,
    SafetySignal,
    Screenshot,
    TargetError,
    sign_screenshot_url,
)
from pagecast_client.jobs import Job, JobAccepted, JobResult, MapResult
from pagecast_client.params import (
    API_ALIASES,
    WIRE_NAMES,
    BatchParams,
    CrawlParams,
    FrameListParams,
    JobResultsParams,
    MapParams,
    MarkdownParams,
    OembedParams,
    PageOptions,
    ScreenshotParams,
    SignedScreenshotParams,
    allowed,
)
from tests.clients.pagecast_site import Site
from tests.origin import closed_port

# Parameters every operation has that the client sends its own way: the key in a header, the
# target in the path.
TRANSPORT = {"app_id", "encoded_url", "url", "job_id", "key_id", "signature", "capture_id"}


def wire_names(params: type) -> set[str]:
    """The query names a parameter TypedDict's keywords are sent as."""
    return {WIRE_NAMES.get(keyword, keyword) for keyword in allowed(params)}


# The screenshot operation is served by two methods: screenshot() takes ScreenshotParams alone,
# and screenshot_async() takes the same keywords, sends async=true itself and takes webhook_url
# as its own keyword (read from its signature below). So async and webhook_url belong to the
# operation through screenshot_async, never to screenshot()'s keywords.
SCREENSHOT_ASYNC = {"async"} | {
    name
    for name, parameter in inspect.signature(Pagecast.screenshot_async).parameters.items()
    if parameter.kind is inspect.Parameter.KEYWORD_ONLY
}
OPERATIONS = {
    "markdown": wire_names(MarkdownParams),
    "markdown_query": wire_names(MarkdownParams),
    "screenshot": wire_names(ScreenshotParams) | SCREENSHOT_ASYNC,
    "screenshot_query": wire_names(ScreenshotParams) | SCREENSHOT_ASYNC,
    "screenshotRequest": set(),
    "signedScreenshot": wire_names(SignedScreenshotParams),
    "oembed_1_1_path": wire_names(OembedParams),
    "oembed_3_0_path": wire_names(OembedParams),
    "oembed_1_1_query": wire_names(OembedParams),
    "oembed_3_0_query": wire_names(OembedParams),
    "listFrames": wire_names(FrameListParams),
    "getJob": wire_names(JobResultsParams),
}
# JSON bodies: their keywords, and the fields the client's methods take as arguments.
BODIES = {
    "map": (MapParams, {"url"}),
    "batch": (BatchParams, {"urls"}),
    "crawl": (CrawlParams, {"url"}),
}
TITLE = "Sourdough at altitude"


@pytest.fixture(scope="module")
def pagecast(site: Site) -> Pagecast:
    with Pagecast(api_key=site.key, base_url=site.base_url) as client:
        yield client


def test_every_parameter_of_the_openapi_description_is_a_keyword(pagecast: Pagecast) -> None:
    """Fails when the server gains a parameter the client lacks (or the client sends one the
    server no longer knows)."""
    spec = pagecast.openapi()
    seen = set()
    for path in spec["paths"].values():
        for operation in path.values():
            name = operation.get("operationId") if isinstance(operation, dict) else None
            if name not in OPERATIONS:
                continue
            seen.add(name)
            listed = {param["name"] for param in operation.get("parameters", [])}
            server = listed - TRANSPORT - set(API_ALIASES)
            client = OPERATIONS[name]
            assert server - client == set(), f"{name}: the client lacks {server - client}"
            assert client - server == set(), f"{name}: the server does not know {client - server}"
    assert seen == set(OPERATIONS)
    assert {"async", "webhook_url"} == SCREENSHOT_ASYNC
    assert not SCREENSHOT_ASYNC & wire_names(ScreenshotParams)


def test_every_field_of_the_openapi_bodies_is_a_keyword(pagecast: Pagecast) -> None:
    """Fails when a body (map, batch, crawl) or a job's options gain a field the client
    lacks, or lose one it sends."""
    seen = set()
    for path in pagecast.openapi()["paths"].values():
        for operation in path.values():
            name = operation.get("operationId") if isinstance(operation, dict) else None
            if name not in BODIES:
                continue
            seen.add(name)
            keywords, arguments = BODIES[name]
            schema = operation["requestBody"]["content"]["application/json"]["schema"]
            assert set(schema["properties"]) == allowed(keywords) | arguments, name
            options = schema["properties"].get("options")
            if options is not None:
                assert set(options["properties"]) == allowed(PageOptions), name
    assert seen == set(BODIES)


# The screenshot result's JSON names -> the Screenshot dataclass's fields.
SCREENSHOT_FIELDS = {
    "screenshotUrl": "screenshot_url",
    "dimensions": "width",
    "requestInfo": "response_code",
    "expiresAt": "expires_at",
}

# The Markdown envelope's JSON names the MarkdownResult dataclass spells otherwise.
MARKDOWN_FIELDS = {"screenshotUrl": "screenshot_url"}

# A capture's status JSON names -> the CaptureStatus dataclass's fields (a failed capture's
# error members are read into its CaptureFailedError).
CAPTURE_FIELDS = {"createdAt": "created_at", "endedAt": "ended_at", "success": "error"}


def test_every_field_of_the_openapi_schemas_is_a_result_field(pagecast: Pagecast) -> None:
    """Fails when the server's answers gain a field the typed results lack."""
    schemas = pagecast.openapi()["components"]["schemas"]

    def fields(cls: type) -> set[str]:
        return {field.name for field in dataclasses.fields(cls)}

    envelope = schemas["MarkdownEnvelope"]["properties"]
    assert set(envelope["metadata"]["properties"]) == fields(Metadata)
    assert {MARKDOWN_FIELDS.get(name, name) for name in envelope} <= fields(MarkdownResult)
    assert set(schemas["Embed"]["properties"]) <= fields(Embed)
    assert set(schemas["Frame"]["properties"]) <= fields(Frame)
    shot = {SCREENSHOT_FIELDS.get(name, name) for name in schemas["ScreenshotResult"]["properties"]}
    assert shot <= fields(Screenshot)
    assert set(schemas["MapResult"]["properties"]) <= fields(MapResult)
    assert set(schemas["JobAccepted"]["properties"]) <= fields(JobAccepted)
    assert set(schemas["Job"]["properties"]) <= fields(Job)
    assert set(schemas["JobResult"]["properties"]) <= fields(JobResult)
    assert set(schemas["ScreenshotAccepted"]["properties"]) <= fields(CaptureAccepted)
    capture = {
        CAPTURE_FIELDS.get(name, name) for name in schemas["ScreenshotRequest"]["properties"]
    }
    assert capture <= fields(CaptureStatus)


def test_markdown_envelope_is_typed(pagecast: Pagecast, site: Site) -> None:
    page = pagecast.markdown(
        site.page, chunking=True, chunk_size=200, include_headings=True, include_links=True
    )
    assert page.markdown and page.markdown.startswith(f"# {TITLE}")
    assert page.metadata and page.metadata.title == TITLE
    assert page.metadata.site_name == "The Field Kitchen"
    assert page.usage.character_count == len(page.markdown)
    assert page.debug and page.debug.final_status_code == 200
    assert page.credits == 1 and len(page.request_id) == 32
    assert page.chunks and all(isinstance(chunk, Chunk) for chunk in page.chunks)
    assert page.chunks[1].heading_path == [TITLE, "What changes"]
    assert (
        page.chunks[1].text
        == page.markdown[page.chunks[1].start_offset : page.chunks[1].end_offset]
    )
    assert page.headings and page.headings[0] == Heading(level=1, text=TITLE)
    assert page.links == [] and page.tables_detected == 1
    assert page.raw["request_id"] == page.request_id


def test_query_passages_and_plain_markdown(pagecast: Pagecast, site: Site) -> None:
    passages = pagecast.markdown(
        site.page, query="how hot to bake", query_top_k=2, include_markdown=False
    )
    assert passages.markdown is None and passages.chunks
    scores = [chunk.relevance_score or 0.0 for chunk in passages.chunks]
    assert len(scores) <= 2 and scores == sorted(scores, reverse=True) and scores[0] > 0
    text = pagecast.markdown(site.page, format="markdown", max_chars=100)
    assert text.markdown and len(text.markdown) <= 100 and text.raw == {}
    assert text.usage.truncated and text.usage.truncation_reason == "max_chars_exceeded"
    assert text.usage.character_count == len(text.markdown) and text.request_id


def test_both_error_shapes_raise_one_family(pagecast: Pagecast, site: Site) -> None:
    with pytest.raises(InvalidRequestError) as markdown_error:
        pagecast.markdown(site.page, chunk_size=10)
    error = markdown_error.value
    assert error.status == 400 and error.code == -2203 and error.stage is None
    assert "chunk_size" in error.message and len(error.request_id or "") == 32
    with pytest.raises(InvalidRequestError) as oembed_error:
        pagecast.oembed(site.page, maxwidth=0)
    error = oembed_error.value
    assert error.code == "invalid_request" and error.stage == "validation"
    assert error.details[0]["parameter"] == "maxwidth" and error.request_id
    with pytest.raises(TargetError) as fetch_error:
        pagecast.markdown(f"http://127.0.0.1:{closed_port()}/")
    assert fetch_error.value.code == -3001 and isinstance(fetch_error.value, PagecastError)
    with (
        Pagecast(api_key="pc_nobody", base_url=site.base_url) as stranger,
        pytest.raises(AuthenticationError) as auth_error,
    ):
        stranger.screenshot(site.page)
    assert auth_error.value.code == "unauthorized" and auth_error.value.status == 401
    with pytest.raises(TypeError, match="chunk_sise"):
        pagecast.markdown(site.page, chunk_sise=100)  # type: ignore[call-arg]
    with (
        Pagecast(api_key="pc_x", base_url="http://127.0.0.1:1") as nowhere,
        pytest.raises(ConnectionFailedError),
    ):
        nowhere.markdown(site.page)


def test_blocked_page_and_the_safety_report(pagecast: Pagecast, site: Site) -> None:
    with pytest.raises(BlockedContentError) as blocked:
        pagecast.markdown(site.injected_page, ai_sanitize=True, ai_sanitize_mode="block")
    assert blocked.value.status == 422 and blocked.value.code == -4001
    assert blocked.value.ai_safety["risk_level"] == "high"
    warned = pagecast.markdown(site.injected_page, ai_sanitize=True, ai_sanitize_mode="warn")
    assert warned.ai_safety and warned.ai_safety.risk_level == "high"
    assert warned.ai_safety.action_taken == "warn" and warned.credits == 2
    signal = warned.ai_safety.signals[0]
    assert isinstance(signal, SafetySignal) and signal.type and 0 < signal.severity <= 1
    text = pagecast.markdown(site.injected_page, format="markdown", ai_sanitize=True)
    assert text.ai_safety and text.ai_safety.risk_level == "high" and text.ai_safety.risk_score > 0


def test_retry_after_is_honoured_within_bounds(site: Site) -> None:
    slow = {"api_key": site.slow_key, "base_url": site.base_url}
    with Pagecast(**slow, max_retries=0) as impatient:
        impatient.markdown(site.page, format="markdown")
        with pytest.raises(RateLimitError) as limited:
            impatient.markdown(site.page, format="markdown")
    assert limited.value.code == -1002 and limited.value.retry_after in (1, 2)
    # The same refusal, waited out: a retry after the wait it names gets through.
    started = time.monotonic()
    with Pagecast(**slow, max_retries=2) as patient:
        assert patient.markdown(site.page, format="markdown").markdown
    assert time.monotonic() - started >= 0.5
    # A wait longer than the client accepts is not waited: the error comes at once.
    with Pagecast(**slow, max_retry_wait=0.1) as hurried, pytest.raises(RateLimitError):
        hurried.markdown(site.page, format="markdown")


def test_screenshot_as_link_and_as_bytes(pagecast: Pagecast, site: Site) -> None:
    shot = pagecast.screenshot(site.page, dimensions="sm")
    assert (shot.width, shot.height) == (1024, 768) and shot.response_code == 200
    assert shot.screenshot_url and shot.expires_at and shot.image is None
    assert pagecast.download(shot)[:3] == b"\xff\xd8\xff"  # JPEG
    image = pagecast.screenshot(site.page, format="png", dimensions="xs", response_type="image")
    assert image.image and image.image[:8] == b"\x89PNG\r\n\x1a\n"
    assert image.content_type == "image/png" and image.credits == 1


def test_signed_links_from_the_signer_are_served(pagecast: Pagecast, site: Site) -> None:
    signing = pagecast.signing_secret()
    assert signing.key_id == site.key[:11] and len(signing.signing_secret) == 64
    link = sign_screenshot_url(
        site.base_url, signing.key_id, signing.signing_secret, site.page, format="png"
    )
    first, again = httpx.get(link, timeout=60), httpx.get(link, timeout=60)
    assert first.status_code == 200 and first.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert again.headers["X-Screenshot-Cached"] == "true" and again.content == first.content
    tampered = link.replace("format=png", "format=jpeg")
    assert httpx.get(tampered, timeout=60).status_code == 403
    with pytest.raises(TypeError, match="response_type"):
        sign_screenshot_url(site.base_url, signing.key_id, "x", site.page, response_type="image")  # type: ignore[call-arg]


def test_oembed_and_the_frames_api(pagecast: Pagecast, site: Site) -> None:
    embed = pagecast.oembed(site.page, template="compact")
    assert embed.source == "og_frame" and embed.embed_id and embed.frame_url
    assert (embed.width, embed.height) == (400, 300) and embed.title == TITLE
    assert embed.frame_url in embed.html and embed.credits == 1
    assert pagecast.oembed(site.page, version="1.1", template="compact").credits == 10
    listed = [frame.embed_id for frame in pagecast.iter_frames(limit=1)]
    assert embed.embed_id in listed
    frame = pagecast.get_frame(embed.embed_id)
    assert frame.url == site.page and frame.template == "compact"
    assert frame.metadata["title"] == TITLE
    refreshed = pagecast.refresh_frame(embed.embed_id)
    assert refreshed.refreshed_at and refreshed.embed_id == embed.embed_id
    pagecast.delete_frame(embed.embed_id)
    with pytest.raises(NotFoundError) as gone:
        pagecast.get_frame(embed.embed_id)
    assert gone.value.code == "frame_not_found" and gone.value.status == 404


def test_key_and_server_from_the_environment(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAGECAST_API_KEY", raising=False)
    with pytest.raises(PagecastError, match="PAGECAST_API_KEY"):
        Pagecast()
    monkeypatch.setenv("PAGECAST_API_KEY", site.key)
    monkeypatch.setenv("PAGECAST_URL", site.base_url)
    with Pagecast() as client:
        assert client.markdown(site.page, include_markdown=False).metadata


def test_async_client(site: Site) -> None:
    async def scenario() -> None:
        async with AsyncPagecast(api_key=site.key, base_url=site.base_url) as client:
            page, shot = await asyncio.gather(
                client.markdown(site.page, query="water", query_top_k=1),
                client.screenshot(site.page, response_type="image"),
            )
            assert page.chunks and page.chunks[0].relevance_score
            assert shot.image and shot.image[:3] == b"\xff\xd8\xff"
            embed = await client.oembed(site.page, theme="dark")
            assert embed.embed_id in [frame.embed_id async for frame in client.iter_frames()]
            with pytest.raises(InvalidRequestError) as error:
                await client.markdown(site.page, max_chars=-1)
            assert error.value.code == -2201

    asyncio.run(scenario())


def test_the_package_stands_alone() -> None:
    """The client imports nothing of the server's: it works installed by itself, with only the
    dependencies its pyproject.toml declares (the extras' where their modules need them)."""
    source = ROOT / "clients" / "python" / "src" / "pagecast_client"
    declared = tomllib.loads((source.parent.parent / "pyproject.toml").read_text())["project"]
    allowed = {"pagecast_client", "httpx", *sys.stdlib_module_names}
    extras = {"mcp_server": {"mcp", "pydantic"}, "langchain": {"langchain_core"}}
    extras["mcp_http"] = {"mcp", "starlette", "uvicorn"}  # the mcp package's HTTP transport's
    extras["llama_index"] = {"llama_index"}
    for module in ("mcp_common", "mcp_frames", "mcp_jobs"):
        extras[module] = extras["mcp_server"]
    for path in source.glob("*.py"):
        imported = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
        stray = imported - allowed - extras.get(path.stem, set())
        assert not stray, f"{path.name} imports {stray}"
    assert declared["dependencies"] == ["httpx>=0.27,<1"]
    assert {"mcp", "langchain", "llamaindex"} <= set(declared["optional-dependencies"])
