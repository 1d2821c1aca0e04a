"""oEmbed, the pure parts: reading a page for embedding (metadata, favicon, discovery links),
judging a provider's answer, building the ``html`` snippet, frame sizes and the identifiers of
hosted frames. No I/O: the resolver fetches, this module decides.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import json
import math
import re
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit, urlunsplit

import lxml.etree
import lxml.html

from convert.embed.snippets import http_url, link_snippet, photo_snippet
from convert.html.appshell import detect_app_shell
from convert.html.document import parse_document
from convert.metadata.fields import TEXT_LIMITS, cap_text, cap_url
from convert.metadata.read import read_metadata
from convert.text import urls

OEMBED_TYPES = ("photo", "video", "link", "rich")
JSON_TYPE = "application/json+oembed"
XML_TYPE = "text/xml+oembed"
TEMPLATE_SIZES = {"default": (800, 600), "compact": (400, 300), "horizontal": (400, 150)}
ORIENTATION_TEMPLATES = {"vertical": "default", "horizontal": "horizontal"}
MAX_FRAME_SIDE = 4000
"""Largest width or height of a frame, whatever maxwidth/maxheight ask."""
MAX_DISCOVERY_LINKS = 4
"""Discovery links of a page tried at most (each may cost a provider timeout)."""
URL_FIELDS = frozenset({"url", "thumbnail_url", "author_url", "provider_url"})
"""oEmbed fields that hold a URL (and so does any other field whose name ends in ``_url``)."""
_EMBED_NAMESPACE = uuid.UUID("6f0c3c8e-5a57-4b8e-9d0b-7061676563a1")
_LINK_HEADER = re.compile(r"<([^>]*)>\s*((?:;\s*[^;,]*)*)")


@dataclass(frozen=True)
class EmbedPage:
    """What a page offers for embedding."""

    metadata: dict[str, str]
    """:data:`convert.metadata.fields.FIELDS`, ``favicon``, and ``image_width``/``image_height``
    when the page declares its image's size."""
    discovery: list[tuple[str, str]] = field(default_factory=list)
    """(format, absolute endpoint URL) of each discovery link, JSON first."""
    app_shell: bool = False
    """The page looks like a JavaScript app shell (worth rendering when it has no metadata)."""

    @property
    def has_metadata(self) -> bool:
        """Whether there is anything to put on a card (a site name alone is not enough)."""
        return any(self.metadata.get(name) for name in ("title", "description", "image"))


def read_embed_page(page_html: str, url: str, link_header: str = "") -> EmbedPage:
    """Metadata (with the favicon) and discovery links of a fetched page."""
    root = parse_document(page_html)
    read = read_metadata(root, url)
    metadata = read.as_dict()
    metadata["favicon"] = _favicon(root, url)
    if read.image and read.image_width and read.image_height:
        metadata["image_width"] = str(read.image_width)
        metadata["image_height"] = str(read.image_height)
    links = _discovery_links(root, url) + _header_links(link_header, url)
    links.sort(key=lambda link: link[0] != "json")
    del links[MAX_DISCOVERY_LINKS:]
    shell = detect_app_shell(root).is_shell
    return EmbedPage(metadata=metadata, discovery=links, app_shell=shell)


def _favicon(root: lxml.html.HtmlElement, url: str) -> str:
    best = ""
    for element in root.iter("link"):
        rels = (element.get("rel") or "").lower().split()
        href = (element.get("href") or "").strip()
        if not href or not ({"icon", "apple-touch-icon"} & set(rels)):
            continue
        best = best or _join(url, href)
        if "apple-touch-icon" in rels:
            return _join(url, href)
    if best:
        return best
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/favicon.ico", "", ""))


def _join(base: str, href: str) -> str:
    """``href`` made absolute; "" unless http(s), or when longer than the URL cap."""
    if not cap_url(href):
        return ""
    try:
        joined = cap_url(urljoin(base, href))
        return joined if urlsplit(joined).scheme in ("http", "https") else ""
    except ValueError:
        return ""


