"""Card pages for Pagecast's hosted frames.

When a URL has no native oEmbed, Pagecast embeds a "frame": an iframe showing a card built from
the page's metadata. ``render_card`` turns that metadata into the complete HTML document of the
frame page. It is a pure function with deterministic output (the frame host derives the ETag from
the bytes), and the document is static: markup and one inline ``<style>`` block, no script, no
event-handler attributes, no external stylesheet or font.

The card's text and URLs are cleaned by :mod:`convert.embed.card_content` and its sizes computed by
:mod:`convert.embed.card_layout`; its markup is the Tornado templates of
:mod:`convert.embed.card_templates`; this module writes the style sheet and fills the templates.

Safety
    Every metadata value is plain text: control characters are removed, whitespace collapsed,
    long values cut with an ellipsis (title 200 characters, description 500, site name 100), and
    the template engine's autoescape (``xhtml_escape``) escapes it wherever it goes in, text or
    double-quoted attribute. The ``<style>`` block, the only value the templates take raw, holds
    only numbers and colours computed here, never a metadata value. Image, favicon and link URLs
    are kept only when their scheme is ``http`` or ``https`` (anything else, including
    ``javascript:``, ``data:``, relative and protocol-relative URLs, is dropped), and are escaped
    like text. The frame host serves the page with ``CSP``.

Insecure images
    ``CSP`` allows images from ``https:`` only, so a plain ``http://`` image would be blocked.
    Such URLs are still accepted and written as given, and the page asks the browser to upgrade
    its own subresource requests (``upgrade-insecure-requests`` in a ``<meta>`` policy), so the
    image is fetched over HTTPS where the site serves it. Metadata should prefer an ``https``
    image when the page offers both. An image or icon of the image area that fails to load shows
    the coloured block with the site's initial instead.

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

    The image area shows the page's image; without one, the page's icon centred on a plain
    tile; without either, a coloured block with the site's initial (the colour is chosen from
    the site's name). The initial is the last fallback only: it never lies under an image or
    icon, and stands in for one that fails to load. Without anything to take an initial from,
    the card is text. The site line's icon takes no room when it fails to load.
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

import zlib
from dataclasses import dataclass

from tornado.template import DictLoader

from convert.embed.card_content import CardData, Content, card_content
from convert.embed.card_layout import BADGE_HEIGHT, BORDER, LAYOUTS, Layout, Type, clamp
from convert.embed.card_templates import SOURCES

TEMPLATES = ("default", "compact", "horizontal")
THEMES = ("light", "dark", "auto")
CSP = "default-src 'none'; img-src https: data:; style-src 'unsafe-inline'"
"""The Content-Security-Policy the frame host sends with every card page."""
COLOR_SCHEMES = {"light": "light", "dark": "dark", "auto": "light dark"}
"""The CSS ``color-scheme`` of each theme (form controls, scrollbars, the canvas)."""

MIN_SIZE = 1
MAX_SIZE = 4096
"""Bounds of a frame's width and height, in CSS pixels."""

BADGE_TEXT = "Made with Pagecast"
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
ICON_SHARE = 0.5
ICON_MAX = 64
"""An icon in the image area is drawn at ``ICON_SHARE`` of the area's shorter side, at most
``ICON_MAX`` pixels."""
FAVICON_GAP = 6
"""Room between the site line's icon and the site's name, in pixels."""

_LOADER = DictLoader(dict(SOURCES), autoescape="xhtml_escape", whitespace="all")
"""``whitespace="all"``: the sources' newlines are the document's, and nothing else is written."""
_COMPILED = {name: _LOADER.load(name) for name in TEMPLATES}
"""Each card template compiled once, at import, with its parts inlined."""


@dataclass(frozen=True)
class Palette:
    """The colours of one theme."""

    background: str
    text: str
    muted: str
    border: str
    focus: str
    tile: str
    """Behind an icon in the image area."""


LIGHT = Palette(
    background="#ffffff",
    text="#1a1a1a",
    muted="#5f6368",
    border="#e3e3e3",
    focus="#1a73e8",
    tile="#f1f3f4",
)
DARK = Palette(
    background="#121212",
    text="#ececec",
    muted="#a3a3a3",
    border="#2e2e2e",
    focus="#8ab4f8",
    tile="#202124",
)


def render_card(
    card: CardData, *, template: str, theme: str, width: int, height: int, badge: bool
) -> str:
    """The complete HTML document of the frame page."""
    _check(template, theme, width, height)
    content = card_content(card)
    layout = LAYOUTS[template](content, width, height, badge)
    return _document(
        template, theme, content=content, layout=layout, badge=badge, frame=(width, height)
    )


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


def _placeholder_color(content: Content) -> str:
    key = (content.site or content.title).casefold().encode("utf-8")
    return PLACEHOLDER_COLORS[zlib.crc32(key) % len(PLACEHOLDER_COLORS)]


