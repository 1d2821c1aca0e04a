"""Step 2 of main-content extraction: the element that holds the content. A semantic one when
the page has it (``itemprop=articleBody``, the one ``<article>`` that holds most of the text, the
posts of a thread, ``<main>``), else the element with the best score in a readability-style
scoring of its paragraphs (text length, commas, link density, class names), widened to the
ancestor that holds the article's other sections and to siblings that score well too."""

from __future__ import annotations

import lxml.html
from lxml import etree

from convert.extract import rules
from convert.extract.furniture import class_weight, is_negative
from convert.extract.measures import Measures, link_density

_ITEMPROP_BODIES = etree.XPath(
    'descendant::*[@itemprop = "articleBody"'
    ' or (@itemprop = "text" and not(ancestor::*[@itemprop]))]'
)
"""An article's body (``itemprop="articleBody"``, or ``"text"`` outside any other item), found
in one walk."""


def semantic(
    body: etree._Element, total: int, measures: Measures
) -> tuple[etree._Element | None, str]:
    """The container the markup names (an article body, the one article holding most of the
    text, the posts of a thread, ``main``) and ``"semantic"``; or None when none holds enough
    of the page's ``total`` text."""
    candidates = _ITEMPROP_BODIES(body)
    for candidate in candidates:
        if measures.length(candidate) >= max(rules.MIN_TEXT, 0.3 * total):
            return _article_of(candidate), "semantic"
    articles = [a for a in body.iter("article") if not measures.holds(a, "article")]
    if articles:
        sizes = sorted(((measures.length(a), i) for i, a in enumerate(articles)), reverse=True)
        best_size, best = sizes[0]
        runner_up = sizes[1][0] if len(sizes) > 1 else 0
        if best_size >= max(rules.MIN_TEXT, 0.35 * total) and best_size > 2 * runner_up:
            return articles[best], "semantic"
        # Several posts of one thread (a forum, a comment-driven page): all of them.
        if len(articles) > 1 and sum(size for size, _ in sizes) >= 0.5 * total:
            common = common_ancestor(articles)
            if common is not None and common is not body:
                return common, "semantic"
    mains = body.xpath('.//main | .//*[@role="main"]')
    for candidate in mains:
        if measures.length(candidate) >= max(rules.MIN_TEXT, 0.4 * total):
            return candidate, "semantic"
    return None, ""


def common_ancestor(elements: list[etree._Element]) -> etree._Element | None:
    shared = [*elements[0].iterancestors()]
    for element in elements[1:]:
        ancestors = set(element.iterancestors())
        shared = [a for a in shared if a in ancestors]
    return shared[0] if shared else None


def _article_of(element: etree._Element) -> etree._Element:
    """An article body's enclosing ``<article>`` when it has one (headline and all)."""
    for ancestor in element.iterancestors():
        if ancestor.tag == "article":
            return ancestor
    return element


