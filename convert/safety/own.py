"""Whether a hidden request is the page's own: what a page keeps out of its reader's sight for
reasons of its own, told apart from a request planted there for a model.

A page hides no request from a reader who sees it anyway: text it also shows (a thumbnail's alt
repeating its headline, a recipe step's picture, a breadcrumb repeating the title) is its own.
For a request found by its form alone (a question, an imperative: :mod:`.form`), where it sits
says more: a link's, button's, label's or heading's whole text, or an image's alt inside a
link, names what it leads to (a hidden list of FAQ questions, a hidden heading, a thumbnail),
while a hidden block among a link's other words is no name; commented-out markup is a
template, a developer's note in a comment speaks to developers, and an element hidden by its
opacity while a transition or a shown sibling of its kind is there is one step of an animation
or a carousel.
"""

from __future__ import annotations

import re
from itertools import chain, islice
from typing import Any, Final

from lxml import etree

from convert.html.css import parse_declarations
from convert.html.hiding import element_hidden_reason, style_hiding_reason
from convert.safety.normalise import collapse_space
from convert.safety.rules_asking import (
    ANIMATED,
    CONTROLS,
)
from convert.safety.rules_form import (
    DEVELOPER_NOTE,
)

__all__ = ["PageText", "page_own", "without_controls"]

_SIBLINGS: Final = 12
"""How many siblings on each side are looked at for a shown one of the same class (a page of
thousands of hidden items costs no more per item)."""
IN_PAGE_TEXT: Final = frozenset({"hidden_text", "noscript", "template", "page_text"})
"""Where judged text is part of the page's text itself (unlike comments and attributes): such
text is shown elsewhere when the page's text holds it twice."""


class PageText:
    """The text a page shows (its body and its title), lower case with spaces collapsed, read
    when first asked for."""

    def __init__(self, root: Any) -> None:
        self._root = root
        self._text: str | None = None

    def count(self, text: str) -> int:
        if self._root is None:
            return 0
        if self._text is None:
            body = self._root.find("body")
            title = self._root.findtext("head/title") or ""
            shown = etree.tostring(
                body if body is not None else self._root, method="text", encoding="unicode"
            )
            self._text = collapse_space(f"{title}\n{shown}").lower()
        key = collapse_space(text).lower()
        return self._text.count(key) if key.strip() else 0


def page_own(
    page: PageText,
    clean: str,
    sentence: str,
    location: str,
    element: Any,
    *,
    form: bool,
    asked: bool = False,
) -> bool:
    """Whether the hidden request ``sentence`` (of the hidden text ``clean``, found in
    ``location``, of ``element`` when it has one) is the page's own (see the module's
    description); ``form``: found by its form alone; ``asked``: someone asks for it in their
    own voice (a frame of asking, a question about the asker's own doing), which no
    developer's note about the page does."""
    if form and element is not None and (_in_control(element, sentence) or _animated(element)):
        return True
    if form and not asked and location == "html_comment" and DEVELOPER_NOTE.search(clean.lower()):
        return True
    shown = 2 if location in IN_PAGE_TEXT else 1
    return page.count(clean) >= shown or (sentence != clean and page.count(sentence) >= shown)


def _in_control(element: Any, sentence: str) -> bool:
    """Whether ``sentence`` of ``element`` sits in a control (:data:`~.rules_form.CONTROLS`):
    the element is one, or an image inside one (a thumbnail's alt), or is a control's whole
    text, or one of its descendants holds the sentence. A hidden block among a link's other
    words (a card's teaser) is no name of what the link leads to."""
    if element.tag in CONTROLS:
        return True
    control = next((node for node in element.iterancestors() if node.tag in CONTROLS), None)
    if control is not None and (element.tag == "img" or _text(control) == _text(element)):
        return True
    key = collapse_space(sentence).strip().lower()
    return bool(key) and any(key in _text(node) for node in element.iter(*CONTROLS))


def _text(element: Any) -> str:
    return (
        collapse_space(etree.tostring(element, method="text", encoding="unicode", with_tail=False))
        .strip()
        .lower()
    )


def _animated(element: Any) -> bool:
    """Whether ``element``, hidden, is one step of an animation or a carousel: hidden by its
    opacity with a transition or an animation in its style, or beside a shown sibling of the
    same class."""
    inline = element.get("style") or ""
    if style_hiding_reason(parse_declarations(inline)) == "opacity" and any(
        name.partition(":")[0].strip().lower() in ANIMATED for name in inline.split(";")
    ):
        return True
    kind = element.get("class")
    if not kind:
        return False
    before = islice(element.itersiblings(preceding=True), _SIBLINGS)
    for sibling in chain(before, islice(element.itersiblings(), _SIBLINGS)):
        if sibling.get("class") == kind:
            reason = style_hiding_reason(parse_declarations(sibling.get("style") or ""))
            if element_hidden_reason(sibling, reason) is None:
                return True
    return False


_CONTROL_MARKUP_RE: Final = re.compile(
    rf"<({'|'.join(sorted(CONTROLS, key=len, reverse=True))})\b[^<>]*>"
    r"[^<]*(?:<(?!/?\1\b)[^<]*)*</\1\s*>",
    re.IGNORECASE,
)


def without_controls(text: str) -> str:
    """A comment's text without what its commented-out links, buttons, labels and headings
    hold (:data:`~.rules_form.CONTROLS`): text there names what it leads to (a teaser's
    headline), as it would in the page."""
    return _CONTROL_MARKUP_RE.sub(r"<\1></\1>", text) if "</" in text else text
