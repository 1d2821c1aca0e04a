"""``/``: the playground, a page for trying the endpoints from a browser with an API key.

The page (the skeleton ``static/page.html`` filled in with the parts of ``static/playground.html``),
its script and its stylesheet, each after the one the reference shares, are files in ``static/``;
``playground.js`` builds the parameter form from ``/openapi.json`` and calls the API on this origin.
The Content-Security-Policy allows nothing inline and nothing from another origin, with two
exceptions, both needed to show results and both as narrow as they can be:

- ``img-src`` names the public base URL, where screenshot links point, and with an object store
  the store's address, where those links redirect (``blob:`` shows an image asked for with
  ``response_type=image``);
- ``frame-src`` names the frame host, and nothing else. An embed's ``html`` is shown in a sandboxed
  ``srcdoc`` frame, which inherits this policy, so the hosted frame inside it may load while a
  third-party provider's player or script may not. The style attribute of Pagecast's own embed
  snippet is allowed by its hash (``style-src-attr``), so that snippet renders as it would on a
  customer's page.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections.abc import Mapping
from typing import ClassVar
from urllib.parse import urlsplit

from handlers.static import PageFileHandler, StaticFile, file_routes, load, page
from services.embeds.frames import sample_snippets


def _origin(url: str) -> str:
    """``scheme://host[:port]`` of an absolute URL (a CSP source expression)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _hash_source(text: str) -> str:
    """The CSP hash source expression that allows exactly ``text``."""
    digest = hashlib.sha256(text.encode()).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def _snippet_style_hashes() -> tuple[str, ...]:
    """Hash sources of the style attributes in the embed snippets of hosted frames (taken from
    sample snippets, so they follow any change to them)."""
    styles = {
        html.unescape(style)
        for sample in sample_snippets()
        for style in re.findall(r'\sstyle="([^"]*)"', sample)
    }
    return tuple(_hash_source(style) for style in sorted(styles))


SNIPPET_STYLE_HASHES = _snippet_style_hashes()


def content_security_policy(
    public_base_url: str, frame_host: str, image_origin: str | None = None
) -> str:
    """The playground's policy for a server whose links and frames live at these addresses
    (``image_origin``: where screenshot links redirect to, with an object store)."""
    style_attr = (
        " ".join(("'unsafe-hashes'", *SNIPPET_STYLE_HASHES)) if SNIPPET_STYLE_HASHES else "'none'"
    )
    return (
        "default-src 'none'; script-src 'self'; style-src 'self'; "
        f"style-src-attr {style_attr}; "
        f"img-src 'self' data: blob: {_origin(public_base_url)}"
        f"{' ' + image_origin if image_origin else ''}; connect-src 'self'; "
        f"frame-src {_origin(frame_host)}; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


class PlaygroundHandler(PageFileHandler):
    """The HTML shell, its scripts and its stylesheets."""

    endpoint = "playground"
    files: ClassVar[Mapping[str, StaticFile]] = {
        "/": page("playground"),
        "/playground/pagecast.js": load("pagecast.js"),
        "/playground/markdown-view.js": load("markdown-view.js"),
        "/playground/playground.js": load("playground.js"),
        "/playground/pagecast.css": load("pagecast.css"),
        "/playground/playground.css": load("playground.css"),
    }

    def content_security_policy(self) -> str:
        # Read per request: the addresses are settings, and cheap to format.
        server = self.services.server
        return content_security_policy(
            server.public_base_url(),
            server.public_frame_host(),
            self.services.screenshot_service.image_origin,
        )


ROUTES = file_routes(PlaygroundHandler)
