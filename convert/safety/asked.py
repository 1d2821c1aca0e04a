"""More forms of a request than :mod:`.form` reads clause by clause: how people ask in chats,
forms and search boxes when they leave the grammar of a request half out.

A question without its question mark ("how long should I boil an egg", "womit sollte er
anfangen.") opens with a question word and an auxiliary, a subject or an infinitive right after
it (a relative clause opens with "which" or "wo" too, but not so); a yes-or-no question opens
with an auxiliary and its subject ("is it safe to..."). A task may be told of someone else
("The user wants a list of...", "Die Kundin braucht eine Zusammenfassung...", "The task is to
write..."). A role set-up ("You are a travel agent.") is the task's context, and its "you" no
reader spoken to. A question without its mark and without a full stop asks only with its asker
in it: "how to grow lemon trees from seeds" is an image's caption as often. And a
task's head may stand before the text it applies to ("Fix this function: def f(x)...",
"Kürzer und freundlicher: Hiermit...") or before its constraints ("Poem: four lines, rhyming,
about the sea"): the whole text is then the request. The words are grammar, kept as data in
:mod:`.rules_asked`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from convert.safety.rules_asked import (
    ASKERS,
    COMPARATIVES,
    COMPOUND_ENDS,
    COMPOUND_MIN,
    CONSTRAINT_PARTS,
    ENDED_UNMARKED_WORDS,
    HEAD_MAKING_AFTER,
    HEAD_MAX_WORDS,
    HEAD_MIN_WORDS,
    HEAD_NOUNS,
    HEAD_THIS,
    MATERIAL_MIN_WORDS,
    MATERIAL_SHARE,
    MORE_DELIVERABLES,
    NOT_QUESTION_AFTER,
    NOUN_HEAD_MAX_PART,
    NOUN_HEAD_MEAN_PART,
    NOUN_HEAD_WORDS,
    QUESTION_REACH,
    QUESTION_VERBS,
    ROLE_ARTICLES,
    ROLES,
    ROMANCE_ARTICLES,
    SHORT_INFINITIVES,
    STRONG_WH,
    SUBJECTS,
    TASK_NAMES,
    TO_WORDS,
    UNMARKED_WORDS,
    WANT_DETERMINERS,
    WANTED_REACH,
    WANTING,
    WANTING_AT,
    WH_PAIRS,
    WH_WORDS,
    YES_NO,
    YES_NO_SUBJECTS,
)
from convert.safety.rules_asking import (
    COPULAS,
    INDEFINITE,
    MAKING_VERBS,
    MY,
    OWN_PURPOSES,
    TASK_VERBS,
)
from convert.safety.rules_form import (
    DELIVERABLES,
)

__all__ = [
    "OPENERS",
    "asked_form",
    "compound_deliverable",
    "deliverable",
    "head_end",
    "material",
    "role_words",
    "set_up",
]

_NOUNS: Final = DELIVERABLES | MORE_DELIVERABLES
_ROLES: Final = tuple(sorted(ROLES, key=len, reverse=True))
_WANTING: Final = tuple(sorted(WANTING, key=len, reverse=True))
OPENERS: Final = (
    WH_WORDS
    | YES_NO
    | _NOUNS
    | SUBJECTS
    | TASK_NAMES
    | OWN_PURPOSES
    | COMPARATIVES
    | {phrase[0] for phrase in (*WANTING, *ROLES, *WH_PAIRS)}
)
"""Words of which a text holds one when one of these forms is there."""
_ENDED: Final = (".", "!", "?")
_HEAD_RE: Final = re.compile(r"\s*(?::|\s[-\u2013\u2014]\s)")
_DASHES: Final = frozenset("-\u2013\u2014")
"""Where a task's head ends: a colon, or a dash between spaces."""
_NOUN_HEAD_RE: Final = re.compile(r"\s*(?:[:,.]|\s[-\u2013\u2014]\s)")
"""Where a task's noun before its constraints ends: a comma and a full stop too."""
_HEAD_TEXT_RE: Final = re.compile(r"\s*[^\W\d_]+(?:[\s'-]+[^\W\d_]+)*\s*")
"""A task's head is words alone (not a path or a query string's names)."""
_WORD_RE: Final = re.compile(r"[^\W\d_](?:[^\W\d_]|['-](?=[^\W\d_]))*")
_ENGLISH_WH: Final = frozenset({"what", "what's", "whats", "which", "where", "how", "why", "who"})
_PARTS_RE: Final = re.compile(r"[,.;:]|\s[-\u2013\u2014]\s")


