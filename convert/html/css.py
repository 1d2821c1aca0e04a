"""Simple CSS from a page: declarations of inline styles and ``<style>`` rules, lengths and
colours. Pure."""

from __future__ import annotations

import colorsys
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from cssselect import HTMLTranslator
from cssselect import SelectorError as CssSelectorError
from lxml import etree

from convert.html.selectors import ElementIndex, Selector, parse_selector
from convert.text.memo import TextMemo, small_key_cache

# --------------------------------------------------------------------------------------------
# CSS: simple rules from <style> blocks and inline styles
# --------------------------------------------------------------------------------------------

_STYLE_PROPERTIES: Final = frozenset(
    {
        "display", "visibility", "opacity", "font-size", "font", "width", "height",
        "max-width", "max-height", "overflow", "overflow-x", "overflow-y", "clip", "clip-path",
        "position", "left", "top", "right", "bottom", "margin-left", "margin-top",
        "text-indent", "transform", "color", "background", "background-color",
    }
)  # fmt: skip
_CLASS_TOKEN_RE: Final = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
_ID_TOKEN_RE: Final = re.compile(r"#(-?[_a-zA-Z][\w-]*)")
_MAX_SELECTORS: Final = 60
"""Selectors with combinators matched per page (each is a walk over the document)."""
_SIMPLE_RE: Final = re.compile(r"([a-zA-Z][a-zA-Z0-9]*|\*)?((?:[.#]-?[_a-zA-Z][\w-]*)*)")
_KEYED_XPATH: Final = etree.XPath("//*[@class or @id]")
_TRANSLATOR: Final = HTMLTranslator()


def _strip_css_comments(css: str) -> str:
    pieces: list[str] = []
    cursor = 0
    while True:
        start = css.find("/*", cursor)
        if start < 0:
            pieces.append(css[cursor:])
            return "".join(pieces)
        pieces.append(css[cursor:start])
        end = css.find("*/", start + 2)
        if end < 0:
            return "".join(pieces)
        cursor = end + 2


def _top_level_rules(css: str) -> Iterator[tuple[str, str]]:
    """``(selectors, declarations)`` for rules outside at-rule blocks (``@media``... skipped);
    a rule's nested blocks stay in its declarations, statements before a selector (``@import
    ...;``) are left out, and a stray ``}`` stays in the text before the next selector.
    Splitting on ``}`` and counting ``{`` per piece costs half of a walk over every brace."""
    depth = 0
    pending: list[str] = []
    selector = ""
    body: list[str] = []
    pieces = css.split("}")
    last = len(pieces) - 1
    for number, piece in enumerate(pieces):
        if depth == 0 and not pending and number < last:
            head, brace, rest = piece.partition("{")
            if brace and "{" not in rest:  # most rules: one block, closed by this "}"
                selector = head.rsplit(";", 1)[-1].strip() if ";" in head else head.strip()
                if selector and selector[0] != "@":
                    yield selector, rest
                continue
        if depth == 0:
            head, brace, rest = piece.partition("{")
            pending.append(head)
            if not brace:
                continue  # text before a stray "}" stays in front of the next selector
            selector = "}".join(pending).rsplit(";", 1)[-1].strip()
            pending = []
            depth = 1 + rest.count("{")
            body = [rest]
        else:
            depth += piece.count("{")
            body.append(piece)
        if number < last:
            depth -= 1
            if depth == 0 and selector and not selector.startswith("@"):
                yield selector, "}".join(body)


def parse_declarations(text: str) -> dict[str, str]:
    declarations: dict[str, str] = {}
    for part in text.split(";"):
        name, colon, value = part.partition(":")
        name = name.strip().lower()
        if colon and name in _STYLE_PROPERTIES:
            declarations[name] = value.replace("!important", "").strip().lower()
    return declarations


Wanted = Callable[[Mapping[str, str]], bool] | None


@small_key_cache(8192)
def _rule_declarations(body: str, wanted: Wanted) -> Mapping[str, str] | None:
    """A rule's declarations when ``wanted`` accepts them (remembered: sites share their
    frameworks' rules, and a page repeats its own). Shared between calls: never changed."""
    declarations = parse_declarations(body)
    return declarations if declarations and (wanted is None or wanted(declarations)) else None


@small_key_cache(1024)
def _selector_xpath(selector: str) -> etree.XPath | None:
    try:
        return etree.XPath(_TRANSLATOR.css_to_xpath(selector))
    except (CssSelectorError, etree.XPathError, ValueError, RecursionError):
        return None


