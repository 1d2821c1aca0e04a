"""A page's type, decided from evidence with its rules as data
(:mod:`convert.extract.rules.page_types`): what the page says of itself (schema.org types in its
JSON-LD and microdata, ``og:type``, the software that made it), its address, and what extraction
finds in it (a thread, code blocks, a product's facts). Each piece of evidence
adds its weight to a type; the type with the most wins, :data:`DEFAULT_TYPE` when none has any.
The confidence is the winner's lead over the runner-up, up to
:data:`~convert.extract.rules.page_types.CONFIDENCE_MARGIN` (certain).

The markup's evidence is read before the page is cleaned (:func:`markup_evidence`: the scripts
holding JSON-LD go with the cleaning); extraction adds what it finds (:func:`decide`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import lxml.html

from convert.extract.rules import page_types as rules
from convert.html.attributes import values_of
from convert.metadata.jsonld import entity_types, json_ld_objects

DEFAULT_TYPE = rules.DEFAULT_TYPE


@dataclass(frozen=True)
class PageType:
    """What a page is, how sure that is (0 to 1), and the evidence for each type."""

    kind: str
    confidence: float
    scores: dict[str, float] = field(default_factory=dict)


UNDECIDED = PageType(DEFAULT_TYPE, 0.0)
_SIGNAL_ATTRIBUTES = sorted({name for tests, _, _ in rules.MARKUP_SIGNALS for name, _, _ in tests})


def markup_evidence(root: lxml.html.HtmlElement, url: str) -> dict[str, float]:
    """The weight the page's markup and address give each type (call before cleaning)."""
    scores: defaultdict[str, float] = defaultdict(float)
    seen: set[str] = set()
    for entity in json_ld_objects(root):
        seen.update(entity_types(entity))
    for itemtype in values_of(root, "itemtype"):
        seen.update(name.rsplit("/", 1)[-1] for name in itemtype.split())
    for name in seen:
        if name in rules.SCHEMA_TYPES:
            kind, weight = rules.SCHEMA_TYPES[name]
            scores[kind] = max(scores[kind], weight)  # one type said twice is said once
    for meta in root.iter("meta"):
        key = (meta.get("property") or meta.get("name") or "").strip().lower()
        value = (meta.get("content") or "").strip().lower()
        if key == "og:type" and value in rules.OPEN_GRAPH_TYPES:
            kind, weight = rules.OPEN_GRAPH_TYPES[value]
            scores[kind] += weight
        elif key in ("generator", "application-name") and value:
            for pattern, kind, weight in rules.GENERATORS:
                if pattern.search(value):
                    scores[kind] += weight
                    break
    values = {name: values_of(root, name) for name in _SIGNAL_ATTRIBUTES}
    for tests, kind, weight in rules.MARKUP_SIGNALS:
        if any(_holds(values[name], test, said) for name, test, said in tests):
            scores[kind] += weight
    _address(url, scores)
    return dict(scores)


def _holds(values: set[str], test: str, said: str) -> bool:
    """Whether one of an attribute's ``values`` is ``said`` (``=``) or holds it (``contains``)."""
    if test == "=":
        return said in values
    return any(said in value for value in values)


def _address(url: str, scores: defaultdict[str, float]) -> None:
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    host = (parts.hostname or "").removeprefix("www.")
    path = parts.path.lower() + (f"?{parts.query.lower()}" if parts.query else "")
    for table, text in ((rules.HOST_SIGNALS, host), (rules.PATH_SIGNALS, path)):
        for pattern, kind, weight in table:
            if pattern.search(text):
                scores[kind] += weight


def decide(
    markup: Mapping[str, float],
    *,
    thread: bool = False,
    thread_in_comments: bool = False,
    code_blocks: int = 0,
    product_facts: bool = False,
) -> PageType:
    """The page's type from its markup's evidence and what extraction found: a thread (its
    posts all in a comment section: ``thread_in_comments``), code blocks, a product's facts."""
    scores: defaultdict[str, float] = defaultdict(float, markup)
    if thread:
        # Posts inside a section named after comments may be a short post's comments.
        weight = rules.THREAD_WEIGHT / 2 if thread_in_comments else rules.THREAD_WEIGHT
        scores["forum"] += weight
    if code_blocks >= rules.CODE_BLOCKS:
        scores["documentation"] += rules.CODE_WEIGHT
    if product_facts:
        scores["product"] += rules.PRODUCT_FACTS_WEIGHT
    ranked = sorted(
        ((scores[kind], -rules.PAGE_TYPES.index(kind), kind) for kind in rules.PAGE_TYPES),
        reverse=True,
    )
    best, second = ranked[0][0], ranked[1][0]
    if best <= 0:
        return UNDECIDED
    confidence = min((best - second) / rules.CONFIDENCE_MARGIN, 1.0)
    found = {kind: round(score, 2) for kind, score in scores.items() if score}
    return PageType(ranked[0][2], round(confidence, 2), found)
