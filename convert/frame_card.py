"""Card pages for Pagecast's hosted frames.

When a URL has no native oEmbed, Pagecast embeds a "frame": an iframe showing a card built from
the page's metadata. ``render_card`` turns that metadata into the complete HTML document of the
frame page. It is a pure function with deterministic output (the frame host derives the ETag from
the bytes), and the document is static: markup and one inline ``<style>`` block, no script, no
event-handler attributes, no external stylesheet or font.

Safety
    Every metadata value is plain text: control characters are removed, whitespace collapsed,
    long values cut with an ellipsis (title 200 characters, description 500, site name 100) and
    the result HTML-escaped. The ``<style>`` block holds only numbers and colours computed here,
    never a metadata value. Image, favicon and link URLs are kept only when their scheme is
    ``http`` or ``https`` (anything else, including ``javascript:``, ``data:``, relative and
    protocol-relative URLs, is dropped). The frame host serves the page with ``CSP``.

Insecure images
    ``CSP`` allows images from ``https:`` only, so a plain ``http://`` image would be blocked.
    Such URLs are still accepted and written as given, and the page asks the browser to upgrade
    its own subresource requests (``upgrade-insecure-requests`` in a ``<meta>`` policy), so the
    image is fetched over HTTPS where the site serves it. Metadata should prefer an ``https``
    image when the page offers both. Whatever fails to load leaves the placeholder showing: the
    image lies over a coloured block with the site's initial.

Templates (``TEMPLATES``)
    ``default``
        a vertical card: the image on top over 55% of the height (``object-fit: cover``), then a
        site line (favicon and site name), the title and the description.
    ``compact``
        a small card without the description: a square thumbnail on the left, the title and the
        site line on the right.
    ``horizontal``
        a banner: a full-height thumbnail on the left, then the title, a one-line description
        and the site line.

    Without an image the image area shows a coloured block with the site's initial (the colour
    is chosen from the site's name); without anything to take an initial from, the card is text.
    Without a title the card shows the page's host and path, without a site name its host.
    Font sizes and the number of lines each text gets follow from the frame's width and height;
    titles and descriptions are clamped to those lines in CSS (``-webkit-line-clamp``).

Themes (``THEMES``)
    ``light`` (white background, dark text), ``dark`` (#121212 background, light text) and
    ``auto``, which is light unless the reader's browser prefers a dark colour scheme.

The whole card is one link to the page (opened in a new tab, without opener or referrer); a page
URL that is not ``http(s)`` gives the same card without a link. With ``badge`` a small
"Made with Pagecast" label, plain text, sits in the bottom-right corner.
"""

from __future__ import annotations

import html
import re
import zlib
from dataclasses import dataclass
from urllib.parse import urlsplit

TEMPLATES = ("default", "compact", "horizontal")
THEMES = ("light", "dark", "auto")
CSP = "default-src 'none'; img-src https: data:; style-src 'unsafe-inline'"
"""The Content-Security-Policy the frame host sends with every card page."""
COLOR_SCHEMES = {"light": "light", "dark": "dark", "auto": "light dark"}
"""The CSS ``color-scheme`` of each theme (form controls, scrollbars, the canvas)."""

MIN_SIZE = 1
MAX_SIZE = 4096
"""Bounds of a frame's width and height, in CSS pixels."""

TITLE_LIMIT = 200
DESCRIPTION_LIMIT = 500
SITE_NAME_LIMIT = 100
URL_LIMIT = 8192
"""Longest URL kept; a longer one is dropped (cutting a URL would change where it points)."""

ELLIPSIS = "\u2026"
BADGE_TEXT = "Made with Pagecast"
BORDER = 1
BADGE_HEIGHT = 14
"""Height of the badge, whose corner every template keeps clear of text."""

FONT_STACK = (
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif'
)
PLACEHOLDER_COLORS = (
    "#3b6fd4",
    "#2a8c82",
    "#4f8a3a",
    "#7a4fc4",
    "#4c5bd4",
    "#51637a",
    "#1f7fa8",
    "#8a6a1f",
)
"""Backgrounds of the image placeholder: calm colours that carry white initials in both themes."""


