"""``/docs``: a readable API reference, rendered in the browser from ``/openapi.json``.

The page (the skeleton ``static/page.html`` filled in with the parts of ``static/docs.html``), its
script and its stylesheet, each after the one the playground shares, are files in ``static/``, read
once at import and served with a strict Content-Security-Policy: no inline script or style and
nothing from another origin, so the reference can never run or load anything but Pagecast's own
files."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from handlers.static import STATIC, PageFileHandler, StaticFile, file_routes, load, page

__all__ = ["CONTENT_SECURITY_POLICY", "ROUTES", "STATIC", "DocsHandler"]

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'"
)


class DocsHandler(PageFileHandler):
    """The HTML shell (``docs.js`` fills it in from ``/openapi.json``), its scripts and its
    stylesheets."""

    endpoint = "docs"
    files: ClassVar[Mapping[str, StaticFile]] = {
        "/docs": page("docs"),
        "/docs/pagecast.js": load("pagecast.js"),
        "/docs/docs.js": load("docs.js"),
        "/docs/pagecast.css": load("pagecast.css"),
        "/docs/docs.css": load("docs.css"),
    }
    policy = CONTENT_SECURITY_POLICY


ROUTES = file_routes(DocsHandler)
