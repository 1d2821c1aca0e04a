"""Which form makes a clause a request, for :mod:`.form`: a frame of asking with a task after
it, a task's imperative, a frame of wanting with what is wanted after it, a frame said without its
subject, a wish in the conditional, a task named by what it asks for, a question with a question
word among its first words, a search box's query put as a question, or one of the half-said forms
of :mod:`.asked`. The words are grammar, kept as data in :mod:`.rules_asking` (verbs and
frames of asking) and :mod:`.rules_form`.
"""

from __future__ import annotations

import re
from typing import Final

from convert.safety.asked import asked_form, deliverable
from convert.safety.rules_asking import (
    ANSWERS,
    ASKING_YOU,
    CALLS_TO_ACTION,
    DETERMINERS,
    DROPPED_SUBJECT,
    DROPPED_SUBJECT_WORDS,
    FOR_ME,
    KNOWING_REACH,
    KNOWING_YOU,
    MAKING_VERBS,
    PLEASE,
    PLEASE_PHRASES,
    REQUEST_FRAMES,
    SEEKING,
    SEEKING_REACH,
    SPLIT_FRAMES,
)
from convert.safety.rules_form import (
    CONSEQUENCE,
    CONTROL_OBJECTS,
    DELIVERABLE_REACH,
    DELIVERABLE_WORDS,
    DUTCH_YOU,
    EVALUATING,
    FIRST_PERSON_PLURAL,
    HEAD_WORDS,
    HEADED_FORMS,
    INTENSIFIERS,
    MIN_QUESTION_WORDS,
    MIN_WORDS,
    OF_WORDS,
    PREPOSITIONS,
    QUERY_PREPOSITIONS,
    QUERY_WORDS,
    QUESTION_REACH,
    QUESTION_WORDS,
    QUESTION_YOU,
    RANKING,
    READER_OPENERS,
    SECOND_PERSON,
    WEIGHINGS,
    WISH_COPULAS,
    WISHED,
)
from convert.safety.verbs import (
    FIRST_WORDS,
    WORD_RE,
    for_me,
    frames_in,
    imperative,
    infinitive,
    pronouns,
    task_after,
)

__all__ = ["CONDITIONALS", "SENTENCE_END", "clause_form", "short_ask"]

_ELIDED_WISHED: Final = ("d'", "qu'", "s'")
_GERMAN_TO: Final = "zu"
"""German puts what is wished for last, with its "zu" ("..., eine Übersicht zu bekommen")."""
_WISHED_BEFORE: Final = 2
"""Words that name what is wished for before a wish that ends its clause."""
CONDITIONALS: Final = frozenset(
    {"would", "it'd", "that'd", "could", "ware", "wurde", "serait", "seria", "sarebbe"}
)
SENTENCE_END: Final = (".", "!", "?")
_SHORT_ENDS: Final = (".", "?")
"""How a whole ask of two words ends: a page's calls to action shout ("Shop now!")."""
_NOT_OBJECTS: Final = (
    CALLS_TO_ACTION
    | FOR_ME
    | FIRST_PERSON_PLURAL
    | SECOND_PERSON
    | DUTCH_YOU
    | QUERY_PREPOSITIONS
    | RANKING
    | QUESTION_WORDS
    | CONTROL_OBJECTS
    | {"by"}
)
"""Second words of a page's two-word controls ("Show more", "Tell us", "Sort by", "Contact
you"): no object of a task."""
_SPLIT_FIRST: Final = frozenset(opening[0] for opening, _ in SPLIT_FRAMES)
_THAT: Final = "que"
_PARTS_RE: Final = re.compile(r"[,;:\u2013\u2014]|\s-\s")
_LATER_PARTS_RE: Final = re.compile(
    r";|,(?=\s*(?:" + "|".join(sorted(CONSEQUENCE - {_THAT})) + r")\b)"
)
"""A semicolon, or a comma before a word of consequence ("que" only after "así")."""
_HEAD_RE: Final = re.compile(
    rf"(?:[^\W\d_]+\s+){{0,{HEAD_WORDS - 1}}}[^\W\d_]+\s*(?::|\s[-\u2013\u2014])\s+"
)
"""A short head and its colon or dash at a clause's start ("Task: ", "The goal - ")."""


def clause_form(
    clause: str, words: list[str], asking: list[tuple[int, int]], capital: bool = False
) -> str:
    """What makes ``clause`` a request ("" when nothing); ``capital``: whether it opens with a
    capital as written."""
    if words[0] in ANSWERS:
        return ""  # a choice's button: "No, I don't want to save"
    form = _clause_form(clause, words, asking, capital)
    if form:
        return form
    head = _HEAD_RE.match(clause)
    if head is None:
        return ""
    rest = clause[head.end() :]
    rest_words = WORD_RE.findall(rest)
    if len(rest_words) < MIN_WORDS:
        return ""
    form = _clause_form(rest, rest_words, frames_in(rest_words, ASKING_YOU), False)
    return form if form in HEADED_FORMS else ""


