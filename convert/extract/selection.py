"""Main-content extraction: find the content in a cleaned document and strip the boilerplate
around and inside it (navigation, headers, footers, sidebars, consent and newsletter boxes, share
bars, comments, related links).

The approach, in order:

1. Page furniture is removed everywhere (:mod:`convert.extract.furniture`): ``nav``, ``aside``,
   page-level ``header``/``footer``, ARIA landmarks that are not content, consent-manager
   containers, forms and buttons, and blocks whose class or id names say what they are
   (``comments``, ``newsletter``, ``share``, ``related``, ``sidebar``, ``ad-slot``...), unless
   the block holds the article.
2. The container: a semantic one when the page has it (``itemprop=articleBody``, the one
   ``<article>`` that holds most of the text, the posts of a thread, ``<main>``), else the
   element with the best score in a readability-style scoring of its paragraphs (text length,
   commas, link density, class names), widened to siblings that score well too.
3. Inside the container, link farms and short boilerplate blocks are removed, and the page's
   headline is put back in front when it sat outside the container.
4. Readers' comments are taken out first (:mod:`convert.extract.comments`): they are not the
   article's content, and are given back after it only when asked for.
5. The steps fall back one after the other: when the first pass keeps little of the page's
   prose, it is done again with only the furniture the markup declares; when the result is
   near-empty, the whole body less that furniture, then the whole body, and the result says so.

Every word list, tag set and threshold is data in :mod:`convert.extract.rules`; lengths are
measured once per element (:class:`convert.extract.measures.Measures`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

import lxml.html
from lxml import etree

from convert.extract import rules
from convert.extract.cards import drop_other_cards
from convert.extract.comments import comment_sections, take_comments, thread_in_comments
from convert.extract.container import detached, scored, semantic, with_posts
from convert.extract.edges import clear_masthead, drop_empty_headings, trim_edges
from convert.extract.furniture import is_negative, remove_furniture
from convert.extract.measures import Measures, copy_element
from convert.extract.page_type import UNDECIDED, PageType, decide
from convert.extract.posts import attribute_posts, thread_posts
from convert.extract.prune import prune_inside
from convert.extract.tail import cut_tail
from convert.html.document import body_of, drop, text_of

_WORDS = re.compile(r"\w+")


@dataclass(frozen=True)
class Extraction:
    """Where the main content came from: ``semantic`` (an article/main element), ``scored``,
    ``whole_body`` (nothing stood out) or ``fallback`` (the extraction was near-empty); the
    readers' comment sections taken out before it (:mod:`convert.extract.comments`); and the
    page's type (:mod:`convert.extract.page_type`)."""

    method: str
    fell_back: bool
    comments: tuple[etree._Element, ...] = ()
    page_type: PageType = UNDECIDED
    confidence: float = 0.0
    """How sure the selection is, 0 to 1 (:func:`confidence`)."""
    second_candidate: str | None = None
    """None when the selection was sure enough; else whether the first candidate was kept
    (:data:`PRIMARY_KEPT`) or the second chosen (:data:`SECOND_CHOSEN`), by
    :func:`candidate_value`."""


PRIMARY_KEPT = "primary"
SECOND_CHOSEN = "second"


