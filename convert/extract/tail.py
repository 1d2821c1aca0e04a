"""What follows the end of an article, and what an article holds that points elsewhere: the
heading (or line) that announces related stories, the author's box, tags or sharing, and
everything after it; other stories' cards; the lines that file a post; and, among the
paragraphs, a box of related links under such a heading or a line labelled so ("Lue myös:
..."). The rules are in :mod:`convert.extract.rules` (``TAIL_*``, ``CARD*``, ``POST_META``).
"""

from __future__ import annotations

from itertools import islice

from lxml import etree

from convert.extract import rules
from convert.extract.edges import KEEP_CLASS, WHOLE, leaf_blocks, protected
from convert.extract.measures import Measures, leads_elsewhere, link_density
from convert.html.document import drop, text_of


def cut_tail(
    container: etree._Element, measures: Measures, *, site: str = "", article: bool = False
) -> None:
    """Remove what follows the end of an article: from a heading (or a line on its own) that
    announces related stories, the author, tags or sharing (:data:`~convert.extract.rules.
    TAIL_HEADING`) to the end, when that is a small part of the content; and the lines that
    file a post ("This entry was posted in...", "Tags:"), wherever they stand. On an
    ``article``, other stories' cards at the end go too, and the author lines Pagecast wrote
    are theirs (elsewhere, they are a thread's, and the tail stops at them). In place."""
    leaves = [leaf for leaf in leaf_blocks(container) if measures.length(leaf)]
    total = measures.prose(container) or 1
    after = 0
    cut = len(leaves)  # where the tail starts: nowhere yet
    for index in range(len(leaves) - 1, 0, -1):
        leaf = leaves[index]
        if protected(leaf):
            if article and leaf.tag not in WHOLE:
                continue
            break
        after += measures.prose(leaf)
        if after > rules.TAIL_MAX_SHARE * total:
            break
        if _announces_tail(leaf, measures):
            cut = index
    if article:
        for start in (
            _story_cards(leaves, measures, total, site),
            _announced_cards(leaves, measures, site),
        ):
            if start is not None:
                cut = min(cut, start)
    doomed = set(leaves[cut:])
    doomed.update(_related_inside(leaves, measures))
    doomed.update(
        leaf
        for leaf in leaves
        if measures.length(leaf) < rules.POST_META_MAX
        and rules.POST_META.match(text_of(leaf))
        and not protected(leaf)
    )
    for leaf in doomed:
        if leaf.getparent() is not None:
            measures.forget(leaf)
            drop(leaf)


def _related_inside(leaves: list[etree._Element], measures: Measures) -> list[etree._Element]:
    """Among an article's paragraphs, what points to other stories: a heading that announces
    them (:data:`~convert.extract.rules.TAIL_HEADING`) with the blocks of links under it, and a
    short line labelled so whose rest is mostly a link ("Lue myös: <a>...</a>")."""
    found: list[etree._Element] = []
    for index, leaf in enumerate(leaves):
        if protected(leaf):
            continue
        length = measures.length(leaf)
        if (
            length <= rules.LABELLED_LINK_MAX
            and measures.linked(leaf) >= rules.LABELLED_LINK_SHARE * length
            and rules.TAIL_LABEL.match(text_of(leaf))
        ):
            found.append(leaf)
        elif _announces_tail(leaf, measures):
            links = []
            for following in leaves[index + 1 : index + 1 + rules.RELATED_BOX_ITEMS]:
                if following.tag in rules.HEADING_TAGS or not _points_away(following, measures):
                    break
                links.append(following)
            if links:
                found += [leaf, *links]
    return found


def _points_away(leaf: etree._Element, measures: Measures) -> bool:
    """A block of links, or a short one that opens with a link (a story's title, its teaser
    after it)."""
    if link_density(leaf, measures) >= rules.EDGE_LINKS:
        return True
    first = next(iter(leaf), None)
    return (
        first is not None
        and first.tag == "a"
        and not (leaf.text or "").strip()
        and measures.length(leaf) <= rules.LABELLED_LINK_MAX
    )


