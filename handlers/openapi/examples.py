"""The success bodies of ``/openapi.json``: one realistic answer per operation that has a body, as
a client would receive it for the request the parameter tables' examples make (a target of
``https://example.com/``, the oEmbed table's video URL). The reference page shows each beside its
operation; a test checks every one against its operation's schema.

Public API: :func:`success_examples` (base URL, frame host) -> the examples by operation id and
media type; :func:`attach_examples` puts them into a document's ``paths``."""

from __future__ import annotations

from typing import Any

REQUEST_ID = "9d1c5e0a7b3f4e21a8c6d2f0b4e7a913"
"""A made-up request id, as ``X-Request-Id`` would carry it."""
JOB_ID = "6f1d2c9a8e7b4c3d"
CAPTURE_ID = "b7e2c94f1a0d4c8e9f3a6d5b2c1e0f47"
CAPTURE_FILE = "1d9a7c3e5b2f4a6c8e0b9d7f5a3c1e2b.png"
EMBED_ID = "3f0c6e52-4b0e-5d43-9a8e-2a71c6f0d9b4"
FRAME_PATH = "/oembed/5e3c2a9f01b7d6e4/a41f09c37d2e8b6150f4c9e2d7a3b816"
MARKDOWN = (
    "# Example Domain\n\n"
    "This domain is for use in illustrative examples in documents. You may use this domain "
    "in literature without prior coordination or asking for permission.\n\n"
    "[More information...](https://www.iana.org/domains/example)\n"
)

_METADATA = {
    "title": "Example Domain",
    "description": "",
    "canonical_url": "https://example.com/",
    "site_name": "example.com",
    "image": "",
    "language": "en",
    "final_url": "https://example.com/",
    "author": "",
    "published_at": "",
}

_ENVELOPE = {
    "markdown": MARKDOWN,
    "metadata": _METADATA,
    "usage": {
        "character_count": len(MARKDOWN),
        "estimated_token_count": 57,
        "truncated": False,
        "truncation_reason": None,
        "max_chars": None,
        "chunk_count": 0,
        "chunks_truncated": False,
        "comment_count": 0,
    },
    "debug": {
        "full_render_used": False,
        "auto_render_triggered": False,
        "proxy_used": None,
        "retry_used": False,
        "retry_attempts": 0,
        "final_status_code": 200,
        "cache_hit": False,
        "main_content": "semantic",
        "main_content_fallback": None,
        "page_type": "article",
        "extraction_confidence": 0.8,
        "render": None,
        "render_note": None,
        "cache": "miss",
    },
    "request_id": REQUEST_ID,
}

_EMBED = {
    "type": "video",
    "version": "1.0",
    "provider_name": "YouTube",
    "width": 200,
    "height": 113,
    "source": "native",
    "html": '<iframe width="200" height="113" '
    'src="https://www.youtube.com/embed/dQw4w9WgXcQ?feature=oembed" frameborder="0" '
    'allow="accelerometer; autoplay; clipboard-write; encrypted-media; gyroscope; '
    'picture-in-picture; web-share" allowfullscreen '
    'title="Rick Astley - Never Gonna Give You Up (Official Music Video)"></iframe>',
}

_PROGRESS = {"total": 3, "done": 2, "failed": 0, "running": 1, "skipped": 0, "queued": 0}

_READY = {
    "status": "ready",
    "checks": {
        "database": True,
        "farm": True,
        "draining": False,
        "disk": True,
        "memory": True,
        "farm_capacity": True,
    },
    "failed": [],
    "reasons": {},
    "resources": {
        "disk": {"free_bytes": 83281498112, "free_percent": 30.78},
        "memory": {"rss_bytes": 412385280, "available_bytes": 23464370176},
    },
    "farm": {"ready": True, "connected": True, "browsers": 1, "pages_busy": 1, "max_pages": 4},
}


_CARD_PAGE = "\n".join(
    (
        "<!DOCTYPE html>",
        "<html>",
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="robots" content="noindex">',
        '<meta name="referrer" content="no-referrer">',
        '<meta name="color-scheme" content="light dark">',
        "<title>Example Domain</title>",
        "<style>/* the card's layout and colours, about 2 kB */</style>",
        "</head>",
        "<body>",
        '<a class="card" href="https://example.com/" target="_blank" '
        'rel="noopener noreferrer"><div class="media"><span class="initial" '
        'aria-hidden="true">E</span></div><div class="text"><div class="site"><span '
        'class="site-name" dir="auto">example.com</span></div><div class="title" '
        'dir="auto">Example Domain</div></div></a>',
        "</body>",
        "</html>",
    )
)
"""The card page of the example frame, its stylesheet left out."""


def _frame(frame_host: str) -> dict[str, Any]:
    frame_url = frame_host + FRAME_PATH
    return {
        "embed_id": EMBED_ID,
        "url": "https://example.com/",
        "frame_url": frame_url,
        "template": "default",
        "theme": "auto",
        "orientation": "vertical",
        "width": 800,
        "height": 600,
        "maxwidth": None,
        "maxheight": None,
        "metadata": {
            "title": "Example Domain",
            "description": "",
            "image": "",
            "site_name": "example.com",
            "favicon": "https://example.com/favicon.ico",
            "canonical_url": "https://example.com/",
            "author": "",
            "published_at": "",
            "image_width": "",
            "image_height": "",
        },
        "html": f'<iframe src="{frame_url}" width="800" height="600" title="Example Domain" '
        'loading="lazy" frameborder="0" style="border:0;max-width:100%"></iframe>',
        "created_at": "2026-03-02T09:14:07Z",
        "updated_at": "2026-03-02T09:14:07Z",
        "refreshed_at": None,
    }


