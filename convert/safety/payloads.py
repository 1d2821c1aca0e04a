"""Encoded payloads: base64 and hex blobs that decode to text."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Final

from convert.safety.phrases import phrase_kinds

# --------------------------------------------------------------------------------------------
# Encoded payloads
# --------------------------------------------------------------------------------------------

_MIN_BLOB: Final = 40
_BLOB_RE: Final = re.compile(rf"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{{{_MIN_BLOB},}}={{0,2}}")
"""A blob starts where its run of characters does (as the leftmost match would): trying every
position inside a long run first would read it again and again."""
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


def find_payloads(clean: str) -> list[Payload]:
    payloads: list[Payload] = []
    if len(clean) < _MIN_BLOB:
        return payloads
    for match in _BLOB_RE.finditer(clean):
        if clean[max(0, match.start() - 7) : match.start()].lower() == "base64,":
            continue
        if _WORDS_RUN_RE.fullmatch(match.group()):
            continue
        decoded = decode_blob(match.group())
        if decoded is not None:
            kinds = frozenset(phrase_kinds(decoded))
            payloads.append(Payload(match.start(), match.end(), decoded, kinds))
    return payloads
