"""Main-content extraction: find the article in a cleaned document and strip the boilerplate
around and inside it (navigation, headers, footers, sidebars, consent and newsletter boxes, share
bars, comments, related links).

The approach, in order:

1. Page furniture is removed everywhere: ``nav``, ``aside``, page-level ``header``/``footer``,
   ARIA landmarks that are not content, consent-manager containers, forms and buttons, and blocks
   whose class or id names say what they are (``comments``, ``newsletter``, ``share``,
   ``related``, ``sidebar``, ``breadcrumb``, ``ad-slot``...), unless the block holds the article.
2. The container: a semantic one when the page has it (``itemprop=articleBody``, the one
   ``<article>`` that holds most of the text, ``<main>``), else the element with the best score
   in a readability-style scoring of its paragraphs (text length, commas, link density, class
   names), widened to siblings that score well too.
3. Inside the container, link farms and short boilerplate blocks are removed, and the page's
   headline is put back in front when it sat outside the container.
4. If what is left is near-empty while the page has text, the whole (de-furnished) body is used
   and the result says so.

Text lengths, link text and the tags an element holds are measured once per element, bottom up,
and kept until the tree changes (:class:`Measures`): every step asks about many elements and
their ancestors, and reading each one's text anew would make deep or large pages quadratic.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import NamedTuple

import lxml.html
from cssselect import SelectorError, parse
from cssselect import parser as css
from lxml import etree
from lxml.cssselect import CSSSelector

from browser.consent import BANNERS
from convert.document import body_of, drop, text_of

# Class/id fragments that mark boilerplate: matched anywhere in the name ("relatedPosts").
_NEGATIVE_PARTS = (
    "comment",
    "disqus",
    "share",
    "sharing",
    "social",
    "related",
    "recommend",
    "newsletter",
    "subscribe",
    "signup",
    "sign-up",
    "sidebar",
    "breadcrumb",
    "cookie",
    "consent",
    "gdpr",
    "promo",
    "sponsor",
    "advert",
    "outbrain",
    "taboola",
    "trending",
    "popular",
    "most-read",
    "mostread",
    "paywall",
    "pagination",
    "navbar",
    "widget",
    "toolbar",
    "masthead",
    "footer",
    "author-bio",
    "authorbio",
    "about-author",
    "author-box",
    "authorbox",
    "more-from",
    "morefrom",
    "read-more",
    "readmore",
    "jump-to",
    "skip-link",
    "feedback",
    "helpful",
    "carousel",
    "also-bought",
    "alsobought",
    "bought-together",
    "upsell",
    "cross-sell",
    "signature",
    "newsflash",
    "ticker",
    "disclosure",
    "noprint",
    "sitenotice",
    "site-notice",
    "affiliate",
    "avatar",
    "userdetails",
    "user-details",
    "userextras",
    "userinfo",
    "user-info",
    "usercard",
    "user-card",
    "message-user",
    "postprofile",
    "reactions",
    "actionbar",
    "action-bar",
    "attribution",
)
_NEGATIVE_PART = re.compile("|".join(re.escape(part) for part in _NEGATIVE_PARTS))
# Class/id words that mark boilerplate only as whole words ("ad", not "header" or "read").
_NEGATIVE_WORDS = frozenset(
    {
        "ad",
        "ads",
        "adslot",
        "advertisement",
        "nav",
        "menu",
        "tags",
        "tag",
        "taglist",
        "bio",
        "toc",
        "rating",
        "ratings",
        "reviews",
        "review",
        "modal",
        "popup",
        "overlay",
        "skip",
        "print",
        "votes",
        "vote",
        "byline",
        "meta",
        "breadcrumbs",
        "crumb",
        "crumbs",
        "aside",
        "banner",
        "hero-nav",
        "sr",
        "prevnext",
        "pager",
        "edit",
        "editsection",
        "navbox",
    }
)
_POSITIVE_WORDS = frozenset(
    {
        "article",
        "content",
        "entry",
        "post",
        "story",
        "body",
        "main",
        "text",
        "prose",
        "markdown",
        "recipe",
        "blog",
        "hentry",
        "answer",
        "question",
        "readme",
        "articlebody",
        "page",
    }
)
_WORDS = re.compile(r"\w+")
_SPLIT = re.compile(r"[^a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_NOT_CONTENT_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "search", "dialog", "alertdialog"}
)
_FURNITURE_TAGS = ("nav", "aside", "form", "button", "select", "input", "textarea", "label")
_BLOCKS = ("div", "section", "ul", "ol", "dl", "table", "p", "span", "figure", "header", "footer")
_BLOCK_CHILDREN = frozenset(
    {
        "div",
        "p",
        "ul",
        "ol",
        "dl",
        "table",
        "pre",
        "section",
        "article",
        "blockquote",
        "figure",
        "header",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "main",
        "aside",
        "nav",
    }
)
_COMMAS = (",", "\uff0c", "\u3001")
"""Commas count as a sign of prose: the Latin one and the CJK full-width and ideographic ones."""
_SCORED = ("p", "pre", "td", "blockquote", "li", "dd", "h2", "h3")
_BOILERPLATE_TEXT = re.compile(
    r"^(share( this( article| post| story)?)?|advertisement|sponsored|read more|related( posts|"
    r" articles| stories)?|was this (page|article) helpful\??|print( this)?( page| recipe)?|"
    r"tweet|pin( it)?|email|follow us|sign up|subscribe|\W*back to (the )?[\w ]{1,40}|"
    r"jump to (recipe|comments|navigation|search|(main )?content)|"
    r"print recipe|skip to (main )?content|back to top|\d+ comments?|leave a (comment|reply)|"
    r"view (all|more|earlier|older)( \w+)?|see (all|more)( \w+)?|show more|load more|"
    r"(older|newer) (posts|entries)|(next|previous) (post|article|story|page)|"
    r"loading\W*|cookies?|accept( all)?( cookies)?)\W*$",
    re.I,
)
_EDIT_LINK = re.compile(
    r"edit (this page|on github|this article)|improve this (page|doc)|suggest an edit|"
    r"view (page )?source|log in or register|sign in to (reply|comment)|"
    r"you must (log|be logged) in",
    re.I,
)
_BOILERPLATE_HEADING = re.compile(
    r"^(\d+\s+)?(comments?|responses?|replies|discussion|community q ?& ?a|questions? (and|&) "
    r"answers?|related(\s+\w+)?|you (may|might) also like|more (from|like this|stories|"
    r"articles|to read)|recommended( for you)?|popular( posts)?|most (read|popular)|trending|"
    r"(customer |user )?reviews|leave a (reply|comment)|share this( \w+)?|about the author|"
    r"newsletter|follow us|kommentare|commentaires|comentarios)\W*$",
    re.I,
)
_CITATION = re.compile(r"^\[(\d+|[a-z]|citation needed)\]$", re.I)
_SIGNUP_WORDS = re.compile(r"subscribe|sign up|newsletter|abonnieren|s'inscrire|suscrib", re.I)
_TEASER = re.compile(
    r"^(read (more|next|also)|related( stories| articles| posts| reading)?|see also|also read|"
    r"more on this( story)?|recommended( for you)?|further reading|you might also like|"
    r"lesen sie auch|mehr zum thema|à lire aussi|lire aussi|lee también)\s*[:\u203a\u00bb]",
    re.I,
)
_XML_SPACE = re.compile(r"[ \t\r\n]+")
SMALL_BLOCK = 200
"""Characters below which a block named both as content and as boilerplate is boilerplate."""
MIN_TEXT = 200
"""Characters below which an extraction is near-empty (when the page has more than that)."""


_HELD = {"article": 1, "main": 2, "h1": 4, "img": 8}
"""The tags :meth:`Measures.holds` answers for, as bits."""


class _Measure(NamedTuple):
    """One element's text (``text_content()``, whitespace not yet collapsed) as far as its
    collapsed length needs it, what links hold of it and what the element contains; or the same
    for a stretch of raw text (no links, nothing below)."""

    chars: int
    """Characters that are not whitespace."""
    words: int
    """Runs of such characters; the collapsed text has one space between two of them."""
    starts: bool | None
    """Whether the text starts with a non-space (None: the text is empty)."""
    ends: bool
    """Whether it ends with one."""
    commas: int
    linked: int = 0
    """The collapsed length of the text of every link in ``iter("a")`` (itself included)."""
    links: int = 0
    """The ``<a>`` elements in ``iter("a")``."""
    below: int = 0
    """The bits of :data:`_HELD` for the tags of its descendants (not its own)."""


_NO_TEXT = _Measure(0, 0, None, False, 0)


def _run(text: str | None) -> _Measure:
    """A stretch of raw text (a ``.text`` or ``.tail``)."""
    if not text:
        return _NO_TEXT
    words = text.split()
    if not words:
        return _Measure(0, 0, False, False, 0)
    commas = text.count(",") + text.count("\uff0c") + text.count("\u3001")  # the _COMMAS
    return _Measure(
        len("".join(words)), len(words), not text[0].isspace(), not text[-1].isspace(), commas
    )


class Measures:
    """Lengths of elements' whitespace-collapsed text (``len(text_of(element))``), the length
    of their link text and the tags they hold, each computed once for a tree, bottom up, when
    first asked for.

    An element is measured only after all its children are, so a known element has known
    children. Call :meth:`forget` before changing an element's subtree; changes to a tree with
    no forgetting need a new instance."""

    def __init__(self) -> None:
        self._known: dict[etree._Element, _Measure] = {}

    def length(self, element: etree._Element) -> int:
        """``len(text_of(element))``, without building the text."""
        measure = self._measure(element)
        return measure.chars + measure.words - 1 if measure.words else 0

    def commas(self, element: etree._Element) -> int:
        """The commas (Latin and CJK) in the element's text."""
        return self._measure(element).commas

    def linked(self, element: etree._Element) -> int:
        """The summed text lengths of the links in ``element.iter("a")``."""
        return self._measure(element).linked

    def links(self, element: etree._Element) -> int:
        """The number of links in ``element.iter("a")``."""
        return self._measure(element).links

    def holds(self, element: etree._Element, tag: str) -> bool:
        """Whether a descendant of ``element`` is a ``tag`` (one of :data:`_HELD`)."""
        return bool(self._measure(element).below & _HELD[tag])

    def copy(self, element: etree._Element) -> etree._Element:
        """A deep copy of ``element`` without its tail, with what is known of ``element`` and
        its descendants known of their copies."""
        clone = _copy(element)
        known = self._known
        for original, twin in zip(element.iter(), clone.iter(), strict=True):
            found = known.get(original)
            if found is not None:
                known[twin] = found
        return clone

    def forget(self, element: etree._Element) -> None:
        """Drop what is known of ``element`` and of its ancestors, before it changes."""
        self._known.pop(element, None)
        for ancestor in element.iterancestors():
            if self._known.pop(ancestor, None) is None:
                break  # not known, so neither are the ancestors above it

    def _measure(self, element: etree._Element) -> _Measure:
        known = self._known
        found = known.get(element)
        if found is not None:
            return found
        # The unknown part of the subtree, parents before children, with an explicit stack
        # (trees can be thousands of levels deep); then measured children first.
        order: list[etree._Element] = []
        pending = [element]
        while pending:
            node = pending.pop()
            order.append(node)
            pending.extend(c for c in node if isinstance(c.tag, str) and c not in known)
        for node in reversed(order):
            known[node] = self._tally(node)
        return known[element]

    def _tally(self, element: etree._Element) -> _Measure:
        """Measure ``element`` from its own text, its children's measures and their tails."""
        known = self._known
        linked = links = below = 0
        runs = [_run(element.text)]
        for child in element:
            if isinstance(child.tag, str):
                inner = known[child]
                runs.append(inner)
                linked += inner.linked
                links += inner.links
                below |= inner.below | _HELD.get(child.tag, 0)
            if child.tail:
                runs.append(_run(child.tail))
        chars = words = commas = 0
        starts: bool | None = None
        ends = False
        for run in runs:
            if run.starts is None:
                continue
            if starts is None:
                starts = run.starts
            elif ends and run.starts:
                words -= 1  # one word across the seam
            chars += run.chars
            words += run.words
            ends = run.ends
            commas += run.commas
        if element.tag == "a":
            linked += chars + words - 1 if words else 0
            links += 1
        return _Measure(chars, words, starts, ends, commas, linked, links, below)