def main_content(
    root: lxml.html.HtmlElement,
    title: str = "",
    *,
    scoring: bool = True,
    site: str = "",
    evidence: Mapping[str, float] | None = None,
    product: bool = False,
) -> Extraction:
    """Reduce the cleaned document ``root`` to its main content, in place. ``title`` (the
    page's title from its metadata) tells the headline from a logo in an ``<h1>``. Without
    ``scoring``, only a semantic container is looked for, else the whole body is kept (less the
    furniture). ``site`` is the page's registrable domain (links elsewhere are references).

    The steps fall back one after the other: the furniture named by class and id goes first;
    when that leaves little of the page's prose (a content block named like boilerplate, as
    a "disclosure" panel or a forum's "comment" posts), the extraction is done again with only
    the furniture the markup itself declares (``nav``, ``aside``, landmarks, banners); when even
    that is near-empty, the whole body less that furniture; then the whole body.

    ``evidence`` is what the page's markup and address say of its type
    (:func:`~convert.extract.page_type.markup_evidence`, read before cleaning), ``product``
    whether it has a product's facts; the type decides whether posts in a comment section are
    a forum's thread or an article's comments."""
    body = body_of(root)
    sections = comment_sections(body)
    attribute_posts(body)
    # No post marked now, none later: the passes below need not look for them.
    threaded = bool(thread_posts(body))
    kind = decide(
        evidence or {},
        thread=threaded,
        thread_in_comments=threaded and thread_in_comments(body, sections),
        code_blocks=sum(1 for _ in body.iter("pre")),
        product_facts=product,
    )
    if kind.kind == "product":
        sections += comment_sections(body, rules.REVIEW_WORDS)
    comments = tuple(take_comments(body, sections, forum=kind.kind == "forum"))
    article = kind.kind == "article"
    snapshot = copy_element(body)
    measured = Measures()  # of the body as it stands: the first pass starts from it
    prose = measured.prose(body)
    page_text = measured.length(body)
    extract = partial(
        _extract,
        title=title,
        scoring=scoring,
        site=site,
        article=article,
        kind=kind.kind,
        threaded=threaded,
    )
    kept, method, measured = extract(body, by_name=True, measures=measured)
    kept_text = measured.length(kept)
    if kept_text < min(rules.RETRY_SHARE * prose, rules.RETRY_MAX_TEXT):
        lenient = extract(copy_element(snapshot), by_name=False)
        if lenient.measures.length(lenient.kept) > max(2 * kept_text, rules.MIN_TEXT):
            kept, method, measured = lenient
            kept_text = measured.length(kept)
    if kept_text < rules.MIN_TEXT and page_text > max(kept_text * 2, rules.MIN_TEXT):
        # Near-empty: the whole body less the furniture named so, when that keeps at least
        # what the pass found (a short post among its blog's widgets); else less only the
        # declared furniture; else all of it (a copy each time: moving the snapshot's children
        # would leave nothing).
        found = _WORDS.findall(text_of(kept))
        _replace_children(body, copy_element(snapshot))
        remove_furniture(body, Measures(), by_name=True, by_size=False)
        if not found or not _holds_words(body, found):
            _replace_children(body, copy_element(snapshot))
            remove_furniture(body, Measures(), by_name=False)
            if len(text_of(body)) < rules.MIN_TEXT:
                _replace_children(body, copy_element(snapshot))
        sure = confidence("fallback", body, prose, kind)
        return Extraction("fallback", True, comments, kind, sure)
    sure = confidence(method, kept, prose, kind, measured)
    second = None
    if sure < rules.SECOND_CANDIDATE_BELOW and kind.kind in rules.SECOND_CANDIDATE_TYPES:
        semantic_first = method != "semantic"
        other = extract(
            copy_element(snapshot), by_name=not semantic_first, semantic_first=semantic_first
        )
        second = PRIMARY_KEPT
        if _reads_better(other, _Kept(kept, method, measured)):
            kept, method, second = other.kept, other.method, SECOND_CHOSEN
    if kept is not body:
        _replace_children(body, kept)
    return Extraction(method, False, comments, kind, sure, second)


def _reads_better(other: _Kept, first: _Kept) -> bool:
    """Whether a second candidate is worth :data:`~convert.extract.rules.SECOND_CANDIDATE_GAIN`
    times the first by :func:`candidate_value` and holds at least
    :data:`~convert.extract.rules.SECOND_CANDIDATE_MIN_SHARE` of its text (a fragment of the
    page is not a better reading of it)."""
    gain = candidate_value(other.kept, other.measures) > rules.SECOND_CANDIDATE_GAIN * (
        candidate_value(first.kept, first.measures)
    )
    share = other.measures.length(other.kept) >= rules.SECOND_CANDIDATE_MIN_SHARE * (
        first.measures.length(first.kept)
    )
    return gain and share


def candidate_value(kept: etree._Element, measures: Measures | None = None) -> float:
    """The measure two candidates for the main content are compared by: the prose of their
    text blocks (paragraphs, list items, quotes, code) that read as an article's (at least
    :data:`~convert.extract.rules.CANDIDATE_BLOCK_CHARS` long, mostly outside links), less
    :data:`~convert.extract.rules.CANDIDATE_NOISE_WEIGHT` times the rest of their text (short
    lines, links, labels): the candidate with more reading text and less furniture.
    ``measures``: what is known of ``kept``, if anything."""
    measures = measures or Measures()
    good = 0
    for block in kept.iter(*rules.CANDIDATE_BLOCKS):
        if block.find(rules.CANDIDATE_INNER) is not None:
            continue  # its inner blocks count
        length, linked = measures.length(block), measures.linked(block)
        if length >= rules.CANDIDATE_BLOCK_CHARS and linked <= rules.CANDIDATE_LINKED * length:
            good += length - linked
    return good - rules.CANDIDATE_NOISE_WEIGHT * (measures.length(kept) - good)


def confidence(
    method: str,
    kept: etree._Element,
    prose: int,
    kind: PageType,
    measures: Measures | None = None,
) -> float:
    """How sure the selection of ``kept`` is, 0 to 1: the method's own certainty
    (:data:`~convert.extract.rules.CONFIDENCE_BASE`: a semantic container more than a scored
    block, a fallback least), less when the kept text is mostly links or a small share of the
    page's prose (``prose``), more when the page's type is certain (it was read as its type
    reads). ``measures``: what is known of ``kept``, if anything."""
    measures = measures or Measures()
    sure = rules.CONFIDENCE_BASE.get(method, rules.CONFIDENCE_BASE["fallback"])
    length = measures.length(kept)
    if length and measures.linked(kept) > rules.CONFIDENCE_LINKED * length:
        sure -= rules.CONFIDENCE_PENALTY
    if prose and measures.prose(kept) < rules.CONFIDENCE_SMALL_SHARE * prose:
        sure -= rules.CONFIDENCE_PENALTY
    sure += rules.CONFIDENCE_TYPE_BONUS * kind.confidence
    return round(min(max(sure, 0.0), 1.0), 2)


