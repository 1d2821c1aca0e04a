"""``/docs``: a readable API reference, rendered in the browser from ``/openapi.json``.

The page, its script and its stylesheet are files in ``static/``, read once at import and served
with a strict Content-Security-Policy: no inline script or style and nothing from another origin,
so the reference can never run or load anything but Pagecast's own files."""

from __future__ import annotations

from pathlib import Path

from handlers.base import BaseHandler

STATIC = Path(__file__).resolve().parent.parent / "static"

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'"
)
# Short: a deployment that changes the page is seen within minutes.
CACHE_CONTROL = "public, max-age=300"


def _load(name: str, content_type: str) -> tuple[bytes, str]:
    return (STATIC / name).read_bytes(), content_type


PAGE = _load("docs.html", "text/html; charset=utf-8")
ASSETS: dict[str, tuple[bytes, str]] = {
    "docs.js": _load("docs.js", "text/javascript; charset=utf-8"),
    "docs.css": _load("docs.css", "text/css; charset=utf-8"),
}


class DocsFileHandler(BaseHandler):
    """Shared headers of the reference page and its assets."""

    endpoint = "docs"
    counts_in_flight = False

    def send_file(self, file: tuple[bytes, str]) -> None:
        body, content_type = file
        self.set_header("Content-Type", content_type)
        self.set_header("Cache-Control", CACHE_CONTROL)
        self.set_header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        self.set_header("X-Content-Type-Options", "nosniff")
        self.finish(body)


class DocsPageHandler(DocsFileHandler):
    """The HTML shell; ``docs.js`` fills it in from ``/openapi.json``."""

    async def get(self) -> None:
        self.send_file(PAGE)


class DocsAssetHandler(DocsFileHandler):
    """``docs.js`` and ``docs.css``: the routes match exactly these two paths, so the last path
    segment always names an asset."""

    async def get(self) -> None:
        self.send_file(ASSETS[self.request.path.rsplit("/", 1)[-1]])


# Literal paths rather than a capture group: every route stays a concrete path.
ROUTES = [
    (r"/docs", DocsPageHandler),
    (r"/docs/docs\.js", DocsAssetHandler),
    (r"/docs/docs\.css", DocsAssetHandler),
]
