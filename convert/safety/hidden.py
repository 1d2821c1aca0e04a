"""Text a human reader does not see: elements hidden by attributes or CSS, found from their
resolved declarations (:mod:`convert.html.css`, :mod:`convert.html.hiding`), and their text."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from convert.html.css import Color, first_color, parse_color, parse_declarations, same_color
from convert.html.elements import PageElements
from convert.html.hiding import element_hidden_reason, style_hiding_reason
from convert.safety.intent import LARGE_HIDDEN
from convert.text.memo import small_key_cache

NOT_RENDERED: Final = frozenset(
    {"script", "style", "template", "head", "svg", "math", "canvas", "iframe", "object",
     "embed"}
)  # fmt: skip
"""Where hidden elements are not looked for: nothing there is shown. ``noscript`` is not one:
its content is what a reader without scripts sees, and some pages keep their whole text there
(which the Markdown then holds), so an element hidden inside it is judged like any other."""
NO_TEXT: Final = frozenset({"script", "style"})
BLOCKS: Final = frozenset(
    {"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th",
     "section", "article", "header", "footer", "aside", "nav", "blockquote", "pre", "table",
     "dd", "dt", "dl", "figure", "figcaption", "main", "form", "hr"}
)  # fmt: skip
_DEFAULT_PAINT: Final[tuple[Color, Color]] = ((0, 0, 0, 1.0), (255, 255, 255, 1.0))

Sheet = Mapping[Any, dict[str, str]]
"""Declarations the page's style rules give each element
(:func:`convert.html.css.stylesheet_styles`)."""


def _collapse(text: str) -> str:
    """Runs of whitespace (what ``str.isspace`` calls whitespace, as a regular expression's
    ``\\s`` does) as one space; splitting on them costs a quarter of a substitution."""
    if not text:
        return text
    if text.isspace():
        return " "
    collapsed = " ".join(text.split())
    if text[0].isspace():
        collapsed = " " + collapsed
    return collapsed + " " if text[-1].isspace() else collapsed


def _text_parts(
    element: Any, skip: Callable[[Any], bool] | None = None, *, mark: bool = False
) -> list[Any]:
    """The pieces of :func:`element_text`; with ``mark``, a descendant for which ``skip``
    holds stays in the list, in its place, instead of its text.

    A walk with a stack of nodes still to open and of the strings that close them (a block's
    line break and the node's tail), pushed before the node's children so that they come
    after."""
    parts: list[Any] = []
    tag = element.tag
    if tag.__class__ is not str or tag in NO_TEXT:
        return parts
    append = parts.append
    block = tag in BLOCKS
    if block:
        append("\n")
    if element.text:
        append(_collapse(element.text))
    stack: list[Any] = ["\n"] if block else []
    stack.extend(reversed(element))
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if node.__class__ is str:
            append(node)
            continue
        tail = node.tail
        if skip is not None and skip(node):
            if mark:
                append(node)
        else:
            tag = node.tag
            # Not a comment, a processing instruction or an entity, nor a script or a style:
            if tag.__class__ is str and tag not in NO_TEXT:
                if tag in BLOCKS:
                    append("\n")
                    push("\n" + _collapse(tail) if tail else "\n")
                elif tail:
                    push(_collapse(tail))
                if node.text:
                    append(_collapse(node.text))
                stack.extend(reversed(node))
                continue
        if tail:
            append(_collapse(tail))
    return parts


def element_text(element: Any, skip: Callable[[Any], bool] | None = None) -> str:
    """Text of an element and its descendants with whitespace runs collapsed, blocks on their
    own lines, scripts and styles left out, and so are descendants for which ``skip`` holds."""
    return "".join(_text_parts(element, skip))


@small_key_cache(4096)
def _inline_style(style: str) -> _Style:
    """An inline style's declarations and why they hide (remembered: pages repeat a few many
    times; read-only, being shared between calls)."""
    declarations = parse_declarations(style)
    return MappingProxyType(declarations), style_hiding_reason(declarations)


_Style = tuple[Mapping[str, str], str | None]
_UNSTYLED: Final[_Style] = (MappingProxyType({}), None)


class _Styles:
    """Each element's declarations from the page's style rules, then its inline style, and
    why they hide it, worked out once per element."""

    def __init__(self, sheet: Sheet) -> None:
        self.sheet = sheet
        self.known: dict[Any, _Style] = {}

    def of(self, element: Any) -> Mapping[str, str]:
        return self.style(element)[0]

    def style(self, element: Any) -> _Style:
        style = self.known.get(element)
        if style is None:
            style = self.known[element] = self._resolve(element)
        return style

    def _resolve(self, element: Any) -> _Style:
        inline = element.get("style")
        ruled = self.sheet.get(element)
        if not inline:
            return (ruled, style_hiding_reason(ruled)) if ruled else _UNSTYLED
        if not ruled:
            return _inline_style(inline)
        declarations = {**ruled, **_inline_style(inline)[0]}
        return declarations, style_hiding_reason(declarations)


@dataclass(frozen=True)
class HiddenText:
    """A hidden element to judge, why it is hidden and its text."""

    element: Any
    reason: str
    text: str
    length: int
    """The length of all of the element's text: ``text`` leaves out, in a large element (over
    :data:`~convert.safety.intent.LARGE_HIDDEN` characters), the large hidden elements inside
    it, which are judged on their own."""
    enclosing: tuple[str, int] | None = None
    """The reason and length of the large hidden element around this one, if any: its text
    was part of that element's before it was left out, and is as hidden as it was there."""