@dataclass(frozen=True)
class Extraction:
    """Where the main content came from: ``semantic`` (an article/main element), ``scored``,
    ``whole_body`` (nothing stood out) or ``fallback`` (the extraction was near-empty)."""

    method: str
    fell_back: bool


def main_content(
    root: lxml.html.HtmlElement, title: str = "", *, scoring: bool = True
) -> Extraction:
    """Reduce the cleaned document ``root`` to its main content, in place. ``title`` (the
    page's title from its metadata) tells the headline from a logo in an ``<h1>``. Without
    ``scoring``, only a semantic container is looked for, else the whole body is kept (less the
    furniture)."""
    body = body_of(root)
    measures = Measures()
    headline = _headline(body, title, measures)
    headline_copy = _copy(headline) if headline is not None else None
    snapshot = _copy(body)
    _remove_furniture(body, measures)
    measures = Measures()  # the furniture is gone: measure again
    total = len(text_of(body))
    container, method = _semantic(body, total, measures)
    if container is None and scoring:
        container, method = _scored(body, total, measures)
    if container is not None and headline is not None and headline.getparent() is not None:
        container = _with_headline(container, headline, body, measures)
    if container is not None and container is not body:
        kept = _keep(body, container, measures)
    else:
        kept, method = body, "whole_body"
    _prune_inside(kept, measures)
    if headline_copy is not None and not _contains_heading(kept, headline_copy):
        kept.insert(0, headline_copy)
    kept_text = len(text_of(kept))
    page_text = len(text_of(snapshot))
    if kept_text < MIN_TEXT and page_text > max(kept_text * 2, MIN_TEXT):
        # Near-empty: the whole body with the furniture removed, or all of it if that is empty
        # (a copy each time: moving the snapshot's children would leave nothing to fall back to).
        _replace_children(body, _copy(snapshot))
        _remove_furniture(body, Measures())
        if len(text_of(body)) < MIN_TEXT:
            _replace_children(body, _copy(snapshot))
        return Extraction("fallback", fell_back=True)
    if kept is not body:
        _replace_children(body, kept)
    return Extraction(method, fell_back=False)


