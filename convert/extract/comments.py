"""Readers' comments under an article: found and taken out of the page before its main content is
chosen, and, when asked, given back after it as a section of their own.

Comments are not an article's content, however long the discussion (a comment section often
outweighs a short post, and its items are often ``<article>`` elements, so neither size nor tags
tell it from the article). A comment section is told by what names it and where it stands:

- its class or id has a word that names comments (:data:`~convert.extract.rules.COMMENT_WORDS`:
  ``comments``, ``commentlist``, ``kommentare``, ``disqus``...), or schema.org marks it
  (``itemprop="comment"``, a ``Comment`` or ``UserComments`` item);
- it stands after the article has begun (it does not hold the page's ``<h1>``, and at least
  :data:`~convert.extract.rules.COMMENT_LEAD_PROSE` characters of paragraphs come before it), or
  it is made of comments wherever it stands: its items, named as comments, hold most of its text.

The outermost such elements are the sections. On a thread (a forum or Q&A page that starts with
its first post, :mod:`convert.extract.posts`), there are no comments: the posts are the content.

Each comment keeps the author and date line :func:`~convert.extract.posts.attribute_posts`
wrote at its top (the items of a comment list name their authors alike, as a thread's posts do),
so a section given back reads ``**author** · date`` then the comment.
"""

from __future__ import annotations

import re

import lxml.html
from lxml import etree

from convert.extract import rules
from convert.extract.measures import copy_element
from convert.extract.posts import ATTRIBUTION_CLASS, POST_MARK
from convert.html.document import drop, text_of

