"""The request cues' shortcuts keep their promise: a text the shortcuts pass over holds no
match of the cue. Checked on the benchmark's attack texts, this suite's own and the sentences
of the WCXB sample pages, as they are and run together into long texts."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from convert.html.document import parse_document
from convert.safety.intent import _holds, _keyword_spans, intent
from convert.safety.normalise import normalise
from convert.safety.rules_intent import ANCHOR_REACH, CUES, Cue
from convert.safety.unicode import INVISIBLE_RE, has_invisible
from tests.convert.test_safety_hidden import ATTACKS, FURNITURE
from tests.hidden_attacks import FRAMINGS
from tests.wcxb import SAMPLE, file_ids, load_page

_ATTACK_FILE = Path(__file__).parents[2] / "bench" / "safety_attacks.txt"
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+|\n+")
_SENTENCES_PER_PAGE = 80


@functools.cache
def corpus() -> tuple[str, ...]:
    attacks = [
        line.strip()
        for line in _ATTACK_FILE.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    texts = [*attacks, *ATTACKS, *FURNITURE, *FRAMINGS]
    texts += [f"{framing} {attack}" for framing in FRAMINGS[:2] for attack in attacks]
    for file_id in file_ids(SAMPLE):
        page = parse_document(load_page(SAMPLE, file_id).html)
        text = " ".join(page.itertext())
        parts = [part.strip() for part in _SENTENCE_RE.split(text) if len(part.strip()) > 8]
        texts += parts[:: max(1, len(parts) // _SENTENCES_PER_PAGE)]
    return tuple(normalise(text, []) for text in texts)


def _name(cue: Cue) -> str:
    return cue.name.replace(" ", "-")


def _keyword_cues() -> list[Cue]:
    return [cue for cue in CUES if cue.keywords is not None]


@pytest.mark.parametrize("cue", _keyword_cues(), ids=_name)
def test_every_match_holds_a_keyword(cue: Cue) -> None:
    assert cue.keywords is not None and cue.anchor is not None
    keywords = re.compile(cue.keywords)
    matched = 0
    for text in corpus():
        match = cue.pattern.search(text)
        if match is None:
            continue
        matched += 1
        words = re.findall(r"\w+", text)
        assert any(keywords.fullmatch(word) for word in words), (cue.name, text)
        assert cue.anchor.search(text, max(0, match.start() - ANCHOR_REACH)), (cue.name, text)
    assert matched > 0, f"the corpus never exercises {cue.name!r}"


@pytest.mark.parametrize("cue", [cue for cue in CUES if cue.anchor is not None], ids=_name)
def test_searching_around_anchors_finds_what_the_whole_search_finds(cue: Cue) -> None:
    texts = corpus()
    filler = " Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 6
    for start in range(0, len(texts), 7):
        long_text = filler.join(texts[start : start + 7])
        assert len(long_text) > 4 * ANCHOR_REACH
        whole = cue.pattern.search(long_text) is not None
        assert _holds(cue, long_text, _keyword_spans(long_text)) == whole, long_text


def test_the_cheap_paths_leave_requests_to_be_found() -> None:
    found = [text for text in ATTACKS if intent(text).instruction]
    assert found == list(ATTACKS)


def test_invisible_bytes_pattern_matches_the_same_characters() -> None:
    """The UTF-8 search the HTML scan runs first finds exactly what ``INVISIBLE_RE`` finds."""
    planes = [*range(0x2000, 0x2100), *range(0xFE00, 0x10000), *range(0xE0000, 0xE0100)]
    for code in [*planes, *range(0, 0x3000, 7), 0x1F3F4, 0x10FFFF]:
        if 0xD800 <= code < 0xE000:
            continue
        char = chr(code)
        expected = INVISIBLE_RE.fullmatch(char) is not None
        assert has_invisible(f"a{char}b".encode()) == expected, hex(code)
        # between other non-ASCII characters, whose bytes the search sees next to its own
        assert has_invisible(f"\u00e9{char}\u2019x\u20ac".encode()) == expected, hex(code)