# -- class and id names ---------------------------------------------------------------------


def _names(element: etree._Element) -> str:
    value = f"{element.get('class', '')} {element.get('id', '')}"
    if value == " ":
        return value  # most elements have neither
    return _CAMEL.sub("-", value).lower()


def _is_negative(element: etree._Element, measures: Measures) -> bool:
    names = _names(element)
    if not names.strip():
        return False
    words = set(_SPLIT.split(names))
    if _NEGATIVE_PART.search(names):
        return True
    if ("teaser" in names or "card" in words) and _link_density(element, measures) > 0.5:
        return True  # a teaser card links elsewhere; a "teaser" paragraph is a standfirst
    if not words & _NEGATIVE_WORDS:
        return False
    # "entry-meta", "post-tags", "recipe-rating": small blocks named after what holds them.
    return not (words & _POSITIVE_WORDS) or measures.length(element) < SMALL_BLOCK


def _class_weight(element: etree._Element) -> float:
    names = _names(element)
    if not names.strip():
        return 0.0
    words = set(_SPLIT.split(names))
    weight = 0.0
    if words & _POSITIVE_WORDS:
        weight += 25
    if _NEGATIVE_PART.search(names) or words & _NEGATIVE_WORDS:
        weight -= 25
    return weight


# -- step 1: furniture ------------------------------------------------------------------------


