"""Text normalisation for phrase matching: lower case, accents off, typographic apostrophes
folded, homoglyph words folded to Latin; one character in, one out."""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from convert.safety.signals import SAMPLE_CHARS
from convert.safety.unicode import CONFUSABLE_TABLE, INVISIBLE_RE

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


def _fold(clean: str) -> str:
    """Case and accents folded; only the runs of non-ASCII characters go through the table
    (per-character lookups), the rest through ``str.lower``."""
    if clean.isascii():
        return clean.lower()
    parts: list[str] = []
    cursor = 0
    for run in _NON_ASCII_RE.finditer(clean):
        parts.append(clean[cursor : run.start()].lower())
        parts.append(run.group().translate(_FOLD))
        cursor = run.end()
    parts.append(clean[cursor:].lower())
    return "".join(parts)


def normalise(clean: str, words: list[tuple[int, int]]) -> str:
    """Fold case and accents, and fold the given homoglyph words to Latin."""
    norm = _fold(clean)
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