def _extract(
    body: etree._Element,
    title: str,
    scoring: bool,
    *,
    by_name: bool,
    site: str,
    semantic_first: bool = True,
    article: bool = False,
    kind: str = "",
    measures: Measures | None = None,
    threaded: bool = True,
) -> _Kept:
    """One pass over ``body`` (changed in place): furniture, container, headline, pruning.
    Returns what is kept (``body`` itself or a detached element), how it was found and the
    measures that know it. Without ``semantic_first``, the container the markup names is not
    looked for: the best-scored block is (a second candidate beside a semantic one). On an
    ``article``, other stories' cards at the end go too (:func:`~convert.extract.tail.cut_tail`);
    on a page of one thing (``kind``), other things' cards
    (:func:`~convert.extract.cards.drop_other_cards`).
    ``measures``: what is known of ``body`` as it is, if anything. Without ``threaded``, the
    page has no thread's posts to look for."""
    measures = measures or Measures()
    headline = _headline(body, title, measures)
    headline_copy = copy_element(headline) if headline is not None else None
    posts = thread_posts(body) if threaded else []
    remove_furniture(body, measures, by_name=by_name, keep=frozenset(posts))
    total = measures.length(body)
    container, method = semantic(body, total, measures) if semantic_first else (None, "")
    if container is None and scoring:
        container, method = scored(body, total, measures)
    if posts:
        container = with_posts(container, posts, body)
    if container is not None and headline is not None and headline.getparent() is not None:
        container = _with_headline(container, headline, body, measures)
    if container is not None and container is not body:
        kept = detached(container, measures)
    else:
        kept, method = body, "whole_body"
    prune_inside(kept, measures, site=site)
    drop_other_cards(kept, measures, kind)
    _drop_site_name(kept, title, measures)
    trim_edges(kept, measures)
    cut_tail(kept, measures, site=site, article=article)
    if article:
        clear_masthead(kept, measures)
    drop_empty_headings(kept, measures)
    if headline_copy is not None and not _contains_heading(kept, headline_copy):
        measures.forget(kept)
        kept.insert(0, headline_copy)
    return _Kept(kept, method, measures)


class _Kept(NamedTuple):
    """What one pass of :func:`_extract` keeps, how it was found, and its measures (which know
    the kept element as it is)."""

    kept: etree._Element
    method: str
    measures: Measures


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
            if sum(word in title_words for word in words) >= 0.5 * len(words) and not (
                _names_the_site(heading, title, body)
            ):
                return heading
        elif not any(
            ancestor.tag in ("nav", "header", "aside") or is_negative(ancestor, measures)
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


def _drop_site_name(container: etree._Element, title: str, measures: Measures) -> None:
    """Remove the first heading of the content when it says only the site's part of the title
    ("The Rust Programming Language" over "Defining Shared Behavior with Traits")."""
    first = next(container.iter(*rules.HEADING_TAGS), None)
    if first is not None and _names_the_site(first, title, container):
        measures.forget(first)
        drop(first)


def _names_the_site(heading: etree._Element, title: str, within: etree._Element) -> bool:
    """Whether ``heading`` says one part of the title ("Page - Site") and the next heading in
    ``within`` says most of the rest: the heading is the site's name, the next the page's."""
    parts = rules.TITLE_SEPARATOR.split(title.strip())
    said = " ".join(text_of(heading).split()).casefold()
    if len(parts) < 2 or said not in [" ".join(part.split()).casefold() for part in parts]:
        return False
    rest = set(_WORDS.findall(title.casefold())) - set(_WORDS.findall(said))
    following = False
    for other in within.iter(*rules.HEADING_TAGS):
        if following:
            words = set(_WORDS.findall(text_of(other).casefold()))
            return bool(rest) and len(rest & words) >= 0.5 * len(rest)
        following = other is heading
    return False


def _contains_heading(container: etree._Element, heading: etree._Element) -> bool:
    wanted = text_of(heading)
    return any(text_of(h) == wanted for h in container.iter("h1", "h2"))


# -- helpers ----------------------------------------------------------------------------------


def _holds_words(element: etree._Element, words: list[str]) -> bool:
    """Whether ``element``'s text holds at least :data:`~convert.extract.rules.FALLBACK_KEPT`
    of ``words`` (what a pass found, still there after the page's named furniture went)."""
    present = set(_WORDS.findall(text_of(element)))
    return sum(word in present for word in words) >= rules.FALLBACK_KEPT * len(words)


def _replace_children(body: etree._Element, source: etree._Element) -> None:
    """Make ``source`` (a body's copy: its children; else the element itself) the content of
    ``body``."""
    for child in list(body):
        body.remove(child)
    if source.tag == "body":
        body.text = source.text
        for child in list(source):
            body.append(child)
    else:
        body.text = None
        source.tail = None
        body.append(source)