def _variables(palette: Palette) -> str:
    return (
        f"--bg:{palette.background};--fg:{palette.text};--muted:{palette.muted};"
        f"--border:{palette.border};--focus:{palette.focus};--tile:{palette.tile}"
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
        f".site{{display:flex;align-items:center;flex:none;min-width:0;color:var(--muted);"
        f"font-size:{layout.site.size}px;line-height:{layout.site.line}px}}",
        _favicon_rule(layout.site.size + 2),
        ".site-name{min-width:0;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}",
        _clamped("title", layout.title, layout.title_lines) + "font-weight:600}",
        _clamped("description", layout.description, layout.description_lines)
        + "color:var(--muted)}",
    ]


def _favicon_rule(side: int) -> str:
    """The site line's icon: ``side`` pixels square, followed by ``FAVICON_GAP`` pixels of room,
    and nothing at all when it fails to load.

    A broken image takes room only when its size is set, so the box is sized from the icon's
    own: at most ``side`` wide, in the proportions of icon plus gap (the icon drawn contained at
    its left, the rest the gap); then ``zoom`` scales that box up so that an icon as small as
    ``side`` still fills its height. A broken image has no size of its own, so its box, gap
    included, is 0 by 0.
    """
    full = side + FAVICON_GAP
    zoom = full / side
    return (
        f".favicon{{flex:none;max-width:{side}px;max-height:{_number(side / zoom)}px;"
        f"aspect-ratio:{full}/{side};zoom:{_number(zoom)};object-fit:contain;"
        "object-position:left center}"
    )


def _number(value: float) -> str:
    """A CSS number with at most four decimals."""
    return f"{value:.4f}".rstrip("0").rstrip(".")


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


def _media_rules(
    template: str, layout: Layout, content: Content, frame: tuple[int, int]
) -> list[str]:
    """The image area: its size, its placeholder colour, the size of the initial, and the
    icon's square when the page's icon stands in for its image."""
    size = layout.media
    common = f"--placeholder:{_placeholder_color(content)};"
    inner_width, inner_height = frame[0] - 2 * BORDER, frame[1] - 2 * BORDER
    if template == "default":
        rules = [
            f".media{{{common}width:100%;height:{size}px;font-size:{_initial_size(size, 0.4)}}}"
        ]
        area = (inner_width, size)
    elif template == "compact":
        rules = [
            f".card{{align-items:center;padding-left:{layout.pad}px}}",
            f".media{{{common}width:{size}px;height:{size}px;border-radius:6px;"
            f"font-size:{_initial_size(size, 0.45)}}}",
        ]
        area = (size, size)
    else:
        rules = [
            f".media{{{common}width:{size}px;height:100%;font-size:{_initial_size(size, 0.35)}}}"
        ]
        area = (size, inner_height)
    if content.favicon and not content.image:
        rules.append(_icon_rule(min(area)))
    return rules


def _icon_rule(shorter: int) -> str:
    """The icon in an image area whose shorter side is ``shorter``: a centred square of
    ``ICON_SHARE`` of it (at most ``ICON_MAX``) on the plain tile; when it fails to load, that
    square shows the initial on its coloured block (a broken image draws its ``::after`` in its
    own box only, so the square is the icon's box itself)."""
    icon = min(ICON_MAX, round(shorter * ICON_SHARE))
    return (
        ".media{background:var(--tile)}"
        f".icon{{top:50%;left:50%;width:{icon}px;height:{icon}px;transform:translate(-50%,-50%);"
        f"object-fit:contain;border-radius:{max(2, icon // 8)}px;font-size:{round(icon * 0.55)}px}}"
    )


def _initial_size(media: int, ratio: float) -> str:
    return f"{clamp(media * ratio, 10, 160)}px"


def _badge_rules() -> list[str]:
    return [
        f".badge{{position:absolute;right:4px;bottom:4px;z-index:1;height:{BADGE_HEIGHT}px;"
        f"padding:0 6px;border-radius:{BADGE_HEIGHT // 2}px;background:var(--bg);"
        f"color:var(--muted);font-size:10px;line-height:{BADGE_HEIGHT}px;white-space:nowrap;"
        "pointer-events:none;user-select:none}",
    ]


def _style(
    template: str,
    theme: str,
    *,
    layout: Layout,
    content: Content,
    badge: bool,
    frame: tuple[int, int],
) -> str:
    rules = _theme_rules(theme) + _base_rules(layout) + _template_rules(template)
    if content.has_media:
        rules += _media_rules(template, layout, content, frame)
    if badge:
        rules += _badge_rules()
    return "\n".join(rules)


def _document(
    template: str,
    theme: str,
    *,
    content: Content,
    layout: Layout,
    badge: bool,
    frame: tuple[int, int],
) -> str:
    document = _COMPILED[template].generate(
        content=content,
        layout=layout,
        style=_style(template, theme, layout=layout, content=content, badge=badge, frame=frame),
        color_scheme=COLOR_SCHEMES[theme],
        badge=badge,
        badge_text=BADGE_TEXT,
    )
    return document.decode("utf-8")