def _job(status: str) -> dict[str, Any]:
    """A batch of three pages: running, or cancelled with its last page skipped."""
    cancelled = status == "cancelled"
    progress = {**_PROGRESS, "running": 0, "skipped": 1} if cancelled else _PROGRESS
    return {
        "id": JOB_ID,
        "kind": "batch",
        "status": status,
        "stop_reason": "cancelled" if cancelled else None,
        "progress": progress,
        "credits": 2,
        "created_at": "2026-03-02T09:14:07Z",
        "finished_at": "2026-03-02T09:14:19Z" if cancelled else None,
        "expires_at": "2026-03-09T09:14:19Z" if cancelled else None,
        "webhook": None,
        "results": [
            {
                "seq": 1,
                "url": "https://example.com/",
                "status": "done",
                "depth": 0,
                "credits": 1,
                "final_url": "https://example.com/",
                "status_code": 200,
                "markdown": MARKDOWN,
            }
        ],
        "next_cursor": "1",
        "has_more": True,
    }


def success_examples(base_url: str, frame_host: str) -> dict[str, dict[str, Any]]:
    """By operation id, the example body of each media type of its success answer; the
    screenshot link and frame URLs name ``base_url`` and ``frame_host``."""
    frame = _frame(frame_host)
    examples: dict[str, dict[str, Any]] = {
        "markdown": {"text/markdown": MARKDOWN, "application/json": _ENVELOPE},
        "batch": {
            "application/json": {
                "id": JOB_ID,
                "status": "queued",
                "pages_queued": 3,
                "url": f"{base_url}/api/3.0/jobs/{JOB_ID}",
            }
        },
        "getJob": {"application/json": _job("running")},
        "cancelJob": {"application/json": _job("cancelled")},
        "oembed": {"application/json": _EMBED},
        "screenshot": {
            "application/json": {
                "screenshotUrl": f"{base_url}/screenshots/4c8e1f0a9b2d7c6e5f3a1b0c9d8e7f6a.jpeg",
                "dimensions": {"width": 1280, "height": 800},
                "requestInfo": {"host": "example.com", "responseCode": 200},
                "expiresAt": "2026-03-03T09:14:07Z",
                "cached": False,
                "timing": {"ready": "settled", "ready_ms": 412, "load_ms": 286},
            }
        },
        "screenshotRequest": {
            "application/json": {
                "id": CAPTURE_ID,
                "status": "done",
                "result": {
                    "screenshotUrl": f"{base_url}/screenshots/{CAPTURE_FILE}",
                    "dimensions": {"width": 1366, "height": 5120},
                    "requestInfo": {"host": "example.com", "responseCode": 200},
                    "expiresAt": "2026-03-03T09:14:52Z",
                    "cached": False,
                    "timing": {"ready": "settled", "ready_ms": 2210, "load_ms": 1874},
                },
                "createdAt": "2026-03-02T09:14:07Z",
                "endedAt": "2026-03-02T09:14:52Z",
            }
        },
        "map": {
            "application/json": {
                "url": "https://example.com/",
                "urls": [
                    "https://example.com/",
                    "https://example.com/docs/",
                    "https://example.com/docs/install",
                ],
                "count": 3,
                "truncated": False,
                "complete": True,
                "sources": {"start": 1, "links": 1, "sitemaps": 1},
                "robots": "found",
                "sitemaps_read": 1,
                "sitemaps_failed": 0,
                "request_id": REQUEST_ID,
            }
        },
        "signingSecret": {
            "application/json": {
                "key_id": "pc_Ab3dE6gH",
                "signing_secret": "5f0e8d1c2b3a4968" * 4,
            }
        },
        "health": {"application/json": {"status": "ok"}},
        "ready": {"application/json": _READY},
        "listFrames": {"application/json": {"frames": [frame], "next_cursor": None, "total": 1}},
        "getFrame": {"application/json": frame},
        "refreshFrame": {
            "application/json": {
                **frame,
                "updated_at": "2026-03-04T16:40:51Z",
                "refreshed_at": "2026-03-04T16:40:51Z",
            }
        },
        "framePage": {"text/html": _CARD_PAGE},
    }
    examples["crawl"] = {
        "application/json": {**examples["batch"]["application/json"], "pages_queued": 1}
    }
    return examples


SAME_EXAMPLES = {
    "markdown_query": "markdown",
    "oembed_1_1_path": "oembed",
    "oembed_1_1_query": "oembed",
    "oembed_3_0_path": "oembed",
    "oembed_3_0_query": "oembed",
    "screenshot_query": "screenshot",
}
"""Operations that answer exactly as another one does (the same endpoint reached another way)."""


def attach_examples(paths: dict[str, Any], base_url: str, frame_host: str) -> None:
    """Give every operation of ``paths`` its examples from :func:`success_examples`: on the
    media types of its first 2xx answer. The answer and its content are copied, never changed
    in place: operations share them (a frame's read and refresh answer the same ``Frame``) and
    each has its own example."""
    examples = success_examples(base_url, frame_host)
    for item in paths.values():
        for operation in item.values():
            name = operation.get("operationId", "")
            bodies = examples.get(SAME_EXAMPLES.get(name, name), {})
            status = min((code for code in operation["responses"] if code < "300"), default=None)
            if status is None or not bodies:
                continue
            success = operation["responses"][status]
            content = {
                media: {**body, "example": bodies[media]} if media in bodies else body
                for media, body in success.get("content", {}).items()
            }
            operation["responses"] = {
                **operation["responses"],
                status: {**success, "content": content},
            }
