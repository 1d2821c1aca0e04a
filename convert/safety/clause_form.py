"""Which form makes a clause a request, for :mod:`.form`: a frame of asking with a task after
it, a task's imperative, a frame of wanting with what is wanted after it, a frame said without its
subject, a wish in the conditional, a task named by what it asks for, a question with a question
word among its first words, a search box's query put as a question, or one of the half-said forms
of :mod:`.asked`. The words are grammar, kept as data in :mod:`.rules_form`.
"""

from __future__ import annotations

import re
from typing import Final

from convert.safety.asked import asked_form, deliverable
from convert.safety.rules_form import (
    ANSWERS,
    DELIVERABLE_REACH,
    DELIVERABLE_WORDS,
    DROPPED_SUBJECT,
    DROPPED_SUBJECT_WORDS,
    EVALUATING,
    INTENSIFIERS,
    MIN_QUESTION_WORDS,
    OF_WORDS,
    PLEASE,
    PLEASE_PHRASES,
    PREPOSITIONS,
    QUERY_PREPOSITIONS,
    QUERY_WORDS,
    QUESTION_REACH,
    QUESTION_WORDS,
    QUESTION_YOU,
    READER_OPENERS,
    REQUEST_FRAMES,
    WEIGHINGS,
    WISH_COPULAS,
    WISHED,
)
from convert.safety.verbs import (
    FIRST_WORDS,
    WORD_RE,
    frames_in,
    imperative,
    infinitive,
    pronouns,
    task_after,
)

__all__ = ["CONDITIONALS", "SENTENCE_END", "clause_form"]

_ELIDED_WISHED: Final = ("d'", "qu'", "s'")
_GERMAN_TO: Final = "zu"
"""German puts what is wished for last, with its "zu" ("..., eine Übersicht zu bekommen")."""
_WISHED_BEFORE: Final = 2
"""Words that name what is wished for before a wish that ends its clause."""
CONDITIONALS: Final = frozenset(
    {"would", "it'd", "that'd", "could", "ware", "wurde", "serait", "seria", "sarebbe"}
)
SENTENCE_END: Final = (".", "!", "?")
_PARTS_RE: Final = re.compile(r"[,;:\u2013\u2014]|\s-\s")
_LATER_PARTS_RE: Final = re.compile(r";")


def clause_form(
    clause: str, words: list[str], asking: list[tuple[int, int]], capital: bool = False
) -> str:
    """What makes ``clause`` a request ("" when nothing); ``capital``: whether it opens with a
    capital as written."""
    if words[0] in ANSWERS:
        return ""  # a choice's button: "No, I don't want to save"
    if any(task_after(words, end) for _, end in asking):
        return "asking"
    # A full stop, not an exclamation: a page's calls to action shout ("Find an agent near...!").
    ended = clause.rstrip().endswith(".")
    if imperative(words, ended) or any(imperative(part) for part in _later_parts(clause)):
        return "imperative"
    if any(end < len(words) - 1 for _, end in frames_in(words, REQUEST_FRAMES)):
        return "frame"  # with what is asked for after it ("I need a plan", not "... I need.")
    if _without_subject(clause, words):
        return "frame"
    if _wish(words):
        return "frame"
    if _names_a_deliverable(clause, words):
        return "deliverable"
    if clause.rstrip().endswith("?") and len(words) >= MIN_QUESTION_WORDS and _asks(clause):
        return "question"
    if _query(clause, words):
        return "query"
    return asked_form(clause, words, FIRST_WORDS, infinitive, capital)


def _without_subject(clause: str, words: list[str]) -> bool:
    """Whether the clause opens with a frame of asking said without its subject ("Looking for
    a gift for my dad who...", "Need a title for..."), as a sentence, not a question."""
    if len(words) < DROPPED_SUBJECT_WORDS or clause.rstrip().endswith("?"):
        return False
    start = 0
    while start < len(words) - 1 and words[start] in FIRST_WORDS:
        start += 1
    return any(found == start for found, _ in frames_in(words, DROPPED_SUBJECT))


def _wish(words: list[str]) -> bool:
    """Whether the clause wishes for something in the conditional: a copula, an evaluating
    word and what is wished for after it ("It would be great to get...", "Sería útil que...",
    "Ce serait vraiment bien si...")."""
    if CONDITIONALS.isdisjoint(words):
        return False
    for start, end in frames_in(words, WISH_COPULAS):
        index = end
        while index < len(words) - 1 and words[index] in INTENSIFIERS:
            index += 1  # the last word is what is said of the wish ("wäre super")
        if index >= len(words) or words[index] not in EVALUATING:
            continue
        if index + 1 == len(words) and start >= _WISHED_BEFORE:
            return True  # "A short explanation of... would be very helpful."
        if index + 2 < len(words) and _opens_wished(words[index + 1]):
            return True
        if index + 3 < len(words) and words[-2] == _GERMAN_TO:
            return True  # "Es wäre toll, eine kurze Übersicht ... zu bekommen."
    return False


def _opens_wished(word: str) -> bool:
    """Whether ``word`` opens what is wished for: "to", "if", "que"..., an elided one
    ("d'avoir") or a Romance infinitive ("Sarebbe utile avere...")."""
    return word in WISHED or word.startswith(_ELIDED_WISHED) or infinitive(word)


def _later_parts(clause: str) -> list[list[str]]:
    """The words of the parts of ``clause`` after a semicolon, where a task may open after its
    asker's situation ("...; aiutami a trovare le parole")."""
    parts = _LATER_PARTS_RE.split(clause)[1:]
    return [words for words in (WORD_RE.findall(part) for part in parts) if len(words) >= 2]


def _query(clause: str, words: list[str]) -> bool:
    """Whether ``clause`` is a query in a question's form without a question word: what it
    wants and where or what for ("Good restaurants near the old town?", "Un bon bistrot pas
    trop cher à Lyon ?")."""
    low, high = QUERY_WORDS
    return (
        clause.rstrip().endswith("?")
        and low <= len(words) <= high
        and words[0] not in READER_OPENERS
        and not QUERY_PREPOSITIONS.isdisjoint(words[1:])
        and not any(pronouns(word) & QUESTION_YOU for word in words)
    )


def _names_a_deliverable(clause: str, words: list[str]) -> bool:
    """Whether ``clause`` is a sentence that names a task by what it asks for: a deliverable
    among its first words, a preposition after it ("SWOT analysis for a coffee shop.")."""
    if len(words) > DELIVERABLE_WORDS or not clause.rstrip().endswith(SENTENCE_END):
        return False
    if any(start < DELIVERABLE_REACH for start, _ in frames_in(words, WEIGHINGS)):
        return True  # "Pros and cons of...", whatever follows
    polite = not PLEASE.isdisjoint(words) or bool(frames_in(words, PLEASE_PHRASES))
    opening = [word for word in words if word not in PLEASE][:DELIVERABLE_REACH]
    for word in opening:
        if deliverable(word):
            if polite:
                return True  # "Bitte eine kurze Zusammenfassung der...", "A toast, please."
            # A preposition after the noun, or after its complement ("canción de cumpleaños").
            after = words[words.index(word) + 1 :]
            reach = 4 if after and after[0] in OF_WORDS else 2
            return any(following in PREPOSITIONS for following in after[:reach])
    return False


def _asks(clause: str) -> bool:
    """Whether a question word opens ``clause`` or one of its parts ("I fly on Monday; what
    should I pack?")."""
    for part in _PARTS_RE.split(clause):
        if not QUESTION_WORDS.isdisjoint(WORD_RE.findall(part)[:QUESTION_REACH]):
            return True
    return False