class _Banners:
    """The consent-manager containers :data:`browser.consent.BANNERS` names, found in one walk
    over the tree: its selectors are ids (``#x``), classes (``.x``) and id prefixes
    (``div[id^="x"]``), matched here as lxml's ``CSSSelector`` matches them but without one
    XPath pass over the whole tree per selector. Any other kind of selector in the list makes
    it use ``CSSSelector``."""

    def __init__(self, selectors: tuple[str, ...]) -> None:
        self.ids: set[str] = set()
        self.classes: set[str] = set()
        self.prefixes: list[tuple[str, str]] = []
        """(tag, id prefix); tag "*" for any element."""
        self.fallback: CSSSelector | None = None
        try:
            for selector in selectors:
                for parsed in parse(selector):
                    self._learn(parsed.parsed_tree, parsed.pseudo_element)
        except (SelectorError, ValueError):
            self.fallback = CSSSelector(", ".join(selectors))

    def _learn(self, tree: object, pseudo: object) -> None:
        inner = getattr(tree, "selector", None)
        if pseudo is not None or not isinstance(inner, css.Element) or inner.namespace is not None:
            raise ValueError(f"not a simple selector: {tree!r}")
        if isinstance(tree, css.Hash) and inner.element is None:
            self.ids.add(tree.id)
        elif (
            isinstance(tree, css.Class)
            and inner.element is None
            and not _XML_SPACE.search(tree.class_name)
        ):
            self.classes.add(tree.class_name)
        elif (
            isinstance(tree, css.Attrib)
            and (tree.namespace, tree.attrib, tree.operator, tree.flag) == (None, "id", "^=", None)
            and tree.value is not None
            and tree.value.value
        ):
            self.prefixes.append((inner.element or "*", tree.value.value))
        else:
            raise ValueError(f"not a simple selector: {tree!r}")

    def __call__(self, root: etree._Element) -> list[etree._Element]:
        """The matching elements in ``root`` (itself included), in document order."""
        if self.fallback is not None:
            return list(self.fallback(root))
        found: list[etree._Element] = []
        for element in root.iter():
            if not isinstance(element.tag, str):
                continue
            ident, names = element.get("id"), element.get("class")
            if (
                (ident is not None and ident in self.ids)
                or (names and not self.classes.isdisjoint(_XML_SPACE.split(names)))
                or (
                    ident
                    and any(
                        ident.startswith(prefix) and tag in ("*", element.tag)
                        for tag, prefix in self.prefixes
                    )
                )
            ):
                found.append(element)
        return found