@dataclass(frozen=True)
class _BlockRules:
    """A ``<style>`` block's rules that ``wanted`` accepts, and the classes and ids their
    selectors name. Shared between calls: never changed."""

    rules: tuple[tuple[str, Mapping[str, str]], ...]
    classes: frozenset[str]
    ids: frozenset[str]


_BLOCKS: Final[dict[Wanted, TextMemo]] = {}
_BLOCK_ENTRIES: Final = 256
_BLOCK_CHARS: Final = 8_000_000
"""What the memo of ``<style>`` blocks holds at most: blocks, and characters of them (a site's
pages repeat their theme's blocks, whose rules are then read once)."""


def _block_rules(css: str, wanted: Wanted) -> _BlockRules:
    """The rules of one ``<style>`` block that ``wanted`` accepts (remembered by the block's
    text, in a memo per ``wanted``)."""
    memo = _BLOCKS.get(wanted)
    if memo is None:
        memo = _BLOCKS[wanted] = TextMemo(_BLOCK_ENTRIES, _BLOCK_CHARS)
    found: _BlockRules | None = memo.get(css)
    if found is not None:
        return found
    rules = []
    for selectors, body in _top_level_rules(_strip_css_comments(css)):
        declarations = _rule_declarations(body, wanted)
        if declarations:
            rules.append((selectors, declarations))
    found = _BlockRules(
        tuple(rules),
        frozenset(name for selectors, _ in rules for name in _CLASS_TOKEN_RE.findall(selectors)),
        frozenset(name for selectors, _ in rules for name in _ID_TOKEN_RE.findall(selectors)),
    )
    memo.put(css, found)
    return found


def stylesheet_styles(
    root: Any,
    wanted: Wanted = None,
    keyed: Sequence[Any] | None = None,
    style_elements: Sequence[Any] | None = None,
) -> dict[Any, dict[str, str]]:
    """Declarations that simple ``<style>`` rules give each element, in source order; with
    ``wanted``, only the rules whose declarations it accepts (matching selectors is the cost).
    ``keyed`` and ``style_elements``: the document's elements with a class or an id, and its
    ``<style>`` elements, when the caller has them."""
    rules: list[tuple[str, Mapping[str, str]]] = []
    wanted_classes: set[str] = set()
    wanted_ids: set[str] = set()
    for style in root.iter("style") if style_elements is None else style_elements:
        media = (style.get("media") or "all").lower()
        if "screen" not in media and "all" not in media:
            continue
        block = _block_rules(style.text or "", wanted)
        rules.extend(block.rules)
        wanted_classes |= block.classes
        wanted_ids |= block.ids
    styles: dict[Any, dict[str, str]] = {}
    if not rules:
        return styles
    index = ElementIndex(
        root,
        _KEYED_XPATH(root) if keyed is None else keyed,
        frozenset(wanted_classes),
        frozenset(wanted_ids),
    )
    complex_budget = _MAX_SELECTORS
    matched: list[tuple[int, Any, Mapping[str, str]]] = []
    for number, (selectors, declarations) in enumerate(rules):
        for part in selectors.split(","):
            selector = part.strip()
            if not selector or ":" in selector:
                continue
            if not all(name in index.by_class for name in _CLASS_TOKEN_RE.findall(selector)):
                continue
            if not all(name in index.by_id for name in _ID_TOKEN_RE.findall(selector)):
                continue
            if _SIMPLE_RE.fullmatch(selector) is None:
                if complex_budget <= 0:
                    continue
                complex_budget -= 1
            matched.extend((number, element, declarations) for element in _select(index, selector))
    matched.sort(key=lambda item: item[0])
    for _, element, declarations in matched:
        styles.setdefault(element, {}).update(declarations)
    return styles


def _select(index: ElementIndex, selector: str) -> Iterator[Any]:
    parsed = _parsed_selector(selector)
    if parsed is not None:
        yield from index.select(parsed)
        return
    xpath = _selector_xpath(selector)
    yield from xpath(index.root) if xpath is not None else ()


@small_key_cache(1024)
def _parsed_selector(selector: str) -> Selector | None:
    return parse_selector(selector)


# --- values

