"""Browser pages built from files in ``static/``: the files are read once at import and served under
a Content-Security-Policy that each page declares, with their routes derived from the file table.

Used by the API reference (``/docs``), the playground (``/``) and ``/robots.txt``. Both pages are
one skeleton, ``static/page.html`` (the head, the header, the layout's frame), filled in with each
page's own parts (:func:`page`), and both link the stylesheet and the script they share,
``pagecast.css`` and ``pagecast.js``, before their own."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from handlers.base import BaseHandler

STATIC = Path(__file__).resolve().parent.parent / "static"
SKELETON = "page.html"

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
# Short: a deployment that changes a page is seen within minutes.
CACHE_CONTROL = "public, max-age=300"

PLACEHOLDER = re.compile(r"\{([a-z]+)\}")
PART = re.compile(r"^<!-- ([a-z]+) -->\n", re.MULTILINE)
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


@dataclass(frozen=True)
class StaticFile:
    """One file of a page, as sent."""

    body: bytes
    content_type: str


def load(name: str) -> StaticFile:
    """``static/<name>``, its content type taken from its extension."""
    path = STATIC / name
    return StaticFile(path.read_bytes(), CONTENT_TYPES[path.suffix])


def page(name: str) -> StaticFile:
    """The page ``name``: the skeleton ``static/page.html`` with ``{name}`` replaced by the page's
    name (its files are served under ``<name>/`` and named after it) and every other placeholder by
    the part of ``static/<name>.html`` named the same.

    In ``static/<name>.html`` each part follows a line ``<!-- <part> -->`` and ends before the next
    one (its last line break excluded, as the skeleton's line has its own). A part the skeleton
    does not place, or a placeholder no part fills, is an error at import."""
    parts = _parts(f"{name}.html")
    skeleton = (STATIC / SKELETON).read_text(encoding="utf-8")
    wanted = set(PLACEHOLDER.findall(skeleton)) - {"name"}
    if set(parts) != wanted:
        raise ValueError(f"static/{name}.html has the parts {sorted(parts)}, not {sorted(wanted)}")
    values = {**parts, "name": name}
    # One pass over the skeleton only: braces inside a part are the page's text, never placeholders.
    html = PLACEHOLDER.sub(lambda match: values[match[1]], skeleton)
    return StaticFile(html.encode("utf-8"), CONTENT_TYPES[".html"])


def _parts(file: str) -> dict[str, str]:
    """The parts of ``static/<file>``, by name."""
    notes, *named = PART.split((STATIC / file).read_text(encoding="utf-8"))
    # Before its first part a file may hold notes for its reader, and nothing that would be lost.
    if COMMENT.sub("", notes).strip():
        raise ValueError(f"static/{file} has markup before its first part")
    names, bodies = named[0::2], named[1::2]
    if len(set(names)) != len(names):
        raise ValueError(f"static/{file} names a part twice")
    return {part: body.removesuffix("\n") for part, body in zip(names, bodies, strict=True)}


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


class RobotsHandler(BaseHandler):
    """``/robots.txt`` from ``static/``: an API is no place for crawlers."""

    endpoint = "static"
    counts_in_flight = False
    body = (STATIC / "robots.txt").read_bytes()

    async def get(self) -> None:
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.set_header("Cache-Control", "public, max-age=86400")
        self.finish(self.body)
