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
in :mod:`.rules_asking` (the verbs and frames of asking) and :mod:`.rules_form`.

What keeps a page's own hidden furniture out: a clause of a few words is a label; a request that
speaks to the page's reader ("near you", "your order") or in which the site speaks of itself
("tell us") scores less, as does one among a control's words (cookies, sign in, menu) or in
markup; a text in Title Case is a label or a title; and the request clauses must make up most of
the text (a question inside a hidden section of prose belongs to the prose).

This module weighs a text clause by clause; which form a clause takes is read in
:mod:`.clause_form` (the grammar of its verb in :mod:`.verbs`, the half-said forms in
:mod:`.asked`), and how strongly it counts in :mod:`.form_score`.
"""

from __future__ import annotations

from typing import Final

from convert.safety.asked import OPENERS, compound_deliverable, head_end, material, set_up
from convert.safety.clause_form import CONDITIONALS, SENTENCE_END, clause_form, short_ask
from convert.safety.form_score import form_score, title_case
from convert.safety.normalise import clauses, normalise
from convert.safety.rules_asking import (
    ASKED_FORMS,
    ASKED_QUESTION_WORDS,
    ASKED_REACH,
    ASKING_YOU,
    DROPPED_SUBJECT,
    FORMAL_INFINITIVES,
    INDEFINITE,
    MAKING_VERBS,
    PHRASAL_OPENINGS,
    REQUEST_FRAMES,
    SEEKING,
    SEPARABLE,
    TASK_VERBS,
)
from convert.safety.rules_form import (
    DELIVERABLES,
    FIRST_PERSON,
    FIRST_PERSON_PLURAL,
    FOLLOW_UP_OBJECTS,
    MAX_FORM_CHARS,
    MESSAGE_CLAUSES,
    MESSAGE_WORDS,
    MIN_REQUEST_SHARE,
    MIN_WORDS,
    PLACING_VERBS,
    SAYING_VERBS,
    SHORT_WORDS,
    WEIGHINGS,
)
from convert.safety.verbs import WORD_RE, frames_in, imperative, infinitive

__all__ = ["FormRequest", "asked_for", "request_form"]

_FORM_CUE: Final = "request form: "


class FormRequest:
    """The best request clause of a text by its form: its score, its span and what made it."""

    __slots__ = ("end", "form", "score", "start")

    def __init__(self, score: float, start: int = 0, end: int = 0, form: str = "") -> None:
        self.score = score
        self.start = start
        self.end = end
        self.form = form


NONE: Final = FormRequest(0.0)


_OPENERS: Final = frozenset(
    TASK_VERBS
    | MAKING_VERBS
    | FORMAL_INFINITIVES
    | DELIVERABLES
    | {frame[0] for frame in WEIGHINGS}
    | {
        frame[0]
        for frame in (*REQUEST_FRAMES, *ASKING_YOU, *PHRASAL_OPENINGS, *DROPPED_SUBJECT, *SEEKING)
    }
    | CONDITIONALS
    | SAYING_VERBS
    | PLACING_VERBS
    | SEPARABLE.keys()
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
        words = WORD_RE.findall(norm)
        if _OPENERS.isdisjoint(
            [word.partition("-")[0] for word in words] if "-" in norm else words
        ) and not compound_deliverable(norm):
            return NONE  # most hidden texts: labels and menus
    best = NONE
    total = requested = context = count = 0
    role = follows = last = False
    spans = clauses(norm) if parts is None else parts
    for start, end in spans:
        clause = norm[start:end]
        words = WORD_RE.findall(clause)
        total += len(words)
        count += 1
        last = False
        written = text[start:end]
        if len(words) < MIN_WORDS or (
            len(words) < SHORT_WORDS and not clause.rstrip().endswith(SENTENCE_END)
        ):
            # A text of one sentence of two words may still be a whole ask ("Explain
            # recursion.", "Recipe please."); a shorter clause is a label.
            form = short_ask(clause, words) if len(spans) == 1 else ""
            if form:
                requested = total
                best = FormRequest(round(form_score(clause, written, form), 4), start, end, form)
            continue
        asking = frames_in(words, ASKING_YOU)
        form = (
            ""
            if title_case(written)
            else clause_form(clause, words, asking, written.lstrip()[:1].isupper())
        )
        if not form and role and words[0] in MAKING_VERBS:
            form = "imperative"  # after a role set-up, what to make is the task ("Design a...")
        role = set_up(words)
        if not form:
            if (
                (follows and words[1] in FOLLOW_UP_OBJECTS and not clause.endswith("?"))
                or set_up(words)
                or material(clause)
                or not (FIRST_PERSON.isdisjoint(words) and FIRST_PERSON_PLURAL.isdisjoint(words))
            ):
                context += len(words)  # someone's situation, told before or after the task
            continue
        requested += len(words)
        follows = True
        last = form != "question" or not (
            FIRST_PERSON.isdisjoint(words) and FIRST_PERSON_PLURAL.isdisjoint(words)
        )
        score = form_score(clause, text[start:end], form)
        if score > best.score:
            best = FormRequest(round(score, 4), start, end, form)
    if last and count <= MESSAGE_CLAUSES and total <= MESSAGE_WORDS:
        context = total - requested  # one message: the situation, then the ask
    if not requested or requested + context < MIN_REQUEST_SHARE * total:
        return _headed(text, norm)
    return best


def _headed(text: str, norm: str) -> FormRequest:
    """The whole text as a request when it is a task's head and the text or the constraints it
    applies to ("Fix this function: ...", "Poem: four lines, rhyming..."), scored by its head as
    a task named alone (a short head is no weaker than a long one)."""
    end = head_end(norm, imperative, infinitive)
    if not end or title_case(text):
        return NONE
    score = form_score(norm[:end], text[:end], "deliverable")
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
    words = WORD_RE.findall(normalise(sentence, []))
    if "question" in kinds and (
        len(words) >= ASKED_QUESTION_WORDS or not FIRST_PERSON.isdisjoint(words)
    ):
        return True
    # The thing after its article, or after one word more ("a bash script", "une fonction").
    return any(
        word in INDEFINITE and not DELIVERABLES.isdisjoint(words[index + 1 : index + 3])
        for index, word in enumerate(words[:ASKED_REACH])
    )
