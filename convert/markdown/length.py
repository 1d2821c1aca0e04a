"""The Markdown's length: cutting it to ``max_chars`` without breaking its syntax, and the token
estimate.

A cut falls at a block boundary in the last half of the allowed length when there is one (a blank
line, else a line break); inside one long block it falls after a sentence, else between words.
Whatever it falls on, what is kept is valid Markdown that says nothing it would not say whole:
no link or image cut inside its brackets or its address, no code block left open (cut before it,
or closed after its last whole line), no heading left at the end with nothing under it.
"""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_SENTENCE_END = re.compile("[.!?][\"')\\]\u00bb\u201d\u2019]*\\s|[\u3002\uff01\uff1f]")
"""The end of a sentence: a stop and the closing quotes after it, then a space (the ideographic
stops need none)."""
_OPEN_LINK = re.compile(r"!?\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*(?:\]\([^)\n]*)?$")
"""A link or an image begun at the end of the text and not closed: ``[text``, ``[text](addr``."""
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
_LAST_HEADING = re.compile(r"(?:^|\n)#{1,6} [^\n]*\s*$")


def truncate(markdown: str, max_chars: int) -> str:
    """``markdown`` cut to at most ``max_chars`` characters (see the module's notes)."""
    if len(markdown) <= max_chars:
        return markdown
    floor = max_chars // 2
    head = markdown[:max_chars]
    text = head[: _cut(head, floor)].rstrip()
    text = _closed_code(text, head, max_chars, floor)
    while (match := _LAST_HEADING.search(text)) is not None and match.start() > 0:
        text = text[: match.start()].rstrip()
    return text + "\n" if 0 < len(text) < max_chars else text


def _cut(head: str, floor: int) -> int:
    """Where to cut ``head``: a block boundary at or past ``floor``, else the end of a sentence,
    else a space, else its end; never inside a link."""
    for boundary in ("\n\n", "\n"):
        found = head.rfind(boundary)
        if found >= floor:
            return found
    ends = [end for match in _SENTENCE_END.finditer(head) if (end := match.end()) >= floor]
    cut = ends[-1] if ends else head.rfind(" ")
    if cut < floor:
        cut = len(head)
    opened = _OPEN_LINK.search(head, head.rfind("\n", 0, cut) + 1, cut)
    return opened.start() if opened is not None else cut


def _closed_code(text: str, head: str, max_chars: int, floor: int) -> str:
    """``text`` with a code block it leaves open cut off before it (when that keeps at least
    ``floor`` characters) or closed after its last whole line, within ``max_chars``."""
    fences = list(_FENCE.finditer(text))
    if len(fences) % 2 == 0:
        return text
    opening = fences[-1]
    if opening.start() >= floor:
        return text[: opening.start()].rstrip()
    fence = opening.group(1)
    room = max_chars - len(fence) - 1
    last_line = head.rfind("\n", opening.end(), room)
    if last_line < 0:
        return text[: opening.start()].rstrip()
    return head[:last_line].rstrip("\n") + "\n" + fence


def estimate_tokens(text: str) -> int:
    """Estimate LLM tokens: one per CJK character, one per four other characters (rounded up).

    Tokenizers differ; this errs high for CJK, where a character is often a token or more, and
    matches the common four-characters-a-token rule for Latin text.
    """
    cjk = len(_CJK.findall(text))
    other = len(text) - cjk
    return cjk + (other + 3) // 4