def hidden_texts(page: PageElements, sheet: Sheet) -> Iterator[HiddenText]:
    """Outermost rendered elements hidden by attributes or CSS, with the reason and the text.

    Only elements with a ``style``, ``hidden`` or ``aria-hidden`` attribute, or a page rule,
    can hide anything, so only those are judged. Inside a large hidden element (a page hidden
    until a script fades it in) hidden elements are judged on their own as well: a note
    planted there is short. A large hidden element inside another is then judged once: the
    outer one's text leaves it out (small ones stay in, so that no phrase is cut apart, and are
    judged on their own too, one level down).
    """
    found = _hidden_elements(page, sheet)
    if not found:
        return
    marks = {element for element, _ in found}
    parts: dict[Any, list[Any]] = {}
    lengths: dict[Any, int] = {}
    wholes: dict[Any, str] = {}
    for element, _ in reversed(found):  # the hidden elements inside one come before it
        pieces = parts[element] = _text_parts(element, marks.__contains__, mark=True)
        length = lengths[element] = sum(
            len(piece) if isinstance(piece, str) else lengths[piece] for piece in pieces
        )
        if length <= LARGE_HIDDEN:  # then so is every hidden element inside: all in wholes
            wholes[element] = "".join(
                piece if isinstance(piece, str) else wholes[piece] for piece in pieces
            )
    small: dict[Any, str] = {}
    large: dict[Any, tuple[str, int]] = {}
    inner: set[Any] = set()
    for element, reason in found:
        enclosing = None
        for ancestor in element.iterancestors():
            if ancestor in inner:
                break
            if ancestor in small:
                # Hidden inside a hidden block: judged on its own as well (its words would
                # be read as a share of the block's), as hidden as the block at least; one
                # level down only, so that each text is judged at most twice.
                inner.add(element)
                text = wholes.get(element, "")
                if text.strip():
                    yield HiddenText(
                        element,
                        reason,
                        text,
                        lengths[element],
                        (small[ancestor], lengths[ancestor]),
                    )
                break
            if enclosing is None:
                enclosing = large.get(ancestor)
        else:
            length = lengths[element]
            if length <= LARGE_HIDDEN:
                text = wholes[element]
            else:
                text = "".join(
                    piece if isinstance(piece, str) else wholes.get(piece, "")
                    for piece in parts[element]
                )
            if reason != "aria-hidden" or text.strip():
                if length <= LARGE_HIDDEN:
                    small[element] = reason
                else:
                    large[element] = (reason, length)
                yield HiddenText(element, reason, text, length, enclosing)


def _hidden_elements(page: PageElements, sheet: Sheet) -> list[tuple[Any, str]]:
    """Rendered elements hidden from the eye, in document order, with the reason."""
    styled = set(page.styled) | set(sheet)
    if not styled:
        return []
    styles = _Styles(sheet)
    paints = _Paints(styled, styles)
    found: list[tuple[Any, str]] = []
    for element in page.body:
        if element not in styled:
            continue
        style, style_reason = styles.style(element)
        reason = element_hidden_reason(element, style_reason)
        if reason is None and _paints(style) and _same_paint(element, paints):
            reason = "text colour matches background"
        if reason is not None and not _unrendered(element):
            found.append((element, reason))
    return found


def _unrendered(element: Any) -> bool:
    """The element, or one around it, is never rendered."""
    return element.tag in NOT_RENDERED or any(
        ancestor.tag in NOT_RENDERED for ancestor in element.iterancestors()
    )


def _paints(style: Mapping[str, str]) -> bool:
    return "color" in style or "background" in style or "background-color" in style


_Paint = tuple[Color | None, Color | None, bool]
"""What an element's text is painted with: the text colour of the nearest element (itself or
one around it) that sets one it can be seen in, and the nearest background set, with whether
one is (a colour, or ``None`` for an image or a gradient)."""
_UNPAINTED: Final[_Paint] = (None, None, False)


class _Paints:
    """Each element's :data:`_Paint`, worked out once per element from its parent's: looking
    up from every painted element again costs the depth of the page each time."""

    def __init__(self, styled: set[Any], styles: _Styles) -> None:
        self.styled = styled
        self.styles = styles
        self.known: dict[Any, _Paint] = {}

    def of(self, element: Any) -> _Paint:
        known = self.known
        chain: list[Any] = []
        node = element
        while node is not None and node not in known:
            chain.append(node)
            node = node.getparent()
        paint = _UNPAINTED if node is None else known[node]
        for node in reversed(chain):
            paint = known[node] = self._own(node, paint) if node in self.styled else paint
        return paint

    def repainted(self, node: Any) -> bool:
        """Whether ``node`` paints its own text or background (its text is judged apart)."""
        return node in self.styled and _paints(self.styles.of(node))

    def _own(self, node: Any, inherited: _Paint) -> _Paint:
        style = self.styles.of(node)
        color, background, background_known = inherited
        if "color" in style:
            own = parse_color(style["color"])
            if own is not None and own[3] >= 0.1:
                color = own
        own_background, own_known = _background(style)
        if own_known:
            background, background_known = own_background, True
        return color, background, background_known


def _same_paint(element: Any, paints: _Paints) -> bool:
    """Text colour equals the background behind it (defaults: black on white)."""
    color, background, background_known = paints.of(element)
    color = color or _DEFAULT_PAINT[0]
    background = background if background_known else _DEFAULT_PAINT[1]
    if background is None or not same_color(color, background):
        return False
    return bool(element_text(element, paints.repainted).strip())


def _background(style: Mapping[str, str]) -> tuple[Color | None, bool]:
    """(colour, known): ``(None, True)`` for an image or gradient, ``(None, False)`` if unset."""
    for name in ("background-color", "background"):
        value = style.get(name)
        if value is None:
            continue
        if "url(" in value or "gradient(" in value:
            return None, True
        own = first_color(value)
        if own is not None and own[3] >= 0.5:
            return own, True
    return None, False
