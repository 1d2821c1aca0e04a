"""The edges of the kept content: what a page puts just before an article (breadcrumbs, category
links, promotion bars, "Create an account") and just after it (share and follow links, "Was this
helpful?", calls to action, related links) often sits inside the same container as the article,
where neither the furniture pass nor the container choice can see it.

The content is read as a sequence of leaf blocks (paragraphs, headings, list items, and blocks
without block children). Before the first heading or prose, blocks that are mostly links or very
short go; after the last prose, short or link-dense blocks and headings with nothing after them
go, as long as together they are a small part of the content (a listing of link cards is never
trimmed). The thresholds are in :mod:`convert.extract.rules`.
"""

from __future__ import annotations

from lxml import etree

from convert.extract import rules
from convert.extract.measures import Measures, link_density
from convert.extract.posts import ATTRIBUTION_CLASS
from convert.html.document import drop, text_of

_BLOCKS = frozenset(
    {"p", "li", "dt", "dd", "div", "section", "header", "footer", "ul", "ol", "dl", "table"}
    | {"pre", "blockquote", "figure", "article", "main", "nav", "aside", "form", "figcaption"}
    | rules.HEADING_TAGS
)
WHOLE = frozenset({"table", "pre", "blockquote", "figure"})
"""Blocks taken as one leaf, whatever they hold."""
_LISTED = frozenset({"li", "dd", "dt", "td"})
KEEP_CLASS = ATTRIBUTION_CLASS
"""Blocks Pagecast wrote itself (a post's author line), never trimmed."""


def trim_edges(container: etree._Element, measures: Measures) -> None:
    """Remove the boilerplate at the start and the end of ``container``, in place;
    ``measures`` know it as it is, and are kept up to date."""
    leaves = [leaf for leaf in leaf_blocks(container) if measures.length(leaf)]
    if len(leaves) < rules.EDGE_MIN_BLOCKS:
        return
    cap = rules.EDGE_MAX_SHARE * (measures.length(container) or 1)
    leading = _leading(leaves, measures)
    rest = leaves[leaves.index(leading[-1]) + 1 :] if leading else leaves
    trailing = _trailing(rest, measures)
    doomed = [
        leaf
        for run in (leading, trailing)
        if sum(measures.length(leaf) for leaf in run) <= cap  # a listing is not an edge
        for leaf in run
    ]
    for leaf in doomed:
        if leaf.getparent() is not None:
            measures.forget(leaf)
            drop(leaf)


def clear_masthead(container: etree._Element, measures: Measures) -> None:
    """Remove what stands between an article's headline (its ``<h1>``) and its text: bylines,
    datelines and the section's or a tag's name as a lone link (:data:`~convert.extract.rules.
    BYLINE`, :data:`~convert.extract.rules.DATE_TOKENS`), up to where the text has begun
    (:data:`~convert.extract.rules.MASTHEAD_ENDS_AFTER` paragraphs, or the next heading). In
    place."""
    doomed = []
    paragraphs = seen = 0
    headline = False
    for leaf in leaf_blocks(container):
        if leaf.tag in rules.HEADING_TAGS:
            if headline or leaf.tag != "h1":
                break  # the article's first section, or a collection's first item
            headline = True
            continue
        if not headline or protected(leaf):
            continue
        length = measures.length(leaf)
        seen += length + len((leaf.tail or "").strip())  # text between blocks counts
        if seen > rules.MASTHEAD_MAX_CHARS:
            break
        if length >= rules.MASTHEAD_PROSE:
            paragraphs += 1
            if paragraphs >= rules.MASTHEAD_ENDS_AFTER:
                break
            continue
        if length and _masthead_line(leaf, text_of(leaf), length, measures):
            doomed.append(leaf)
    if len(doomed) > rules.MASTHEAD_MAX_LINES:
        return  # a collection's items, each named by a link, not one article's masthead
    for leaf in doomed:
        measures.forget(leaf)
        drop(leaf)


def _masthead_line(leaf: etree._Element, text: str, length: int, measures: Measures) -> bool:
    """A byline, a dateline, or one short link (a section's name, a tag)."""
    byline = rules.BYLINE.match(text) and not rules.SENTENCE_END.search(text)
    if length <= rules.BYLINE_MAX and byline:
        return True
    dated = rules.DATE_SHAPE.search(text) and not rules.DATE_TOKENS.sub("", text).strip()
    if length <= rules.DATELINE_MAX and dated:
        return True
    return length <= rules.MASTHEAD_LINK_MAX and measures.linked(leaf) >= length


