"""Step 3 of main-content extraction: inside the chosen container, remove link bars,
boilerplate blocks and sections ("Related posts", "You may also like"), affiliate disclosures and
link farms, unless the links are the content (an index page)."""

from __future__ import annotations

import re
from collections import Counter

from lxml import etree

from convert.extract import rules
from convert.extract.measures import Measures, holds_data_table, leads_elsewhere, link_density
from convert.extract.posts import POST_MARK
from convert.html.document import drop, text_of

_ANY_WORD = re.compile(r"\w")
_CODE = ("code", "kbd", "samp", "tt")
_POSTS = etree.XPath(f"descendant::*[@{POST_MARK}]")


def prune_inside(container: etree._Element, measures: Measures, *, site: str = "") -> None:
    """Remove link bars, boilerplate blocks and link farms from ``container``; ``measures``
    know it as it is, and are kept up to date. ``site`` is the page's registrable domain: a
    list of links to other sites, each a title, is a list of references and stays."""
    for mark in list(container.iter("sup")):
        if "reference" in mark.get("class", "") or rules.CITATION.match(text_of(mark)):
            measures.forget(mark)
            drop(mark)  # citation markers: "[1]" links that only mean something beside a list
    for caption in _captions(container, measures):
        measures.forget(caption)
        drop(caption)
    bar_links = [  # decided on one set of measures, then dropped (dropping changes them)
        link
        for link in container.iter("a")
        if rules.BOILERPLATE_TEXT.match(text_of(link) or "-")
        and not _code_only(link)
        and _in_link_bar(link, measures)
    ]
    bar_links += _calls_to_action(container, measures)
    for link in bar_links:
        if link.getparent() is not None:
            measures.forget(link)
            drop(link)
    doomed: list[etree._Element] = []
    farms: list[etree._Element] = []
    farm_set: set[etree._Element] = set()
    holders = _post_holders(container)
    code = {element for pre in container.iter("pre") for element in pre.iter()}
    said: dict[str, bool] = {}
    for element in container.iter(*rules.PRUNED_BLOCKS, *rules.LABELLED_ITEMS):
        if element is container or element in code:
            continue  # a code block's lines are never boilerplate, its spaces included
        if element.tag in rules.LABELLED_ITEMS:
            if _boilerplate_label(element, measures):
                doomed.append(element)
            continue
        if _boilerplate_section(element) and element not in holders:
            doomed.append(element)
            continue
        length = measures.length(element)
        if not length:
            # An empty block goes; an inline one may be the space between two words.
            if not measures.holds(element, "img") and element.tag not in rules.KEPT_EMPTY:
                doomed.append(element)
            continue
        if length < rules.DISCLOSURE_MAX:
            text = text_of(element)  # read once, for the two tests below
            if (length < 250 and _boilerplate_block(element, text, measures)) or _said_aside(
                text, length, said
            ):
                doomed.append(element)
                continue
        if (
            element.tag in ("ul", "ol", "div", "section")
            and _link_farm(element, length, measures, site)
            and not any(ancestor in farm_set for ancestor in element.iterancestors())
        ):
            farms.append(element)
            farm_set.add(element)
    # Links that make up most of the content are the content: an index, a list page.
    if sum(measures.length(farm) for farm in farms) <= rules.FARMS_MAX_SHARE * measures.length(
        container
    ):
        doomed += farms
    doomed += _boilerplate_runs(container, measures)
    for element in doomed:
        if element.getparent() is not None:
            measures.forget(element)
            drop(element)


def _post_holders(container: etree._Element) -> set[etree._Element]:
    """A thread's posts and the elements holding them: a section headed "Comments" that holds
    them is the forum's replies, not an article's comments."""
    holders: set[etree._Element] = set()
    for post in _POSTS(container):
        holders.add(post)
        for ancestor in post.iterancestors():
            if ancestor in holders or ancestor is container:
                break
            holders.add(ancestor)
    return holders


def _boilerplate_runs(container: etree._Element, measures: Measures) -> list[etree._Element]:
    """Headings over recommendations ("You may also like", "Complete the look") standing among
    their section's blocks rather than atop a wrapper of their own: the heading and its following
    siblings up to the next heading as high. A run holding a data table is a section of the
    article titled so (a specification's "Related Products" fields), not recommendations."""
    found: list[etree._Element] = []
    for heading in container.iter("h2", "h3", "h4"):
        if not rules.RECOMMENDATION_HEADING.match(text_of(heading)):
            continue
        start, parent = heading, heading.getparent()
        # A heading alone in a wrapper ("<div class=title><h2>..</h2></div>") stands for it.
        while (
            parent is not None
            and parent is not container
            and len(parent) == 1
            and not (parent.text or "").strip()
            and not (start.tail or "").strip()
        ):
            start, parent = parent, parent.getparent()
        run = [start]
        rank = int(heading.tag[1])
        for sibling in start.itersiblings():
            if isinstance(sibling.tag, str):
                if _heading_rank(sibling) <= rank:
                    break
                run.append(sibling)
        if not any(_data_beside_links(element, measures) for element in run):
            found += run
    return found


