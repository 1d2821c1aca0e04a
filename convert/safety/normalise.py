"""Text normalisation for phrase matching: lower case, accents off, typographic apostrophes
folded, homoglyph words folded to Latin; one character in, one out."""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from convert.safety.signals import SAMPLE_CHARS
from convert.safety.unicode import CONFUSABLE_TABLE, INVISIBLE_RE, non_ascii_chars

_APOSTROPHES: Final = "\u2019\u2018\u02bc"


def _fold_char(char: str) -> str:
    if char in _APOSTROPHES:
        return "'"
    lower = char.lower()
    if len(lower) != 1:
        lower = char
    decomposed = unicodedata.normalize("NFD", lower)
    if len(decomposed) > 1 and all(unicodedata.combining(mark) for mark in decomposed[1:]):
        return decomposed[0]
    return lower


class _FoldTable(dict[int, str]):
    """``str.translate`` table that folds each character on first sight."""

    def __missing__(self, code: int) -> str:
        folded = _fold_char(chr(code))
        self[code] = folded
        return folded


_FOLD: Final = _FoldTable()
_NON_ASCII_RE: Final = re.compile(r"[^\x00-\x7f]+")


def collapse_space(text: str) -> str:
    return " ".join(text.split())


def sample_of(text: str) -> str:
    text = collapse_space(INVISIBLE_RE.sub("", text))
    if len(text) <= SAMPLE_CHARS:
        return text
    return text[: SAMPLE_CHARS - 1].rstrip() + "\u2026"


def _fold(clean: str, others: str | None = None) -> str:
    """Case and accents folded, one character in, one out (``others``: the text's non-ASCII
    characters, or more, when the caller has them: :func:`non_ascii_chars`).

    Most texts hold a few distinct non-ASCII characters (quotes, dashes, accented letters) and
    none with an upper case: the whole text then goes through ``str.lower`` and each of those
    characters that folds is replaced, all in C. Otherwise only the runs of non-ASCII
    characters go through the table (per-character lookups), the rest through ``str.lower``."""
    if clean.isascii():
        return clean.lower()
    replacements = _replacements(non_ascii_chars(clean) if others is None else others)
    if replacements is not None:
        folded = clean.lower()
        for char, replacement in replacements:
            folded = folded.replace(char, replacement)
        return folded
    parts: list[str] = []
    cursor = 0
    for run in _NON_ASCII_RE.finditer(clean):
        parts.append(clean[cursor : run.start()].lower())
        parts.append(run.group().translate(_FOLD))
        cursor = run.end()
    parts.append(clean[cursor:].lower())
    return "".join(parts)


_MAX_REPLACEMENTS: Final = 8
"""More characters to replace, each a pass over the whole text, and the runs cost less."""


def _replacements(others: str) -> list[tuple[str, str]] | None:
    """What folds among the characters ``others``, or ``None`` when ``str.lower`` would change
    one (it has an upper case), a character folds to one that folds again, or more than
    ``_MAX_REPLACEMENTS`` fold."""
    replacements: dict[str, str] = {}
    for char in set(others):
        if char.lower() != char:
            return None
        folded = _FOLD[ord(char)]
        if folded != char:
            replacements[char] = folded
    if len(replacements) > _MAX_REPLACEMENTS or any(
        folded in replacements for folded in replacements.values()
    ):
        return None
    return list(replacements.items())


def normalise(clean: str, words: list[tuple[int, int]], others: str | None = None) -> str:
    """Fold case and accents, and fold the given homoglyph words to Latin (``others``: see
    :func:`_fold`)."""
    norm = _fold(clean, others)
    if not words:
        return norm
    pieces: list[str] = []
    cursor = 0
    for start, end in words:
        pieces.append(norm[cursor:start])
        pieces.append(clean[start:end].translate(CONFUSABLE_TABLE).translate(_FOLD))
        cursor = end
    pieces.append(norm[cursor:])
    return "".join(pieces)


_CLAUSE_END_RE: Final = re.compile(r"(?<=[.!?])\s+|\s*\n\s*|\s+[|\u2022\u00b7]\s+")


def clauses(norm: str) -> list[tuple[int, int]]:
    """Where the clauses of ``norm`` are (sentences, lines and items of a ``|`` or bullet
    list), as (start, end)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _CLAUSE_END_RE.finditer(norm):
        if match.start() > start:
            spans.append((start, match.start()))
        start = match.end()
    if start < len(norm):
        spans.append((start, len(norm)))
    return spans
