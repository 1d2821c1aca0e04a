"""Whether hidden text is a request by its form, whatever its words ask for.

A page has no reason to hide a request from its human readers: hidden text that reads as a task
set for someone is suspicious because of its form and where it is, not because it names an
assistant or says "ignore previous instructions". A clause is in the form of a request when it
opens with a task's imperative ("Write a script that...", "Nenne drei...", "Explícame...",
"First list...") or gives the reader a role ("Act as my tutor"), puts a task in a frame of
asking, direct or indirect ("Could you recommend...", "I need a plan for...", "pode sugerir...",
"Könntest du mir ... geben?", "I wonder how..."), is a question with a question word among its
first words, names a task by what it asks for ("Travel tips for Kyoto.", "Pros and cons of..."),
or is a search box's query put as a question ("Good restaurants near the old town?"). "Please"
alone is no frame: a page's form messages say it as often. The words are grammar, kept as data
in :mod:`.rules_form`.

What keeps a page's own hidden furniture out: a clause of a few words is a label; a request that
speaks to the page's reader ("near you", "your order") or in which the site speaks of itself
("tell us") scores less, as does one among a control's words (cookies, sign in, menu) or in
markup; a text in Title Case is a label or a title; and the request clauses must make up most of
the text (a question inside a hidden section of prose belongs to the prose).
"""

from __future__ import annotations

import re
from typing import Final

from convert.safety.asked import (
    OPENERS,
    asked_form,
    compound_deliverable,
    deliverable,
    head_end,
    material,
    role_words,
    set_up,
)
from convert.safety.normalise import clauses, normalise
from convert.safety.rules_form import (
    ANSWERS,
    ASKED_FORMS,
    ASKED_QUESTION_WORDS,
    ASKED_REACH,
    ASKING_YOU,
    ATTACHED_INFINITIVE_ENDINGS,
    CALLS_TO_ACTION,
    CLITICS,
    DELIVERABLE_FACTOR,
    DELIVERABLE_REACH,
    DELIVERABLE_WORDS,
    DELIVERABLES,
    DETERMINERS,
    DROPPED_SUBJECT,
    DROPPED_SUBJECT_WORDS,
    ELIDED_PRONOUNS,
    ENCLITICS,
    EVALUATING,
    FILLERS,
    FIRST_PERSON,
    FIRST_PERSON_PLURAL,
    FOR_ME,
    FORM_SCORE,
    FORMAL_INFINITIVES,
    FORMAL_PRONOUN,
    FORMAL_YOU,
    FURNITURE,
    FURNITURE_FACTOR,
    GERMAN_ASKING,
    INDEFINITE,
    INFINITIVE_ENDINGS,
    INTENSIFIERS,
    MAKING_REACH,
    MAKING_SENTENCE,
    MAKING_VERBS,
    MARKUP,
    MARKUP_FACTOR,
    MAX_FORM_CHARS,
    MIN_QUESTION_WORDS,
    MIN_REQUEST_SHARE,
    MIN_WORDS,
    MY,
    NOT_ADDRESS,
    NOUN_AFTER,
    OF_WORDS,
    PAGE_THINGS,
    PAGE_THINGS_FACTOR,
    PHRASAL_OPENINGS,
    PLACING_VERBS,
    PLEASE,
    PLEASE_PHRASES,
    POLITE,
    POSSESSIVE_YOU,
    PREPOSITIONS,
    QUERY_PREPOSITIONS,
    QUERY_WORDS,
    QUESTION_REACH,
    QUESTION_WORDS,
    QUESTION_YOU,
    RANKING,
    READER_FACTOR,
    READER_OPENERS,
    REQUEST_FRAMES,
    ROMANCE_MAKING,
    SAYING_REACH,
    SAYING_VERBS,
    SECOND_PERSON,
    SEQUENCE_WORDS,
    SHORT_FACTOR,
    SHORT_WORDS,
    SITE_FACTOR,
    STANDING,
    TASK_VERBS,
    THAT,
    THIS_PAGE,
    THIS_PAGE_FACTOR,
    TITLE_SHARE,
    TITLE_SMALL,
    WEIGHINGS,
    WISH_COPULAS,
    WISHED,
)

__all__ = ["FormRequest", "asked_for", "request_form"]

