"""The sizes of a hosted frame's card: paddings, font sizes and how many lines each text gets,
computed from the frame's width and height for each template. Pure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from convert.embed.card_content import Content

BORDER = 1
BADGE_HEIGHT = 14
"""Height of the badge, whose corner every template keeps clear of text."""


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


def clamp(value: float, low: int, high: int) -> int:
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
    pad = clamp(min(width, height) * 0.045, 8, 20)
    gap = clamp(pad * 0.5, 4, 10)
    title = _type(clamp(width * 0.045, 14, 22), 1.3)
    description = _type(clamp(title.size * 0.8, 12, 17), 1.45)
    site = _type(clamp(title.size * 0.68, 11, 14), 1.4)
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
    pad = clamp(height * 0.1, 6, 14)
    gap = clamp(pad * 0.4, 2, 6)
    title = _type(clamp(min(height * 0.15, width * 0.05), 12, 20), 1.3)
    site = _type(clamp(title.size * 0.8, 10, 14), 1.4)
    inner = height - 2 * BORDER - 2 * pad
    media = max(0, min(inner, round(width * 0.4))) if content.has_media else 0
    reserve = _reserve(pad, badge)
    room = inner - reserve - (site.line + gap if content.site else 0)
    title_lines = max(1, _fit(room, title.line, 4))
    return Layout(pad, gap, media, title, site, site, title_lines, 0, reserve)


def _horizontal_layout(content: Content, width: int, height: int, badge: bool) -> Layout:
    pad = clamp(height * 0.1, 8, 18)
    gap = clamp(pad * 0.4, 3, 8)
    title = _type(clamp(min(height * 0.12, width * 0.04), 13, 20), 1.3)
    description = _type(clamp(title.size * 0.82, 11, 16), 1.45)
    site = _type(clamp(title.size * 0.7, 10, 14), 1.4)
    media = min(round(height * 1.6), round(width * 0.38)) if content.has_media else 0
    reserve = _reserve(pad, badge)
    room = height - 2 * BORDER - 2 * pad - reserve - (site.line + gap if content.site else 0)
    title_lines, description_lines = _share(
        room - gap, content, title, description, most=2, most_description=1
    )
    return Layout(
        pad, gap, media, title, description, site, title_lines, description_lines, reserve
    )


LAYOUTS: dict[str, Callable[[Content, int, int, bool], Layout]] = {
    "default": _default_layout,
    "compact": _compact_layout,
    "horizontal": _horizontal_layout,
}