def _heading_rank(element: etree._Element) -> int:
    """The rank of the heading an element is, or opens with as its first child (1 to 6); 9
    for none."""
    first = element if element.tag in rules.HEADING_TAGS else next(iter(element), None)
    if first is not None and first.tag in rules.HEADING_TAGS:
        return int(str(first.tag)[1])
    return 9


def _said_aside(text: str, length: int, known: dict[str, bool]) -> bool:
    """:func:`_disclosure_or_pitch`, asked once per text: a block and the wrapper holding
    only it have the same text. ``known`` keeps the answers."""
    found = known.get(text)
    if found is None:
        found = known[text] = _disclosure_or_pitch(text, length)
    return found


def _disclosure_or_pitch(text: str, length: int) -> bool:
    """An affiliate disclosure, a site notice, or (shorter) a newsletter pitch."""
    if rules.DISCLOSURE.search(text) or _only_a_notice(text):
        return True
    return length < rules.PITCH_MAX and bool(rules.PITCH.search(text))


def _only_a_notice(text: str) -> bool:
    """A site notice and nothing else: once it is taken out, no word and no price is left."""
    found = rules.NOTICE.search(text)
    if found is None:
        return False
    rest = text[: found.start()] + text[found.end() :]
    return not _ANY_WORD.search(rest)


def _calls_to_action(container: etree._Element, measures: Measures) -> list[etree._Element]:
    """Links that stand alone in their block, short, and ask the reader to act, as buttons do
    ("Get started", "Request a demo", "Shop now"): the block goes. Links in lists, tables and
    headings are not asked, nor links that name a thing (a listing's cards)."""
    found: list[etree._Element] = []
    targets: dict[etree._Element, Counter[str | None]] = {}
    for link in container.iter("a"):
        block = link.getparent()
        while block is not None and block.tag in rules.INLINE_TAGS:
            block = block.getparent()
        if block is None or block.tag in rules.CTA_NOT_IN:
            continue
        length = measures.length(block)
        if (
            block is not container
            and 0 < length <= rules.CTA_MAX_CHARS
            and measures.linked(block) >= length
            and rules.CTA_TEXT.match(text_of(block))
        ):
            found.append(block)
        elif (
            0 < measures.length(link) <= rules.CTA_MAX_CHARS
            and _on_its_own_line(link)
            and rules.CTA_TEXT.match(text_of(link))
            and not _repeats_a_link(link, block, targets)
        ):
            found.append(link)  # a button-like link between the blocks of a larger one
    return found


def _repeats_a_link(
    link: etree._Element,
    block: etree._Element,
    known: dict[etree._Element, Counter[str | None]],
) -> bool:
    """Whether ``block`` has another link to the same place: a card's second link ("See the
    product" under the linked name) belongs to the card. ``known`` keeps each block's count of
    link targets."""
    href = link.get("href")
    if not href:
        return False
    if block not in known:
        known[block] = Counter(other.get("href") for other in block.iter("a"))
    return known[block][href] > 1


def _on_its_own_line(link: etree._Element) -> bool:
    """Whether a link stands between blocks (or at the start or end of its parent) with no
    text of its own line around it: it renders as a line of its own, as a button does."""
    if (link.tail or "").strip():
        return False
    before = link.getprevious()
    if before is None:
        parent = link.getparent()
        return parent is not None and not (parent.text or "").strip()
    return before.tag in rules.BLOCK_CHILDREN and not (before.tail or "").strip()


def _boilerplate_block(element: etree._Element, text: str, measures: Measures) -> bool:
    """A short block that says what it is: "Share", "Edit this page", "Read more: ..." links;
    ``text`` is its text. Only worth asking of blocks shorter than 250 characters."""
    return bool(
        (len(text) < 60 and rules.BOILERPLATE_TEXT.match(text) and not _code_only(element))
        or (len(text) < 160 and rules.EDIT_LINK.search(text))
        or (len(text) < 250 and rules.TEASER.match(text) and link_density(element, measures) > 0.4)
    )


