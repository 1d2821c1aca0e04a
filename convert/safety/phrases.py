"""Phrase matching: a cheap trigger scan on rule stems, then each candidate rule's pattern."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from convert.safety.normalise import normalise
from convert.safety.rules import OVERRIDE_EN, ROLE_MARKERS
from convert.safety.rules_intl import OVERRIDE_INTL
from convert.safety.rules_requests import ADDRESSED, DATA_REQUESTS

# Role markers made of punctuation: chat-template tokens and tags. A lone ``</s>`` is the end of
# HTML's strike-through (commented-out markup is full of them): it counts as the end of a turn
# only when another turn opens after it.
_ROLE_TOKEN_RE: Final = re.compile(
    r"<\|\s*[a-z][a-z_]{1,40}\s*\|>(?:[ \t]*(?:system|user|assistant|developer|tool)\b)?"
    r"|\[/?inst\](?!\()|<</?sys>>|</s>\s*<s>|<(?:start|end)_of_turn>"
    r"|\[(?:system|/system|system\s+(?:message|prompt|note|override|instructions?))\](?!\()"
    r"|<\s*/?\s*(?:system|system_prompt|im_start|im_end)\s*>"
)
_BRACKET_ROLE_OPENINGS: Final = ("[inst", "[/inst", "[system", "[/system")
"""How the role tokens that do not open with ``<`` open: a text with brackets (a Markdown
page's links) is searched for the tokens only when it holds one of these."""


def _bracketed_role_may_open(norm: str) -> bool:
    """Whether ``norm`` holds the opening of a role token in brackets."""
    return any(opening in norm for opening in _BRACKET_ROLE_OPENINGS)


# What may precede a role word for it to open a line: a heading, or emphasis.
_LINE_PREFIXES: Final[Mapping[str, re.Pattern[str]]] = MappingProxyType(
    {
        "heading": re.compile(r"[ \t>]*#{1,6}[ \t]*"),
        "line": re.compile(r"[ \t>]*[*_]{0,2}"),
    }
)

PHRASE_RULES: Final = (*OVERRIDE_EN, *OVERRIDE_INTL, *ROLE_MARKERS, *ADDRESSED, *DATA_REQUESTS)


@dataclass(frozen=True)
class _Phrase:
    kind: str
    scope: str
    pattern: re.Pattern[str]


_PHRASES: Final = tuple(
    _Phrase(rule.kind, rule.scope, re.compile(rule.pattern)) for rule in PHRASE_RULES
)


def _stem_index() -> dict[str, tuple[tuple[str, bool, int], ...]]:
    """Stems by first letter: (stem, whole word, phrase index); a stem of two words is
    indexed by its first, a whole word."""
    index: dict[str, list[tuple[str, bool, int]]] = {}
    for number, rule in enumerate(PHRASE_RULES):
        for stem in rule.stems.split():
            first, joined, _ = stem.partition("+")
            word = first.rstrip("$")
            whole = bool(joined) or first.endswith("$")
            index.setdefault(word[0], []).append((word, whole, number))
    return {letter: tuple(entries) for letter, entries in index.items()}


def _trie_pattern(words: Iterable[str]) -> str:
    """A regular expression matching any of ``words`` (``$`` ends a whole word; ``+`` ends
    one before white space and the start of the next, looked ahead at), as a trie."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _trie_node(trie)


def _trie_node(node: Mapping[str, Any]) -> str:
    if "" in node:
        return ""
    branches = [
        f"(?=(?u:\\s)+{_trie_node(child)}|['-])"
        if char == "+"
        else ("(?![a-z])" if char == "$" else re.escape(char)) + _trie_node(child)
        for char, child in sorted(node.items())
    ]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


_STEMS: Final = _stem_index()
_STEM_TRIE: Final = _trie_pattern(stem for rule in PHRASE_RULES for stem in rule.stems.split())
# A word (after a non-word character) that opens some phrase; group 1 is the word. The first
# word of a two-word stem opens one only before the second, or before an apostrophe or a
# hyphen ("you're", "to-do"), as its one-word stem would: the word is then passed over whole,
# and a stem inside it ("to-ignore") opens nothing. (The patterns use no character class that
# depends on Unicode but the white space between two words, as the phrases' ``\s`` does:
# matching the rest as ASCII patterns is the same, and faster.)
_TRIGGER_RE: Final = re.compile(rf"[^a-z0-9_]((?:{_STEM_TRIE})[a-z'-]*)", re.ASCII)
_TRIGGER_AT_START_RE: Final = re.compile(rf"(?:{_STEM_TRIE})[a-z'-]*", re.ASCII)

# Imperative cues near an address to an AI.
IMPERATIVE_RE: Final = re.compile(
    r"\b(?:you\s+(?:must|should|will|shall|need\s+to|have\s+to|are\s+(?:required|instructed"
    r"|asked|expected)\s+to)|please|make\s+sure|be\s+sure|do\s+not|don't|always|never"
    r"|remember\s+to|bitte|du\s+(?:musst|sollst)|sie\s+mussen|veuillez|tu\s+dois|vous\s+devez"
    r"|debes|deben|por\s+favor|asegurate)\b"
    r"|[:,!.]\s*(?:send|tell|include|mention|say|write|output|respond|reply|answer|recommend"
    r"|add|insert|append|summari[sz]e|describe|ignore|forget|visit|open|click|print|reveal"
    r"|praise|rate|state|sende|schreibe|antworte|ignoriere|envoie|ecris|reponds|envia"
    r"|escribe|responde|ignora)\b"
)
# Sentences that talk about attacks rather than make them.
DISCUSSION_RE: Final = re.compile(
    r"\b(?:prompt[\s-]+injections?|injection\s+attacks?|jailbreak\w*|attackers?|adversar\w*"
    r"|malicious|red[\s-]team\w*|payloads?|for\s+(?:example|instance)|e\.g\.|such\s+as"
    r"|phrases?\s+(?:like|such)|zum\s+beispiel|par\s+exemple|por\s+ejemplo)"
)
NEGATION_RE: Final = re.compile(
    r"\b(?:never|not|don't|do\s+not|must\s+not|shouldn't|won't|cannot|can't|nie|niemals|nicht"
    r"|jamais|nunca)\b"
)


@dataclass(frozen=True)
class Hit:
    """A phrase match in the cleaned text."""

    kind: str
    scope: str
    start: int
    end: int
    homoglyph: bool = False


_LONGEST_STEM: Final = max(len(word) for entries in _STEMS.values() for word, _, _ in entries)


def _candidates(word: str) -> tuple[int, ...]:
    """Indexes of the phrases that may start with ``word``."""
    return _prefix_candidates(word[: _LONGEST_STEM + 1])


@functools.lru_cache(maxsize=4096)
def _prefix_candidates(word: str) -> tuple[int, ...]:
    """:func:`_candidates` of a word cut after the longest stem's length and one character,
    all they look at (remembered: a page's words repeat)."""
    found: set[int] = set()
    for stem, whole, number in _STEMS.get(word[0], ()):
        if word.startswith(stem):
            after = word[len(stem) : len(stem) + 1]
            if not (whole and "a" <= after <= "z"):
                found.add(number)
    return tuple(sorted(found))


def _opens_line(norm: str, position: int, scope: str) -> bool:
    prefix = _LINE_PREFIXES.get(scope)
    if prefix is None:
        return True
    line_start = norm.rfind("\n", 0, position) + 1
    return prefix.fullmatch(norm, line_start, position) is not None


def _merge_hits(hits: list[Hit]) -> list[Hit]:
    """Overlapping matches of one type become one hit."""
    hits.sort(key=lambda h: (h.kind, h.start))
    merged: list[Hit] = []
    for hit in hits:
        last = merged[-1] if merged else None
        if last is not None and last.kind == hit.kind and hit.start < last.end:
            merged[-1] = Hit(last.kind, last.scope, last.start, max(last.end, hit.end))
        else:
            merged.append(hit)
    merged.sort(key=lambda h: (h.start, h.kind))
    return merged


def phrase_matches(norm: str) -> list[Hit]:
    """All phrase matches in normalised text."""
    hits: list[Hit] = []
    first = _TRIGGER_AT_START_RE.match(norm)
    openers = [(0, first.group())] if first is not None else []
    openers.extend((match.start(1), match.group(1)) for match in _TRIGGER_RE.finditer(norm))
    for position, word in openers:
        for number in _candidates(word):
            phrase = _PHRASES[number]
            match = phrase.pattern.match(norm, position)
            if match is not None and _opens_line(norm, position, phrase.scope):
                scope = "token" if phrase.scope == "token" else "sentence"
                hits.append(Hit(phrase.kind, scope, position, match.end()))
    if "<" in norm or ("[" in norm and _bracketed_role_may_open(norm)):
        hits.extend(Hit("role_marker", "token", *m.span()) for m in _ROLE_TOKEN_RE.finditer(norm))
    return _merge_hits(hits) if hits else hits


def phrase_kinds(text: str) -> set[str]:
    return {hit.kind for hit in phrase_matches(normalise(text, []))}