@dataclass(frozen=True)
class Palette:
    """The colours of one theme."""

    background: str
    text: str
    muted: str
    border: str
    focus: str


LIGHT = Palette(
    background="#ffffff",
    text="#1a1a1a",
    muted="#5f6368",
    border="#e3e3e3",
    focus="#1a73e8",
)
DARK = Palette(
    background="#121212",
    text="#ececec",
    muted="#a3a3a3",
    border="#2e2e2e",
    focus="#8ab4f8",
)


@dataclass(frozen=True)
class CardData:
    """The metadata a card shows; every field is untrusted text from the page."""

    url: str
    """The page the card links to."""
    title: str
    description: str
    image: str
    """May be ""; only http(s) URLs are ever used."""
    site_name: str
    favicon: str
    """May be ""; only http(s) URLs are ever used."""
    canonical_url: str
    """May be ""."""


@dataclass(frozen=True)
class Content:
    """What a card shows, cleaned: plain text (not yet escaped) and safe URLs ("" for none)."""

    href: str
    title: str
    description: str
    site: str
    initial: str
    image: str
    favicon: str

    @property
    def has_media(self) -> bool:
        """Whether the card has an image area (an image, a placeholder, or both)."""
        return bool(self.image or self.initial)


@dataclass(frozen=True)
class Type:
    """One text style: font size and line height in pixels."""

    size: int
    line: int


@dataclass(frozen=True)
class Layout:
    """The sizes of one card, in CSS pixels, computed from the frame's size."""

    pad: int
    gap: int
    media: int
    """Height of the image area (``default``) or width of the thumbnail (the others)."""
    title: Type
    description: Type
    site: Type
    title_lines: int
    description_lines: int
    """0 when the description does not fit (or there is none)."""
    reserve: int
    """Extra room kept free at the bottom of the text for the badge."""


def render_card(
    card: CardData, *, template: str, theme: str, width: int, height: int, badge: bool
) -> str:
    """The complete HTML document of the frame page."""
    _check(template, theme, width, height)
    content = card_content(card)
    layout = _LAYOUTS[template](content, width, height, badge)
    return _document(template, theme, content, layout, badge)


def card_content(card: CardData) -> Content:
    """The cleaned text and URLs of a card, with fallbacks for a missing title or site name."""
    href = safe_url(card.url)
    shown_url = safe_url(card.canonical_url) or href
    site = clean_text(card.site_name, SITE_NAME_LIMIT) or _host(shown_url)
    title = clean_text(card.title, TITLE_LIMIT) or _short_url(shown_url) or site
    return Content(
        href=href,
        title=title,
        description=clean_text(card.description, DESCRIPTION_LIMIT),
        site=site,
        initial=_initial(site) or _initial(title),
        image=safe_url(card.image),
        favicon=safe_url(card.favicon),
    )


_INVISIBLE = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\ud800-\udfff]")
"""Control characters (other than those ``str.split`` takes for whitespace) and lone surrogates:
never part of display text."""
_URL_CONTROLS = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")


def clean_text(value: str, limit: int) -> str:
    """Plain display text: controls removed, whitespace collapsed, cut to ``limit`` characters
    (the last one an ellipsis) when longer."""
    text = " ".join(_INVISIBLE.sub("", value).split())
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + ELLIPSIS


def safe_url(value: str) -> str:
    """``value`` without surrounding whitespace when it is an absolute http(s) URL with a host,
    else ""."""
    url = value.strip()
    if len(url) > URL_LIMIT or _URL_CONTROLS.search(url):
        return ""
    if not url.lower().startswith(("http://", "https://")):
        return ""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return ""
    return url.replace(" ", "%20") if host else ""


