"""The grammar of a request's verb, for :mod:`.form`: where frames of asking hold in a
clause ("could you", "I need", "pourriez-vous"), whether a task's verb follows them, whether a
clause opens with a task's imperative (after "please", "first"...; with a Romance pronoun attached,
"Escríbeme"; a verb of making only for someone or in a sentence, "Make me a menu", not a slogan's
"Build better teams"), and whether a word reads as a Romance infinitive. The words are grammar,
kept as data in :mod:`.rules_asking` and :mod:`.rules_form`.
"""

from __future__ import annotations

import re
from typing import Final

from convert.safety.rules_asking import (
    ASKING_YOU,
    ATTACHED_INFINITIVE_ENDINGS,
    CALLS_TO_ACTION,
    CLITICS,
    DETERMINERS,
    DROPPED_SUBJECT,
    DUTCH_INFINITIVES,
    ELIDED_PRONOUNS,
    ENCLITICS,
    FILLERS,
    FOR_ME,
    FORMAL_INFINITIVES,
    FORMAL_PRONOUN,
    GERMAN_ASKING,
    INFINITIVE_ENDINGS,
    KNOWING_YOU,
    MAKING_REACH,
    MAKING_SENTENCE,
    MAKING_VERBS,
    MY,
    NOT_ATTACHED,
    NOUN_AFTER,
    PHRASAL_OPENINGS,
    PLEASE_PHRASES,
    REQUEST_FRAMES,
    ROMANCE_MAKING,
    SEEKING,
    SEPARABLE,
    SEPARABLE_REACH,
    SEQUENCE_WORDS,
    STANDING,
    TASK_VERBS,
)
from convert.safety.rules_form import (
    DELIVERABLES,
    NOT_ADDRESS,
    PLACING_VERBS,
    POLITE,
    RANKING,
    SAYING_REACH,
    SAYING_VERBS,
    SHORT_WORDS,
    THAT,
    WEIGHINGS,
    WISH_COPULAS,
)

__all__ = [
    "FIRST_WORDS",
    "WORD_RE",
    "for_me",
    "frames_in",
    "imperative",
    "infinitive",
    "pronouns",
    "says_that",
    "task_after",
]

WORD_RE: Final = re.compile(r"[^\W\d_](?:[^\W\d_]|['-](?=[^\W\d_]))*")
FIRST_WORDS: Final = FILLERS | SEQUENCE_WORDS | STANDING | {"now", "and"}
"""Words that may come before a clause's imperative ("Please list...", "First write...")."""
_HELP: Final = frozenset({"help", "helfen", "aider", "ayudar", "aiutare", "ajudar", "aiutarmi"})
_ENGLISH: Final = frozenset({"you", "to", "could", "can"})
"""An English frame of asking ends with one of these: what follows is no Romance infinitive
("can you offer" is asked by its verb's list, "would you prefer" is not a task)."""