_WORD_RE: Final = re.compile(r"[^\W\d_](?:[^\W\d_]|['-](?=[^\W\d_]))*")
_FIRST_WORDS: Final = FILLERS | SEQUENCE_WORDS | STANDING | {"now", "and"}
"""Words that may come before a clause's imperative ("Please list...", "First write...")."""
_HELP: Final = frozenset({"help", "helfen", "aider", "ayudar", "aiutare", "ajudar", "aiutarmi"})
_ENGLISH: Final = frozenset({"you", "to", "could", "can"})
"""An English frame of asking ends with one of these: what follows is no Romance infinitive
("can you offer" is asked by its verb's list, "would you prefer" is not a task)."""
_ELIDED_WISHED: Final = ("d'", "qu'", "s'")
_GERMAN_TO: Final = "zu"
"""German puts what is wished for last, with its "zu" ("..., eine Übersicht zu bekommen")."""
_WISHED_BEFORE: Final = 2
"""Words that name what is wished for before a wish that ends its clause."""
_CONDITIONALS: Final = frozenset(
    {"would", "it'd", "that'd", "could", "ware", "wurde", "serait", "seria", "sarebbe"}
)
"""The words of :data:`~.rules_form.WISH_COPULAS` that make them conditional: a text without
one holds no wish."""
_QUOTED_RE: Final = re.compile(
    r'"[^"]*"|\u201c[^\u201d]*\u201d|\u00ab[^\u00bb]*\u00bb|\u201e[^\u201c\u201d]*[\u201c\u201d]'
)
"""Quoted words: what the task is about ("rewrite 'we can't come'"), not who speaks."""
_SENTENCE_END: Final = (".", "!", "?")
_FORM_CUE: Final = "request form: "
_PARTS_RE: Final = re.compile(r"[,;:\u2013\u2014]|\s-\s")
_LATER_PARTS_RE: Final = re.compile(r";")


class FormRequest:
    """The best request clause of a text by its form: its score, its span and what made it."""

    __slots__ = ("end", "form", "score", "start")

    def __init__(self, score: float, start: int = 0, end: int = 0, form: str = "") -> None:
        self.score = score
        self.start = start
        self.end = end
        self.form = form


NONE: Final = FormRequest(0.0)


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
        PLEASE_PHRASES,
    )
}


def _frames(words: list[str], frames: tuple[tuple[str, ...], ...]) -> list[tuple[int, int]]:
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


def _task_after(words: list[str], index: int) -> bool:
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
    return not english and _infinitive(word)


_GERMAN_INFINITIVES: Final = tuple(FORMAL_INFINITIVES)


def _german_task(word: str) -> bool:
    """Whether ``word`` is a German task's infinitive, a separable one too ("vorschlagen",
    "zusammenfassen")."""
    return word in FORMAL_INFINITIVES or (len(word) > 7 and word.endswith(_GERMAN_INFINITIVES))


def _infinitive(word: str) -> bool:
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


def _imperative(words: list[str], ended: bool = False) -> bool:
    """Whether the clause opens with a task's imperative (after "please", "now"...); ``ended``:
    whether it ends with a full stop."""
    start = 0
    while start < len(words) - 1 and words[start] in _FIRST_WORDS:
        start += 1
    if start < len(words) - 1 and words[start] in FOR_ME and words[start + 1] in TASK_VERBS:
        start += 1  # "Mi consigli...", "Me recomiendas..."
    first = words[start]
    following = words[start + 1] if start + 1 < len(words) else ""
    if first in FORMAL_INFINITIVES and following == FORMAL_PRONOUN:
        return True
    if _says_that(words, start):
        return True
    if first in PLACING_VERBS and not RANKING.isdisjoint(words[start + 1 :]):
        return True  # "Rank this website first"
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


def _form(
    clause: str, words: list[str], asking: list[tuple[int, int]], capital: bool = False
) -> str:
    """What makes ``clause`` a request ("" when nothing); ``capital``: whether it opens with a
    capital as written."""
    if words[0] in ANSWERS:
        return ""  # a choice's button: "No, I don't want to save"
    if any(_task_after(words, end) for _, end in asking):
        return "asking"
    # A full stop, not an exclamation: a page's calls to action shout ("Find an agent near...!").
    ended = clause.rstrip().endswith(".")
    if _imperative(words, ended) or any(_imperative(part) for part in _later_parts(clause)):
        return "imperative"
    if any(end < len(words) - 1 for _, end in _frames(words, REQUEST_FRAMES)):
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
    return asked_form(clause, words, _FIRST_WORDS, _infinitive, capital)


