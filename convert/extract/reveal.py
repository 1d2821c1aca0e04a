"""Content that a page keeps out of sight until its scripts run, put where a reader would see it.

Pagecast converts the HTML as served (or as Chromium left it); three kinds of page carry their
content in places the hidden-element pass would otherwise remove:

- **Streamed React boundaries.** A server-rendered React page that streams (React 18's
  ``renderToPipeableStream``, as Next.js's app router does) first sends a fallback ("Loading...")
  behind a ``<template id="B:0">`` marker, then the real content at the end of the body in a
  ``<div hidden id="S:0">``, and a script call ``$RC("B:0","S:0")`` that swaps them
  (``$RS("S:1","P:1")`` fills a placeholder ``<template id="P:1">`` the same way). The swap is
  done here: the segment's children replace the marker and the fallback after it.
- **``<noscript>`` content.** A script-built site's version for crawlers (forum software does
  this): the ``<noscript>`` elements are unwrapped when they hold most of what a reader would see.
- **Collapsed panels.** Tab panels, accordion and FAQ answers are hidden until a click, and are
  the page's content all the same (every language of a code sample, every answer): a hidden element
  that names itself a panel (:data:`rules.PANEL_ROLES`, :data:`rules.PANEL_NAMES`,
  :data:`rules.PANEL_TAGS`) is shown, and so is one that an expanding control opens (named in its
  ``aria-controls``, or the ``<button>`` right before it) unless it is mostly links or larger than a
  panel (:data:`rules.PANEL_MAX_NODES`, :data:`rules.PANEL_MAX_TEXT`). Menus, dialogs and drawers
  stay hidden.
- **Hidden for a reveal.** A block hidden by an inline style, attribute or class that holds most
  of the page's text is the content waiting for a script to show it (a fade-in, a client-side
  router), not a menu: its hiding is removed.

Pure functions over lxml trees; the thresholds are the constants below.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import lxml.html
from lxml import etree

from convert.extract import rules
from convert.extract.comments import holds_comments
from convert.html.attributes import elements_with
from convert.html.document import drop, text_of, unwrap
from convert.html.hiding import HIDDEN_CLASSES, is_hidden

_NAME_WORDS = re.compile(r"[\s_]+")

_SWAP = re.compile(r"""\$R([CS])\(\s*["']([^"']+)["']\s*,\s*["']([^"']+)["']""")
"""React's streaming calls: ``$RC(boundary, segment)`` and ``$RS(segment, placeholder)``."""
_SEGMENT_ID = re.compile(r"^S:[0-9a-zA-Z]+$")
_UNSEEN = ("script", "style", "template")


def reveal_scripted_content(
    root: lxml.html.HtmlElement,
    hidden: Iterable[etree._Element] | None = None,
    *,
    comments: bool = False,
) -> None:
    """Put streamed, ``<noscript>`` and hidden-for-reveal content in sight, in place (before
    :func:`convert.html.document.clean_document` removes what is hidden). With ``comments``
    (asked for), a list of readers' comments hidden behind a "show comments" button is shown
    too (:func:`~convert.extract.comments.holds_comments`): extraction sets it apart.

    ``hidden``: the elements :func:`is_hidden` found hidden, in document order, when the caller
    has them (see :func:`convert.html.document.clean_document`): the panels and blocks to show are
    looked for among them, instead of in a walk over every element."""
    body = root.find("body")
    if body is None:
        return
    if _swap_streamed_segments(body):
        hidden = None  # elements moved: the list's order is no longer the document's
    _unwrap_noscript_content(body)  # the elements stay in the same order
    inside = _hidden_in(body, hidden)
    _show_collapsed_panels(body, inside)
    _unhide_dominant_block(body, [element for element in inside if is_hidden(element)])
    if comments:
        for element in _outermost(body, [element for element in inside if is_hidden(element)]):
            if holds_comments(element):
                _show(element)


def _hidden_in(
    body: etree._Element, hidden: Iterable[etree._Element] | None
) -> list[etree._Element]:
    """The elements inside ``body`` hidden now, in document order; ``hidden``: the only ones to
    test, if known."""
    candidates = body.iterdescendants() if hidden is None else hidden
    inside = _Above(body, lambda _node: False)
    return [
        element
        for element in candidates
        if element.tag.__class__ is str and is_hidden(element) and inside.under(element) is not None
    ]


class _Above:
    """Whether an element lies inside ``body`` and below an element ``marked`` holds for (one
    between it and ``body``). What is known of each ancestor is kept, so that an ancestor is
    looked at once however many hidden elements it holds. Elements are asked about in document
    order, and an element is marked (if ever) before anything below it is asked about."""

    def __init__(self, body: etree._Element, marked: Callable[[etree._Element], bool]) -> None:
        self._body = body
        self._marked = marked
        self._known: dict[etree._Element, bool | None] = {}

    def under(self, element: etree._Element) -> bool | None:
        """None: not inside ``body``; True: below a marked element; False: below none."""
        path: list[etree._Element] = []
        node = element.getparent()
        state: bool | None
        while True:
            if node is None:
                state = None
                break
            if node is self._body:
                state = False
                break
            if node in self._known:
                state = self._known[node]
                break
            path.append(node)
            node = node.getparent()
        for node in reversed(path):  # from the top down: what each one's children are under
            if state is False and self._marked(node):
                state = True
            self._known[node] = state
        return state


# -- React streaming ----------------------------------------------------------------------------


def _swap_streamed_segments(body: etree._Element) -> bool:
    """Put each streamed segment where its swap call says, in place of its marker; returns
    whether there was any."""
    segments = {
        element.get("id"): element
        for element in body.iter("div")
        if "hidden" in element.attrib and _SEGMENT_ID.match(element.get("id") or "")
    }
    if not segments:
        return False
    markers = {element.get("id"): element for element in body.iter("template") if element.get("id")}
    for kind, segment_id, marker_id in _swaps(body, segments, markers):
        segment, marker = segments.pop(segment_id, None), markers.get(marker_id)
        if segment is None:
            continue  # unknown, or already moved
        if (
            marker is None
            or marker.getparent() is None
            or any(ancestor is segment for ancestor in marker.iterancestors())
        ):
            segments[segment_id] = segment  # no place to go: shown where it stands
            continue
        if kind == "C":
            _drop_fallback(marker)
        segment.tag = "div"
        del segment.attrib["hidden"]
        marker.addnext(segment)  # the segment's content, unwrapped, replaces the marker
        segment.tail, marker.tail = marker.tail, None
        drop(marker)
        unwrap(segment)
    for segment in segments.values():  # no swap call found: shown where it stands
        del segment.attrib["hidden"]
    return True


def _swaps(
    body: etree._Element,
    segments: dict[str | None, etree._Element],
    markers: dict[str | None, etree._Element],
) -> list[tuple[str, str, str]]:
    """``(kind, segment id, marker id)`` for every swap: the page's own calls, then, for the
    segments no call names (a page saved without its inline scripts), the pairs React's naming
    implies: a placeholder ``P:x`` is filled by the segment ``S:x``, and a boundary ``B:x``
    whose segment is ``S:x`` is the likeliest pairing left."""
    swaps: list[tuple[str, str, str]] = []
    for script in body.iter("script"):
        for kind, first, second in _SWAP.findall(script.text or ""):
            swaps.append((kind, second, first) if kind == "C" else (kind, first, second))
    named = {segment_id for _kind, segment_id, _marker in swaps}
    for segment_id in segments:
        if segment_id is None or segment_id in named:
            continue
        suffix = segment_id[2:]
        if f"P:{suffix}" in markers:
            swaps.append(("S", segment_id, f"P:{suffix}"))
        elif f"B:{suffix}" in markers:
            swaps.append(("C", segment_id, f"B:{suffix}"))
    return swaps


def _drop_fallback(marker: etree._Element) -> None:
    """Remove what stands between a boundary's marker and its end comment (``<!--/$-->``),
    text included ("Loading..." is often bare text)."""
    fallback: list[etree._Element] = []
    for sibling in marker.itersiblings():
        if sibling.tag is etree.Comment and (sibling.text or "").strip() == "/$":
            break
        fallback.append(sibling)
    else:
        return  # no end comment: nothing is known to be the fallback
    marker.tail = None
    for element in fallback:
        element.tail = None
        drop(element)


# -- <noscript> ---------------------------------------------------------------------------------


def _unwrap_noscript_content(body: etree._Element) -> None:
    blocks = [element for element in body.iter("noscript") if not _in_noscript(element)]
    inside = sum(len(text_of(element)) for element in blocks)
    if inside < rules.NOSCRIPT_MIN_TEXT or inside < rules.NOSCRIPT_SHARE * _seen_text(body):
        return
    for element in blocks:
        element.drop_tag()


def _in_noscript(element: etree._Element) -> bool:
    return any(ancestor.tag == "noscript" for ancestor in element.iterancestors())


def _seen_text(body: etree._Element) -> int:
    """The body's text less that of scripts, styles and templates (no reader's text)."""
    unseen = sum(len(text_of(element)) for element in body.iter(*_UNSEEN))
    return len(text_of(body)) - unseen


# -- collapsed panels -------------------------------------------------------------------------


def _show_collapsed_panels(body: etree._Element, hidden: list[etree._Element]) -> None:
    """Show the hidden panels (``hidden``: see :func:`_hidden_in`). A panel told only by the
    control that opens it is read once and not gone into (what it holds stays as it is), so
    nested ones cost no more than one."""
    controlled: frozenset[str] | None = None
    closed: set[etree._Element] = set()
    inside_closed = _Above(body, closed.__contains__)
    shown: list[etree._Element] = []
    for element in hidden:
        if closed and inside_closed.under(element):
            continue
        if _names_a_panel(element):
            shown.append(element)
            continue
        if controlled is None:
            controlled = _controlled_ids(body)
        if element.get("id") in controlled or _follows_a_toggle(element):
            if _prose_panel(element):
                shown.append(element)
            closed.add(element)
    for element in shown:
        _show(element)


def _controlled_ids(body: etree._Element) -> frozenset[str]:
    """The ids that expanding controls name (``aria-controls`` on an element with
    ``aria-expanded``): the WAI-ARIA accordion and disclosure pattern."""
    return frozenset(
        name
        for element in elements_with(body, (("aria-expanded", None),))
        for name in (element.get("aria-controls") or "").split()
    )


def _names_a_panel(element: etree._Element) -> bool:
    if element.tag in rules.PANEL_TAGS or element.get("role", "").lower() in rules.PANEL_ROLES:
        return True
    names = f"{element.get('class', '')} {element.get('id', '')}".lower()
    return not rules.PANEL_NAMES.isdisjoint(_NAME_WORDS.split(names))


def _follows_a_toggle(element: etree._Element) -> bool:
    """Whether the element comes right after the button that opens it (an accordion built
    without names: a ``<button>``, or an element that says it expands something)."""
    before = element.getprevious()
    while before is not None and not isinstance(before.tag, str):
        before = before.getprevious()
    return before is not None and (before.tag == "button" or "aria-expanded" in before.attrib)


def _prose_panel(element: etree._Element) -> bool:
    """A panel small enough to be one and not mostly links (a menu behind its button stays
    hidden)."""
    if not _small(element):
        return False  # too large for a panel, and not read (nested deep, it would cost dearly)
    length = len(text_of(element))
    linked = sum(len(text_of(link)) for link in element.iter("a"))
    return length > 0 and linked < rules.HIDDEN_MAX_LINKS * length


def _small(element: etree._Element) -> bool:
    """At most :data:`rules.PANEL_MAX_NODES` elements and :data:`rules.PANEL_MAX_TEXT` characters,
    read no further than that."""
    for count, _ in enumerate(element.iter()):
        if count > rules.PANEL_MAX_NODES:
            return False
    length = 0
    for piece in element.itertext():
        length += len(piece)
        if length > rules.PANEL_MAX_TEXT:
            return False
    return True


# -- hidden for a reveal ------------------------------------------------------------------------


def _unhide_dominant_block(body: etree._Element, hidden: list[etree._Element]) -> None:
    large = [
        (element, length)
        for element in _outermost(body, hidden)
        if (length := len(text_of(element))) >= rules.HIDDEN_MIN_TEXT
    ]
    if not large:
        return  # (the body's text, which costs a read of the whole page, is not needed)
    seen = _seen_text(body)
    if seen < rules.HIDDEN_MIN_TEXT:
        return
    for element, length in large:
        if length < rules.HIDDEN_SHARE * seen:
            continue
        linked = sum(len(text_of(link)) for link in element.iter("a"))
        if linked < rules.HIDDEN_MAX_LINKS * length or length >= rules.HIDDEN_WHOLE_PAGE * seen:
            _show(element)  # not a menu (mostly links), or the whole page hidden at once
            return


def _outermost(body: etree._Element, hidden: list[etree._Element]) -> list[etree._Element]:
    """The hidden elements (see :func:`_hidden_in`) with no hidden ancestor, none in a script,
    a style or a template, in document order."""
    found: list[etree._Element] = []
    outer: set[etree._Element] = set()
    inside = _Above(body, lambda node: node.tag in _UNSEEN or node in outer)
    for element in hidden:
        if element.tag in _UNSEEN or inside.under(element):
            continue
        found.append(element)
        outer.add(element)
    return found


def _show(element: etree._Element) -> None:
    attrib = element.attrib
    attrib.pop("hidden", None)
    if attrib.get("aria-hidden", "").lower() == "true":
        del attrib["aria-hidden"]
    if "style" in attrib:
        del attrib["style"]
    classes = attrib.get("class")
    if classes:
        attrib["class"] = " ".join(c for c in classes.split() if c not in HIDDEN_CLASSES)