_BANNERS = _Banners(tuple(selector for group in BANNERS.values() for selector in group))


def _remove_furniture(body: etree._Element, measures: Measures) -> None:
    """Remove the page furniture from ``body``; ``measures`` are of ``body`` as it is."""
    total = len(text_of(body)) or 1
    doomed: list[etree._Element] = _BANNERS(body)
    in_content: dict[etree._Element, bool] = {}
    for element in body.iter():
        if not isinstance(element.tag, str) or element is body:
            continue
        tag = element.tag
        role = element.get("role", "").lower()
        if (
            tag in _FURNITURE_TAGS
            or role in _NOT_CONTENT_ROLES
            or (tag in ("header", "footer") and not _inside_content(element, in_content))
            or (tag in _BLOCKS and _is_negative(element, measures))
        ) and not _holds_article(element, total, measures):
            doomed.append(element)
    doomed += [_signup_box(form, measures) for form in body.iter("form") if _is_signup(form)]
    for element in doomed:
        if element.getparent() is not None:
            drop(element)


def _is_signup(form: etree._Element) -> bool:
    """A newsletter or account sign-up form (an e-mail field, or the words on its button)."""
    if form.xpath('.//input[@type="email"]'):
        return True
    return bool(_SIGNUP_WORDS.search(text_of(form)))


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


def _holds_article(element: etree._Element, total: int, measures: Measures) -> bool:
    """Whether removing ``element`` would take the article with it."""
    if element.tag in ("form", "button", "input", "select", "textarea", "label"):
        # A page wrapped in one big <form> (old ASP.NET sites) keeps its content.
        return element.tag == "form" and measures.length(element) > 0.5 * total
    if measures.holds(element, "article") or measures.holds(element, "main"):
        return True
    if measures.holds(element, "h1") and element.tag not in ("nav", "aside"):
        return measures.length(element) > 0.3 * total
    return measures.length(element) > 0.5 * total


