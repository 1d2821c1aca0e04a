"""Who said what in a thread: each post of a forum or Q&A page gets a line with its author and,
where the page shows it, its date, so that a reader of the Markdown (an LLM) can tell the
speakers apart.

Forum software puts the author in a user panel beside the post (avatar, title, post count) that
main-content extraction removes as furniture, and the date in a header it may drop too. Before
extraction, this pass finds the author markers (``itemprop="author"``, class names such as
``username`` or ``author``, in :data:`convert.extract.rules.AUTHOR_CLASS`), takes each one's
post to be the largest element holding that marker and no other, and when at least two posts
with alike markers (same tag and first class name) are found, writes ``**author** · date`` at
the top of each and removes the marker and the date element it copied, so they are not said
twice.

When the page starts with its first post (no article before it), the posts are a thread and are
marked (:data:`POST_MARK`): extraction then keeps every one of them, whatever their names.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from functools import lru_cache

import lxml.html
from lxml import etree

from convert.extract import rules
from convert.html.attributes import class_values, elements_with
from convert.html.document import drop, text_of

POST_MARK = "data-pagecast-post"
"""The attribute marking the posts of a thread: extraction keeps them all, whatever their names
(forum software names replies "comment")."""
ATTRIBUTION_CLASS = "pagecast-speaker"
"""The class of the inserted line (a ``<p>``), named so that no boilerplate rule matches it."""


def attribute_posts(body: etree._Element) -> int:
    """Write an attribution line at the top of every post of a thread in ``body``, in place.
    Returns how many posts were attributed (0: the page is not a thread)."""
    classes = class_values(body)
    _forget_own_marks(body, classes)
    markers = _author_markers(body, classes)
    if len(markers) < rules.THREAD_MIN_POSTS:
        return 0
    posts = _posts(markers)
    # The posts of a thread name their authors alike; an article's byline and author box, or
    # its byline and its comments' authors, do not.
    groups: dict[tuple[str, str], list[tuple[etree._Element, etree._Element]]] = defaultdict(list)
    for marker, post in posts:
        family = next(iter(marker.get("class", "").split()), "")  # its first class name
        groups[(str(marker.tag), family)].append((marker, post))
    if not groups:
        return 0
    thread = max(groups.values(), key=len)
    if len(thread) < rules.THREAD_MIN_POSTS:
        return 0
    is_thread = _leads(body, thread[0][1])
    for marker, post in thread:
        _attribute(post, marker)
        if is_thread:
            post.set(POST_MARK, "")
    return len(thread)


def _forget_own_marks(body: etree._Element, classes: set[str]) -> None:
    """Remove the marks this pass writes from a page that carries them itself: a page must not
    make extraction keep its blocks, or pass its text for an attribution line. ``classes``:
    the distinct class values of ``body``, kept true."""
    for element in body.xpath(f".//@{POST_MARK}/.."):
        del element.attrib[POST_MARK]
    if ATTRIBUTION_CLASS in classes:
        for element in body.xpath(f'.//@class[. = "{ATTRIBUTION_CLASS}"]/..'):
            del element.attrib["class"]
        classes.discard(ATTRIBUTION_CLASS)


def thread_posts(body: etree._Element) -> list[etree._Element]:
    """The posts :func:`attribute_posts` marked as a thread's, in document order."""
    return list(body.xpath(f".//@{POST_MARK}/.."))


def _leads(body: etree._Element, first: etree._Element) -> bool:
    """Whether the page's content starts with its first post (a thread), rather than with an
    article the posts comment on: no more than :data:`~convert.extract.rules.THREAD_LEAD_PROSE`
    characters of paragraphs come before it."""
    prose = 0
    for element in body.iter("p", first.tag):
        if element is first:
            return True
        if element.tag == "p":
            prose += len(text_of(element))
            if prose > rules.THREAD_LEAD_PROSE:
                return False
    return True


def _author_markers(body: etree._Element, classes: set[str]) -> list[etree._Element]:
    """The outermost elements naming a post's author, with a name-like text; at most
    :data:`~convert.extract.rules.AUTHOR_MAX_CANDIDATES` elements are read (each read costs its
    subtree, and a hostile page can nest thousands). ``classes``: the distinct class values of
    ``body``."""
    found: list[etree._Element] = []
    inside: set[etree._Element] = set()
    candidates = 0
    for element in _maybe_authors(body, classes):
        if element in inside:
            continue
        if element.get("itemprop") == "author" or _named_author(element):
            candidates += 1
            if candidates > rules.AUTHOR_MAX_CANDIDATES:
                break
            name = _author_name(element)
            if 0 < len(name) <= rules.AUTHOR_MAX_CHARS:
                found.append(element)
                inside.update(element.iter())
    return found


