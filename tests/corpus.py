"""The golden corpus of realistic pages under ``tests/corpus/`` and how extraction is scored.

Each page is ``<name>.html`` beside ``<name>.json``::

    {
      "url": "https://news.example.com/2026/05/tide-mills",   # where the page lives (links resolve)
      "kind": "news",                 # news, blog, docs, forum, product, recipe, wiki, landing, ...
      "language": "en",
      "app_shell": false,             # a JavaScript app shell that needs rendering
      "article": "...",               # hand-labelled main text, plain, in document order
      "must_include": ["..."],        # plain-text snippets the Markdown must contain
      "must_exclude": ["..."],        # boilerplate snippets it must not contain
      "markdown_checks": ["..."]      # exact Markdown the conversion must produce (optional)
    }

A picture's caption and credit are not the article's text (as in WCXB's and trafilatura's
hand-labelled sets). Extraction is scored like the usual main-content benchmarks: F1 over word
shingles of the extracted text against the labelled article text.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).parent / "corpus"
SHINGLE = 4
"""Words per shingle: long enough that boilerplate sharing common words with the article does
not score, short enough that a dropped sentence costs only its own shingles."""

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
# Markdown syntax that is not text: code fence lines (with their language) and list numbers.
_SYNTAX = re.compile(r"^\s*(?:(?:`{3,}|~{3,})[^\n]*|\d+[.)](?=\s))", re.M)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


@dataclass(frozen=True)
class CorpusPage:
    """One labelled page."""

    name: str
    html: str
    url: str
    kind: str
    language: str
    app_shell: bool
    article: str
    must_include: tuple[str, ...]
    must_exclude: tuple[str, ...]
    markdown_checks: tuple[str, ...]


def load_corpus(directory: Path = CORPUS) -> list[CorpusPage]:
    """Every page of the corpus, by name."""
    pages = []
    for label_path in sorted(directory.glob("*.json")):
        label = json.loads(label_path.read_text(encoding="utf-8"))
        html = label_path.with_suffix(".html").read_text(encoding="utf-8")
        pages.append(
            CorpusPage(
                name=label_path.stem,
                html=html,
                url=label["url"],
                kind=label["kind"],
                language=label.get("language", "en"),
                app_shell=bool(label.get("app_shell", False)),
                article=label.get("article", ""),
                must_include=tuple(label.get("must_include", ())),
                must_exclude=tuple(label.get("must_exclude", ())),
                markdown_checks=tuple(label.get("markdown_checks", ())),
            )
        )
    return pages


def plain_words(text: str) -> list[str]:
    """The words of a text or Markdown document: images, link targets, code fences and list
    numbers dropped, case folded, CJK characters one word each."""
    text = _SYNTAX.sub(" ", _LINK.sub(r"\1", _IMAGE.sub(" ", text)))
    text = _CJK.sub(lambda match: f" {match.group(0)} ", text)
    return [word.casefold() for word in _WORD.findall(text)]


def shingles(words: list[str], size: int = SHINGLE) -> Counter[tuple[str, ...]]:
    """The multiset of ``size``-word shingles (the whole text as one when shorter)."""
    if len(words) < size:
        return Counter([tuple(words)]) if words else Counter()
    return Counter(tuple(words[i : i + size]) for i in range(len(words) - size + 1))


def shingle_f1(extracted: str, reference: str) -> float:
    """F1 of the extracted text's word shingles against the reference's."""
    got, want = shingles(plain_words(extracted)), shingles(plain_words(reference))
    if not got and not want:
        return 1.0
    overlap = sum((got & want).values())
    if overlap == 0:
        return 0.0
    precision = overlap / sum(got.values())
    recall = overlap / sum(want.values())
    return 2 * precision * recall / (precision + recall)


def normalise_space(text: str) -> str:
    """Whitespace collapsed, for snippet checks that must not depend on line breaks."""
    return " ".join(text.split())
