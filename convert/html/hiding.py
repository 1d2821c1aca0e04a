"""Whether an element is hidden from a human reader, and how: one set of tests for the whole
of ``convert/``.

:func:`is_hidden` is the cheap test the Markdown pipeline uses to drop what a reader never sees
(attributes, inline ``display``/``visibility``, hiding utility classes); :func:`hidden_reason`
also reads the subtler ways text is kept from the eye (opacity, a font size of zero, clipping,
a zero-size box, off-screen positioning, transparent text) from an element's resolved
declarations (:mod:`convert.html.css`), for the prompt-injection scan, where what matters is text a
model reads and a person does not. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from convert.html.attributes import class_values, elements_with
from convert.html.css import (
    NUMBER_RE,
    UNIT_PX,
    Color,
    first_color,
    length_px,
    parse_color,
    parse_declarations,
)

HIDDEN_CLASSES: Final = frozenset(
    {"hide", "hidden", "d-none", "is-hidden", "u-hidden", "display-none", "invisible"}
)
"""Utility classes of the common CSS frameworks whose whole rule is ``display: none`` (or
``visibility: hidden``). An element hidden by one is hidden here even when a responsive variant
shows it on wider screens ("hidden lg:flex", "d-none d-lg-block"): that is most often the
desktop copy of a menu or a card's extra teaser, and a collapsed panel is put in sight by
:mod:`convert.extract.reveal` first. Variants alone ("hidden-xs", "md:hidden") do not hide."""
_LIGHT: Final = 200
"""Channels at least this bright make a light colour."""
_DISPLAY_WORDS_RE: Final = re.compile(r"none|hidden", re.IGNORECASE)


def is_hidden(element: Any) -> bool:
    """Hidden by the ``hidden`` attribute, ``aria-hidden``, an inline display/visibility style
    or a hiding utility class (:data:`HIDDEN_CLASSES`): a reader never sees it."""
    attrib = element.attrib
    if "hidden" in attrib or attrib.get("aria-hidden", "").lower() == "true":
        return True
    style = attrib.get("style")
    if style and _DISPLAY_WORDS_RE.search(style) and _hidden_by_display(parse_declarations(style)):
        return True
    classes = attrib.get("class")
    return bool(classes and not HIDDEN_CLASSES.isdisjoint(classes.split()))


def hidden_in(root: Any) -> list[Any]:
    """``root`` and its descendants that :func:`is_hidden` finds hidden, in document order: only
    those with a ``hidden``, ``aria-hidden`` or ``style`` attribute, or a class value holding a
    hiding class (each distinct value judged once), are tested."""
    values = class_values(root)
    hiding = tuple(
        sorted(value for value in values if not HIDDEN_CLASSES.isdisjoint(value.split()))
    )
    tests = (("hidden", None), ("aria-hidden", None), ("style", None), ("class", hiding))
    return [element for element in elements_with(root, tests) if is_hidden(element)]


def hidden_among(elements: Sequence[Any], class_only: Sequence[bool]) -> list[Any]:
    """The ``elements`` :func:`is_hidden` finds hidden, in their order; ``class_only``: for
    each, whether only its class can hide it (it has no ``hidden``, ``aria-hidden`` or
    ``style`` attribute), when it is judged once per class value: a page repeats a few hundred
    values over thousands of elements."""
    found: list[Any] = []
    by_class: dict[str, bool] = {}
    for element, by_class_only in zip(elements, class_only, strict=True):
        if by_class_only:
            classes = element.get("class")
            hidden = by_class.get(classes)
            if hidden is None:
                hidden = by_class[classes] = is_hidden(element)
        else:
            hidden = is_hidden(element)
        if hidden:
            found.append(element)
    return found


# --- hiding tests: each takes the element's declarations and says why it hides, or nothing

_INSET_RE: Final = re.compile(r"inset\(\s*(\d+(?:\.\d+)?)%")
_OFFSCREEN_PX: Final = -500.0  # px; further left or up is off-screen
_TRANSLATE_RE: Final = re.compile(r"translate(?:x|y|3d)?\(\s*(-\d+(?:\.\d+)?)(px|em|rem|%)?")
_SCALE_ZERO_RE: Final = re.compile(r"scale(?:x|y)?\(\s*0(?:\.0+)?\s*[,)]")


def _hidden_by_display(style: Mapping[str, str]) -> bool:
    return style.get("display", "").split(" ")[0] == "none" or style.get("visibility", "") in (
        "hidden",
        "collapse",
    )


def _hidden_by_opacity(style: Mapping[str, str]) -> bool:
    value = style.get("opacity", "").strip()
    if not value:
        return False
    try:
        opacity = float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        return False
    return opacity < 0.1


def _hidden_by_font_size(style: Mapping[str, str]) -> bool:
    size = length_px(style.get("font-size", ""))
    if size is None and "font" in style:
        first = style["font"].split("/")[0].split()
        sizes = [length_px(token) for token in first]
        size = next((s for s in sizes if s is not None), None)
    return size is not None and size <= 1.0


def _hidden_by_clip(style: Mapping[str, str]) -> bool:
    clip = style.get("clip", "")
    if clip.startswith("rect("):
        numbers = [float(n.rstrip("%")) for n in NUMBER_RE.findall(clip)]
        if numbers and all(abs(n) <= 1 for n in numbers):
            return True
    path = style.get("clip-path", "")
    inset = _INSET_RE.match(path)
    return bool(inset and float(inset.group(1)) >= 50) or path.startswith(
        ("circle(0", "circle(0px", "polygon(0 0, 0 0", "polygon(0px 0px, 0px 0px")
    )


def _hidden_by_size(style: Mapping[str, str]) -> bool:
    overflow = {style.get(name, "") for name in ("overflow", "overflow-x", "overflow-y")}
    if not overflow & {"hidden", "clip"}:
        return False
    sizes = (
        length_px(style.get(name, "")) for name in ("width", "height", "max-width", "max-height")
    )
    return any(size is not None and size <= 1.0 for size in sizes)


def _hidden_off_screen(style: Mapping[str, str]) -> bool:
    indent = length_px(style.get("text-indent", ""))
    if indent is not None and indent <= _OFFSCREEN_PX:
        return True
    transform = style.get("transform", "")
    translate = _TRANSLATE_RE.search(transform)
    if translate and float(translate.group(1)) * UNIT_PX[translate.group(2) or ""] <= _OFFSCREEN_PX:
        return True
    if _SCALE_ZERO_RE.search(transform):
        return True
    if style.get("position") not in ("absolute", "fixed"):
        return False
    offsets = (
        length_px(style.get(name, ""))
        for name in ("left", "top", "right", "bottom", "margin-left", "margin-top")
    )
    return any(offset is not None and offset <= _OFFSCREEN_PX for offset in offsets)


def _transparent_text(style: Mapping[str, str]) -> bool:
    color = parse_color(style.get("color", ""))
    return color is not None and color[3] < 0.1


@dataclass(frozen=True)
class _HidingTest:
    reason: str
    hides: Callable[[Mapping[str, str]], bool]
    reads: frozenset[str]
    """The properties without which the test cannot hold (it is skipped when none is set)."""


_HIDING_TESTS: Final = (
    _HidingTest("display or visibility", _hidden_by_display, frozenset({"display", "visibility"})),
    _HidingTest("opacity", _hidden_by_opacity, frozenset({"opacity"})),
    _HidingTest("font size", _hidden_by_font_size, frozenset({"font-size", "font"})),
    _HidingTest("clipping", _hidden_by_clip, frozenset({"clip", "clip-path"})),
    _HidingTest(
        "zero-size box", _hidden_by_size, frozenset({"overflow", "overflow-x", "overflow-y"})
    ),
    _HidingTest(
        "off-screen", _hidden_off_screen, frozenset({"text-indent", "transform", "position"})
    ),
    _HidingTest("transparent text", _transparent_text, frozenset({"color"})),
)


def _hiding_reason(style: Mapping[str, str]) -> str | None:
    for test in _HIDING_TESTS:
        if not test.reads.isdisjoint(style) and test.hides(style):
            return test.reason
    return None


def style_hiding_reason(style: Mapping[str, str]) -> str | None:
    """Why declarations hide an element's text, or ``None``: the part of an element's hiding
    reason that depends on the declarations alone (for callers that remember it per style)."""
    return _hiding_reason(style) if style else None


def element_hidden_reason(element: Any, style_reason: str | None) -> str | None:
    """Why ``element`` is hidden from the eye, or ``None``, from the reason its declarations
    give (``style_reason``, :func:`style_hiding_reason`). ``aria-hidden`` comes last: it hides
    from screen readers, not from sight."""
    if element.get("hidden") is not None:
        return "hidden attribute"
    if style_reason is not None:
        return style_reason
    if (element.get("aria-hidden") or "").strip().lower() == "true":
        return "aria-hidden"
    return None


def _light(color: Color | None) -> bool:
    return color is not None and (color[3] < 0.1 or min(color[:3]) >= _LIGHT)


def can_hide(style: Mapping[str, str]) -> bool:
    """Whether a style rule may hide text: it hides by itself, paints text light or
    transparent (white on a white page), or paints a background that is not light (which may
    show light text again)."""
    if _hiding_reason(style) is not None:
        return True
    if "color" in style and _light(parse_color(style["color"])):
        return True
    for name in ("background-color", "background"):
        if name in style:
            value = style[name]
            if "url(" in value or "gradient(" in value or not _light(first_color(value)):
                return True
    return False