_HINT_CASE = str.maketrans(
    "".join(sorted({c.upper() for c in "".join(rules.AUTHOR_HINTS)})),
    "".join(sorted({c for c in "".join(rules.AUTHOR_HINTS)})),
)
"""The letters of :data:`~convert.extract.rules.AUTHOR_HINTS` in upper case to lower case, and
no other."""


def _maybe_authors(body: etree._Element, classes: set[str]) -> list[etree._Element]:
    """The elements that may mark an author, in document order: an ``itemprop`` that says so,
    or a class value holding one of :data:`~convert.extract.rules.AUTHOR_HINTS` that names an
    author (:func:`_author_class`), each distinct value judged once."""
    names = tuple(sorted(value for value in classes if _hinted_author(value)))
    return elements_with(body, (("itemprop", ("author",)), ("class", names)))


def _hinted_author(names: str) -> bool:
    lowered = names.translate(_HINT_CASE)
    return any(hint in lowered for hint in rules.AUTHOR_HINTS) and _author_class(names)


def _named_author(element: etree._Element) -> bool:
    names = element.get("class")
    return bool(names) and _author_class(names)


@lru_cache(maxsize=4096)
def _author_class(names: str) -> bool:
    """Whether a ``class`` value names a post's author (asked once per value: a page repeats
    a few hundred values over thousands of elements)."""
    return (
        rules.AUTHOR_HINT.search(names) is not None  # one search, before one per class
        and any(rules.AUTHOR_CLASS.search(token) for token in names.split())
    )


def _author_name(marker: etree._Element) -> str:
    """The name in an author marker: its ``itemprop="name"``, else its first link (a profile
    link beside a reputation score), else all its text."""
    named = marker.find('.//*[@itemprop="name"]')
    if named is None and marker.tag != "a":
        named = next((link for link in marker.iter("a") if text_of(link)), None)
    return text_of(named if named is not None else marker)


def _posts(markers: list[etree._Element]) -> list[tuple[etree._Element, etree._Element]]:
    """Each marker with its post: the largest ancestor that holds no other marker."""
    counts: Counter[etree._Element] = Counter()
    for marker in markers:
        for ancestor in marker.iterancestors():
            counts[ancestor] += 1
    posts = []
    for marker in markers:
        post = None
        for ancestor in marker.iterancestors():
            if counts[ancestor] > 1 or ancestor.tag in ("body", "html"):
                break
            post = ancestor
        if post is not None and len(text_of(post)) - len(text_of(marker)) >= rules.POST_MIN_TEXT:
            posts.append((marker, post))
    return posts


def _attribute(post: etree._Element, marker: etree._Element) -> None:
    author = _author_name(marker)
    stamp = _date_of(post, marker)
    line = lxml.html.Element("p", {"class": ATTRIBUTION_CLASS})
    strong = etree.SubElement(line, "strong")
    strong.text = author
    if stamp is not None:
        strong.tail = f" · {_date_text(stamp)}"
        if len(text_of(stamp)) <= rules.DATE_MAX_CHARS:
            drop(stamp)  # else the date came from an attribute: the text stays
    drop(marker)
    target = post
    if post.tag in ("tr", "tbody", "table"):  # a table-laid forum: the first cell
        target = next(post.iter("td", "th"), post)
    target.insert(0, line)
    line.tail, target.text = target.text, None


def _date_of(post: etree._Element, marker: etree._Element) -> etree._Element | None:
    """The post's date: its first ``<time>``, else a short element named like a date."""
    skip = set(marker.iter())
    skip.add(post)  # a post named like a date is not its own date
    for element in post.iter("time"):
        if element not in skip and _date_text(element):
            return element
    for element in post.iter():
        if element in skip or not isinstance(element.tag, str):
            continue
        names = element.get("class", "")
        if names and any(rules.DATE_CLASS.search(token) for token in names.split()):
            text = text_of(element)
            if text and len(text) <= rules.DATE_MAX_CHARS and rules.DATE_WORDS.search(text):
                return element
    return None


def _date_text(element: etree._Element) -> str:
    text = text_of(element)
    if text and len(text) <= rules.DATE_MAX_CHARS:
        return text
    return (element.get("datetime") or element.get("title") or "")[: rules.DATE_MAX_CHARS]