def _check(template: str, theme: str, width: int, height: int) -> None:
    if template not in TEMPLATES:
        raise ValueError(f"unknown template {template!r}; expected one of {', '.join(TEMPLATES)}")
    if theme not in THEMES:
        raise ValueError(f"unknown theme {theme!r}; expected one of {', '.join(THEMES)}")
    for name, value in (("width", width), ("height", height)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be an integer")
        if not MIN_SIZE <= value <= MAX_SIZE:
            raise ValueError(f"{name} must be between {MIN_SIZE} and {MAX_SIZE}, not {value}")


def _host(url: str) -> str:
    host = (urlsplit(url).hostname or "") if url else ""
    return clean_text(host.removeprefix("www."), SITE_NAME_LIMIT)


def _short_url(url: str) -> str:
    """The URL as a reader would say it: host and path, without scheme, query or fragment."""
    if not url:
        return ""
    parts = urlsplit(url)
    host = (parts.hostname or "").removeprefix("www.")
    return clean_text(host + parts.path.rstrip("/"), TITLE_LIMIT)


def _initial(text: str) -> str:
    for char in text:
        if char.isalnum():
            upper = char.upper()
            return upper if len(upper) == 1 else char
    return ""


def _clamp(value: float, low: int, high: int) -> int:
    return max(low, min(high, round(value)))


def _type(size: int, ratio: float) -> Type:
    return Type(size=size, line=round(size * ratio))


def _fit(room: int, line: int, most: int) -> int:
    """How many lines of height ``line`` fit in ``room``, at most ``most``."""
    return max(0, min(most, room // line))


def _reserve(pad: int, badge: bool) -> int:
    """Room to add below the text so that the badge (4px from the bottom) covers none of it."""
    return max(0, BADGE_HEIGHT + 4 + 2 - pad - BORDER) if badge else 0


def _share(
    room: int, content: Content, title: Type, description: Type, *, most: int, most_description: int
) -> tuple[int, int]:
    """Lines for the title (at least one, at most ``most``) and the description in ``room``
    (the gap between them already taken): two title lines first, then the description, and
    the title takes all the room when no line of the description fits."""
    if content.description:
        title_lines = max(1, _fit(room, title.line, min(2, most)))
        description_lines = _fit(
            room - title_lines * title.line, description.line, most_description
        )
        if description_lines:
            return title_lines, description_lines
    return max(1, _fit(room, title.line, most)), 0


def _default_layout(content: Content, width: int, height: int, badge: bool) -> Layout:
    pad = _clamp(min(width, height) * 0.045, 8, 20)
    gap = _clamp(pad * 0.5, 4, 10)
    title = _type(_clamp(width * 0.045, 14, 22), 1.3)
    description = _type(_clamp(title.size * 0.8, 12, 17), 1.45)
    site = _type(_clamp(title.size * 0.68, 11, 14), 1.4)
    media = round(height * 0.55) if content.has_media else 0
    reserve = _reserve(pad, badge)
    room = height - 2 * BORDER - media - 2 * pad - reserve
    if content.site:
        room -= site.line + gap
    most = 3 if media else 5
    title_lines, description_lines = _share(
        room - gap, content, title, description, most=most, most_description=2 * most
    )
    return Layout(
        pad, gap, media, title, description, site, title_lines, description_lines, reserve
    )


def _compact_layout(content: Content, width: int, height: int, badge: bool) -> Layout:
    pad = _clamp(height * 0.1, 6, 14)
    gap = _clamp(pad * 0.4, 2, 6)
    title = _type(_clamp(min(height * 0.15, width * 0.05), 12, 20), 1.3)
    site = _type(_clamp(title.size * 0.8, 10, 14), 1.4)
    inner = height - 2 * BORDER - 2 * pad
    media = max(0, min(inner, round(width * 0.4))) if content.has_media else 0
    reserve = _reserve(pad, badge)
    room = inner - reserve - (site.line + gap if content.site else 0)
    title_lines = max(1, _fit(room, title.line, 4))
    return Layout(pad, gap, media, title, site, site, title_lines, 0, reserve)


def _horizontal_layout(content: Content, width: int, height: int, badge: bool) -> Layout:
    pad = _clamp(height * 0.1, 8, 18)
    gap = _clamp(pad * 0.4, 3, 8)
    title = _type(_clamp(min(height * 0.12, width * 0.04), 13, 20), 1.3)
    description = _type(_clamp(title.size * 0.82, 11, 16), 1.45)
    site = _type(_clamp(title.size * 0.7, 10, 14), 1.4)
    media = min(round(height * 1.6), round(width * 0.38)) if content.has_media else 0
    reserve = _reserve(pad, badge)
    room = height - 2 * BORDER - 2 * pad - reserve - (site.line + gap if content.site else 0)
    title_lines, description_lines = _share(
        room - gap, content, title, description, most=2, most_description=1
    )
    return Layout(
        pad, gap, media, title, description, site, title_lines, description_lines, reserve
    )


_LAYOUTS = {
    "default": _default_layout,
    "compact": _compact_layout,
    "horizontal": _horizontal_layout,
}


def _placeholder_color(content: Content) -> str:
    key = (content.site or content.title).casefold().encode("utf-8")
    return PLACEHOLDER_COLORS[zlib.crc32(key) % len(PLACEHOLDER_COLORS)]


def _variables(palette: Palette) -> str:
    return (
        f"--bg:{palette.background};--fg:{palette.text};--muted:{palette.muted};"
        f"--border:{palette.border};--focus:{palette.focus}"
    )


def _theme_rules(theme: str) -> list[str]:
    rules = [f":root{{color-scheme:{COLOR_SCHEMES[theme]};"]
    rules[0] += _variables(DARK if theme == "dark" else LIGHT) + "}"
    if theme == "auto":
        rules.append(f"@media (prefers-color-scheme: dark){{:root{{{_variables(DARK)}}}}}")
    return rules


def _base_rules(layout: Layout) -> list[str]:
    return [
        "html,body{margin:0;padding:0;width:100%;height:100%;overflow:hidden;"
        "background:var(--bg);color:var(--fg)}",
        f"body{{position:relative;font-family:{FONT_STACK};-webkit-font-smoothing:antialiased;"
        "text-rendering:optimizeLegibility}",
        f".card{{box-sizing:border-box;display:flex;width:100%;height:100%;overflow:hidden;"
        f"border:{BORDER}px solid var(--border);background:var(--bg);color:inherit;"
        "text-decoration:none}",
        "a.card:focus-visible{outline:2px solid var(--focus);outline-offset:-2px}",
        "a.card:hover .title{text-decoration:underline}",
        ".media{position:relative;flex:none;overflow:hidden;display:flex;align-items:center;"
        "justify-content:center;background:var(--placeholder);color:#ffffff;font-weight:600;"
        "line-height:1}",
        ".initial{user-select:none}",
        ".image{position:absolute;top:0;left:0;width:100%;height:100%;object-fit:cover;"
        "display:block;border:0}",
        # Only an image that failed to load has pseudo-elements: this one hides the broken-image
        # icon behind the same placeholder the image would have covered.
        ".image::after{content:attr(data-initial);position:absolute;top:0;left:0;width:100%;"
        "height:100%;display:flex;align-items:center;justify-content:center;"
        "background:var(--placeholder)}",
        f".text{{box-sizing:border-box;flex:1 1 auto;min-width:0;min-height:0;display:flex;"
        f"flex-direction:column;gap:{layout.gap}px;overflow:hidden;padding:{layout.pad}px "
        f"{layout.pad}px {layout.pad + layout.reserve}px}}",
        f".site{{display:flex;align-items:center;gap:6px;flex:none;min-width:0;color:var(--muted);"
        f"font-size:{layout.site.size}px;line-height:{layout.site.line}px}}",
        f".favicon{{flex:none;width:{layout.site.size + 2}px;height:{layout.site.size + 2}px;"
        "border-radius:3px;object-fit:contain}",
        ".site-name{min-width:0;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}",
        _clamped("title", layout.title, layout.title_lines) + "font-weight:600}",
        _clamped("description", layout.description, layout.description_lines)
        + "color:var(--muted)}",
    ]


def _clamped(name: str, kind: Type, lines: int) -> str:
    """The start of the rule for a text clamped to ``lines`` lines (closed by the caller)."""
    return (
        f".{name}{{margin:0;flex:none;font-size:{kind.size}px;line-height:{kind.line}px;"
        f"max-height:{kind.line * max(lines, 1)}px;display:-webkit-box;"
        f"-webkit-box-orient:vertical;-webkit-line-clamp:{max(lines, 1)};overflow:hidden;"
        "overflow-wrap:anywhere;"
    )


def _template_rules(template: str) -> list[str]:
    if template == "default":
        return [".card{flex-direction:column}"]
    return [".text{justify-content:center}"]


def _media_rules(template: str, layout: Layout, content: Content) -> list[str]:
    """The image area: its size, its placeholder colour and the size of the initial."""
    size = layout.media
    common = f"--placeholder:{_placeholder_color(content)};"
    if template == "default":
        return [
            f".media{{{common}width:100%;height:{size}px;font-size:{_initial_size(size, 0.4)}}}"
        ]
    if template == "compact":
        return [
            f".card{{align-items:center;padding-left:{layout.pad}px}}",
            f".media{{{common}width:{size}px;height:{size}px;border-radius:6px;"
            f"font-size:{_initial_size(size, 0.45)}}}",
        ]
    return [f".media{{{common}width:{size}px;height:100%;font-size:{_initial_size(size, 0.35)}}}"]


def _initial_size(media: int, ratio: float) -> str:
    return f"{_clamp(media * ratio, 10, 160)}px"


def _badge_rules() -> list[str]:
    return [
        f".badge{{position:absolute;right:4px;bottom:4px;z-index:1;height:{BADGE_HEIGHT}px;"
        f"padding:0 6px;border-radius:{BADGE_HEIGHT // 2}px;background:var(--bg);"
        f"color:var(--muted);font-size:10px;line-height:{BADGE_HEIGHT}px;white-space:nowrap;"
        "pointer-events:none;user-select:none}",
    ]


def _style(template: str, theme: str, layout: Layout, content: Content, badge: bool) -> str:
    rules = _theme_rules(theme) + _base_rules(layout) + _template_rules(template)
    if content.has_media:
        rules += _media_rules(template, layout, content)
    if badge:
        rules += _badge_rules()
    return "\n".join(rules)


def _attr(value: str) -> str:
    return html.escape(value, quote=True)


def _image(url: str, css_class: str, initial: str = "") -> str:
    data = f' data-initial="{_attr(initial)}"' if initial else ""
    return (
        f'<img class="{css_class}" src="{_attr(url)}" alt=""{data} loading="lazy" '
        'decoding="async" referrerpolicy="no-referrer">'
    )


def _media(content: Content) -> str:
    if not content.has_media:
        return ""
    parts = ['<div class="media">']
    if content.initial:
        parts.append(f'<span class="initial" aria-hidden="true">{_attr(content.initial)}</span>')
    if content.image:
        parts.append(_image(content.image, "image", content.initial))
    parts.append("</div>")
    return "".join(parts)


def _site(content: Content) -> str:
    if not content.site:
        return ""
    favicon = _image(content.favicon, "favicon") if content.favicon else ""
    name = f'<span class="site-name" dir="auto">{_attr(content.site)}</span>'
    return f'<div class="site">{favicon}{name}</div>'


def _texts(template: str, content: Content, layout: Layout) -> str:
    title = f'<div class="title" dir="auto">{_attr(content.title)}</div>'
    description = ""
    if content.description and layout.description_lines and template != "compact":
        description = f'<div class="description" dir="auto">{_attr(content.description)}</div>'
    if template == "default":
        return _site(content) + title + description
    return title + description + _site(content)


def _document(template: str, theme: str, content: Content, layout: Layout, badge: bool) -> str:
    style = _style(template, theme, layout, content, badge)
    body = f'{_media(content)}<div class="text">{_texts(template, content, layout)}</div>'
    if content.href:
        opening = (
            f'<a class="card" href="{_attr(content.href)}" target="_blank" '
            'rel="noopener noreferrer">'
        )
        closing = "</a>"
    else:
        opening, closing = '<div class="card">', "</div>"
    badge_html = f'<div class="badge">{BADGE_TEXT}</div>' if badge else ""
    return (
        "<!DOCTYPE html>\n"
        "<html>\n<head>\n"
        '<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="robots" content="noindex">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f'<meta name="color-scheme" content="{COLOR_SCHEMES[theme]}">\n'
        '<meta http-equiv="Content-Security-Policy" content="upgrade-insecure-requests">\n'
        f"<title>{_attr(content.title)}</title>\n"
        f"<style>\n{style}\n</style>\n"
        "</head>\n<body>\n"
        f"{opening}{body}{closing}\n"
        f"{badge_html}{chr(10) if badge else ''}"
        "</body>\n</html>\n"
    )