def drop_empty_headings(container: etree._Element, measures: Measures) -> None:
    """Remove the headings (below ``h1``) with nothing under them: the next block is a higher
    heading, or there is none (what they announced was removed as boilerplate). A heading
    followed by one as high may be a whole item (a listing's card titles) and stays."""
    leaves = [
        leaf
        for leaf in leaf_blocks(container)
        if measures.length(leaf) or measures.holds(leaf, "img") or leaf.tag in WHOLE
    ]
    doomed = []
    for index, leaf in enumerate(leaves):
        if leaf.tag not in rules.HEADING_TAGS or leaf.tag == "h1":
            continue
        following = leaves[index + 1] if index + 1 < len(leaves) else None
        if following is None or (following.tag in rules.HEADING_TAGS and following.tag < leaf.tag):
            doomed.append(leaf)
    for leaf in doomed:
        measures.forget(leaf)
        drop(leaf)


def leaf_blocks(container: etree._Element) -> list[etree._Element]:
    """The leaf blocks of ``container`` in document order: blocks with no block below them,
    and tables, code blocks, quotes and figures as a whole."""
    # The elements with a block below them, marked from the bottom up: a block, or an element
    # with one below it, marks its parent (each element is seen after all its descendants).
    above: set[etree._Element | None] = set()
    for element in reversed(list(container.iterdescendants(etree.Element))):
        if element.tag in _BLOCKS or element in above:
            above.add(element.getparent())
    found: list[etree._Element] = []
    pending = [container]
    while pending:
        element = pending.pop()
        if element is not container and (element.tag in WHOLE or element not in above):
            found.append(element)
            continue
        pending.extend(reversed([child for child in element if isinstance(child.tag, str)]))
    return found


def protected(leaf: etree._Element) -> bool:
    """Whether a leaf is one Pagecast wrote (a post's author line) or a block taken whole."""
    return leaf.get("class") == KEEP_CLASS or leaf.tag in WHOLE


def _leading(leaves: list[etree._Element], measures: Measures) -> list[etree._Element]:
    """Short or link-dense blocks before the first prose; headings are kept, and the run goes
    on past them (the byline, the read time and the disclaimer under a headline go)."""
    doomed = []
    for index, leaf in enumerate(leaves):
        if protected(leaf):
            break
        if leaf.tag in rules.HEADING_TAGS:
            continue
        following = leaves[index + 1] if index + 1 < len(leaves) else None
        linked = link_density(leaf, measures) >= rules.EDGE_LINKS
        short = measures.length(leaf) < rules.EDGE_SHORT and not _stays(text_of(leaf))
        if (linked or short) and not _leads_in(leaf, following):
            doomed.append(leaf)
        else:
            break  # prose, a short sentence, a price (a shop's cards start there), a lead-in
    return doomed


def _leads_in(leaf: etree._Element, following: etree._Element | None) -> bool:
    """A sentence that introduces what follows it ("Install the SDK with pip:") before a code
    block, a table or a list: the start of the content, however short."""
    if following is None or not rules.LEAD_IN_END.search(text_of(leaf)):
        return False
    parent = following.getparent()
    return following.tag in rules.LEAD_IN_TARGETS or (
        parent is not None and parent.tag in rules.LEAD_IN_LISTS
    )


def _author_note(leaf: etree._Element, measures: Measures) -> bool:
    """A note about the writer at the end of the content ("Jane Doe is a freelance writer..."),
    never at its start, where an article about a writer opens the same way."""
    return measures.length(leaf) < rules.AUTHOR_NOTE_MAX and bool(
        rules.AUTHOR_BIO.match(text_of(leaf))
    )


def _stays(text: str) -> bool:
    """A short block that is content all the same: a sentence, or a price."""
    return bool(rules.SENTENCE_END.search(text) or rules.PRICE.search(text))


def _signs_off(text: str) -> bool:
    """A line that closes a post in the writer's voice ("Euer Hans", "x Franzi")."""
    return bool(rules.SIGN_OFF.match(text))


def _trailing(leaves: list[etree._Element], measures: Measures) -> list[etree._Element]:
    """Link-dense blocks, headings with nothing after them and short blocks (not list items,
    sentences or prices) after the last prose, from the end."""
    doomed: list[etree._Element] = []
    for leaf in reversed(leaves):
        if protected(leaf):
            break
        length = measures.length(leaf)
        links = link_density(leaf, measures)
        if links >= rules.EDGE_LINKS or leaf.tag in rules.HEADING_TAGS:
            doomed.append(leaf)
            continue
        if _author_note(leaf, measures):
            doomed.append(leaf)
            continue
        if length < rules.EDGE_SHORT and leaf.tag not in _LISTED:
            text = text_of(leaf)
            if not (_stays(text) or _signs_off(text)):
                doomed.append(leaf)
                continue
        break
    return doomed