# -- step 2: the container --------------------------------------------------------------------


def _semantic(
    body: etree._Element, total: int, measures: Measures
) -> tuple[etree._Element | None, str]:
    candidates = body.xpath(
        './/*[@itemprop="articleBody"] | .//*[@itemprop="text" and not(ancestor::*[@itemprop])]'
    )
    for candidate in candidates:
        if measures.length(candidate) >= max(MIN_TEXT, 0.3 * total):
            return _article_of(candidate), "semantic"
    articles = [a for a in body.iter("article") if not measures.holds(a, "article")]
    if articles:
        sizes = sorted(((measures.length(a), i) for i, a in enumerate(articles)), reverse=True)
        best_size, best = sizes[0]
        runner_up = sizes[1][0] if len(sizes) > 1 else 0
        if best_size >= max(MIN_TEXT, 0.35 * total) and best_size > 2 * runner_up:
            return articles[best], "semantic"
        # Several posts of one thread (a forum, a comment-driven page): all of them.
        if len(articles) > 1 and sum(size for size, _ in sizes) >= 0.5 * total:
            common = _common_ancestor(articles)
            if common is not None and common is not body:
                return common, "semantic"
    mains = body.xpath('.//main | .//*[@role="main"]')
    for candidate in mains:
        if measures.length(candidate) >= max(MIN_TEXT, 0.4 * total):
            return candidate, "semantic"
    return None, ""


def _common_ancestor(elements: list[etree._Element]) -> etree._Element | None:
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