def _discovery_links(root: lxml.html.HtmlElement, url: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for element in root.iter("link"):
        rels = (element.get("rel") or "").lower().split()
        kind = (element.get("type") or "").strip().lower()
        href = (element.get("href") or "").strip()
        if "alternate" not in rels or not href or kind not in (JSON_TYPE, XML_TYPE):
            continue
        absolute = _join(url, href)
        if absolute:
            found.append(("json" if kind == JSON_TYPE else "xml", absolute))
    return found


def _header_links(header: str, url: str) -> list[tuple[str, str]]:
    """Discovery links in an HTTP ``Link`` header (RFC 8288)."""
    found: list[tuple[str, str]] = []
    for match in _LINK_HEADER.finditer(header or ""):
        params = {}
        for part in match[2].split(";"):
            name, _, value = part.strip().partition("=")
            params[name.strip().lower()] = value.strip().strip('"').lower()
        kind = params.get("type", "")
        if "alternate" in params.get("rel", "").split() and kind in (JSON_TYPE, XML_TYPE):
            absolute = _join(url, match[1].strip())
            if absolute:
                found.append(("json" if kind == JSON_TYPE else "xml", absolute))
    return found


# -- provider answers ---------------------------------------------------------------------------


def parse_provider_answer(body: str, fmt: str) -> dict[str, Any] | None:
    """A provider's answer as a dict when it is a usable oEmbed, else None.

    Usable: a JSON object (or the XML form) with a known ``type``, ``version`` 1.0, and ``html``
    (video and rich) or ``url`` (photo) or at least a title (link)."""
    data = _decode(body, fmt)
    if data is None:
        return None
    kind = str(data.get("type", "")).strip().lower()
    version = str(data.get("version", "")).strip()
    if kind not in OEMBED_TYPES or version not in ("1.0", "1"):
        return None
    has_html = isinstance(data.get("html"), str) and data["html"].strip()
    has_url = isinstance(data.get("url"), str) and urlsplit(data["url"]).scheme in (
        "http",
        "https",
    )
    if kind in ("video", "rich") and not has_html:
        return None
    if kind == "photo" and not (has_url or has_html):
        return None
    if kind == "link" and not (has_html or has_url or data.get("title")):
        return None
    data["type"] = kind
    data["version"] = "1.0"
    return data


def _decode(body: str, fmt: str) -> dict[str, Any] | None:
    if fmt == "xml":
        try:
            root = lxml.etree.fromstring(
                body.encode(), parser=lxml.etree.XMLParser(resolve_entities=False, no_network=True)
            )
        except (lxml.etree.XMLSyntaxError, ValueError):
            return None
        if root.tag != "oembed":
            return None
        return {child.tag: (child.text or "") for child in root if isinstance(child.tag, str)}
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _int(value: Any) -> int | None:
    try:
        number = int(float(value))
    except (TypeError, ValueError):
        return None
    return number if 0 < number <= 100_000 else None


def embed_fields(data: dict[str, Any], page_url: str) -> dict[str, Any]:
    """The response fields of a native or discovered embed, ``html`` always set (an image or
    a link snippet when the provider gave none); ``url`` is the provider's (photos). Texts are
    capped like page metadata."""
    title = cap_text(str(data.get("title") or ""), TEXT_LIMITS["title"])
    width, height = _int(data.get("width")), _int(data.get("height"))
    raw = data.get("html")
    snippet = raw if isinstance(raw, str) else ""
    url = cap_url(str(data.get("url") or ""))
    if not snippet.strip():
        if data["type"] == "photo":
            snippet = photo_snippet(url or page_url, title, width, height)
        else:
            snippet = link_snippet(page_url, title)
    return {
        "type": data["type"],
        "version": "1.0",
        "provider_name": cap_text(str(data.get("provider_name") or ""), TEXT_LIMITS["site_name"]),
        "width": width or 0,
        "height": height or 0,
        "html": snippet,
        "title": title,
        "url": url,
    }


def discovered_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """A discovered (untrusted) answer's fields with each URL field (:data:`URL_FIELDS` and any
    ``*_url``) kept only when it is an absolute http(s) URL, else dropped: a ``javascript:`` or
    ``data:`` URL never reaches a client."""
    kept: dict[str, Any] = {}
    for name, value in fields.items():
        if name in URL_FIELDS or name.endswith("_url"):
            url = http_url(value) if isinstance(value, str) else ""
            if url:
                kept[name] = url
        else:
            kept[name] = value
    return kept


# -- frames -------------------------------------------------------------------------------------


def frame_template(template: str | None, orientation: str) -> str:
    """The template in force: the explicit one wins over the orientation."""
    return template or ORIENTATION_TEMPLATES.get(orientation, "default")


def frame_size(template: str, maxwidth: int | None, maxheight: int | None) -> tuple[int, int]:
    """The frame's width and height: the template's, overridden by maxwidth/maxheight (one
    given: the other keeps the template's aspect ratio)."""
    width, height = TEMPLATE_SIZES[template]
    if maxwidth and maxheight:
        width, height = maxwidth, maxheight
    elif maxwidth:
        width, height = maxwidth, round(maxwidth * height / width)
    elif maxheight:
        width, height = round(maxheight * width / height), maxheight
    return min(max(width, 1), MAX_FRAME_SIDE), min(max(height, 1), MAX_FRAME_SIDE)


def normalize_url(url: str) -> str:
    """The URL as frames are keyed: scheme and host lowercased, default port, userinfo and
    fragment dropped, an empty path made "/"."""
    return urls.normalize_url(url)


def render_params(
    template: str, theme: str, orientation: str, maxwidth: int | None, maxheight: int | None
) -> str:
    """The parameters that shape a frame, canonically."""
    return urlencode(
        {
            "template": template,
            "theme": theme,
            "orientation": orientation,
            "maxwidth": maxwidth or "",
            "maxheight": maxheight or "",
        }
    )


def customer_hash(secret: str, org_id: int) -> str:
    """HMAC(secret, organization)[:16 hex]: frame paths do not reveal the organization."""
    return hmac.new(secret.encode(), str(org_id).encode(), hashlib.sha256).hexdigest()[:16]


def params_hash(normalized_url: str, params: str) -> str:
    """sha256(normalized URL + render parameters)[:32 hex]."""
    return hashlib.sha256(f"{normalized_url}\n{params}".encode()).hexdigest()[:32]


def embed_id(org_id: int, normalized_url: str, params: str) -> str:
    """A UUIDv5 of organization, URL and render parameters: the same request, the same id."""
    return str(uuid.uuid5(_EMBED_NAMESPACE, f"{org_id}\n{normalized_url}\n{params}"))


def frame_oembed_fields(metadata: dict[str, str], page_url: str) -> dict[str, Any]:
    """The oEmbed spec's optional fields a hosted frame's page supports: ``title``,
    ``author_name``, ``provider_url`` (the site's home), and ``thumbnail_url`` with
    ``thumbnail_width`` and ``thumbnail_height`` (the spec wants all three or none: the
    thumbnail is given only when the page declares its image's size)."""
    found: dict[str, Any] = {}
    if metadata.get("title"):
        found["title"] = metadata["title"]
    if metadata.get("author"):
        found["author_name"] = metadata["author"]
    parts = urlsplit(http_url(metadata.get("canonical_url", "")) or http_url(page_url))
    if parts.scheme and parts.netloc:
        found["provider_url"] = urlunsplit((parts.scheme, parts.netloc, "/", "", ""))
    thumbnail = http_url(metadata.get("image", ""))
    width, height = _int(metadata.get("image_width")), _int(metadata.get("image_height"))
    if thumbnail and width and height:
        found.update(thumbnail_url=thumbnail, thumbnail_width=width, thumbnail_height=height)
    return found


def iframe_snippet(
    frame_url: str, width: int, height: int, title: str, *, responsive: bool = False
) -> str:
    """The ``html`` of an og_frame embed: an iframe of the hosted frame.

    ``responsive``: the iframe fills a wrapper ``<div>`` as wide as the place it is put in, whose
    height follows the frame's proportions (``aspect-ratio``); for frames whose size was not
    asked for (no maxwidth or maxheight). Otherwise the iframe keeps its fixed size (shrunk
    to the width available). Either way the iframe loads lazily and carries the frame's
    ``width`` and ``height`` (what a page without styles shows).
    """
    attributes = (
        f'src="{html.escape(frame_url, quote=True)}" width="{width}" height="{height}" '
        f'title="{html.escape(title or "Embedded page", quote=True)}" loading="lazy" '
        'frameborder="0"'
    )
    if not responsive:
        return f'<iframe {attributes} style="{FIXED_IFRAME_STYLE}"></iframe>'
    divisor = math.gcd(width, height) or 1
    ratio = f"{width // divisor}/{height // divisor}"
    return (
        f'<div style="{RESPONSIVE_WRAPPER_STYLE}{ratio}">'
        f'<iframe {attributes} style="{RESPONSIVE_IFRAME_STYLE}"></iframe></div>'
    )


FIXED_IFRAME_STYLE = "border:0;max-width:100%"
"""The style of a fixed-size frame's iframe."""
RESPONSIVE_WRAPPER_STYLE = "position:relative;width:100%;aspect-ratio:"
"""The style of a responsive frame's wrapper, before its width/height ratio."""
RESPONSIVE_IFRAME_STYLE = "position:absolute;top:0;left:0;width:100%;height:100%;border:0"
"""The style of a responsive frame's iframe: the whole wrapper."""
