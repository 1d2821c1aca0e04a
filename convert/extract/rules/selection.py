"""The thresholds of choosing the content's container, and of how sure that choice is."""

from __future__ import annotations

import re

SMALL_BLOCK = 200
"""Characters below which a block named both as content and as boilerplate is boilerplate."""
TEASER_CARD_MAX = 500
"""Characters a block named a teaser or card may hold to be another story's card when its
links, at least two, all lead to one page, one of them its heading's and another a "more" link
(:data:`MORE_LINK`), however little of it they are (a shop's product cards link their picture
and their name, and are the content of a collection)."""
MORE_LINK = re.compile(
    r"^\W*(?:(?:read |see |view )?more|continue reading|mehr|weiterlesen|zum artikel|"
    r"lire (?:la )?suite|leer más|leggi (?:tutto|di più)|lees meer|"
    r"download(?: \([^)]{0,20}\))?)\W*$",
    re.I,
)
MIN_TEXT = 200
"""Characters below which an extraction is near-empty (when the page has more than that)."""
FALLBACK_KEPT = 0.9
"""Share of a near-empty pass's words the whole page less its named furniture must still hold
to stand in for it (else the page less only its declared furniture does): the named furniture
took the rest of the page's boilerplate, not the content."""
SECTIONS_GAIN = 1.5
"""How much more scored prose an ancestor of the best-scored element must hold to be taken
instead (an article of several text modules, where the best is one of them)..."""
SECTIONS_MAX_LINKS = 0.25
"""...when at most this share of its text is links..."""
SECTIONS_LEVELS = 12
"""...and it is at most this many levels above."""
REFERENCES_ELSEWHERE = 0.8
REFERENCE_WORDS = 4
"""A list of links is a list of references, not a farm, when this share of its links lead to
other sites and they hold this many words each on average (a social bar's "Twitter" does not)."""
FARMS_MAX_SHARE = 0.5
"""Share of the content's text above which its link lists are its content (an index page, a
list of links), not link farms to remove."""
RETRY_SHARE = 0.25
"""Share of the page's prose (text outside links) below which an extraction is done again with
only the furniture the markup declares..."""
RETRY_MAX_TEXT = 2000
"""...when it is also shorter than this: a full article above a longer comment thread is kept
as it is."""

# -- how sure a selection is (convert/extract/selection.py) -------------------------------------

CONFIDENCE_BASE = {"semantic": 0.8, "scored": 0.6, "whole_body": 0.35, "fallback": 0.15}
"""Each selection method's own certainty: a container the markup names (``articleBody``, the
one ``<article>``, ``<main>``) over the best-scored block, over the whole body, over a
fallback."""
CONFIDENCE_LINKED = 0.5
"""Kept text more linked than this share reads like navigation..."""
CONFIDENCE_SMALL_SHARE = 0.1
"""...and kept prose under this share of the page's prose may be a fragment of the content:
either costs :data:`CONFIDENCE_PENALTY`."""
CONFIDENCE_PENALTY = 0.2
CONFIDENCE_TYPE_BONUS = 0.15
"""Added times the page type's own confidence."""

# -- a second candidate when unsure (convert/extract/selection.py) ------------------------------

SECOND_CANDIDATE_BELOW = 0.6
"""Confidence below which a second candidate is extracted (the best-scored block beside a
semantic container; the markup's declared furniture only, beside the rest) and compared..."""
SECOND_CANDIDATE_TYPES = frozenset({"article", "documentation"})
"""The page types whose content is prose, where :data:`CANDIDATE_BLOCKS` measure it (a listing's
or a product's content is short lines and links: a second candidate measured so loses them)."""
SECOND_CANDIDATE_GAIN = 1.2
SECOND_CANDIDATE_MIN_SHARE = 0.5
"""...and taken when its value is this many times the first's and it holds at least this share of
the first's text (a fragment of the page is not a better reading of it)."""
CANDIDATE_BLOCKS = ("p", "li", "blockquote", "pre", "dd", "td")
CANDIDATE_INNER = ".//p"
"""The text blocks a candidate's value counts (a block holding paragraphs counts them instead)."""
CANDIDATE_BLOCK_CHARS = 80
CANDIDATE_LINKED = 0.3
"""A block is reading text when it is at least this long and at most this share links..."""
CANDIDATE_NOISE_WEIGHT = 0.5
"""...and the rest of a candidate's text costs this much per character."""