def _scored(
    body: etree._Element, total: int, measures: Measures
) -> tuple[etree._Element | None, str]:
    scores: dict[etree._Element, float] = {}
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
        for ancestor, share in ((parent, 1.0), (parent.getparent(), 0.5)):
            if ancestor is None or not isinstance(ancestor.tag, str):
                continue
            if ancestor not in scores:
                scores[ancestor] = _class_weight(ancestor)
            scores[ancestor] += score * share
    if not scores:
        return None, ""
    ranked = {
        element: score * (1 - _link_density(element, measures))
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
    best = _with_siblings(best, ranked, measures)
    if len(text_of(best)) < 0.15 * total and total > 4 * MIN_TEXT:
        return None, ""
    return best, "scored"


def _paragraph_like(element: etree._Element) -> bool:
    """Whether ``element`` is scored as a paragraph: a text block (``p``, ``pre``, a cell, a
    list item, a div without block children) or any element with prose directly inside it
    (old pages write ``<font>`` text broken by ``<br>``)."""
    tag = element.tag
    if not isinstance(tag, str):
        return False
    if tag in ("div", "td"):
        return not any(child.tag in _BLOCK_CHILDREN for child in element)
    if tag in _SCORED:
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
    threshold = max(10.0, ranked[best] * 0.2)
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
    if _is_negative(element, measures):
        return False
    length = measures.length(element)
    if element.tag in ("h2", "h3", "h4", "h5", "h6"):
        return length > 0
    return length >= 80 and _link_density(element, measures) < 0.3


def _link_density(element: etree._Element, measures: Measures) -> float:
    text = measures.length(element)
    if text == 0:
        return 0.0
    return min(measures.linked(element) / text, 1.0)


def _keep(body: etree._Element, container: etree._Element, measures: Measures) -> etree._Element:
    if container.getparent() is None:  # a wrapper built from siblings
        return container
    return measures.copy(container)


# -- step 3: inside the container -------------------------------------------------------------


def _prune_inside(container: etree._Element, measures: Measures) -> None:
    """Remove link bars, boilerplate blocks and link farms from ``container``; ``measures``
    know it as it is, and are kept up to date."""
    for mark in list(container.iter("sup")):
        if "reference" in mark.get("class", "") or _CITATION.match(text_of(mark)):
            measures.forget(mark)
            drop(mark)  # citation markers: "[1]" links that only mean something beside a list
    for link in list(container.iter("a")):
        if _BOILERPLATE_TEXT.match(text_of(link) or "-") and _in_link_bar(link, measures):
            measures.forget(link)
            drop(link)
    doomed: list[etree._Element] = []
    for element in container.iter("div", "section", "ul", "ol", "p", "span", "table", "footer"):
        if element is container:
            continue
        if _boilerplate_section(element):
            doomed.append(element)
            continue
        length = measures.length(element)
        if not length:
            if not measures.holds(element, "img") and element.tag != "table":
                doomed.append(element)
            continue
        if length < 250 and _boilerplate_block(element, measures):
            doomed.append(element)
            continue
        if element.tag in ("ul", "ol", "div", "section") and _link_farm(element, length, measures):
            doomed.append(element)
    for element in doomed:
        if element.getparent() is not None:
            measures.forget(element)
            drop(element)


def _boilerplate_block(element: etree._Element, measures: Measures) -> bool:
    """A short block that says what it is: "Share", "Edit this page", "Read more: ..." links.
    Only worth asking of blocks shorter than 250 characters (it reads the text)."""
    text = text_of(element)
    return bool(
        (len(text) < 60 and _BOILERPLATE_TEXT.match(text))
        or (len(text) < 160 and _EDIT_LINK.search(text))
        or (len(text) < 250 and _TEASER.match(text) and _link_density(element, measures) > 0.4)
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
    return bool(_BOILERPLATE_HEADING.match(text_of(first)))


def _link_farm(element: etree._Element, length: int, measures: Measures) -> bool:
    """A block of mostly links (related posts, tag lists, tables of contents); ``length`` is
    that of its text."""
    if measures.links(element) < 3:
        return False
    density = _link_density(element, measures)
    if element.tag in ("ul", "ol"):
        items = element.findall("li")
        linked_items = sum(1 for item in items if measures.links(item))
        return density > 0.7 and linked_items >= max(3, 0.8 * len(items))
    return density > 0.6 and length < 2000


# -- headline ---------------------------------------------------------------------------------


def _headline(body: etree._Element, title: str, measures: Measures) -> etree._Element | None:
    """The article's headline: the first ``<h1>`` most of whose words are in the title (any
    ``<h1>`` outside page furniture when the page has no title)."""
    title_words = set(_WORDS.findall(title.casefold()))
    for heading in body.iter("h1"):
        words = _WORDS.findall(text_of(heading).casefold())
        if not words:
            continue
        if title_words:
            if sum(word in title_words for word in words) >= 0.5 * len(words):
                return heading
        elif not any(
            ancestor.tag in ("nav", "header", "aside") or _is_negative(ancestor, measures)
            for ancestor in heading.iterancestors()
        ):
            return heading
    return None


def _with_headline(
    container: etree._Element,
    headline: etree._Element,
    body: etree._Element,
    measures: Measures,
) -> etree._Element:
    """Widen the container to take in the headline with its standfirst and byline, when the
    element holding both adds little else."""
    if container.getparent() is None or any(a is container for a in headline.iterancestors()):
        return container
    ancestors = set(headline.iterancestors())
    common = next((a for a in container.iterancestors() if a in ancestors), None)
    if common is None or common is body:
        return container
    if measures.length(common) <= 1.25 * measures.length(container) + 300:
        return common
    return container


def _contains_heading(container: etree._Element, heading: etree._Element) -> bool:
    wanted = text_of(heading)
    return any(text_of(h) == wanted for h in container.iter("h1", "h2"))


# -- helpers ----------------------------------------------------------------------------------


def _copy(element: etree._Element) -> etree._Element:
    clone = copy.deepcopy(element)
    clone.tail = None
    return clone


def _replace_children(body: etree._Element, source: etree._Element) -> None:
    for child in list(body):
        body.remove(child)
    body.text = source.text
    if source.tag == "body":
        for child in list(source):
            body.append(child)
    else:
        source.tail = None
        body.append(source)
