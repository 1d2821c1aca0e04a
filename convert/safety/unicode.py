"""Invisible Unicode (zero-width, bidi controls, tag characters) and homoglyph words."""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

# Cyrillic and Greek letters that look like Latin ones.
_CONFUSABLES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "\u0430": "a", "\u0435": "e", "\u0451": "e", "\u0456": "i", "\u0457": "i",
        "\u0458": "j", "\u043a": "k", "\u043e": "o", "\u0440": "p", "\u0441": "c",
        "\u0443": "y", "\u0445": "x", "\u0455": "s", "\u04bb": "h", "\u0501": "d",
        "\u051b": "q", "\u051d": "w", "\u04cf": "l", "\u0410": "A", "\u0412": "B",
        "\u0415": "E", "\u0401": "E", "\u0406": "I", "\u0407": "I", "\u0408": "J",
        "\u041a": "K", "\u041c": "M", "\u041d": "H", "\u041e": "O", "\u0420": "P",
        "\u0421": "C", "\u0422": "T", "\u0423": "Y", "\u0425": "X", "\u0405": "S",
        "\u0500": "D", "\u051a": "Q", "\u051c": "W", "\u04c0": "I", "\u04ba": "H",
        "\u03b1": "a", "\u03bf": "o", "\u03b9": "i", "\u03ba": "k", "\u03bd": "v",
        "\u03c1": "p", "\u03c4": "t", "\u03c5": "u", "\u03c7": "x", "\u03b5": "e",
        "\u03b3": "y", "\u03f2": "c", "\u03f3": "j", "\u0391": "A", "\u0392": "B",
        "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "I", "\u039a": "K",
        "\u039c": "M", "\u039d": "N", "\u039f": "O", "\u03a1": "P", "\u03a4": "T",
        "\u03a5": "Y", "\u03a7": "X", "\u03f9": "C",
    }
)  # fmt: skip
CONFUSABLE_TABLE: Final = str.maketrans(dict(_CONFUSABLES))
GREEK_CYRILLIC_RE: Final = re.compile("[\u0370-\u03ff\u0400-\u052f]")
_SCRIPT_SEAM_RE: Final = re.compile(
    r"[A-Za-z][\u0370-\u03ff\u0400-\u052f]|[\u0370-\u03ff\u0400-\u052f][A-Za-z]"
)

# --------------------------------------------------------------------------------------------
# Invisible Unicode
# --------------------------------------------------------------------------------------------

_FORMAT_RANGES: Final = (
    (0x200B, 0x200D), (0x2060, 0x2064), (0xFEFF, 0xFEFF), (0x202A, 0x202E), (0x2066, 0x2069),
)  # fmt: skip
"""Zero-width and joiner characters, word joiners and invisible operators, the byte order
mark and bidirectional controls."""
_TAG_RANGE: Final = (0xE0000, 0xE007F)
"""Tag characters."""
_INVISIBLE_RANGES: Final = (*_FORMAT_RANGES, _TAG_RANGE)


def _class_of(ranges: tuple[tuple[int, int], ...]) -> str:
    return "[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in ranges) + "]"


INVISIBLE_RE: Final = re.compile(_class_of(_INVISIBLE_RANGES))


def _utf8_alternatives(ranges: tuple[tuple[int, int], ...]) -> bytes:
    """A bytes pattern matching the UTF-8 encoding of the characters in ``ranges``: one
    alternative per leading byte sequence, its last byte as a class."""
    last_bytes: dict[bytes, list[int]] = {}
    for low, high in ranges:
        for code in range(low, high + 1):
            encoded = chr(code).encode("utf-8")
            last_bytes.setdefault(encoded[:-1], []).append(encoded[-1])
    return b"|".join(
        re.escape(lead) + b"[" + b"".join(re.escape(bytes([b])) for b in sorted(ends)) + b"]"
        for lead, ends in last_bytes.items()
    )


_INVISIBLE_UTF8_RE: Final = re.compile(_utf8_alternatives(_INVISIBLE_RANGES))
_ASCII_BYTES: Final = bytes(range(128))


def has_invisible(utf8: bytes) -> bool:
    """Whether UTF-8 text holds a character of :data:`INVISIBLE_RE`: searched for among its
    non-ASCII bytes only (deleting the rest costs a fraction of searching them, and each
    character's bytes stay together), without decoding the text."""
    return _INVISIBLE_UTF8_RE.search(utf8.translate(None, _ASCII_BYTES)) is not None