_COMPOUND_RE: Final = re.compile(rf"\w{{{COMPOUND_MIN - 4},}}(?:{'|'.join(COMPOUND_ENDS)})\b")


def compound_deliverable(norm: str) -> bool:
    """Whether ``norm`` holds a German compound that names what a task asks for (no word of
    :data:`OPENERS`)."""
    # Most texts hold none of the endings: a few substring tests, not a search word by word.
    return any(end in norm for end in COMPOUND_ENDS) and _COMPOUND_RE.search(norm) is not None


def deliverable(word: str) -> bool:
    """Whether ``word`` names what a task asks for, a German compound too ("Geschenkideen")."""
    return word in _NOUNS or (len(word) >= COMPOUND_MIN and word.endswith(COMPOUND_ENDS))


def _start(words: list[str], fillers: frozenset[str]) -> int:
    start = 0
    while start < len(words) - 1 and words[start] in fillers:
        start += 1
    return start


def _unmarked_question(
    clause: str, words: list[str], start: int, infinitive: Callable[[str], bool], capital: bool
) -> bool:
    """A question said without its question mark: a question word and, within a few words, an
    auxiliary, a subject or an infinitive; or an auxiliary and its subject. A heading says "How
    to install the app" (capital, no full stop): a question word and an infinitive ask only in
    lower case or as a sentence."""
    ended = clause.rstrip().endswith(".")
    least = ENDED_UNMARKED_WORDS if ended else UNMARKED_WORDS
    if len(words) - start < least or clause.rstrip().endswith(("?", "!")):
        return False
    if not ended and ASKERS.isdisjoint(words):
        return False  # "how to grow lemon trees", "why now is the time...": a caption's
    first = words[start]
    if tuple(words[start : start + 2]) in WH_PAIRS:
        start += 1
    elif first in YES_NO:
        return words[start + 1] in YES_NO_SUBJECTS
    elif first not in WH_WORDS:
        return False
    after = words[start + 1 : start + 1 + QUESTION_REACH]
    if not after:
        return False
    if first in STRONG_WH:
        return True
    if after[0] in TO_WORDS or (
        first not in _ENGLISH_WH and _short_infinitive(after[0], infinitive)
    ):
        return ended or not capital
    if not NOT_QUESTION_AFTER.isdisjoint(after[:2]):
        return False
    return not QUESTION_VERBS.isdisjoint(after)


def _short_infinitive(word: str, infinitive: Callable[[str], bool]) -> bool:
    """A Romance infinitive, a short one too after a question word ("come fare", "que dire")."""
    return infinitive(word) or (len(word) == 4 and word.endswith(SHORT_INFINITIVES))


def _wanted(words: list[str], start: int) -> bool:
    """A task wanted by someone told in the third person ("The user wants a list...", "My
    manager wants..."), named by its name ("The task is to write..."), or the asker's own
    purpose ("My goal is to...", "Il mio obiettivo è...")."""
    low, high = WANTING_AT
    subject = words[start : start + high]
    opening = subject[0].partition("'")[0] + "'" if "'" in subject[0] else subject[0]
    if not subject or not (
        opening in WANT_DETERMINERS
        or subject[0] in SUBJECTS
        or subject[0] in MY
        or subject[0] in TASK_NAMES  # "Assignment for today is a summary of..."
    ):
        return False
    for index in range(start + low, min(len(words), start + high + 1)):
        if words[index] in COPULAS:
            named = words[start:index]
            if not (MY.isdisjoint(subject[:2]) or OWN_PURPOSES.isdisjoint(named)):
                return index + 2 < len(words)
            if not TASK_NAMES.isdisjoint(named):
                return _task_follows(words, index + 1)
        for phrase in _WANTING:
            if tuple(words[index : index + len(phrase)]) == phrase:
                return _task_follows(words, index + len(phrase))
    return False


def _task_follows(words: list[str], index: int) -> bool:
    wanted = words[index : index + WANTED_REACH]
    return any(deliverable(word) or word in TASK_VERBS for word in wanted)