_SPLIT = re.compile(r"[^a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
COMMENTS_CLASS = "pagecast-comments"
"""The class of the section Pagecast writes to give the comments back."""


def comment_sections(
    body: etree._Element, words: tuple[str, ...] = rules.COMMENT_WORDS
) -> list[tuple[etree._Element, etree._Element]]:
    """The comment sections of ``body`` in document order (the elements ``words`` name), each
    with a copy of itself as it is now: call before the thread pass writes its attribution
    lines, which take the authors' and dates' elements away."""
    return [(section, copy_element(section)) for section in _sections(body, words)]


def holds_comments(element: etree._Element) -> bool:
    """Whether ``element`` is a section of readers' comments that holds some: named so
    (:data:`~convert.extract.rules.COMMENT_WORDS`, schema.org), with comment items in it."""
    return (
        element.tag in rules.COMMENT_SECTION_TAGS
        and _names_comments(element, rules.COMMENT_WORDS)
        and bool(_items(element))
    )


def thread_in_comments(
    body: etree._Element, sections: list[tuple[etree._Element, etree._Element]]
) -> bool:
    """Whether every post of the page's thread sits in one comment section (a forum named so,
    or a short post's comments read as a thread)."""
    posts = body.xpath(f".//@{POST_MARK}/..")
    return bool(posts) and any(
        all(_inside(post, section) for post in posts) for section, _ in sections
    )


def take_comments(
    body: etree._Element, sections: list[tuple[etree._Element, etree._Element]], *, forum: bool
) -> list[etree._Element]:
    """Detach the comment sections (:func:`comment_sections`) from ``body`` and return their
    copies. On a ``forum``, the discussion is the content: every section stays (forum software
    names its posts and their blocks "comment"). On any other page, posts inside a comment
    section are a short article's comments: they lose the mark and go with it. A section that
    holds only some of a thread's posts is part of the thread, and stays; one that holds none
    goes (posts found in a page's teasers or widgets do not make its comments a thread's)."""
    if forum:
        return []
    posts = body.xpath(f".//@{POST_MARK}/..")
    taken = []
    for section, copy in sections:
        held = [post for post in posts if _inside(post, section)]
        if held and len(held) < len(posts):
            continue  # the thread's own blocks, or a part of the thread
        for post in held:
            del post.attrib[POST_MARK]
        parent = section.getparent()
        if parent is not None:
            _keep_tail(section)
            parent.remove(section)
            taken.append(copy)
    return taken


def comment_count(sections: list[etree._Element]) -> int:
    """How many comments the sections hold: their items, else one a section with text."""
    return sum(len(_items(section)) or 1 for section in sections)


def comments_section(sections: list[etree._Element], heading: str) -> etree._Element:
    """One ``<section>`` under ``heading`` holding every comment, in document order, each
    ``**author** · date`` (where the page shows them) over its text; a section whose items are
    not told apart is given back whole, less its controls and pictures. To be put after the
    main content."""
    out = lxml.html.Element("section", {"class": COMMENTS_CLASS})
    title = etree.SubElement(out, "h2")
    title.text = heading
    for section in sections:
        items = _items(section)
        if not items:
            _tidy(section)
            section.tail = None
            out.append(section)
            continue
        for item in items:
            out.append(_comment(item, items))
    return out


def _items(section: etree._Element) -> list[etree._Element]:
    """The comments of a section, nested replies included, in document order: the elements its
    markup names a comment (an id ``comment-123``, a class ``comment``...). An element named
    after the same comment as the item around it (``li#comment-12 > div#div-comment-12``) is
    that comment's body, not a reply."""
    named = [
        element
        for element in section.iter()
        if isinstance(element.tag, str)
        and element is not section
        and element.tag not in rules.COMMENT_NOISE_TAGS
        and (
            rules.COMMENT_ITEM_ID.search(element.get("id", ""))
            or any(
                rules.COMMENT_ITEM_CLASS.match(name) for name in element.get("class", "").split()
            )
            or element.get("itemprop") in rules.COMMENT_ITEMPROPS
        )
        and not _inside_any(element, section, rules.COMMENT_CONTENT_CLASS)
    ]
    items: list[etree._Element] = []
    for element in named:
        number = _number(element)
        around = next((item for item in reversed(items) if _inside(element, item)), None)
        if around is not None and (
            number == _number(around) if number is not None else not _alike(element, around)
        ):
            continue  # the body of the comment around it
        items.append(element)
    return items


def _alike(element: etree._Element, around: etree._Element) -> bool:
    """Whether an element without a comment number is made as the comment around it (the same
    tag and a class of it): a reply nested in it (``li.comment > ul > li.comment``), not its
    body."""
    classes = set(around.get("class", "").split())
    return element.tag == around.tag and bool(classes & set(element.get("class", "").split()))


def _number(element: etree._Element) -> str | None:
    """The comment number in an element's id ("comment-8354" -> "8354")."""
    found = rules.COMMENT_NUMBER.search(element.get("id", ""))
    return found.group(0) if found else None


def _inside_any(element: etree._Element, section: etree._Element, names: re.Pattern[str]) -> bool:
    """Whether an ancestor of ``element`` below ``section`` has a class ``names`` matches."""
    for ancestor in element.iterancestors():
        if ancestor is section:
            return False
        if _has_class(ancestor, names):
            return True
    return False


def _has_class(element: etree._Element, names: re.Pattern[str]) -> bool:
    """Whether one of the element's classes matches ``names`` from its start."""
    return any(names.match(name) for name in element.get("class", "").split())


def _comment(item: etree._Element, items: list[etree._Element]) -> etree._Element:
    """One comment as Pagecast writes it: its author and date, then its own text (without the
    replies nested in it): the element its markup names the comment's text, else the item less
    its replies, its author and date line and its controls."""
    nested = [other for other in items if other is not item and _inside(other, item)]
    own = [element for element in item.iter() if not any(_inside(element, n) for n in nested)]
    author, date = _author(own), _date(own)
    out = lxml.html.Element("div")
    if author or date:
        line = etree.SubElement(out, "p", {"class": ATTRIBUTION_CLASS})
        strong = etree.SubElement(line, "strong")
        strong.text = author or "Anonymous"
        if date:
            strong.tail = f" · {date}"
    body = next(
        (
            element
            for element in own
            if _has_class(element, rules.COMMENT_CONTENT_CLASS)
            or element.get("itemprop") in ("text", "commentText")
        ),
        None,
    )
    if body is not None and not any(_inside(other, body) for other in nested):
        for title in _titles(own, body):
            line = etree.SubElement(out, "p")
            etree.SubElement(line, "strong").text = title
        copy = _own_text(body, [])  # less an author and date line it may hold
    else:
        copy = _own_text(item, nested)
    _tidy(copy)
    copy.tail = None
    if copy.tag == "li":
        copy.tag = "div"  # one comment of its list, not a list item of its own
    out.append(copy)
    return out


def _titles(own: list[etree._Element], body: etree._Element) -> list[str]:
    """The title a commenter gave the comment: a heading of the comment outside its text."""
    return [
        text
        for element in own
        if element.tag in rules.COMMENT_TITLE_TAGS
        and not _inside(element, body)
        and 0 < len(text := text_of(element)) <= rules.COMMENT_TITLE_MAX_CHARS
    ]


def _own_text(item: etree._Element, nested: list[etree._Element]) -> etree._Element:
    """A copy of ``item`` without its replies and the lines that name its author or date."""
    skipped = set(nested)
    skipped.update(
        element
        for element in item.iter()
        if element is not item
        and (
            _has_class(element, rules.COMMENT_AUTHOR_CLASS)
            or _has_class(element, rules.COMMENT_META_CLASS)
            or element.get("itemprop") == "author"
            or element.tag in rules.COMMENT_ATTRIBUTION_TAGS
        )
        and len(text_of(element)) <= rules.COMMENT_AUTHOR_MAX_CHARS * 4
        and not _holds_saying(element)
    )
    copy = copy_element(item)
    for original, copied in zip(list(item.iter()), list(copy.iter()), strict=True):
        if original in skipped and copied.getparent() is not None:
            drop(copied)
    return copy


def _holds_saying(element: etree._Element) -> bool:
    """Whether an author or date line holds a paragraph of the comment itself (a theme that
    puts the text inside its author block): a paragraph without the name or date in it. Only
    the attribution inside it goes then."""
    for block in element.iter(*rules.COMMENT_SAYING_TAGS):
        text = text_of(block)
        linked = "".join(text_of(link) for link in block.iter("a"))
        if block is element or not text or len(linked) >= len(text) / 2:
            continue  # empty, or a control ("Reply")
        if not any(
            _has_class(inner, rules.COMMENT_AUTHOR_CLASS)
            or inner.tag in rules.COMMENT_ATTRIBUTION_TAGS
            for inner in block.iter()
        ):
            return True
    return False


def _author(own: list[etree._Element]) -> str:
    for element in own:
        if element.get("itemprop") == "author" or _has_class(element, rules.COMMENT_AUTHOR_CLASS):
            named = element.find('.//*[@class="fn"]')
            text = text_of(named if named is not None else element)
            text = rules.SAYS.sub("", text).strip()
            if 0 < len(text) <= rules.COMMENT_AUTHOR_MAX_CHARS:
                return text
    return ""


def _date(own: list[etree._Element]) -> str:
    """The comment's date: a ``<time>`` or an element named a date, else its meta line (which
    may hold more than the date)."""
    dated = [
        element
        for element in own
        if element.tag == "time"
        or any(rules.DATE_CLASS.search(name) for name in element.get("class", "").split())
    ]
    for element in dated + [e for e in own if _has_class(e, rules.COMMENT_META_CLASS)]:
        text = text_of(element) or element.get("datetime", "")
        if text and len(text) <= rules.DATE_MAX_CHARS and rules.DATE_WORDS.search(text):
            return text
    return ""


def _tidy(element: etree._Element) -> None:
    """Drop what a comment shows beside its text: pictures (avatars), controls, forms, and the
    short links that reply, like or report."""
    for child in list(element.iter(*rules.COMMENT_NOISE_TAGS)):
        if child is not element and child.getparent() is not None:
            drop(child)
    for link in list(element.iter("a")):
        if link.getparent() is not None and rules.COMMENT_ACTION.match(text_of(link)):
            drop(link)
    for block in list(element.iter()):
        text = text_of(block)
        if block is not element and text and rules.COMMENT_SEPARATORS.match(text):
            drop(block)  # what stood between the controls gone


def _sections(body: etree._Element, words: tuple[str, ...]) -> list[etree._Element]:
    """The outermost comment sections that stand after the article's start: at least
    :data:`~convert.extract.rules.COMMENT_LEAD_PROSE` characters of prose before them (text
    outside links and outside the page's navigation, header, footer and forms)."""
    found: list[etree._Element] = []
    aside = _not_prose(body)
    taken: set[etree._Element] = set()  # inside a section found
    prose = 0
    for element in body.iter():
        if not isinstance(element.tag, str) or element is body or element in taken:
            continue
        if element not in aside:
            prose += len((element.text or "").strip())
        if element.tail and element.getparent() not in aside:
            prose += len(element.tail.strip())
        if (
            element.tag in rules.COMMENT_SECTION_TAGS
            and _names_comments(element, words)
            and element.find(".//h1") is None
            and (prose >= rules.COMMENT_LEAD_PROSE or _made_of_comments(element))
            and text_of(element)
        ):
            found.append(element)
            taken.update(element.iter())
    return found


def _made_of_comments(section: etree._Element) -> bool:
    """Whether the section's comment items (:func:`_items`) hold most of its text: a list of
    comments, wherever the page's source puts it (some put it before the article, in a column
    of its own), and not a wrapper around the article named after its comments."""
    items = _items(section)
    if not items:
        return False
    held = sum(len(text_of(item)) for item in items if not any(_inside(item, o) for o in items))
    form = sum(len(text_of(element)) for element in section.iter("form"))  # the reply form
    return held >= rules.COMMENT_ITEMS_SHARE * (len(text_of(section)) - form)


def _not_prose(body: etree._Element) -> set[etree._Element]:
    """The elements whose own text is not an article's prose: links, controls, and everything in
    the page's navigation, header, footer, asides and forms."""
    found: set[etree._Element] = set()
    for element in body.iter(*rules.NOT_PROSE_TAGS):
        if element not in found:
            found.update(element.iter())
    return found


def _names_comments(element: etree._Element, words: tuple[str, ...]) -> bool:
    """Whether the element's class or id has a word starting with one of ``words``, or
    schema.org marks it a comment."""
    if element.get("itemprop") in rules.COMMENT_ITEMPROPS:
        return True
    itemtype = element.get("itemtype") or ""
    if itemtype and any(itemtype.endswith(kind) for kind in rules.COMMENT_ITEMTYPES):
        return True
    names = f"{element.get('class', '')} {element.get('id', '')}"
    lowered = names.lower()
    if not any(word in lowered for word in words):
        return False  # no word of a name can start with one
    named = _SPLIT.split(_CAMEL.sub("-", names).lower())
    if any(word in rules.NOT_COMMENT_WORDS for word in named):
        return False
    return any(word.startswith(words) for word in named if word)


def _inside(element: etree._Element, section: etree._Element) -> bool:
    return any(ancestor is section for ancestor in element.iterancestors())


def _keep_tail(element: etree._Element) -> None:
    """Give the element's tail (the text after it) to what precedes it, before it goes."""
    if not element.tail:
        return
    previous = element.getprevious()
    if previous is not None:
        previous.tail = (previous.tail or "") + element.tail
    else:
        parent = element.getparent()
        if parent is not None:
            parent.text = (parent.text or "") + element.tail
    element.tail = None