def non_ascii_chars(text: str) -> str:
    """The non-ASCII characters of ``text``, in order: most texts hold a few, and deleting
    the ASCII bytes of their UTF-8 costs a tenth of a regular expression's look at each
    character; what is left is searched instead of the text."""
    return (
        text.encode("utf-8", "surrogatepass")
        .translate(None, _ASCII_BYTES)
        .decode("utf-8", "surrogatepass")
    )


TAG_RUN_RE: Final = re.compile(_class_of((_TAG_RANGE,)) + "+")
_FORMAT_RUN_RE: Final = re.compile(_class_of(_FORMAT_RANGES) + "+")
_BIDI: Final = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_JOINERS: Final = frozenset("\u200c\u200d")
_BLACK_FLAG: Final = "\U0001f3f4"
_CANCEL_TAG: Final = "\U000e007f"


@dataclass(frozen=True)
class InvisibleRun:
    """A run of flagged invisible characters in source coordinates: ``tags`` (decoded to
    ASCII), ``bidi`` controls or ``zero_width`` characters."""

    start: int
    end: int
    variant: str
    decoded: str = ""

    @property
    def count(self) -> int:
        return self.end - self.start


def _joiner_is_ordinary(source: str, index: int) -> bool:
    """ZWJ/ZWNJ between two non-ASCII characters: emoji sequences, Indic and Arabic scripts."""
    if index == 0 or index + 1 >= len(source):
        return False
    before, after = source[index - 1], source[index + 1]
    return not before.isascii() and not after.isascii() and not after.isspace()


def _tag_run_is_flag(source: str, start: int, end: int) -> bool:
    """Subdivision flags (England, Scotland, Wales) spell their region in tag characters."""
    return start > 0 and source[start - 1] == _BLACK_FLAG and source[end - 1] == _CANCEL_TAG


def _decode_tags(run: str) -> str:
    return "".join(chr(ord(c) - 0xE0000) for c in run if 0xE0020 <= ord(c) <= 0xE007E)


def find_invisible(source: str) -> list[InvisibleRun]:
    if not INVISIBLE_RE.search(source):
        return []
    found: list[InvisibleRun] = []
    for match in TAG_RUN_RE.finditer(source):
        if not _tag_run_is_flag(source, match.start(), match.end()):
            decoded = _decode_tags(match.group())
            found.append(InvisibleRun(match.start(), match.end(), "tags", decoded))
    for match in _FORMAT_RUN_RE.finditer(source):
        run, start = match.group(), match.start()
        if start == 0 and run[0] == "\ufeff":  # a byte order mark opening the text
            run, start = run[1:], 1
        if not run or (run in _JOINERS and _joiner_is_ordinary(source, start)):
            continue
        variant = "bidi" if any(char in _BIDI for char in run) else "zero_width"
        found.append(InvisibleRun(start, match.end(), variant))
    found.sort(key=lambda item: item.start)
    return found


@dataclass(frozen=True)
class OffsetMap:
    """Maps positions in text with characters removed back to the source."""

    clean_starts: tuple[int, ...] = (0,)
    source_starts: tuple[int, ...] = (0,)

    def source(self, index: int) -> int:
        k = bisect.bisect_right(self.clean_starts, index) - 1
        return self.source_starts[k] + index - self.clean_starts[k]

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        if end <= start:
            return self.source(start), self.source(start)
        return self.source(start), self.source(end - 1) + 1


def remove_runs(source: str, removed: list[InvisibleRun]) -> tuple[str, OffsetMap]:
    if not removed:
        return source, OffsetMap()
    pieces: list[str] = []
    clean_starts: list[int] = [0]
    source_starts: list[int] = [0]
    cursor = 0
    length = 0
    for item in removed:
        pieces.append(source[cursor : item.start])
        length += item.start - cursor
        cursor = item.end
        clean_starts.append(length)
        source_starts.append(cursor)
    pieces.append(source[cursor:])
    return "".join(pieces), OffsetMap(tuple(clean_starts), tuple(source_starts))


# --------------------------------------------------------------------------------------------
# Homoglyphs
# --------------------------------------------------------------------------------------------


def find_homoglyph_words(clean: str) -> list[tuple[int, int]]:
    """Spans of words that mix Latin letters with Cyrillic or Greek look-alikes."""
    words: list[tuple[int, int]] = []
    last_end = -1
    for seam in _SCRIPT_SEAM_RE.finditer(clean):
        if seam.start() < last_end:
            continue
        start = seam.start()
        while start > 0 and clean[start - 1].isalpha():
            start -= 1
        end = seam.end()
        while end < len(clean) and clean[end].isalpha():
            end += 1
        last_end = end
        word = clean[start:end]
        if any(char in _CONFUSABLES for char in word):
            words.append((start, end))
    return words