def _without_subject(clause: str, words: list[str]) -> bool:
    """Whether the clause opens with a frame of asking said without its subject ("Looking for
    a gift for my dad who...", "Need a title for..."), as a sentence, not a question."""
    if len(words) < DROPPED_SUBJECT_WORDS or clause.rstrip().endswith("?"):
        return False
    start = 0
    while start < len(words) - 1 and words[start] in _FIRST_WORDS:
        start += 1
    return any(found == start for found, _ in _frames(words, DROPPED_SUBJECT))


def _wish(words: list[str]) -> bool:
    """Whether the clause wishes for something in the conditional: a copula, an evaluating
    word and what is wished for after it ("It would be great to get...", "Sería útil que...",
    "Ce serait vraiment bien si...")."""
    if _CONDITIONALS.isdisjoint(words):
        return False
    for start, end in _frames(words, WISH_COPULAS):
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
    return word in WISHED or word.startswith(_ELIDED_WISHED) or _infinitive(word)


def _says_that(words: list[str], start: int) -> bool:
    """Whether a verb of saying at ``start`` is followed by what to say ("Report that...",
    "Say the shop is closed": a clause after it, opened by "that" within a few words)."""
    return words[start] in SAYING_VERBS and not THAT.isdisjoint(
        words[start + 1 : start + 2 + SAYING_REACH]
    )


def _later_parts(clause: str) -> list[list[str]]:
    """The words of the parts of ``clause`` after a semicolon, where a task may open after its
    asker's situation ("...; aiutami a trovare le parole")."""
    parts = _LATER_PARTS_RE.split(clause)[1:]
    return [words for words in (_WORD_RE.findall(part) for part in parts) if len(words) >= 2]


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
        and not any(_pronouns(word) & QUESTION_YOU for word in words)
    )


def _names_a_deliverable(clause: str, words: list[str]) -> bool:
    """Whether ``clause`` is a sentence that names a task by what it asks for: a deliverable
    among its first words, a preposition after it ("SWOT analysis for a coffee shop.")."""
    if len(words) > DELIVERABLE_WORDS or not clause.rstrip().endswith(_SENTENCE_END):
        return False
    if any(start < DELIVERABLE_REACH for start, _ in _frames(words, WEIGHINGS)):
        return True  # "Pros and cons of...", whatever follows
    polite = not PLEASE.isdisjoint(words) or bool(_frames(words, PLEASE_PHRASES))
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
        if not QUESTION_WORDS.isdisjoint(_WORD_RE.findall(part)[:QUESTION_REACH]):
            return True
    return False


def _speaks_to_reader(words: list[str], form: str) -> bool:
    """Whether the clause is the page speaking to its reader: a question about the reader or
    the reader's things ("Are you sure...?", "What's your..."); elsewhere, the reader named
    outside a frame of asking ("near you", "your order")."""
    if form == "question":
        if not POSSESSIVE_YOU.isdisjoint(words) or words[0] in READER_OPENERS:
            return True
        return len(words) > 1 and _pronouns(words[1]) & QUESTION_YOU != set()
    return any(_pronouns(word) & SECOND_PERSON for word in words)


def _pronouns(word: str) -> set[str]:
    """The word, and the pronouns hyphened to it ("avez-vous", "dis-moi"; not in "a thank-you
    note")."""
    return {word} if word in NOT_ADDRESS else set(word.split("-"))


def _score(clause: str, written: str, form: str) -> float:
    """The form's score for ``clause`` (``written``: as written, not folded), less for the
    page's own voice, its controls and things, and markup."""
    unquoted = _QUOTED_RE.sub(" ", clause)
    words = _WORD_RE.findall(unquoted)
    if not words:
        return 0.0  # all quoted: what a text is about, not a request
    spoken = list(words)
    framed = _frames(words, ASKING_YOU) + _frames(words, REQUEST_FRAMES) + _frames(words, POLITE)
    role = role_words(words)
    if role is not None:
        framed.append(role)  # "You are a travel agent": the one set the task, no reader
    for start, end in sorted(framed, reverse=True):
        del spoken[start:end]
    score = FORM_SCORE
    if _speaks_to_reader(spoken if form != "question" else words, form) or FORMAL_YOU.search(
        written
    ):
        score *= READER_FACTOR
    placing = form == "imperative" and not RANKING.isdisjoint(words)
    if not PAGE_THINGS.isdisjoint(words) and not placing:
        score *= PAGE_THINGS_FACTOR
    if not FIRST_PERSON_PLURAL.isdisjoint(words):
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


