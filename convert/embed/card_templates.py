"""The markup of a hosted frame's card as Tornado templates, rules as data: one named source per
part of the page, and one entry template per card template (``default``, ``compact``,
``horizontal``) that extends the document and lays out its text block.

The sources are strings rather than files because ``convert/`` reads nothing;
:mod:`convert.embed.frame_card` compiles them once, with :mod:`tornado.template`'s autoescape
(``xhtml_escape``) and with whitespace kept as written: the sources' newlines are the document's,
and the parts are written without any between tags.

What the sources keep to (tests/convert/test_frame_card.py checks it):

- every value that comes from the page, and only through ``content`` (a cleaned
  :class:`~convert.embed.card_content.Content`), goes in through ``{{ }}``, so the engine
  escapes ``& < > " '`` in text and attributes alike;
- every attribute value is double-quoted, and the URL attributes (``href``, ``src``) hold only
  ``content.href``, ``content.image`` and ``content.favicon``: absolute ``http(s)`` URLs or ""
  (:func:`~convert.embed.card_content.safe_url`), and an empty one leaves its element out;
- ``{% raw %}`` appears once, for ``style``: the CSS that ``frame_card`` writes from numbers and
  its own colours, never a metadata value.
"""

from __future__ import annotations

from typing import Final

_LOADING = ' loading="lazy" decoding="async" referrerpolicy="no-referrer">'
"""How every image loads: lazily, and without telling its host which page showed it."""

DOCUMENT: Final = (
    "<!DOCTYPE html>\n"
    "<html>\n<head>\n"
    '<meta charset="utf-8">\n'
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
    '<meta name="robots" content="noindex">\n'
    '<meta name="referrer" content="no-referrer">\n'
    '<meta name="color-scheme" content="{{ color_scheme }}">\n'
    '<meta http-equiv="Content-Security-Policy" content="upgrade-insecure-requests">\n'
    "<title>{{ content.title }}</title>\n"
    "<style>\n{% raw style %}\n</style>\n"
    "</head>\n<body>\n"
    "{% if content.href %}"
    '<a class="card" href="{{ content.href }}" target="_blank" rel="noopener noreferrer">'
    '{% else %}<div class="card">{% end %}'
    '{% include "media" %}<div class="text">{% block text %}{% end %}</div>'
    "{% if content.href %}</a>{% else %}</div>{% end %}\n"
    '{% if badge %}<div class="badge">{{ badge_text }}</div>\n{% end %}'
    "</body>\n</html>\n"
)
"""The page; ``{% block text %}`` is the text block, which each card template fills."""

MEDIA: Final = (
    '{% if content.has_media %}<div class="media">'
    "{% if content.image %}"
    '<img class="image" src="{{ content.image }}" alt=""'
    '{% if content.initial %} data-initial="{{ content.initial }}"{% end %}'
    + _LOADING
    + "{% elif content.favicon %}"
    '<img class="image icon" src="{{ content.favicon }}" alt=""'
    '{% if content.initial %} data-initial="{{ content.initial }}"{% end %}'
    + _LOADING
    + "{% else %}"
    '<span class="initial" aria-hidden="true">{{ content.initial }}</span>'
    "{% end %}"
    "</div>{% end %}"
)
"""The image area, by the first the page has: its image, else its icon (centred on a plain
tile), else the site's initial on its coloured block. The initial is only the last fallback: it
never lies under an image or icon (a transparent one would show it through), and an image or
icon that fails to load shows it in its place (``data-initial``)."""

SITE: Final = (
    '{% if content.site %}<div class="site">'
    '{% if content.favicon and content.image %}<img class="favicon" src="{{ content.favicon }}"'
    ' alt=""' + _LOADING + "{% end %}"
    '<span class="site-name" dir="auto">{{ content.site }}</span></div>{% end %}'
)
"""The site line: the icon (unless it is the image area's already) and the site's name; an
icon that fails to load takes no room (see ``frame_card``'s ``.favicon`` rule)."""

TITLE: Final = '<div class="title" dir="auto">{{ content.title }}</div>'

DESCRIPTION: Final = (
    "{% if content.description and layout.description_lines %}"
    '<div class="description" dir="auto">{{ content.description }}</div>'
    "{% end %}"
)
"""Left out when none of its lines fits."""

DEFAULT: Final = (
    '{% extends "document" %}'
    '{% block text %}{% include "site" %}{% include "title" %}{% include "description" %}{% end %}'
)
COMPACT: Final = (
    '{% extends "document" %}{% block text %}{% include "title" %}{% include "site" %}{% end %}'
)
"""No description: a compact card has room for the title only."""
HORIZONTAL: Final = (
    '{% extends "document" %}'
    '{% block text %}{% include "title" %}{% include "description" %}{% include "site" %}{% end %}'
)

SOURCES: Final[dict[str, str]] = {
    "document": DOCUMENT,
    "media": MEDIA,
    "site": SITE,
    "title": TITLE,
    "description": DESCRIPTION,
    "default": DEFAULT,
    "compact": COMPACT,
    "horizontal": HORIZONTAL,
}
"""Every source by the name ``{% include %}`` and ``{% extends %}`` know it by; the card
templates are named as in :data:`convert.embed.frame_card.TEMPLATES`."""