def asked_form(
    clause: str,
    words: list[str],
    fillers: frozenset[str],
    infinitive: Callable[[str], bool],
    capital: bool = False,
) -> str:
    """What makes ``clause`` a request by one of this module's forms ("" when nothing);
    ``fillers``: the words that may come first, ``infinitive``: whether a word reads as a
    Romance infinitive, ``capital``: whether the clause opens with a capital as written."""
    start = _start(words, fillers)
    if _unmarked_question(clause, words, start, infinitive, capital):
        return "question"
    if _wanted(words, start):
        return "frame"

    return ""


_ROLES_BY_FIRST: Final[dict[str, tuple[tuple[str, ...], ...]]] = {
    first: tuple(phrase for phrase in _ROLES if phrase[0] == first)
    for first in {phrase[0] for phrase in _ROLES}
}
"""The role set-ups by their first word, longest first (a clause's first word looked up once)."""


def role_words(words: list[str]) -> tuple[int, int] | None:
    """Where a role set-up opens the clause ("you are a", "du bist mein"): its span."""
    for phrase in _ROLES_BY_FIRST.get(words[0], ()) if words else ():
        end = len(phrase)
        if tuple(words[:end]) == phrase and end < len(words) and words[end] in ROLE_ARTICLES:
            return 0, end
    return None


_SYMBOLS_RE: Final = re.compile(r"[^\w\s]|\d")


def material(clause: str) -> bool:
    """Whether ``clause`` is a task's material rather than words (code, a formula, figures):
    symbols and digits make up a good share of it ("SELECT name, COUNT(*) FROM..."). Beside a
    task, it is what the task is about."""
    letters = len(clause) - clause.count(" ")
    return letters > 0 and len(_SYMBOLS_RE.findall(clause)) >= MATERIAL_SHARE * letters


def set_up(words: list[str]) -> bool:
    """Whether the clause is a role set-up, the context of a task."""
    return role_words(words) is not None


def head_end(
    norm: str, imperative: Callable[[list[str]], bool], infinitive: Callable[[str], bool]
) -> int:
    """Where the task's head of ``norm`` ends, when the text is a task's head and the text or
    the constraints it applies to (0 when it is not); ``imperative``: whether words open with a
    task's imperative, ``infinitive``: whether a word reads as a Romance infinitive."""
    # A head ends at a colon or a dash: most texts have neither (one test each, not a search).
    found = _HEAD_RE.search(norm) if ":" in norm or _DASHES.intersection(norm) else None
    if found is not None:
        head = _WORD_RE.findall(norm[: found.start()])
        if (
            _HEAD_TEXT_RE.fullmatch(norm[: found.start()])
            and HEAD_MIN_WORDS <= len(head) <= HEAD_MAX_WORDS
            and len(norm[found.end() :].split()) >= MATERIAL_MIN_WORDS
            and _task_head(head, imperative, infinitive)
        ):
            return found.start()
    found = _NOUN_HEAD_RE.search(norm)
    if found is None:
        return 0
    head = _WORD_RE.findall(norm[: found.start()])
    opening = [word for word in head[:3] if word not in INDEFINITE][:2]
    if (
        not head
        or len(head) > NOUN_HEAD_WORDS
        or not _HEAD_TEXT_RE.fullmatch(norm[: found.start()])
        or not any(map(deliverable, opening))
    ):
        return 0
    parts = [len(part.split()) for part in _PARTS_RE.split(norm[found.end() :]) if part.strip()]
    if (
        len(parts) + 1 >= CONSTRAINT_PARTS
        and max(parts) <= NOUN_HEAD_MAX_PART
        and sum(parts) <= NOUN_HEAD_MEAN_PART * len(parts)
    ):
        return found.start()
    return 0


def _task_head(
    head: list[str], imperative: Callable[[list[str]], bool], infinitive: Callable[[str], bool]
) -> bool:
    """Whether ``head`` sets a task to the text after it."""
    return (
        imperative(head)
        or head[0] in COMPARATIVES
        or (head[0] in MAKING_VERBS and head[1] in HEAD_MAKING_AFTER)
        or not HEAD_NOUNS.isdisjoint(head[1:])
        or (deliverable(head[0]) and not HEAD_THIS.isdisjoint(head))
        or (infinitive(head[0]) and head[1] in ROMANCE_ARTICLES)
    )