def _title_case(text: str) -> bool:
    """Whether ``text`` (as written) capitalises most of its words, as labels and titles do."""
    words = _WORD_RE.findall(text)
    if len(words) < MIN_WORDS:
        return False
    # English titles keep their small words small ("Guide to Love and Saving the World").
    words = [word for word in words if word not in TITLE_SMALL]
    capitals = sum(1 for word in words if word[0].isupper())
    return capitals >= TITLE_SHARE * len(words)


_OPENERS: Final = frozenset(
    TASK_VERBS
    | MAKING_VERBS
    | FORMAL_INFINITIVES
    | DELIVERABLES
    | {frame[0] for frame in WEIGHINGS}
    | {frame[0] for frame in (*REQUEST_FRAMES, *ASKING_YOU, *PHRASAL_OPENINGS, *DROPPED_SUBJECT)}
    | _CONDITIONALS
    | SAYING_VERBS
    | PLACING_VERBS
    | OPENERS
)
"""A text with none of these words and no question mark holds no request by its form."""


def request_form(text: str, norm: str, parts: list[tuple[int, int]] | None = None) -> FormRequest:
    """The best clause of ``text`` (``norm``: its normal form, one character for one) that is a
    request by its form, when request clauses make up most of the text; :data:`NONE` else
    (``parts``: the clauses of ``norm``, when the caller has cut them)."""
    if len(norm) > MAX_FORM_CHARS:
        return NONE
    if "?" not in norm:
        words = _WORD_RE.findall(norm)
        if _OPENERS.isdisjoint(
            [word.partition("-")[0] for word in words] if "-" in norm else words
        ) and not compound_deliverable(norm):
            return NONE  # most hidden texts: labels and menus
    best = NONE
    total = requested = context = 0
    role = False
    for start, end in clauses(norm) if parts is None else parts:
        clause = norm[start:end]
        words = _WORD_RE.findall(clause)
        total += len(words)
        if len(words) < MIN_WORDS or (
            len(words) < SHORT_WORDS and not clause.rstrip().endswith(_SENTENCE_END)
        ):
            continue
        asking = _frames(words, ASKING_YOU)
        written = text[start:end]
        form = (
            ""
            if _title_case(written)
            else _form(clause, words, asking, written.lstrip()[:1].isupper())
        )
        if not form and role and words[0] in MAKING_VERBS:
            form = "imperative"  # after a role set-up, what to make is the task ("Design a...")
        role = set_up(words)
        if not form:
            if (
                set_up(words)
                or material(clause)
                or not (FIRST_PERSON.isdisjoint(words) and FIRST_PERSON_PLURAL.isdisjoint(words))
            ):
                context += len(words)  # someone's situation, told before or after the task
            continue
        requested += len(words)
        score = _score(clause, text[start:end], form)
        if score > best.score:
            best = FormRequest(round(score, 4), start, end, form)
    if not requested or requested + context < MIN_REQUEST_SHARE * total:
        return _headed(text, norm)
    return best


def _headed(text: str, norm: str) -> FormRequest:
    """The whole text as a request when it is a task's head and the text or the constraints it
    applies to ("Fix this function: ...", "Poem: four lines, rhyming..."), scored by its head as
    a task named alone (a short head is no weaker than a long one)."""
    end = head_end(norm, _imperative, _infinitive)
    if not end or _title_case(text):
        return NONE
    score = _score(norm[:end], text[:end], "deliverable")
    return FormRequest(round(score, 4), 0, len(norm), "head")


def asked_for(sentence: str, cues: tuple[str, ...]) -> bool:
    """Whether a request found by its form (``cues``: what :func:`.intent.intent` names it by,
    "request form: asking"...) is asked for in the asker's own voice: a frame of asking, a
    question about what the asker does ("How do I...?") or a long one, or a new thing to make
    ("Write a script that...", "Écris une fonction..."), where a developer's note speaks of
    the page's own things ("Load the script after the header")."""
    kinds = {cue.removeprefix(_FORM_CUE) for cue in cues}
    if not ASKED_FORMS.isdisjoint(kinds):
        return True
    words = _WORD_RE.findall(normalise(sentence, []))
    if "question" in kinds and (
        len(words) >= ASKED_QUESTION_WORDS or not FIRST_PERSON.isdisjoint(words)
    ):
        return True
    # The thing after its article, or after one word more ("a bash script", "une fonction").
    return any(
        word in INDEFINITE and not DELIVERABLES.isdisjoint(words[index + 1 : index + 3])
        for index, word in enumerate(words[:ASKED_REACH])
    )
