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
from convert.extract.comment_items import inside, items_of, tidy, write_comment
from convert.extract.measures import copy_element
from convert.extract.posts import POST_MARK
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
        and bool(items_of(element))
    )


def thread_in_comments(
    body: etree._Element, sections: list[tuple[etree._Element, etree._Element]]
) -> bool:
    """Whether every post of the page's thread sits in one comment section (a forum named so,
    or a short post's comments read as a thread)."""
    posts = body.xpath(f".//@{POST_MARK}/..")
    return bool(posts) and any(
        all(inside(post, section) for post in posts) for section, _ in sections
    )


def take_comments(
    body: etree._Element, sections: list[tuple[etree._Element, etree._Element]], *, forum: bool
) -> list[etree._Element]:
    """Detach the comment sections (:func:`comment_sections`) from ``body`` and return their
    copies. On a ``forum``, the discussion is the content: the sections stay (forum software
    names its posts and their blocks "comment"), unless they are the short comments under a
    Q&A site's question and answers (:func:`_comments_under_posts`). On any other page, posts
    inside a comment
    section are a short article's comments: they lose the mark and go with it. A section that
    holds only some of a thread's posts is part of the thread, and stays; one that holds none
    goes (posts found in a page's teasers or widgets do not make its comments a thread's)."""
    posts = body.xpath(f".//@{POST_MARK}/..")
    if forum:
        sections = [(section, copy) for section, copy in sections if holds_comments(section)]
        if not _comments_under_posts(body, [section for section, _ in sections], posts):
            return []
    taken = []
    for section, copy in sections:
        held = [post for post in posts if inside(post, section)]
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


def _comments_under_posts(
    body: etree._Element, sections: list[etree._Element], posts: list[etree._Element]
) -> bool:
    """Whether a forum's comment sections that hold comment items are comments on its posts,
    not the posts: each sits in a post of the thread and holds less than
    :data:`~convert.extract.rules.POST_BODY_SHARE` of its text; with no thread found, together
    they hold less than :data:`~convert.extract.rules.FORUM_COMMENTS_SHARE` of the page's."""
    if not sections:
        return False
    if posts:
        return all(
            any(
                inside(section, post)
                and len(text_of(section)) < rules.POST_BODY_SHARE * len(text_of(post))
                for post in posts
            )
            for section in sections
        )
    held = sum(len(text_of(section)) for section in sections)
    return held < rules.FORUM_COMMENTS_SHARE * len(text_of(body))


def comment_count(sections: list[etree._Element]) -> int:
    """How many comments the sections hold: their items, else one a section with text."""
    return sum(len(items_of(section)) or 1 for section in sections)


def comments_section(sections: list[etree._Element], heading: str) -> etree._Element:
    """One ``<section>`` under ``heading`` holding every comment, in document order, each
    ``**author** · date`` (where the page shows them) over its text; a section whose items are
    not told apart is given back whole, less its controls and pictures. To be put after the
    main content."""
    out = lxml.html.Element("section", {"class": COMMENTS_CLASS})
    title = etree.SubElement(out, "h2")
    title.text = heading
    for section in sections:
        items = items_of(section)
        if not items:
            tidy(section)
            for announce in list(section.iter(*rules.HEADING_TAGS)):
                if rules.COMMENT_HEADING.match(text_of(announce)):
                    drop(announce)  # "12 Comments": the section's own heading says it
            section.tail = None
            out.append(section)
            continue
        for item in items:
            out.append(write_comment(item, items))
    return out


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
    """Whether the section's comment items (:func:`~convert.extract.comment_items.items_of`)
    hold most of its text, less its reply form: a list of comments, wherever the page's source
    puts it (some put it before the article, in a column of its own), and not a wrapper around
    the article named after its comments."""
    items = items_of(section)
    if not items:
        return False
    held = sum(len(text_of(item)) for item in items if not any(inside(item, o) for o in items))
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
