"""How strongly a request clause found by :mod:`.form` counts: less when the page speaks to its
own reader ("near you", "your order") or of itself ("tell us"), among a control's words or in
markup, when short; and whether a text is in Title Case (a label or a title, no request). The
factors are data in :mod:`.rules_form`.
"""

from __future__ import annotations

import re
from typing import Final

from convert.safety.asked import role_words
from convert.safety.rules_asking import (
    ASKING_YOU,
    KNOWING_YOU,
    REQUEST_FRAMES,
)
from convert.safety.rules_form import (
    DELIBERATIVE,
    DELIVERABLE_FACTOR,
    DUTCH_IMPERATIVES,
    DUTCH_MARKERS,
    DUTCH_SECOND_PERSON,
    DUTCH_YOU,
    FIRST_PERSON_PLURAL,
    FORM_SCORE,
    FORMAL_YOU,
    FURNITURE,
    FURNITURE_FACTOR,
    MARKUP,
    MARKUP_FACTOR,
    MIN_WORDS,
    PAGE_THINGS,
    PAGE_THINGS_FACTOR,
    POLITE,
    POSSESSIVE_YOU,
    QUESTION_YOU,
    RANKING,
    READER_FACTOR,
    READER_OPENERS,
    RHETORICAL,
    SECOND_PERSON,
    SHORT_FACTOR,
    SHORT_WORDS,
    SITE_FACTOR,
    THANKS,
    THIS_PAGE,
    THIS_PAGE_FACTOR,
    TITLE_SHARE,
    TITLE_SMALL,
)
from convert.safety.verbs import WORD_RE, frames_in, pronouns

__all__ = ["form_score", "title_case"]

_FORMAL: Final = "sie"

_QUOTED_RE: Final = re.compile(
    r'"[^"]*"|\u201c[^\u201d]*\u201d|\u00ab[^\u00bb]*\u00bb|\u201e[^\u201c\u201d]*[\u201c\u201d]'
)


def _speaks_to_reader(words: list[str], form: str) -> bool:
    """Whether the clause is the page speaking to its reader: a question about the reader or
    the reader's things ("Are you sure...?", "What's your..."); elsewhere, the reader named
    outside a frame of asking ("near you", "your order")."""
    if form == "question":
        if not POSSESSIVE_YOU.isdisjoint(words) or words[0] in READER_OPENERS:
            return True
        return len(words) > 1 and (
            pronouns(words[1]) & QUESTION_YOU != set() or words[1] in DUTCH_YOU
        )
    if words and (words[0] in DUTCH_IMPERATIVES or not DUTCH_MARKERS.isdisjoint(words)):
        # Dutch: "je" is the reader ("Geef je mening", "Schrijf je in voor..."), "te" opens
        # an infinitive ("tips om beter te slapen"), not the French or Spanish "you".
        return not DUTCH_SECOND_PERSON.isdisjoint(words)
    return any(
        pronouns(word) & SECOND_PERSON and (index == 0 or words[index - 1] not in THANKS)
        for index, word in enumerate(words)
    )


def form_score(clause: str, written: str, form: str) -> float:
    """The form's score for ``clause`` (``written``: as written, not folded), less for the
    page's own voice, its controls and things, and markup."""
    unquoted = _QUOTED_RE.sub(" ", clause)
    words = WORD_RE.findall(unquoted)
    if not words:
        return 0.0  # all quoted: what a text is about, not a request
    spoken = list(words)
    framed = (
        frames_in(words, ASKING_YOU) + frames_in(words, REQUEST_FRAMES) + frames_in(words, POLITE)
    )
    if form == "asking":
        framed += frames_in(words, KNOWING_YOU)  # "Do you know a recipe for...?": no reader's thing
    role = role_words(words)
    if role is not None:
        framed.append(role)  # "You are a travel agent": the one set the task, no reader
    for start, end in sorted(framed, reverse=True):
        del spoken[start:end]
    score = FORM_SCORE
    # The formal "Sie" of a frame of asking ("Könnten Sie mir...") speaks to no reader.
    formal = len(FORMAL_YOU.findall(written)) > sum(
        1 for start, end in framed if _FORMAL in words[start:end]
    )
    if _speaks_to_reader(spoken if form != "question" else words, form) or formal:
        score *= READER_FACTOR
    placing = form == "imperative" and not RANKING.isdisjoint(words)
    if not PAGE_THINGS.isdisjoint(words) and not placing:
        score *= PAGE_THINGS_FACTOR
    if not FIRST_PERSON_PLURAL.isdisjoint(words) and not _deliberative(words, form):
        score *= SITE_FACTOR
    if FURNITURE.search(clause):
        score *= FURNITURE_FACTOR
    if MARKUP.search(clause):
        score *= MARKUP_FACTOR
    if THIS_PAGE.search(clause) and not placing:
        score *= THIS_PAGE_FACTOR
    # A short query or named task is no weaker than a long one: the two shares do not add up.
    if form in ("deliverable", "query"):
        score *= DELIVERABLE_FACTOR
    elif len(words) < SHORT_WORDS:
        score *= SHORT_FACTOR
    return score


def title_case(text: str) -> bool:
    """Whether ``text`` (as written) capitalises most of its words, as labels and titles do."""
    words = WORD_RE.findall(text)
    if len(words) < MIN_WORDS:
        return False
    # English titles keep their small words small ("Guide to Love and Saving the World").
    words = [word for word in words if word not in TITLE_SMALL]
    capitals = sum(1 for word in words if word[0].isupper())
    return capitals >= TITLE_SHARE * len(words)


def _deliberative(words: list[str], form: str) -> bool:
    """Whether a question asks what "we" ought to do ("Where should we stop overnight?", "Was
    sollten wir einpacken?", "Où devrions-nous dormir ?"): the askers' "we", not the site's."""
    if form != "question" or words[0] in RHETORICAL:
        return False
    for index, word in enumerate(words[:-1]):
        modal, _, subject = word.partition("-")
        if modal in DELIBERATIVE and (subject or words[index + 1]) in FIRST_PERSON_PLURAL:
            return True
    return False
