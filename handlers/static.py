"""Browser pages built from files in ``static/``: the files are read once at import and served under
a Content-Security-Policy that each page declares, with their routes derived from the file table.

Used by the API reference (``/docs``) and the playground (``/``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from handlers.base import BaseHandler

STATIC = Path(__file__).resolve().parent.parent / "static"

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
# Short: a deployment that changes a page is seen within minutes.
CACHE_CONTROL = "public, max-age=300"


@dataclass(frozen=True)
class StaticFile:
    """One file of a page, as sent."""

    body: bytes
    content_type: str


def load(name: str) -> StaticFile:
    """``static/<name>``, its content type taken from its extension."""
    path = STATIC / name
    return StaticFile(path.read_bytes(), CONTENT_TYPES[path.suffix])


class PageFileHandler(BaseHandler):
    """Serves the files of one page: ``files`` maps each request path to its file, and
    :func:`file_routes` gives every path its own literal route, so a request that reaches
    :meth:`get` always names a file of the table."""

    counts_in_flight = False
    files: ClassVar[Mapping[str, StaticFile]] = {}

    policy: ClassVar[str] = "default-src 'none'"
    """The Content-Security-Policy of the page's files; the strictest unless a page says more."""

    def content_security_policy(self) -> str:
        """The policy sent with every file of the page (a page whose policy depends on the
        settings computes it here)."""
        return self.policy

    async def get(self) -> None:
        file = self.files[self.request.path]
        self.set_header("Content-Type", file.content_type)
        self.set_header("Cache-Control", CACHE_CONTROL)
        self.set_header("Content-Security-Policy", self.content_security_policy())
        self.set_header("X-Content-Type-Options", "nosniff")
        self.finish(file.body)


def file_routes(handler: type[PageFileHandler]) -> list[tuple[str, Any]]:
    """One route per file: literal paths rather than a capture group, so every route stays a
    concrete path and nothing outside the table can be asked for."""
    return [(re.escape(path), handler) for path in handler.files]
