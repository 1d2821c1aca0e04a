"""Keyword ranking of Pagecast chunks: BM25 over the chunks of one document, no model.

Tokens (:func:`tokenize`)
    The text is NFKC-normalised and the parts of Markdown a reader does not see are dropped:
    link and image targets ``](url "title")``, autolinks ``<https://...>`` and the URL of
    reference definitions ``[id]: url``. Each CJK character (Han, Kana, Hangul) is a token of
    its own; other tokens are runs of letters and digits (underscores split, so ``_emphasis_``
    and ``snake_case`` give plain words). Tokens are case-folded, stop words (a short English
    list and the commonest German, French and Spanish function words) are dropped, and
    all-ASCII words go through the light stemmer described at :func:`stem`.

Score of a chunk ``c`` for the query terms ``t`` (duplicates counted once)
    * ``tf'(t, c) = tf(t, c) + HEADING_WEIGHT`` when ``t`` is among the tokens of the chunk's
      heading path, else ``tf(t, c)``; ``tf`` counts the tokens of the chunk text.
    * ``idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))`` with ``N`` chunks, ``df`` of which hold
      ``t`` in their text or heading path.
    * ``bm25 = sum idf(t) * tf' * (K1 + 1) / (tf' + K1 * (1 - B + B * dl / avgdl))`` with
      ``K1 = 1.2``, ``B = 0.75`` and ``dl`` the number of tokens of the chunk text.
    * ``raw = bm25 * (1 + BIGRAM_BOOST * found / bigrams + PHRASE_BOOST * phrase)`` for a query
      of two or more terms: ``found`` of the query's ``bigrams`` (pairs of consecutive query
      tokens) occur as consecutive tokens in the chunk, and ``phrase`` is 1 when the whole
      query token sequence does. Both boosts are 0.25, so a chunk holding the query as a phrase
      gets 1.5 times its BM25 score. Matching is on tokens, so "install the package" matches
      "installing a package".
    * ``relevance = raw / (raw + SCORE_HALF)`` with ``SCORE_HALF = 1.0``, rounded to 4 decimals:
      in [0, 1), monotone in ``raw``; a raw score of 1.0 (about one rare term) maps to 0.5, a
      term found in every chunk stays near 0 and a phrase of rare terms comes out near 0.8.

Only chunks holding at least one query term (in text or heading path) are returned, best first,
ties in document order. A query of stop words only is matched with stop words kept.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from convert.markdown.chunks import Chunk

K1 = 1.2
B = 0.75
HEADING_WEIGHT = 2.0
BIGRAM_BOOST = 0.25
PHRASE_BOOST = 0.25
SCORE_HALF = 1.0

_LINK_TARGET = re.compile(
    r"\]\(\s*(?:<[^>\n]*>|(?:[^()\s]|\([^()\s]*\))*)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?\s*\)"
)
_AUTOLINK = re.compile(r"<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*>")
_REFERENCE = re.compile(r"^( {0,3}\[[^\]\n]+\]:)[ \t]*\S+.*$", re.MULTILINE)
_CJK = re.compile(
    "[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002fa1f]"
)
_WORD = re.compile(r"[^\W_]+")
_VOWEL = re.compile(r"[aeiouy]")
_ASCII_WORD = re.compile(r"[a-z]+")

_ENGLISH_STOP_WORDS = (
    "a about after all also am an and any are as at be because been but by can could did do does "
    "for from had has have he her here his how i if in into is it its just me more most my no not "
    "of on or other our she should so some such than that the their them then there these they "
    "this those to too us was we were what when where which while who why will with would you "
    "your"
)
_GERMAN_STOP_WORDS = (
    "auch auf das dem den der des die ein eine einen im ist mit nicht oder sich und zu"
)
_FRENCH_STOP_WORDS = "au aux ce dans du elle est et il la le les leur pas pour qui sur un une"
_SPANISH_STOP_WORDS = "con de del el en es las lo los para por que se su una y"
STOP_WORDS = frozenset(
    " ".join(
        (_ENGLISH_STOP_WORDS, _GERMAN_STOP_WORDS, _FRENCH_STOP_WORDS, _SPANISH_STOP_WORDS)
    ).split()
)

# Stemmer suffixes, tried in this order: (suffix, shortest stem kept, stem needs a vowel).
_SUFFIXES = (
    ("ation", 4, False),
    ("ment", 4, False),
    ("ing", 3, True),
    ("ed", 3, True),
    ("ly", 4, False),
)
# Double consonants kept after removing -ing or -ed ("install", "pass", "buzz").
_KEEP_DOUBLE = frozenset("lsz")


@dataclass(frozen=True)
class Match:
    """A chunk that matched the query and its relevance in [0, 1]."""

    chunk: Chunk
    score: float


@dataclass(frozen=True)
class _Document:
    """One chunk as the ranking sees it."""

    chunk: Chunk
    tokens: tuple[str, ...]
    counts: Counter[str]
    heading: frozenset[str]
    bigrams: frozenset[tuple[str, str]]

    def has(self, term: str) -> bool:
        return term in self.counts or term in self.heading


def stem(word: str) -> str:
    """Reduce an all-ASCII lower-case word of four or more letters to a crude stem.

    Conservative on purpose; the same word forms reach the same stem, nothing more:

    1. plurals: ``-ies`` becomes ``-y`` (words of five or more letters), ``-sses`` becomes
       ``-ss``, and a final ``-s`` goes unless the word ends in ``-ss``, ``-us`` or ``-is``;
    2. then the first of ``-ation``, ``-ment`` (a stem of four or more letters left), ``-ing``,
       ``-ed`` (three or more letters with a vowel left) and ``-ly`` (four or more left) is
       removed; after ``-ing`` and ``-ed`` a doubled final consonant other than l, s and z is
       undoubled;
    3. a final ``-e`` goes when three or more letters remain.

    So "packages" and "package" give "packag", "installation", "installing" and "installed"
    give "install", "deployments" gives "deploy", "quickly" gives "quick", "boxes" gives "box"
    and "running" gives "run". "string", "used" and "status" stay as they are.
    """
    if len(word) < 4 or not _ASCII_WORD.fullmatch(word):
        return word
    return _drop_final_e(_drop_suffix(_drop_plural(word)))


def _drop_plural(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _drop_suffix(word: str) -> str:
    for suffix, shortest, needs_vowel in _SUFFIXES:
        if not word.endswith(suffix):
            continue
        base = word[: -len(suffix)]
        if len(base) < shortest or (needs_vowel and not _VOWEL.search(base)):
            return word
        if suffix in ("ing", "ed") and _doubled(base):
            return base[:-1]
        return base
    return word


def _doubled(base: str) -> bool:
    last = base[-1]
    return len(base) > 3 and base[-2] == last and last not in _KEEP_DOUBLE and last not in "aeiou"


def _drop_final_e(word: str) -> str:
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def _visible_text(text: str) -> str:
    """The text without link targets, autolinks and reference URLs."""
    text = _LINK_TARGET.sub("] ", text)
    text = _AUTOLINK.sub(" ", text)
    return _REFERENCE.sub(r"\1", text)


def tokenize(text: str, *, keep_stop_words: bool = False) -> list[str]:
    """Normalised search tokens of ``text`` in order, as described in the module docstring.

    ``keep_stop_words`` keeps (and stems) stop words; ranking uses it for stop-word-only queries.
    """
    text = _CJK.sub(r" \g<0> ", _visible_text(unicodedata.normalize("NFKC", text)))
    tokens: list[str] = []
    for match in _WORD.finditer(text):
        token = match.group().casefold()
        if keep_stop_words or token not in STOP_WORDS:
            tokens.append(stem(token))
    return tokens


def rank_chunks(chunks: Sequence[Chunk], query: str, top_k: int) -> list[Match]:
    """The ``top_k`` chunks that best match ``query``, best first; see the module docstring."""
    if top_k <= 0 or not chunks:
        return []
    keep_stop_words = False
    terms = tokenize(query)
    if not terms:
        keep_stop_words = True
        terms = tokenize(query, keep_stop_words=True)
    if not terms:
        return []
    documents = [_document(chunk, keep_stop_words) for chunk in chunks]
    unique = list(dict.fromkeys(terms))
    idf = _idf(documents, unique)
    average = sum(len(document.tokens) for document in documents) / len(documents)
    scored = [
        (_bm25(document, unique, idf, average) * _proximity(document, terms), document)
        for document in documents
        if any(document.has(term) for term in unique)
    ]
    scored.sort(key=lambda pair: (-pair[0], pair[1].chunk.index))
    return [Match(document.chunk, _relevance(raw)) for raw, document in scored[:top_k]]


def _document(chunk: Chunk, keep_stop_words: bool) -> _Document:
    tokens = tuple(tokenize(chunk.text, keep_stop_words=keep_stop_words))
    heading = frozenset(tokenize(" ".join(chunk.heading_path), keep_stop_words=keep_stop_words))
    return _Document(chunk, tokens, Counter(tokens), heading, frozenset(pairwise(tokens)))


def _idf(documents: Sequence[_Document], terms: Sequence[str]) -> dict[str, float]:
    total = len(documents)
    result: dict[str, float] = {}
    for term in terms:
        df = sum(1 for document in documents if document.has(term))
        result[term] = math.log(1 + (total - df + 0.5) / (df + 0.5))
    return result


def _bm25(
    document: _Document, terms: Sequence[str], idf: dict[str, float], average: float
) -> float:
    length_ratio = len(document.tokens) / average if average > 0 else 1.0
    norm = K1 * (1 - B + B * length_ratio)
    score = 0.0
    for term in terms:
        tf = document.counts[term] + (HEADING_WEIGHT if term in document.heading else 0.0)
        if tf > 0:
            score += idf[term] * tf * (K1 + 1) / (tf + norm)
    return score


def _proximity(document: _Document, terms: Sequence[str]) -> float:
    """The phrase and bigram factor, 1.0 for a single-term query."""
    bigrams = list(pairwise(terms))
    if not bigrams:
        return 1.0
    found = sum(1 for bigram in bigrams if bigram in document.bigrams)
    factor = 1.0 + BIGRAM_BOOST * found / len(bigrams)
    if found == len(bigrams) and _contains(document.tokens, terms):
        factor += PHRASE_BOOST
    return factor


def _contains(tokens: Sequence[str], phrase: Sequence[str]) -> bool:
    """Does ``phrase`` occur as consecutive tokens?"""
    width = len(phrase)
    first = phrase[0]
    return any(
        token == first and tuple(tokens[index : index + width]) == tuple(phrase)
        for index, token in enumerate(tokens)
    )


def _relevance(raw: float) -> float:
    return round(raw / (raw + SCORE_HALF), 4)
