"""Whether text reads as a request to an assistant, without needing override framing.

A text is cut into clauses (sentences and lines) and each clause, and each pair of neighbouring
clauses, is scored from the cues of :mod:`.rules_intent`: an imperative verb opening a clause,
second-person obligation, an assistant or its answer addressed, the user in the third person,
something to pass on, a language or format demand, steering, an alarm, a request for personal
data. The text's score is its best window's. Callers weigh it by how hidden the text was
(:data:`HIDDENNESS`): the same words in sight are page copy ("Click here", "Subscribe now").
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from convert.safety.form import request_form
from convert.safety.normalise import clauses, normalise
from convert.safety.rules_form import FORM_SCORE, FORM_SEVERITY
from convert.safety.rules_intent import (
    ANCHOR_REACH,
    CODE,
    CODE_FACTOR,
    CONTEXT_CHARS,
    CONTEXT_FACTOR,
    CUES,
    FURNITURE,
    FURNITURE_FACTOR,
    INSTRUCTION_SCORE,
    MIN_WORDS,
    READER_FACTOR,
    READER_TALK,
    SHORT_FACTOR,
    SHORT_WORDS,
    SITE_FACTOR,
    SITE_TALK,
    Cue,
)
from convert.text.memo import small_key_cache

__all__ = [
    "HIDDENNESS",
    "INSTRUCTION_SCORE",
    "STRIPPED_REQUEST",
    "Intent",
    "hiddenness",
    "intent",
    "severity",
]

HIDDENNESS: Final[Mapping[str, float]] = MappingProxyType(
    {
        "display or visibility": 1.0,
        "opacity": 1.0,
        "font size": 1.0,
        "transparent text": 1.0,
        "text colour matches background": 1.0,
        "off-screen": 0.95,
        "hidden attribute": 0.9,
        "hiding class": 0.9,
        "clipping": 0.8,
        "zero-size box": 0.8,
        "screen-reader class": 0.6,
        "aria-hidden": 0.4,
        "html_comment": 0.9,
        "template": 0.5,
        "noscript": 0.4,
        "attribute:alt": 0.85,
        "attribute:aria-description": 0.8,
        "attribute:title": 0.5,
        "attribute:aria-label": 0.45,
        "unicode_tags": 1.0,
        "zero_width": 1.0,
    }
)
"""How surely each hiding place keeps text from a human reader (1: never seen)."""
LARGE_HIDDEN: Final = 1500
"""A hidden element with more text than this is most likely content waiting for a script (a
slide, a tab, a fade-in section), not a planted note: its hiddenness counts at..."""
LARGE_FACTOR: Final = 0.6
"""...this share."""
STRIPPED_REQUEST: Final = 0.4
"""Hidden requests at least this severe are removed in sanitize mode."""
_SCANNED: Final = 8000
"""Characters of one text that are scored (a hidden mega-menu need not be read to its end)."""
_WINDOW: Final = 400
_WORD_RE: Final = re.compile(r"[^\W\d_]{2,}")
_REQUEST_CUES: Final = frozenset(
    {
        "answer verb",
        "obligation",
        "obligation to answer",
        "instructions to follow",
        "assistant addressed",
        "output",
        "your answer",
        "user",
        "user's things",
        "reported speech",
    }
)
_KEYWORDS_NEEDED: Final = all(cue.keywords is not None for cue in CUES if cue.name in _REQUEST_CUES)
"""Every request cue has keywords: a text without any of them holds no request."""
_ANSWER_WEIGHT: Final = next(cue.weight for cue in CUES if cue.name == "answer verb")
_CONTROL_WEIGHT: Final = next(cue.weight for cue in CUES if cue.name == "control verb")


@dataclass(frozen=True)
class Intent:
    """The best-scoring window of a text: its score, span (in the text) and cues."""

    score: float
    start: int = 0
    end: int = 0
    cues: tuple[str, ...] = ()
    form: bool = False
    """Found by its form alone (:mod:`.form`), without a cue of :mod:`.rules_intent`."""

    @property
    def instruction(self) -> bool:
        return self.score >= INSTRUCTION_SCORE


NONE: Final = Intent(0.0)
_Scored = tuple[float, tuple[str, ...]]


Spans = dict[str, list[tuple[int, int]]]
"""Where the keywords of each cue are in a text: (start, end) of each word, in order."""


def _score(norm: str, low: int, high: int, cues: tuple[Cue, ...], spans: Spans) -> _Scored:
    """The score and cues of the window ``norm[low:high]``; 0 for a window without a request
    cue, which cannot read as an instruction (its score is capped below
    :data:`INSTRUCTION_SCORE`)."""
    window = norm[low:high]
    words = len(_WORD_RE.findall(window))
    if words < MIN_WORDS:
        return 0.0, ()
    held = {
        cue.name
        for cue in cues
        if cue.name in _REQUEST_CUES and _in_window(cue, window, low, high, spans)
    }
    if not held:
        return 0.0, ()
    held.update(
        cue.name
        for cue in cues
        if cue.name not in _REQUEST_CUES and _in_window(cue, window, low, high, spans)
    )
    miss = 1.0
    found: list[str] = []
    addressed = False
    for cue in cues:
        if cue.name in held:
            miss *= 1.0 - cue.weight
            found.append(cue.name)
            addressed = addressed or cue.addressee
    if "user's things" in found and ("answer verb" in found or "control verb" in found):
        addressed = True  # "save the user's email": an action on the user's things
    commanded = addressed or "your answer" in found
    if commanded and "control verb" in found and "answer verb" not in found:
        miss *= (1.0 - _ANSWER_WEIGHT) / (1.0 - _CONTROL_WEIGHT)  # a command to the addressee
    score = 1.0 - miss
    if not addressed and FURNITURE.search(window):
        score *= FURNITURE_FACTOR
    if not addressed and READER_TALK.search(window):
        score *= READER_FACTOR
    elif not addressed and SITE_TALK.search(window):
        score *= SITE_FACTOR
    if not addressed and CODE.search(window):
        score *= CODE_FACTOR
    if not addressed and len(norm) > CONTEXT_CHARS:
        score *= CONTEXT_FACTOR
    if words < SHORT_WORDS:
        score *= SHORT_FACTOR
    return score, tuple(found)


def _holds_place(places: list[tuple[int, int]], low: int, high: int) -> bool:
    """Whether one of ``places`` (word spans, in order) lies inside ``low..high``."""
    k = bisect.bisect_left(places, (low, -1))
    return k < len(places) and places[k][1] <= high


def _in_window(cue: Cue, window: str, low: int, high: int, spans: Spans) -> bool:
    """Whether ``cue`` matches ``window`` (``norm[low:high]``): a cue with keywords only when
    one of them lies inside it."""
    if cue.keywords is not None:
        if not _holds_place(spans.get(cue.name, []), low, high):
            return False
    elif cue.anchor is not None and cue.anchor.search(window) is None:
        return False
    return cue.pattern.search(window) is not None


def _holds(cue: Cue, norm: str, spans: Spans) -> bool:
    """Whether ``cue`` matches somewhere in ``norm``. In a long text a cue is tried only in the
    stretches around its keywords or anchor (merged where they overlap); a match that reaches
    a stretch's end may be cut short there, and is checked on the whole text."""
    if len(norm) <= 4 * ANCHOR_REACH or (cue.keywords is None and cue.anchor is None):
        return cue.pattern.search(norm) is not None
    if cue.keywords is not None:
        places = spans.get(cue.name, [])
    else:
        assert cue.anchor is not None
        places = [match.span() for match in cue.anchor.finditer(norm)]
    stretches: list[list[int]] = []
    for start, end in places:
        low = start - ANCHOR_REACH
        high = min(len(norm), end + ANCHOR_REACH)
        if stretches and low <= stretches[-1][1]:
            stretches[-1][1] = high
        else:
            stretches.append([max(0, low), high])
    for low, high in stretches:
        found = cue.pattern.search(norm, low, high)
        if found is None:
            continue
        if found.end() < high or high == len(norm):
            return True
        return cue.pattern.search(norm, found.start()) is not None
    return False