def _data_beside_links(element: etree._Element, measures: Measures) -> bool:
    """Whether ``element`` holds a data table that is not itself a grid of links (a "Related"
    table of other posts' titles is still recommendations)."""
    return holds_data_table(element, rules.DATA_TABLE_ROWS) and any(
        link_density(table, measures) < rules.DATA_TABLE_LINKS for table in element.iter("table")
    )


def _code_only(element: etree._Element) -> bool:
    """Whether all of ``element``'s words are code: a function's name (``print()``,
    ``share()``) that reads like a button's label but names no button."""
    if next(element.iterancestors(*_CODE), None) is not None:
        return True
    code = "".join(part.text_content() for part in element.iter(*_CODE))
    return bool(code.strip()) and code.split() == element.text_content().split()


def _references(element: etree._Element, site: str) -> bool:
    """Whether a list's links nearly all lead to other sites, each with a title of several
    words (patches, papers, sources): what an article cites, not the site's own navigation."""
    links = list(element.iter("a"))
    elsewhere = sum(1 for link in links if leads_elsewhere(link.get("href") or "", site))
    words = sum(len(text_of(link).split()) for link in links)
    enough_elsewhere = elsewhere >= rules.REFERENCES_ELSEWHERE * len(links)
    return enough_elsewhere and words >= rules.REFERENCE_WORDS * len(links)


def _boilerplate_label(element: etree._Element, measures: Measures) -> bool:
    """A list item or definition that is nothing but a label of the page's furniture ("Reply
    with quote", "Posts: 116", "Free shipping")."""
    return 0 < measures.length(element) < rules.LABEL_MAX and bool(
        rules.LABEL_TEXT.match(text_of(element))
    )


def _in_link_bar(link: etree._Element, measures: Measures) -> bool:
    """Whether a link stands in a bar of links ("Jump to recipe | Print") rather than in prose."""
    block = link.getparent()
    while block is not None and block.tag in ("span", "b", "strong", "em", "i", "small"):
        block = block.getparent()
    if block is None:
        return True
    return measures.linked(block) >= 0.5 * measures.length(block)


def _boilerplate_section(element: etree._Element) -> bool:
    """A section whose own heading says it is not the article ("12 comments", "Related
    posts", "Community Q&A", "Customer reviews")."""
    if element.tag not in ("div", "section"):
        return False
    first = next((child for child in element if isinstance(child.tag, str)), None)
    if first is None or first.tag not in ("h2", "h3", "h4"):
        return False
    return bool(rules.BOILERPLATE_HEADING.match(text_of(first)))


def _link_farm(element: etree._Element, length: int, measures: Measures, site: str) -> bool:
    """A block of mostly links (related posts, tag lists, tables of contents); ``length`` is
    that of its text."""
    if measures.links(element) < 3:
        return False
    density = link_density(element, measures)
    if element.tag in ("ul", "ol"):
        items = element.findall("li")
        linked_items = sum(1 for item in items if measures.links(item))
        farm = density > 0.7 and linked_items >= max(3, 0.8 * len(items))
        return farm and not (site and _references(element, site))
    # A section's data table is content, whatever links stand beside it.
    return density > 0.6 and length < 2000 and not _data_beside_links(element, measures)


def _captions(container: etree._Element, measures: Measures) -> list[etree._Element]:
    """The captions and credits of pictures: ``<figcaption>``, short blocks named so
    (:data:`~convert.extract.rules.CAPTION_CLASS`) and short lines that only credit a picture
    (:data:`~convert.extract.rules.PHOTO_CREDIT`). They describe a picture the Markdown shows
    only by its address, and credit its photographer: not the text. A numbered caption
    (:data:`~convert.extract.rules.NUMBERED_CAPTION`, "Figure 1: ...") is the text's own."""
    found = []
    # A code block, and what holds it, is never a picture's credit ("x: https://a.com/b").
    code = {element for pre in container.iter("pre") for element in pre.iter()}
    code.update(above for pre in container.iter("pre") for above in pre.iterancestors())
    for element in container.iter(*rules.CAPTION_TAGS):
        length = measures.length(element)
        if element is container or length > rules.CAPTION_MAX or element in code:
            continue
        if element.tag in rules.CAPTION_HEADINGS and not any(
            ancestor.tag == "figure" for ancestor in element.iterancestors()
        ):
            continue
        if rules.NUMBERED_CAPTION.match(text_of(element)):
            continue  # "Figure 1: ...": the text refers to it
        names = f"{element.get('class', '')} {element.get('id', '')}".lower()
        if (
            element.tag == "figcaption"
            or rules.CAPTION_CLASS.search(names)
            or (length <= rules.PHOTO_CREDIT_MAX and rules.PHOTO_CREDIT.search(text_of(element)))
        ):
            found.append(element)
    return found