def scored(
    body: etree._Element, total: int, measures: Measures
) -> tuple[etree._Element | None, str]:
    """The element whose paragraphs score best, widened to the article's other sections and
    its siblings that score well, and ``"scored"``; or None when it holds too little of the
    page's ``total`` text."""
    scores: dict[etree._Element, float] = {}
    own: dict[etree._Element, float] = {}  # each paragraph's score
    for element in body.iter():
        if not _paragraph_like(element):
            continue
        length = measures.length(element)
        if length < 25:
            continue
        score = 1 + measures.commas(element) + min(length // 100, 3)
        parent = element.getparent()
        if parent is None:
            continue
        own[element] = score
        for ancestor, share in ((parent, 1.0), (parent.getparent(), 0.5)):
            if ancestor is None or not isinstance(ancestor.tag, str):
                continue
            if ancestor not in scores:
                scores[ancestor] = class_weight(ancestor)
            scores[ancestor] += score * share
    if not scores:
        return None, ""
    held = _held(body, own)
    ranked = {
        element: score * (1 - link_density(element, measures))
        for element, score in scores.items()
        if element is not body and element.tag != "html"
    }
    if not ranked:
        return None, ""
    best = max(ranked, key=lambda element: ranked[element])
    # A container holding most of the scored text is a better answer than a sub-part of it.
    parent = best.getparent()
    while (
        parent is not None
        and parent is not body
        and parent in ranked
        and ranked[parent] >= 0.9 * ranked[best]
    ):
        best, parent = parent, parent.getparent()
    best = _with_sections(best, body, held, measures)
    best = _with_siblings(best, ranked, measures)
    if measures.length(best) < 0.15 * total and total > 4 * rules.MIN_TEXT:
        return None, ""
    return best, "scored"


def _held(body: etree._Element, own: dict[etree._Element, float]) -> dict[etree._Element, float]:
    """The summed scores of all the paragraphs below each element, at any depth: one pass,
    children before parents."""
    held: dict[etree._Element, float] = {}
    for element in reversed([element for element in body.iter() if isinstance(element.tag, str)]):
        total = held.get(element, 0.0)
        parent = element.getparent()
        if parent is not None and (total or element in own):
            held[parent] = held.get(parent, 0.0) + total + own.get(element, 0.0)
    return held


def _with_sections(
    best: etree._Element,
    body: etree._Element,
    held: dict[etree._Element, float],
    measures: Measures,
) -> etree._Element:
    """Widen ``best`` to an ancestor (up to :data:`~convert.extract.rules.SECTIONS_LEVELS`
    above, wrappers that add nothing not counted) that holds much more scored prose and is not
    mostly links: an article built of several text modules (page builders make one per
    section), where the best-scored one is a part."""
    while True:
        wider = None
        for level, ancestor in enumerate(best.iterancestors()):
            if ancestor is body or level >= rules.SECTIONS_LEVELS:
                break
            if held.get(ancestor, 0.0) >= rules.SECTIONS_GAIN * held.get(best, 0.0):
                if link_density(ancestor, measures) < rules.SECTIONS_MAX_LINKS:
                    wider = ancestor
                break
        if wider is None:
            return best
        best = wider


def _paragraph_like(element: etree._Element) -> bool:
    """Whether ``element`` is scored as a paragraph: a text block (``p``, ``pre``, a cell, a
    list item, a div without block children) or any element with prose directly inside it
    (old pages write ``<font>`` text broken by ``<br>``)."""
    tag = element.tag
    if not isinstance(tag, str):
        return False
    if tag in ("div", "td"):
        return not any(child.tag in rules.BLOCK_CHILDREN for child in element)
    if tag in rules.SCORED:
        return True
    own = len((element.text or "").strip()) + sum(len((c.tail or "").strip()) for c in element)
    return own >= 100 and tag not in ("body", "html")


def _with_siblings(
    best: etree._Element, ranked: dict[etree._Element, float], measures: Measures
) -> etree._Element:
    """Widen ``best`` to its parent when its siblings carry article text too."""
    parent = best.getparent()
    if parent is None:
        return best
    threshold = max(10.0, ranked.get(best, 0.0) * 0.2)
    good = {
        sibling
        for sibling in parent
        if sibling is not best
        and isinstance(sibling.tag, str)
        and (ranked.get(sibling, 0) >= threshold or _content_like(sibling, measures))
    }
    if not good:
        return best
    wrapper = lxml.html.Element("div")
    for sibling in parent:
        if sibling is best or sibling in good:
            wrapper.append(measures.copy(sibling))
    return wrapper


def _content_like(element: etree._Element, measures: Measures) -> bool:
    """A block that reads as part of an article: prose, a list or a table with few links, or a
    heading, and nothing in its names saying otherwise."""
    if is_negative(element, measures):
        return False
    length = measures.length(element)
    if element.tag in ("h2", "h3", "h4", "h5", "h6"):
        return length > 0
    return length >= 80 and link_density(element, measures) < 0.3


def detached(container: etree._Element, measures: Measures) -> etree._Element:
    """The container as an element of its own: a copy (the document is still read from), or
    the wrapper built from siblings itself."""
    if container.getparent() is None:
        return container
    return measures.copy(container)


def with_posts(
    container: etree._Element | None, posts: list[etree._Element], body: etree._Element
) -> etree._Element | None:
    """Widen the container to hold every post of the thread (the first post is often the one
    that looks like an article)."""
    inside = set(container.iter()) if container is not None else set()
    if container is not None and all(post in inside for post in posts):
        return container
    placed = container is not None and container.getparent() is not None  # not a new wrapper
    common = common_ancestor([*posts, container] if placed else posts)
    return common if common is not None and common is not body else None