_TOKEN_RE: Final = re.compile(r"\w+")
_KEYWORD_RES: Final = tuple(
    (cue.name, re.compile(cue.keywords)) for cue in CUES if cue.keywords is not None
)
_ANY_KEYWORD_RE: Final = re.compile(
    "|".join(f"(?:{keywords.pattern})" for _, keywords in _KEYWORD_RES)
)
_CACHED_TOKEN: Final = 40
_NO_CUES: Final[frozenset[str]] = frozenset()


def _uncached_cues_of(token: str) -> frozenset[str]:
    if _ANY_KEYWORD_RE.fullmatch(token) is None:
        return _NO_CUES  # most words: one test instead of one per cue
    return frozenset(name for name, keywords in _KEYWORD_RES if keywords.fullmatch(token))


_cached_cues_of: Final = functools.lru_cache(maxsize=65536)(_uncached_cues_of)
"""The cues whose keywords a token is, for tokens up to ``_CACHED_TOKEN`` characters (a
page's words repeat: each is tried once)."""


def _keyword_spans(norm: str) -> Spans:
    """Where the cues' keywords are: each distinct word looked up once (most texts hold none,
    and are then not walked again)."""
    cached = _cached_cues_of  # looked up in the comprehension, no call of its own per token
    cued = {
        token: names
        for token in set(_TOKEN_RE.findall(norm))
        if (names := cached(token) if len(token) <= _CACHED_TOKEN else _uncached_cues_of(token))
    }
    spans: Spans = {}
    if not cued:
        return spans
    for match in _TOKEN_RE.finditer(norm):
        held = cued.get(match.group())
        if held:
            for name in held:
                spans.setdefault(name, []).append(match.span())
    return spans