def _index(frames: tuple[tuple[str, ...], ...]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """Each frame under its first word, longest first."""
    index: dict[str, list[tuple[str, ...]]] = {}
    for frame in sorted(frames, key=len, reverse=True):
        index.setdefault(frame[0], []).append(frame)
    return {word: tuple(found) for word, found in index.items()}


_INDEXED: Final[dict[int, dict[str, tuple[tuple[str, ...], ...]]]] = {
    id(frames): _index(frames)
    for frames in (
        REQUEST_FRAMES,
        ASKING_YOU,
        POLITE,
        WEIGHINGS,
        WISH_COPULAS,
        DROPPED_SUBJECT,
        SEEKING,
        PLEASE_PHRASES,
        KNOWING_YOU,
    )
}


def frames_in(words: list[str], frames: tuple[tuple[str, ...], ...]) -> list[tuple[int, int]]:
    """Where each of ``frames`` (:data:`REQUEST_FRAMES` or :data:`ASKING_YOU`) holds in
    ``words`` (start, end), left to right."""
    by_first = _INDEXED[id(frames)]
    found: list[tuple[int, int]] = []
    if by_first.keys().isdisjoint(words):
        return found  # most clauses: no frame's first word (one test in C, not one a word)
    index = 0
    while index < len(words):
        for frame in by_first.get(words[index], ()):
            if tuple(words[index : index + len(frame)]) == frame:
                found.append((index, index + len(frame)))
                index += len(frame) - 1
                break
        index += 1
    return found


def task_after(words: list[str], index: int) -> bool:
    """Whether a task's verb (or "help") comes at ``index``, after any fillers and clitic
    pronouns; after a German frame, whether the clause ends with a task's infinitive."""
    german = not GERMAN_ASKING.isdisjoint(words[max(0, index - 2) : index])
    if german and any(_german_task(word) for word in words[index:]):
        return True
    english = words[index - 1] in _ENGLISH
    while index < len(words) and (words[index] in FILLERS or words[index] in CLITICS):
        index += 1
    if index >= len(words):
        return False
    word = words[index]
    if word in TASK_VERBS or word in MAKING_VERBS or word in _HELP:
        return True
    # A Romance frame takes the infinitive: "pode sugerir", "pourriez-vous recommander",
    # with its pronoun attached ("darme", "dar-me", "m'expliquer").
    return not english and infinitive(word)


_GERMAN_INFINITIVES: Final = tuple(FORMAL_INFINITIVES)


def _german_task(word: str) -> bool:
    """Whether ``word`` is a German or Dutch task's infinitive, a separable one too
    ("vorschlagen", "zusammenfassen")."""
    return (
        word in FORMAL_INFINITIVES
        or word in DUTCH_INFINITIVES
        or (len(word) > 7 and word.endswith(_GERMAN_INFINITIVES))
    )


def infinitive(word: str) -> bool:
    """Whether ``word`` reads as a Romance infinitive, with or without a pronoun attached."""
    if word.startswith(ELIDED_PRONOUNS):
        word = word[2:]
    for ending in ENCLITICS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            stem = word[: -len(ending)]
            if stem.endswith(ATTACHED_INFINITIVE_ENDINGS):
                return True
    return len(word) > 4 and word.endswith(INFINITIVE_ENDINGS)


_PHRASAL_BY_FIRST: Final[dict[str, tuple[tuple[str, ...], ...]]] = {
    first: tuple(opening for opening in PHRASAL_OPENINGS if opening[0] == first)
    for first in {opening[0] for opening in PHRASAL_OPENINGS}
}
"""The phrasal openings by their first word (a clause's first word is looked up once)."""


def imperative(words: list[str], ended: bool = False) -> bool:
    """Whether the clause opens with a task's imperative (after "please", "now"...); ``ended``:
    whether it ends with a full stop."""
    start = 0
    while start < len(words) - 1 and words[start] in FIRST_WORDS:
        start += 1
    if start < len(words) - 1 and words[start] in FOR_ME and words[start + 1] in TASK_VERBS:
        start += 1  # "Mi consigli...", "Me recomiendas..."
    first = words[start]
    following = words[start + 1] if start + 1 < len(words) else ""
    if first in FORMAL_INFINITIVES and following == FORMAL_PRONOUN:
        return True
    if says_that(words, start):
        return True
    if first in PLACING_VERBS and not RANKING.isdisjoint(words[start + 1 :]):
        return True  # "Rank this website first"
    particle = SEPARABLE.get(first)
    if particle is not None and len(words) > start + 2:
        # Dutch: "Vat de punten samen.", "Leg uit hoe...", "Leg me uit..."
        return words[-1] == particle or particle in words[start + 1 : start + 1 + SEPARABLE_REACH]
    if any(
        tuple(words[start : start + len(opening)]) == opening
        for opening in _PHRASAL_BY_FIRST.get(first, ())
    ):
        return True
    if first in MAKING_VERBS or _without_enclitic(first, ROMANCE_MAKING) != first:
        return _made_for_someone(words, start, ended)
    if first not in TASK_VERBS:
        first = _without_enclitic(first)  # "Escríbeme...", "explícame", "consigliami"
    return first in TASK_VERBS and following not in CALLS_TO_ACTION and following not in NOUN_AFTER


def _made_for_someone(words: list[str], start: int, ended: bool) -> bool:
    """Whether a verb of making at ``start`` opens a task rather than a button or a slogan
    ("Build better teams"): made for someone ("Make me a menu", "Fais-moi..."), about the
    asker's things in a sentence ("Fix my essay's opening"), naming a thing a task makes ("Make a
    packing list"), or opening a long sentence with what to make ("Plan a party for...")."""
    first = words[start]
    following = words[start + 1 : start + 1 + MAKING_REACH]
    if first not in MAKING_VERBS or (following and following[0] in FOR_ME):
        return True  # the pronoun attached ("fais-moi", "hazme") or after it
    if not DELIVERABLES.isdisjoint(following):
        return True
    if len(words) < SHORT_WORDS:
        return False
    if not MY.isdisjoint(following[:2]):
        return True
    return (
        ended
        and len(words) - start >= MAKING_SENTENCE
        and bool(following)
        and (following[0] in DETERMINERS)
    )


def _without_enclitic(word: str, verbs: frozenset[str] = TASK_VERBS) -> str:
    """A Romance imperative without the pronoun attached to it, when it reads as one of
    ``verbs``; else ``word``."""
    for ending in ENCLITICS:
        if word.endswith(ending) and word[: -len(ending)].rstrip("-") in verbs:
            return word[: -len(ending)].rstrip("-")
    return word


def says_that(words: list[str], start: int) -> bool:
    """Whether a verb of saying at ``start`` is followed by what to say ("Report that...",
    "Say the shop is closed": a clause after it, opened by "that" within a few words)."""
    return words[start] in SAYING_VERBS and not THAT.isdisjoint(
        words[start + 1 : start + 2 + SAYING_REACH]
    )


def pronouns(word: str) -> set[str]:
    """The word, and the pronouns hyphened to it ("avez-vous", "dis-moi"; not in "a thank-you
    note")."""
    return {word} if word in NOT_ADDRESS else set(word.split("-"))


_TO_ME: Final = ("-me", "-moi", "me", "mi")
"""The pronouns of the asker attached to a Romance imperative ("hazme", "dimmi", "dis-moi")."""


def for_me(words: list[str]) -> bool:
    """Whether ``words`` open with a task's imperative done for the asker ("give me...", "tell
    me...", "hazme...", "dimmi..."), the surest imperative a clause can open with."""
    start = 0
    while start < len(words) - 1 and words[start] in FIRST_WORDS:
        start += 1
    first = words[start]
    if (first in TASK_VERBS or first in MAKING_VERBS) and (
        start + 1 < len(words) and words[start + 1] in FOR_ME
    ):
        return True  # "give me", "tell me", "fais-moi" (two words once folded)
    if not first.endswith(_TO_ME) or first in NOT_ATTACHED:
        return False
    return (
        first in TASK_VERBS  # "dime", "hazme": listed with the pronoun on
        or _without_enclitic(first) != first
        or _without_enclitic(first, ROMANCE_MAKING) != first
    )
