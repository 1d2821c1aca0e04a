"""Page furniture: what surrounds a page's content on every page of a site (navigation, headers
and footers, landmarks that are not content, consent banners, sign-up forms, blocks named like
boilerplate), found and removed before the content's container is chosen. The words and tags are
data in :mod:`convert.extract.rules`."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from lxml import etree

from convert.extract import rules
from convert.extract.banners import listed_banners
from convert.extract.measures import Measures, holds_data_table, link_density
from convert.extract.notices import unlisted_notices
from convert.html.document import drop, text_of

_SPLIT = re.compile(r"[^a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")

# -- class and id names ---------------------------------------------------------------------


def _names(element: etree._Element, *, with_id: bool = True) -> str:
    """The element's class and id names (``with_id``), lower case, camel case split with
    hyphens, without utility classes (:data:`~convert.extract.rules.UTILITY_CLASS`)."""
    value = f"{element.get('class', '')} {element.get('id', '') if with_id else ''}"
    if value == " ":
        return value  # most elements have neither
    return _read_names(value)


@lru_cache(maxsize=4096)
def _read_names(value: str) -> str:
    if rules.UTILITY_CLASS.search(value):
        value = " ".join(name for name in value.split() if not rules.UTILITY_CLASS.search(name))
    return _CAMEL.sub("-", value).lower()


def is_negative(element: etree._Element, measures: Measures, *, with_id: bool = True) -> bool:
    """Whether the element's names say it is not content (``with_id``: its id too)."""
    names = _names(element, with_id=with_id)
    if not names.strip():
        return False
    said = _said(names)
    if said.negative_part:
        return True
    if said.teaser and (
        link_density(element, measures) > 0.5 or _one_story_card(element, measures)
    ):
        return True  # a teaser card links elsewhere; a "teaser" paragraph is a standfirst
    if not said.negative_word:
        return False
    # "entry-meta", "post-tags", "recipe-rating": small blocks named after what holds them.
    return not said.positive_word or measures.length(element) < rules.SMALL_BLOCK


def _one_story_card(element: etree._Element, measures: Measures) -> bool:
    """A short card of one other page: at least two links, all to one address, one of them in
    its heading, another a "more" link (a title and a "more" link around a teaser)."""
    if measures.links(element) < 2 or measures.length(element) > rules.TEASER_CARD_MAX:
        return False
    links = list(element.iter("a"))
    targets = {link.get("href") for link in links}
    if len(targets) != 1 or None in targets:
        return False
    heading = next(element.iter(*rules.HEADING_TAGS), None)
    return (
        heading is not None
        and next(heading.iter("a"), None) is not None
        and any(rules.MORE_LINK.match(text_of(link)) for link in links)
    )


class _Said(NamedTuple):
    """What a set of class and id names says, read once per distinct names on a page."""

    negative_part: bool
    teaser: bool
    negative_word: bool
    positive_word: bool


@lru_cache(maxsize=4096)
def _said(names: str) -> _Said:
    words = set(_SPLIT.split(names))
    return _Said(
        bool(rules.NEGATIVE_PART.search(names)),
        "teaser" in names or "card" in words,
        bool(words & rules.NEGATIVE_WORDS),
        bool(words & rules.POSITIVE_WORDS),
    )


def class_weight(element: etree._Element) -> float:
    names = _names(element)
    if not names.strip():
        return 0.0
    said = _said(names)
    weight = 0.0
    if said.positive_word:
        weight += 25
    if said.negative_part or said.negative_word:
        weight -= 25
    return weight


# -- step 1: furniture ------------------------------------------------------------------------


def remove_furniture(
    body: etree._Element,
    measures: Measures,
    *,
    by_name: bool = True,
    keep: frozenset[etree._Element] = frozenset(),
    by_size: bool = True,
) -> None:
    """Remove the page furniture from ``body``; ``measures`` are of ``body`` as it is, and are
    kept up to date. Without
    ``by_name``, only what the markup declares goes (not blocks named like boilerplate). The
    elements in ``keep`` (a thread's posts) and their ancestors stay. Without ``by_size``, a
    block is not kept for holding most of the page's text (a short post's blog, whose widgets
    outweigh it), only for holding its ``<article>`` or ``<main>``."""
    total = (measures.length(body) or 1) if by_size else float("inf")
    kept = set(keep)
    post_of: dict[etree._Element, etree._Element] = {}
    for post in keep:
        for ancestor in post.iterancestors():
            if ancestor in kept:
                break  # the rest of the way up is known
            kept.add(ancestor)
        post_of.update((element, post) for element in post.iterdescendants())
    doomed: list[etree._Element] = [e for e in listed_banners(body) if e not in kept]
    doomed.extend(
        notice
        for notice in unlisted_notices(body, measures)
        if notice not in kept and not holds_article(notice, total, measures)
    )
    in_content: dict[etree._Element, bool] = {}
    anchors = _link_targets(body)
    code = {element for pre in body.iter("pre") for element in pre.iterdescendants()}
    named: dict[tuple[str, str], list[etree._Element]] = {}
    in_cells = _in_data_cells(body) if by_name else frozenset()
    for element in body.iterdescendants(etree.Element):
        if element in code:
            continue  # inside a code block, "comment" names a token, not a section
        tag = element.tag
        role = element.get("role")
        declared = (
            tag in rules.FURNITURE_TAGS
            or (role is not None and role.lower() in rules.NOT_CONTENT_ROLES)
            or (tag in ("header", "footer") and not _inside_content(element, in_content))
        )
        if (
            declared
            or (
                by_name
                and tag in rules.BLOCKS
                and element not in in_cells
                and is_negative(element, measures, with_id=element.get("id") not in anchors)
                and not _data_table_box(element)
            )
        ) and not (
            element in kept
            or holds_article(element, total, measures)
            or (element in post_of and _holds_post_text(element, post_of[element], measures))
        ):
            names = element.get("class", "").strip()
            if declared or not names or rules.NOT_ITEMS.search(names.lower()):
                doomed.append(element)
            else:
                named.setdefault((tag, names), []).append(element)
    for group in named.values():
        if not _items_of_the_page(group, total, measures):
            doomed.extend(group)
    for form in body.iter("form"):
        if form in kept or not _is_signup(form):
            continue
        box = _signup_box(form, measures)
        if box not in kept and not holds_article(box, total, measures):
            doomed.append(box)
    for element in doomed:
        if element.getparent() is not None:
            measures.forget(element)
            drop(element)


