"""Encoded payloads: base64 and hex blobs that decode to text."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from convert.safety.phrases import phrase_kinds

# --------------------------------------------------------------------------------------------
# Encoded payloads
# --------------------------------------------------------------------------------------------

MIN_BLOB: Final = 40
_BLOB_CHARS: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"
_MARK_BLOB_CHARS: Final = bytes(
    ord("a") if code in _BLOB_CHARS else ord(" ") for code in range(256)
)
"""A byte table: the characters a blob is made of to ``a``, any other to a space."""
_LONG_RUN: Final = b"a" * MIN_BLOB
_HEX_RE: Final = re.compile(r"[0-9a-fA-F]+")
_WORDS_RUN_RE: Final = re.compile(r"[a-z/_+-]+=*")
"""A run without digits or capitals: a URL's path or slug, a rule of dashes. Encoded text of 40
characters or more all but surely holds some (hex: digits; base64: capitals), so it is not
decoded."""
_MAX_BLOB: Final = 20_000


@dataclass(frozen=True)
class Payload:
    start: int
    end: int
    decoded: str
    kinds: frozenset[str]


def decode_blob(blob: str) -> str | None:
    """Decode a hex or base64 blob to text, or ``None`` when it is not mostly printable text."""
    blob = blob[:_MAX_BLOB]
    try:
        if len(blob) % 2 == 0 and _HEX_RE.fullmatch(blob):
            data = bytes.fromhex(blob)
        else:
            body = blob.rstrip("=")
            body = body[: len(body) - len(body) % 4] if len(body) % 4 == 1 else body
            altchars = b"-_" if ("-" in body or "_" in body) else None
            data = base64.b64decode(body + "=" * (-len(body) % 4), altchars=altchars)
        text = data.decode("utf-8")
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    if len(text) < 16:
        return None
    printable = sum(1 for char in text if char.isprintable() or char in "\n\t")
    letters = sum(1 for char in text if char.isalpha())
    if printable < 0.95 * len(text) or letters < 0.5 * len(text):
        return None
    return text


def _blobs(clean: str) -> Iterator[tuple[int, int]]:
    """Spans of the runs of blob characters at least ``MIN_BLOB`` long (each whole, with up
    to two ``=`` after it). The text is encoded one byte a character (a character outside
    Latin-1 as ``?``), its bytes marked by a table and the runs found with ``bytes.find``:
    all in C, where a regular expression would try each position in turn."""
    marked = clean.encode("latin-1", "replace").translate(_MARK_BLOB_CHARS)
    start = marked.find(_LONG_RUN)
    while start >= 0:
        end = marked.find(b" ", start + MIN_BLOB)
        end = len(clean) if end < 0 else end
        padded = end
        while padded < len(clean) and padded - end < 2 and clean[padded] == "=":
            padded += 1
        yield start, padded
        start = marked.find(_LONG_RUN, end)


def find_payloads(clean: str) -> list[Payload]:
    payloads: list[Payload] = []
    if len(clean) < MIN_BLOB:
        return payloads
    for start, end in _blobs(clean):
        if clean[max(0, start - 7) : start].lower() == "base64,":
            continue
        blob = clean[start:end]
        if _WORDS_RUN_RE.fullmatch(blob):
            continue
        decoded = decode_blob(blob)
        if decoded is not None:
            kinds = frozenset(phrase_kinds(decoded))
            payloads.append(Payload(start, end, decoded, kinds))
    return payloads