def _story_cards(
    leaves: list[etree._Element], measures: Measures, total: int, site: str
) -> int | None:
    """Where a run of other stories' cards at the end of the content begins ("Latest", "More
    in Space", a blog's other posts): titles that link to another page of the site ``site``
    (a list of resources elsewhere is content), each with at most a short teaser, a byline or
    a picture, at least :data:`~convert.extract.rules.CARDS_MIN` of them, holding a small part
    of the content's prose (``total``) and after prose of the article's own. None when there
    is none."""
    cards, start, after, cards_prose = 0, None, 0, 0
    for index in range(len(leaves) - 1, 0, -1):
        leaf = leaves[index]
        if leaf.tag in WHOLE:
            break
        if leaf.get("class") == KEEP_CLASS:
            continue  # a card's byline, read as a post's
        if leaf.tag in rules.SECTION_HEADINGS and not _links_away(leaf, measures, site):
            if not cards or after - cards_prose >= rules.CARD_TEASER_MAX:
                break  # a section of the article's own
            start, cards_prose = index, after  # the cards' label ("More from the desk")
            continue
        if leaf.tag not in rules.HEADING_TAGS and (
            measures.length(leaf) > rules.CARD_TEASER_MAX
            and link_density(leaf, measures) < rules.EDGE_LINKS
        ):
            break  # the article's own prose
        after += measures.prose(leaf)
        if after > rules.TAIL_MAX_SHARE * total:
            # The cards found so far hold less; they end the content when prose that is not
            # theirs comes before them (on a listing, cards come before cards).
            if after - cards_prose < rules.CARD_TEASER_MAX:
                return None
            break
        if _card_title(leaf, measures, site, wrapped=True):
            cards, start, cards_prose = cards + 1, index, after
    if cards < rules.CARDS_MIN or start is None:
        return None
    # Cards made one link each hold no prose of their own: on a listing the run would reach
    # back over the cards before it; they end an article only after its own text.
    return None if _only_cards(leaves[:start], measures, site) else start


def _announced_cards(leaves: list[etree._Element], measures: Measures, site: str) -> int | None:
    """Where a heading that announces other stories (:data:`~convert.extract.rules.
    TAIL_HEADING`) opens what is nothing but their cards to the end of the content, however long
    that run is: at least :data:`~convert.extract.rules.CARDS_MIN` titles linking to other pages
    of the site, each with at most a short teaser, after at least
    :data:`~convert.extract.rules.ANNOUNCED_CARDS_AFTER` characters of the article's own prose
    (not cards themselves: a listing's next section of cards is announced so too). None when
    there is no such run."""
    before = 0
    for index, leaf in enumerate(leaves):
        if (
            before >= rules.ANNOUNCED_CARDS_AFTER
            and _announces_tail(leaf, measures)
            and _only_cards(leaves[index + 1 :], measures, site)
            and not _only_cards(leaves[:index], measures, site)
        ):
            return index
        before += measures.prose(leaf)
    return None


def _only_cards(rest: list[etree._Element], measures: Measures, site: str) -> bool:
    """Whether ``rest`` is nothing but stories' cards: titles linking to other pages of the
    site, and between them short labels, blocks of links, and after each title or heading
    at most :data:`~convert.extract.rules.CARD_TEXT_BLOCKS` blocks of text (its bylines and its
    teaser, each at most :data:`~convert.extract.rules.ANNOUNCED_TEASER_MAX` long)."""
    titles, teasers_allowed = 0, 0
    for leaf in rest:
        if leaf.tag in WHOLE:
            return False
        if _card_title(leaf, measures, site, wrapped=True):
            titles, teasers_allowed = titles + 1, rules.CARD_TEXT_BLOCKS
            continue
        if leaf.tag in rules.HEADING_TAGS:
            # A card titled without a link (its link is "Read more").
            teasers_allowed = rules.CARD_TEXT_BLOCKS
            continue
        length = measures.length(leaf)
        if length <= rules.TAIL_LINE_MAX or link_density(leaf, measures) >= rules.EDGE_LINKS:
            continue
        if not teasers_allowed or length > rules.ANNOUNCED_TEASER_MAX:
            return False
        teasers_allowed -= 1
    return titles >= rules.CARDS_MIN


def _card_title(
    leaf: etree._Element, measures: Measures, site: str, *, wrapped: bool = False
) -> bool:
    """A card's title: a heading, or a short line, that links to another page of the site
    (or, when ``wrapped``, sits inside such a link: a card the page makes one link of)."""
    return (
        leaf.tag in rules.HEADING_TAGS or measures.length(leaf) <= rules.CARD_TITLE_MAX
    ) and _links_away(leaf, measures, site, wrapped=wrapped)


def _links_away(
    heading: etree._Element, measures: Measures, site: str, *, wrapped: bool = False
) -> bool:
    """Whether a heading is a link to another page of the site (not an anchor on this one), or
    when ``wrapped``, sits inside one. Only under a heading that announces other stories is a
    wrapping link taken for the title's: a listing makes its cards one link each too."""
    links = [a for a in heading.iter("a") if _to_another_page(a, site)]
    if not links:
        return wrapped and any(
            ancestor.tag == "a" and _to_another_page(ancestor, site)
            for ancestor in islice(heading.iterancestors(), rules.CARD_LINK_LEVELS)
        )
    return measures.linked(heading) >= rules.CARD_HEADING_LINKED * (measures.length(heading) or 1)


def _to_another_page(link: etree._Element, site: str) -> bool:
    href = link.get("href", "#")
    return not href.startswith("#") and not leads_elsewhere(href, site)


def _announces_tail(leaf: etree._Element, measures: Measures) -> bool:
    """A heading, or a short line on its own, that says what follows is not the article."""
    if leaf.tag not in rules.HEADING_TAGS and measures.length(leaf) > rules.TAIL_LINE_MAX:
        return False
    return bool(rules.TAIL_HEADING.match(text_of(leaf)))
