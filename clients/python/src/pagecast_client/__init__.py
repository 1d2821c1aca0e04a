"""Pagecast's Python client: web pages as Markdown for LLMs, screenshots and oEmbed embeds.

>>> from pagecast_client import Pagecast
>>> with Pagecast() as pagecast:  # PAGECAST_API_KEY, PAGECAST_URL  # doctest: +SKIP
...     page = pagecast.markdown("https://example.com/", query="pricing", query_top_k=3)
...     for chunk in page.chunks:
...         print(chunk.relevance_score, " > ".join(chunk.heading_path))

Optional parts: ``pagecast_client.mcp_server`` (extra ``mcp``; the ``pagecast-mcp`` command),
``pagecast_client.langchain`` (extra ``langchain``) and ``pagecast_client.llama_index`` (extra
``llamaindex``).
"""

# The client's one version (its pyproject.toml reads it from here) is the server's, that of
# Pagecast's own pyproject.toml: a test fails when they differ. Change both together.
__version__ = "0.1.0"

from pagecast_client.async_client import AsyncPagecast
from pagecast_client.captures import CaptureAccepted, CaptureStatus
from pagecast_client.client import Pagecast
from pagecast_client.errors import (
    AuthenticationError,
    BlockedContentError,
    CaptureFailedError,
    CaptureTimeoutError,
    ConnectionFailedError,
    InvalidRequestError,
    JobTimeoutError,
    NotFoundError,
    PagecastError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    TargetError,
)
from pagecast_client.jobs import (
    Job,
    JobAccepted,
    JobProgress,
    JobResult,
    JobWebhook,
    MapResult,
    PageError,
)
from pagecast_client.models import (
    AiSafety,
    Chunk,
    Debug,
    Embed,
    Frame,
    FramePage,
    Heading,
    Image,
    Link,
    MarkdownResult,
    Metadata,
    SafetySignal,
    Screenshot,
    Usage,
)
from pagecast_client.signing import SigningSecret, sign_screenshot_url

__all__ = [
    "AiSafety",
    "AsyncPagecast",
    "AuthenticationError",
    "BlockedContentError",
    "CaptureAccepted",
    "CaptureFailedError",
    "CaptureStatus",
    "CaptureTimeoutError",
    "Chunk",
    "ConnectionFailedError",
    "Debug",
    "Embed",
    "Frame",
    "FramePage",
    "Heading",
    "Image",
    "InvalidRequestError",
    "Job",
    "JobAccepted",
    "JobProgress",
    "JobResult",
    "JobTimeoutError",
    "JobWebhook",
    "Link",
    "MapResult",
    "MarkdownResult",
    "Metadata",
    "NotFoundError",
    "PageError",
    "Pagecast",
    "PagecastError",
    "PermissionDeniedError",
    "RateLimitError",
    "SafetySignal",
    "Screenshot",
    "ServerError",
    "SigningSecret",
    "TargetError",
    "Usage",
    "sign_screenshot_url",
]