def _items_of_the_page(group: list[etree._Element], total: float, measures: Measures) -> bool:
    """Whether blocks of one tag and class (not :data:`~convert.extract.rules.NOT_ITEMS`),
    named like boilerplate, are the page's items: a
    listing's entries its software names "meta" or "teaser", many of them, together holding a
    good share of the page's text and each more than a label (a post's byline is short)."""
    if len(group) < rules.NAMED_ITEMS_MIN:
        return False
    lengths = [measures.length(element) for element in group]
    return (
        sum(lengths) >= rules.NAMED_ITEMS_SHARE * total
        and sorted(lengths)[len(lengths) // 2] >= rules.NAMED_ITEM_CHARS
    )


def _in_data_cells(body: etree._Element) -> set[etree._Element]:
    """The elements that hold all the text of a short table cell (a data table's, not a page
    laid out in cells): a cell's words are its data whatever their names say, an icon's
    screen-reader text ("sr-only") the cell's "Yes", a "rating" block its score. A tooltip
    beside the cell's own words is no such element."""
    inside: set[etree._Element] = set()
    for cell in body.iter("td", "th"):
        if not len(cell) or cell.find(".//table") is not None:
            continue
        text = " ".join(cell.text_content().split())
        if not text or len(text) > rules.DATA_CELL_CHARS:
            continue
        inside.update(
            element
            for element in cell.iterdescendants()
            if " ".join(element.text_content().split()) == text
        )
    return inside


def _data_table_box(element: etree._Element) -> bool:
    """Whether a block named with a boilerplate word (not a boilerplate part such as "sidebar"
    or "related") holds a data table: a drawer or accordion of the article that folds its
    tables away, whose name says how it opens, not what it holds."""
    if _said(_names(element)).negative_part:
        return False
    return holds_data_table(element, rules.DATA_TABLE_ROWS)


def _link_targets(body: etree._Element) -> set[str]:
    """The ids the page's own links point to (``href="#id"``): a table of contents names its
    sections so ("toc_pricing"), and the sections are the content, whatever their id says."""
    return {
        href[1:]
        for link in body.iter("a")
        if (href := link.get("href") or "").startswith("#") and len(href) > 1
    }


def _holds_post_text(element: etree._Element, post: etree._Element, measures: Measures) -> bool:
    """Whether ``element``, inside a thread's ``post``, holds most of its text (the body of a
    reply its software names "comment"), rather than its user panel or its footer."""
    return measures.length(element) >= rules.POST_BODY_SHARE * measures.length(post)


def _is_signup(form: etree._Element) -> bool:
    """A newsletter or account sign-up form (an e-mail field, or the words on its button)."""
    if form.xpath('.//input[@type="email"]'):
        return True
    return bool(rules.SIGNUP_WORDS.search(text_of(form)))


def _signup_box(form: etree._Element, measures: Measures) -> etree._Element:
    """The box a sign-up form sits in (its pitch and heading), when that box is small."""
    box = form.getparent()
    if box is not None and box.tag != "body" and measures.length(box) < 400:
        return box
    return form


def _inside_content(element: etree._Element, known: dict[etree._Element, bool]) -> bool:
    """Whether a header/footer belongs to an article rather than to the page: whether an
    ancestor is an ``article`` or ``main``. ``known`` keeps the answer for every element on the
    way up, so that nested blocks do not climb the same ancestors again."""
    climbed: list[etree._Element] = [element]
    answer = False
    for ancestor in element.iterancestors():
        if ancestor.tag in ("article", "main") or ancestor.get("role") == "main":
            answer = True
            break
        if ancestor in known:
            answer = known[ancestor]
            break
        climbed.append(ancestor)
    for climber in climbed:
        known[climber] = answer
    return answer


def holds_article(element: etree._Element, total: float, measures: Measures) -> bool:
    """Whether removing ``element`` would take the article with it."""
    if element.tag in ("form", "button", "input", "select", "textarea", "label"):
        # A page wrapped in one big <form> (old ASP.NET sites) keeps its content; so does a page
        # the parser left inside a <button> or <label> (a <div> unclosed in a menu button nests
        # the rest of the page in it, where a browser would close it).
        if element.tag not in ("form", "button", "label"):
            return False
        return (
            measures.length(element) > 0.5 * total
            or (element.tag != "form" and measures.holds(element, "main"))
            or (element.tag != "form" and measures.holds(element, "article"))
        )
    if measures.holds(element, "article") or measures.holds(element, "main"):
        return True
    if element.tag == "footer":
        return False  # a page's footer is never its article, however much it holds
    if element.tag in ("nav", "aside"):
        # A rail of related posts may outweigh a short article; only a page the parser nested
        # inside an unclosed <aside> puts its headline in one.
        share = rules.ARTICLE_SHARE_OF_RAIL if measures.holds(element, "h1") else 1.0
        return measures.length(element) > share * total
    if measures.holds(element, "h1"):
        return measures.length(element) > 0.3 * total
    return measures.length(element) > 0.5 * total