_LENGTH_RE: Final = re.compile(r"(-?\d*\.?\d+)(px|em|rem|%|pt|vw|vh|ch|ex|cm|mm|in)?")
UNIT_PX: Final[Mapping[str, float]] = MappingProxyType(
    {"px": 1.0, "pt": 4 / 3, "em": 16.0, "rem": 16.0, "ch": 8.0, "ex": 8.0, "%": 0.16,
     "vw": 12.0, "vh": 8.0, "cm": 37.8, "mm": 3.78, "in": 96.0, "": 1.0}
)  # fmt: skip
_HEX_DIGITS_RE: Final = re.compile(r"[0-9a-f]+")
_NAMED_COLORS: Final[Mapping[str, tuple[int, int, int]]] = MappingProxyType(
    {
        "white": (255, 255, 255), "black": (0, 0, 0), "red": (255, 0, 0),
        "green": (0, 128, 0), "blue": (0, 0, 255), "yellow": (255, 255, 0),
        "gray": (128, 128, 128), "grey": (128, 128, 128), "silver": (192, 192, 192),
        "lightgray": (211, 211, 211), "lightgrey": (211, 211, 211),
        "gainsboro": (220, 220, 220), "whitesmoke": (245, 245, 245), "snow": (255, 250, 250),
        "ivory": (255, 255, 240), "ghostwhite": (248, 248, 255), "azure": (240, 255, 255),
        "aliceblue": (240, 248, 255), "mintcream": (245, 255, 250), "honeydew": (240, 255, 240),
        "seashell": (255, 245, 238), "linen": (250, 240, 230), "beige": (245, 245, 220),
        "floralwhite": (255, 250, 240), "oldlace": (253, 245, 230), "navy": (0, 0, 128),
        "maroon": (128, 0, 0), "orange": (255, 165, 0), "purple": (128, 0, 128),
        "teal": (0, 128, 128), "aqua": (0, 255, 255), "cyan": (0, 255, 255),
        "fuchsia": (255, 0, 255), "magenta": (255, 0, 255), "lime": (0, 255, 0),
        "olive": (128, 128, 0), "darkgray": (169, 169, 169), "darkgrey": (169, 169, 169),
        "dimgray": (105, 105, 105), "dimgrey": (105, 105, 105),
    }
)  # fmt: skip
_COLOR_TOKEN_RE: Final = re.compile(r"#[0-9a-f]{3,8}\b|(?:rgba?|hsla?)\([^)]*\)|[a-z]+")
NUMBER_RE: Final = re.compile(r"-?\d*\.?\d+%?")
_SAME_COLOR: Final = 12
Color = tuple[int, int, int, float]


def length_px(value: str) -> float | None:
    match = _LENGTH_RE.fullmatch(value.strip())
    if match is None:
        return None
    return float(match.group(1)) * UNIT_PX[match.group(2) or ""]


def _channel(token: str, scale: float) -> float:
    return float(token[:-1]) * scale / 100 if token.endswith("%") else float(token)


@small_key_cache(4096)
def parse_color(value: str) -> Color | None:
    """A CSS colour as (r, g, b, alpha), or ``None`` when it is not one we understand
    (remembered: pages repeat a few colours many times)."""
    value = value.strip()
    if value == "transparent":
        return (0, 0, 0, 0.0)
    if value in _NAMED_COLORS:
        return (*_NAMED_COLORS[value], 1.0)
    if value.startswith("#"):
        digits = value[1:]
        if len(digits) in (3, 4):
            digits = "".join(d * 2 for d in digits)
        if len(digits) not in (6, 8) or not _HEX_DIGITS_RE.fullmatch(digits):
            return None
        alpha = int(digits[6:8], 16) / 255 if len(digits) == 8 else 1.0
        return (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16), alpha)
    numbers = NUMBER_RE.findall(value)
    if len(numbers) < 3:
        return None
    alpha = _channel(numbers[3], 1.0) if len(numbers) > 3 else 1.0
    if value.startswith("rgb"):
        red, green, blue = (round(_channel(n, 255)) for n in numbers[:3])
        return (red, green, blue, alpha)
    if value.startswith("hsl"):
        hue = float(numbers[0].rstrip("%")) / 360
        sat, light = (float(n.rstrip("%")) / 100 for n in numbers[1:3])
        red_f, green_f, blue_f = colorsys.hls_to_rgb(hue % 1, light, sat)
        return (round(red_f * 255), round(green_f * 255), round(blue_f * 255), alpha)
    return None


@small_key_cache(4096)
def first_color(value: str) -> Color | None:
    """The first colour in a value (``background``'s shorthand), remembered like
    :func:`parse_color`: pages repeat a few colours many times."""
    for token in _COLOR_TOKEN_RE.findall(value):
        color = parse_color(token)
        if color is not None:
            return color
    return None


def same_color(first: Color, second: Color) -> bool:
    return max(abs(a - b) for a, b in zip(first[:3], second[:3], strict=True)) <= _SAME_COLOR