def _may_hold(cue: Cue, norm: str, spans: Spans) -> bool:
    if cue.keywords is not None:
        return cue.name in spans
    return cue.anchor is None or cue.anchor.search(norm) is not None


@small_key_cache(2048)
def intent(text: str) -> Intent:
    """The best request-like window of ``text`` (positions in ``text``): by the cues of a
    request to an assistant, else by the form of a request (:func:`.form.request_form`)."""
    scanned = text[:_SCANNED]
    norm = normalise(scanned, [])
    found, parts = _by_cues(norm)
    if found.instruction:
        return found
    form = request_form(scanned, norm, parts)
    if form.score >= INSTRUCTION_SCORE:
        return Intent(form.score, form.start, form.end, (f"request form: {form.form}",), True)
    return found


def _by_cues(norm: str) -> tuple[Intent, list[tuple[int, int]] | None]:
    """The best window of ``norm`` by the cues of :mod:`.rules_intent`, and its clauses when
    they were cut (the form reading takes them as they are)."""
    spans = _keyword_spans(norm)
    if _KEYWORDS_NEEDED and _REQUEST_CUES.isdisjoint(spans):
        return NONE, None  # most texts: no request cue's keyword
    cues = tuple(cue for cue in CUES if _may_hold(cue, norm, spans))
    if not any(_holds(cue, norm, spans) for cue in cues if cue.name in _REQUEST_CUES):
        return NONE, None  # without a request cue no window reaches INSTRUCTION_SCORE
    parts = clauses(norm)
    requests = (
        sorted(place for name in _REQUEST_CUES for place in spans.get(name, ()))
        if _KEYWORDS_NEEDED
        else None
    )
    best = NONE
    for index, (start, end) in enumerate(parts):
        windows = [(start, end)]
        if index + 1 < len(parts) and parts[index + 1][1] - start <= _WINDOW:
            windows.append((start, parts[index + 1][1]))
        for low, high in windows:
            if requests is not None and not _holds_place(requests, low, high):
                continue  # no request cue's keyword: the window scores 0
            score, found = _score(norm, low, high, cues, spans)
            if score > best.score:
                best = Intent(round(score, 4), low, high, found)
    return best, parts


def hiddenness(place: str, length: int) -> float:
    """How hidden text in ``place`` (a hiding reason or a location) of ``length`` chars is."""
    weight = HIDDENNESS.get(place, 0.5)
    return weight * LARGE_FACTOR if length > LARGE_HIDDEN else weight


def severity(found: Intent, hidden: float) -> float:
    """A hidden request's severity: its score (plus a margin), times how hidden it was; a
    request by its form alone weighs at most :data:`~.rules_form.FORM_SEVERITY` (a medium risk,
    not a high one)."""
    if found.form:
        return round(hidden * min(FORM_SEVERITY, found.score * FORM_SEVERITY / FORM_SCORE), 4)
    return round(hidden * min(0.95, found.score + 0.1), 4)