def short_ask(clause: str, words: list[str]) -> str:
    """What makes a sentence of two words a whole ask ("" when nothing): a task's verb and
    what it is done to ("Explain recursion.", "Spiegami l'IVA."), a task's noun and a word of
    politeness ("Recipe please.", "Rezept bitte."), or a task's noun asked for ("Dinner
    ideas?"); a page's two words are a control ("Show more", "Tell us.", "Sort by:")."""
    if len(words) != 2 or not clause.rstrip().endswith(_SHORT_ENDS):
        return ""
    first, second = words
    if second not in _NOT_OBJECTS and imperative(words, True) and first not in MAKING_VERBS:
        return "imperative"
    if deliverable(first) and second in PLEASE:
        return "deliverable"
    if clause.rstrip().endswith("?") and deliverable(second) and first not in _NOT_OBJECTS:
        return "deliverable"
    return ""


def _clause_form(
    clause: str, words: list[str], asking: list[tuple[int, int]], capital: bool
) -> str:
    """:func:`clause_form` of a clause as it stands."""
    if any(task_after(words, end) for _, end in asking):
        return "asking"
    # A full stop, not an exclamation: a page's calls to action shout ("Find an agent near...!").
    ended = clause.rstrip().endswith(".")
    if imperative(words, ended) or any(imperative(part, ended) for part in _later_parts(clause)):
        return "imperative"
    if "," in clause and any(for_me(part) for part in _comma_parts(clause)):
        return "imperative"  # "Tengo un examen el lunes, hazme un resumen de..."
    if clause.rstrip().endswith("?") and _asks_if_known(words):
        return "asking"
    if _framed(words):
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


def _framed(words: list[str]) -> bool:
    """Whether a frame of asking holds in the clause with what is asked for after it, its
    intensifiers left out ("I'd really like a...", "I could so use a..."), or a frame in two
    parts opens it with what is asked for between them ("Ik heb een lijst nodig...")."""
    if not INTENSIFIERS.isdisjoint(words):
        words = [word for word in words if word not in INTENSIFIERS]
    if any(end < len(words) - 1 for _, end in frames_in(words, REQUEST_FRAMES)):
        return True
    if words[0] not in _SPLIT_FIRST:
        return False
    for opening, closing in SPLIT_FRAMES:
        if (
            tuple(words[: len(opening)]) == opening
            and closing in words[len(opening) + 1 :]
            and words[len(opening)] in DETERMINERS
        ):
            return True
    return False


def _without_subject(clause: str, words: list[str]) -> bool:
    """Whether the clause opens with a frame of asking said without its subject ("Looking for
    a gift for my dad who...", "Need a title for..."), as a sentence, not a question."""
    if len(words) < DROPPED_SUBJECT_WORDS or clause.rstrip().endswith("?"):
        return False
    start = 0
    while start < len(words) - 1 and words[start] in FIRST_WORDS:
        start += 1
    if any(found == start for found, _ in frames_in(words, DROPPED_SUBJECT)):
        return True
    return any(
        found == start and any(map(deliverable, words[end : end + SEEKING_REACH]))
        for found, end in frames_in(words, SEEKING)
    )


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
    """The words of the parts of ``clause`` after a semicolon, or after a comma and a word of
    consequence, where a task may open after its asker's situation ("...; aiutami a trovare le
    parole", "..., so plan my two days there")."""
    parts = _LATER_PARTS_RE.split(clause)[1:]
    found = []
    for part in parts:
        words = WORD_RE.findall(part)
        while words and words[0] in CONSEQUENCE:
            del words[0]  # "..., so plan my two days there", "..., así que dime..."
        if len(words) >= 2:
            found.append(words)
    return found


def _asks_if_known(words: list[str]) -> bool:
    """Whether a question asks the reader for a task's thing by asking whether the reader knows
    it: the noun, then what it is for ("Do you know a good recipe for hummus?")."""
    start = 0
    while start < len(words) - 1 and words[start] in FIRST_WORDS:
        start += 1
    for found, end in frames_in(words, KNOWING_YOU):
        if found != start:
            continue
        for index in range(end, min(end + KNOWING_REACH, len(words) - 1)):
            if deliverable(words[index]) and words[index + 1] in PREPOSITIONS:
                return True
    return False


def _comma_parts(clause: str) -> list[list[str]]:
    """The words of the parts of ``clause`` after a comma."""
    return [words for words in (WORD_RE.findall(part) for part in clause.split(",")[1:]) if words]


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
