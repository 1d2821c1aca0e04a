"""Prompt-injection scanner for Pagecast's Markdown endpoint (``ai_sanitize=true``).

Web pages handed to a language model can carry text written for the model rather than for the
reader: hidden instructions, fake chat-template markers, requests to leak data, image links that
smuggle the conversation out. This module looks for them in two passes, both pure functions with
no I/O and deterministic output:

``scan_html(root, url)``
    reads the raw lxml document (head, comments, scripts, noscript and template still present)
    without modifying it. It judges what Markdown rendering drops or hides: CSS-hidden elements
    (inline styles and simple rules from the page's own ``<style>`` blocks), HTML comments,
    ``<noscript>``, ``<template>``, ``alt``/``title``/``aria-label`` attributes, meta tags and
    the title, and link and image URLs.
``strip_html(root, scan)``
    (sanitize mode) removes in place what ``scan_html`` flagged as risky and returns the count.
``scan_markdown(markdown)``
    judges the Markdown the model will read: visible instructions, role markers, invisible
    Unicode, homoglyphs, encoded payloads and exfiltration links. Occurrences inside code spans,
    code blocks, blockquotes, quotation marks or sentences that discuss attacks count as quoted
    examples, not instructions.
``strip_markdown(markdown, scan)``
    (sanitize mode) removes the risky spans that ``scan_markdown`` found.
``report(scan, text, mode)``
    turns both scans into a JSON-ready dict with a risk score, a level and the signals.

Signal types (``type``), with base severities from ``SEVERITY``:

=====================  =====  ===============================================================
type                   sev.   meaning
=====================  =====  ===============================================================
hidden_instructions    0.95   hidden text (CSS, attributes) or Unicode tag characters carrying
                              instructions; 0.75 when it only addresses an AI
comment_instructions   0.85   instructions in a comment, noscript, template, attribute or meta
                              tag; 0.6 when it only addresses an AI, 0.3 when quoted
exfiltration_link      0.9    image URL with a data placeholder (``{user_data}``, ``[DATA]``,
                              ``$SECRET``...); 0.8 for a link; 0.25 for another placeholder,
                              0.25 for a query value that decodes to text, 0.1 for a query
                              string over 200 characters, 0.15 for a placeholder in a URL on
                              the page's own host
instruction_override   0.65   "ignore all previous instructions", "you are now...", in English,
                              German, French, Spanish (and close Italian/Portuguese forms)
role_marker            0.6    chat-template and role markers (``<|im_start|>``, ``[INST]``,
                              ``<<SYS>>``, ``### System:``, ``System: you are...``)
data_request           0.5    requests to reveal the system prompt, send user data somewhere,
                              tell the user to visit a site, include a link in the answer
ai_addressed           0.35   text addressed to an AI ("if you are an AI", "note to LLMs",
                              "AI assistants reading this:") near imperative content; 0.6 next
                              to other instruction phrases, 0.15 without imperative content
homoglyph              0.9    words mixing Latin with Cyrillic/Greek look-alikes that read as
                              instructions once folded to Latin; 0.25 otherwise
encoded_payload        0.9    base64 or hex blob decoding to instructions; 0.1 to other text
invisible_unicode      0.9    invisible characters inside an instruction phrase; 0.6 Unicode
                              tag characters, 0.2 bidi controls, 0.15 zero-width characters
hidden_text            0.15   hidden text without instructions (screen-reader text, menus)
=====================  =====  ===============================================================

Instruction phrases in quoted or code context score ``QUOTED_FACTOR`` times their base
severity and are reported with location ``quoted``.

Locations: ``hidden_text``, ``html_comment``, ``noscript``, ``template``, ``attribute:<name>``,
``meta`` (meta tags and the title), ``link``, ``image``, ``html_tag`` (role-named elements such as
``<system>``), ``unicode_tags`` (text decoded from Unicode tag characters), ``markdown`` (the
rendered Markdown) and ``quoted`` (quoted or code examples in the Markdown).

Scoring: findings are aggregated per (type, location) into a signal whose severity is the
strongest occurrence. A signal weighs ``1 - prod(1 - s_k / 2**k)`` over its occurrences sorted
strongest first (k = 0, 1, ...), so repeats add with diminishing weight. Quoted signals are
combined first and capped at ``QUOTED_CAP``, so quoted examples alone never exceed medium. The
risk is the noisy-OR ``1 - prod(1 - w)`` of all weights, rounded to four decimals. Levels:
``high`` from 0.7, ``medium`` from 0.4, else ``low``.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import colorsys
import functools
import re
import unicodedata
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, TypeVar
from urllib.parse import unquote, urljoin, urlsplit

from cssselect import HTMLTranslator
from cssselect import SelectorError as CssSelectorError
from lxml import etree

from convert.document import drop
from convert.mdblocks import fenced_lines

__all__ = [
    "MODES",
    "QUOTED_CAP",
    "QUOTED_FACTOR",
    "SEVERITY",
    "Finding",
    "HtmlScan",
    "TextScan",
    "report",
    "scan_html",
    "scan_markdown",
    "strip_html",
    "strip_markdown",
]

# --------------------------------------------------------------------------------------------
# Severities and levels
# --------------------------------------------------------------------------------------------

SEVERITY: Final[Mapping[str, float]] = MappingProxyType(
    {
        "hidden_instructions": 0.95,
        "hidden_instructions/addressed": 0.75,
        "comment_instructions": 0.85,
        "comment_instructions/addressed": 0.6,
        "comment_instructions/quoted": 0.3,
        "exfiltration_link/image": 0.9,
        "exfiltration_link/link": 0.8,
        "exfiltration_link/template": 0.25,
        "exfiltration_link/encoded": 0.25,
        "exfiltration_link/local": 0.15,
        "exfiltration_link/long": 0.1,
        "instruction_override": 0.65,
        "role_marker": 0.6,
        "data_request": 0.5,
        "ai_addressed": 0.35,
        "ai_addressed/combined": 0.6,
        "ai_addressed/mention": 0.15,
        "homoglyph": 0.9,
        "homoglyph/weak": 0.25,
        "encoded_payload": 0.9,
        "encoded_payload/text": 0.1,
        "invisible_unicode": 0.9,
        "invisible_unicode/tags": 0.6,
        "invisible_unicode/bidi": 0.2,
        "invisible_unicode/zero_width": 0.15,
        "hidden_text": 0.15,
    }
)
QUOTED_FACTOR: Final = 0.45
QUOTED_CAP: Final = 0.5
MODES: Final = ("sanitize", "warn", "block")
_LEVELS: Final = ((0.7, "high"), (0.4, "medium"), (0.0, "low"))
_RECOMMENDATIONS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "high": "Do not pass this content to a model without review: it carries text written to "
        "steer an AI (hidden or explicit instructions, role markers or data exfiltration).",
        "medium": "Review before passing this content to a model: it holds instruction-like, "
        "hidden or obfuscated text that may be quoted examples or an injection attempt.",
        "low": "No sign of prompt injection beyond ordinary page features; safe to pass on "
        "with the usual care for untrusted text.",
    }
)
_SAMPLE_CHARS: Final = 120
_MAX_COUNT_TERMS: Final = 12


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One observation: a signal type, how strong, where, and the text that showed it."""

    kind: str
    severity: float
    location: str
    sample: str
    count: int = 1


@dataclass(frozen=True)
class HtmlScan:
    """What ``scan_html`` saw, and the parts of that tree ``strip_html`` should remove.

    The element references belong to the scanned tree and are only meaningful with it.
    """

    findings: tuple[Finding, ...] = ()
    remove: tuple[Any, ...] = ()
    unwrap: tuple[Any, ...] = ()
    attributes: tuple[tuple[Any, str], ...] = ()


@dataclass(frozen=True)
class _Edit:
    """Replace ``source[start:end]`` with ``text``."""

    start: int
    end: int
    text: str = ""


@dataclass(frozen=True)
class TextScan:
    """What ``scan_markdown`` saw, and the edits ``strip_markdown`` applies."""

    findings: tuple[Finding, ...] = ()
    edits: tuple[_Edit, ...] = ()
    checksum: int = 0


# --------------------------------------------------------------------------------------------
# Text normalisation: lower case, accents off, typographic apostrophes folded; one character
# in, one character out, so positions in the normalised text are positions in the source.
# --------------------------------------------------------------------------------------------

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
_CONFUSABLE_TABLE: Final = str.maketrans(dict(_CONFUSABLES))
_GREEK_CYRILLIC_RE: Final = re.compile("[\u0370-\u03ff\u0400-\u052f]")
_SCRIPT_SEAM_RE: Final = re.compile(
    r"[A-Za-z][\u0370-\u03ff\u0400-\u052f]|[\u0370-\u03ff\u0400-\u052f][A-Za-z]"
)


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _sample(text: str) -> str:
    text = _collapse(_INVISIBLE_RE.sub("", text))
    if len(text) <= _SAMPLE_CHARS:
        return text
    return text[: _SAMPLE_CHARS - 1].rstrip() + "\u2026"


# --------------------------------------------------------------------------------------------
# Instruction phrases, matched on normalised text.
#
# Each entry: (type, scope, stems, pattern). ``stems`` lists the literal word starts a match
# can begin with ("$" ends a whole word); a trigger scan finds those cheaply and the pattern is
# only tried there. Scope "sentence" removes the whole sentence when sanitizing, "token" only
# the match, "heading" and "line" are role markers that must open a line.
# --------------------------------------------------------------------------------------------

_EN_VERB = r"(?:ignore|disregard|forget|bypass|discard|abandon|neglect|set\s+aside|throw\s+out)"
_EN_VERB_STEMS = "ignore disregard forget bypass discard abandon neglect set$ throw$"
_EN_DET = r"(?:(?:all|any|each|every|the|your|my|our|these|those|of|other)\s+){0,3}"
_EN_PAST = r"(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial|old|past)"
_EN_ADJ = r"(?:(?:system|developer|safety|ai|assistant|chat|model|hidden|internal)\s+)?"
_EN_NOUN = (
    r"(?:instructions?|prompts?|directives?|rules|guidelines|context|constraints|restrictions"
    r"|programming|policies)"
)
_EN_OWN = (
    r"(?:(?:system|developer|safety|original|initial|hidden|internal|core)\s+)?"
    r"(?:instructions|prompt|rules|guidelines|programming|directives|restrictions|policies"
    r"|training|safeguards)"
)
_EN_QUAL = r"(?:(?:previous|prior|original|initial|system|safety)\s+)"
_AI_TARGET = r"(?:ai|assistant|model|chatbot|bot|agent|persona|character|hacker)\b"

_DE_VERB = r"(?:ignorier\w*|missacht\w*|vergiss|vergessen\s+sie|verwirf|verwerfen\s+sie|ubergeh\w*)"
_DE_VERB_STEMS = "ignorier missacht vergiss vergessen verwirf verwerfen ubergeh"
_DE_FILL = (
    r"(?:(?:sie|du|bitte|alle|alles|samtliche|jegliche|die|deine|ihre|den|der|dem|bisher"
    r"|zuvor|einfach)\s+){0,4}"
)
_DE_PAST = (
    r"(?:vorherig\w*|vorig\w*|bisherig\w*|fruher\w*|obig\w*|vorangegangen\w*|vorstehend\w*"
    r"|ursprunglich\w*|alten|erhaltenen|gegebenen)"
)
_DE_NOUN = (
    r"(?:[a-z]+-)?(?:anweisung\w*|instruktion\w*|befehl\w*|vorgabe\w*|regeln|richtlinie\w*"
    r"|anordnung\w*|prompts?|systemprompts?)"
)
_FR_VERB = (
    r"(?:ignore[rz]?|oublie[rz]?|neglige[rz]?|ne\s+(?:tiens|tenez)\s+(?:pas|plus)\s+compte"
    r"|(?:fais|faites)\s+abstraction|passe[rz]?\s+outre)"
)
_FR_VERB_STEMS = "ignore oublie neglige ne$ fais$ faites$ passe"
_FR_FILL = r"(?:(?:de|des|du|toutes|tous|les|tes|vos|ces|la|simplement)\s+|[dl]'\s*){0,4}"
_FR_PAST = (
    r"(?:precedente?s?|anterieure?s?|ci-dessus|initiales?|originales?|d'origine|du\s+systeme"
    r"|systeme|recues|plus\s+haut)"
)
_FR_NOUN = r"(?:instructions?|consignes?|directives?|regles|indications|ordres|commandes|prompts?)"
_ES_VERB = (
    r"(?:ignor[ae]\w*|olvid[ae]\w*|omit[ae]\w*|descart[ae]\w*|desobedec\w*|dimentic\w*"
    r"|esquec[ae]\w*|hagan?\s+caso\s+omiso\s+(?:a|de)|haz\s+caso\s+omiso\s+(?:a|de))"
)
_ES_VERB_STEMS = (
    "ignora ignore olvida olvide omita omite descarta descarte desobedec dimentic esqueca"
    " esquece haga haz$"
)
_ES_FILL = (
    r"(?:(?:todas|todos|toda|las|los|tus|sus|de|del|estas|esas|el|la|as|os|suas|tuas|le"
    r"|tutte|tutti|gli|tue|delle)\s+){0,4}"
)
_ES_PAST = (
    r"(?:anteriores|previas|precedentes|de\s+arriba|originales|iniciales|del\s+sistema"
    r"|recibidas|precedenti|anteriori|ricevute|acima|recebidas|do\s+sistema)"
)
_ES_NOUN = (
    r"(?:instrucciones|indicaciones|ordenes|reglas|directrices|directivas|normas|consignas"
    r"|comandos|instrucoes|regras|istruzioni|regole|direttive|prompt)"
)
# Names that address an AI. Bare words such as "model" or "bot", and product names that are
# also people's names or star signs, would catch car models, fashion shoots and horoscopes.
_AI_NOUN = (
    r"(?:ai(?:[\s-]+(?:assistant|agent|model|system|bot|crawler|reader|tool)s?)?|llms?"
    r"|(?:large\s+)?language\s+models?|chatbots?|gpt[\w.-]*|chatgpt|assistants?)"
)
_AI_NOUN_STEMS = "ai llm large language chatbot gpt chatgpt assistant"
_AI_DE = r"(?:ki|ki-\w+|sprachmodelle?|chatbots?|llms?)\b"
_READING = r"(?:reading|processing|parsing|summari[sz]ing|crawling|scraping|ingesting)"
_SECRETS = (
    r"(?:passwords?|credentials|api\s+keys?|access\s+tokens?|tokens?|cookies|secrets?"
    r"|private\s+keys?|credit\s+card(?:\s+numbers?)?|chat\s+history|conversations?)"
)
# What a page should never ask a model to pass on: the user's things (third person, as only a
# model is told about "the user"), anyone's secrets, the conversation itself.
_SENSITIVE = (
    r"(?:\b(?:the\s+)?users?'s?\s+(?:[\w-]+\s+)?(?:data|information|details"
    r"|messages?|conversation|chats?|history|e-?mails?|email\s+address(?:es)?|address(?:es)?"
    r"|passwords?|credentials|api\s+keys?|tokens?|session|cookies?|files?|documents?"
    rf"|contacts|name|phone|location|queries|questions|prompts?|inputs?|credit\s+card"
    rf"|secrets?|personal|private)\b|\btheir\s+(?:[\w-]+\s+)?{_SECRETS}\b|\b(?:conversation|chat)\s+(?:history|logs?|transcript"
    r"|so\s+far)|\bprevious\s+messages|\b(?:this|the\s+(?:entire|whole|full))\s+conversation"
    r"|\b(?:any|all|every)\s+(?:[\w-]+\s+)?(?:passwords?|api\s+keys?|credentials"
    r"|access\s+tokens?|secrets|cookies|session\s+tokens?|private\s+keys?))"
)
_URL_OR_MAIL = r"(?:https?://|www\.|[\w.+-]+@[\w-]+\.[a-z])"
_DEST = (
    rf"\b(?:to|at|via|into|in)\s+(?:{_URL_OR_MAIL}"
    r"|(?:this|the\s+following|my|our|the\s+(?:attacker'?s?|external))\s+(?:url|address"
    r"|server|endpoint|email|webhook|site|domain|link|form)"
    r"|(?:the|a|this)\s+(?:url|link|query(?:\s+string)?|image(?:\s+url)?|markdown\s+image"
    r"|request\s+parameters?|parameter))"
)
_ANSWER = r"(?:responses?|answers?|summar(?:y|ies)|outputs?|completions?|replies)"
_SNIPPET = r"(?:link|url|image|markdown|hyperlink|html|text|phrase|sentence|message|word)s?"
_WHERE = r"(?:at\s+the\s+(?:end|start|beginning|top|bottom)\s+of|in|into|to)"
_SEND_VERB = (
    r"(?:send|forward|e-?mail|mail|post|upload|transmit|submit|leak|exfiltrate|copy|paste"
    r"|encode|append|attach|relay|share|include|embed|put)"
)
_SEND_STEMS = (
    "send forward email e-mail mail post upload transmit submit leak exfiltrate copy paste"
    " encode append attach relay share include embed put$"
)
_CLAUSE = r"[^.!?\n]{0,60}?"
_TAIL = r"[^.!?\n]{0,80}?"

_PHRASE_TABLE: Final[tuple[tuple[str, str, str, str], ...]] = (
    # --- instruction_override, English
    (
        "instruction_override",
        "sentence",
        _EN_VERB_STEMS,
        rf"\b{_EN_VERB}\s+{_EN_DET}{_EN_PAST}\s+{_EN_ADJ}{_EN_NOUN}\b",
    ),
    (
        "instruction_override",
        "sentence",
        f"{_EN_VERB_STEMS} override overwrite",
        rf"\b(?:{_EN_VERB}|override|overwrite)\s+(?:(?:all|any)\s+(?:of\s+)?)?your\s+{_EN_OWN}\b",
    ),
    (
        "instruction_override",
        "sentence",
        f"{_EN_VERB_STEMS} override overwrite",
        rf"\b(?:{_EN_VERB}|override|overwrite)\s+(?:all\s+(?:of\s+)?)?the\s+"
        r"(?:system|developer|safety|hidden|internal)\s+"
        r"(?:prompt|instructions|message|rules|guidelines)\b",
    ),
    (
        "instruction_override",
        "sentence",
        _EN_VERB_STEMS,
        rf"\b{_EN_VERB}\s+(?:all|every|any)\s+(?:instructions|rules|guidelines)\s+"
        r"(?:you\s+(?:were|have\s+been)\s+given|(?:given\s+)?(?:above|before|so\s+far|previously))",
    ),
    (
        "instruction_override",
        "sentence",
        "ignore disregard forget",
        r"\b(?:ignore|disregard|forget)\s+(?:everything|anything|all)\s+"
        r"(?:(?:that\s+)?you\s+(?:were|have\s+been|had\s+been)\s+(?:told|given|instructed"
        r"|taught)(?!\s+about)|(?:that\s+)?(?:came\s+|was\s+(?:said|written)\s+)?"
        r"(?:above|before\s+this|previously|so\s+far|prior\s+to\s+this))",
    ),
    (
        "instruction_override",
        "sentence",
        "ignore disregard",
        r"\b(?:ignore|disregard)\s+(?:all\s+(?:of\s+)?|everything\s+)?(?:the\s+)?"
        r"(?:above|foregoing|preceding)\s+(?:(?:text|content|prompt)\s+)?and\s+(?:instead\s+)?"
        r"(?:say|print|output|write|respond|reply|tell|translate|repeat|return|answer|follow"
        r"|do)\b",
    ),
    (
        "instruction_override",
        "sentence",
        "you$",
        r"\byou\s+are\s+now\s+(?:no\s+longer\b"
        r"|in\s+(?:dan|jailbreak|jailbroken|unrestricted|unfiltered|god|evil)\s+mode\b"
        rf"|(?:a|an|my|the)\s+(?:[\w-]+\s+){{0,2}}?{_AI_TARGET}"
        r"|(?:dan|jailbroken|unrestricted|unfiltered|uncensored)\b"
        r"|free\s+(?:from|of)\s+(?:all|any|your)\b)",
    ),
    (
        "instruction_override",
        "sentence",
        "new$ updated revised real$ actual secret hidden overriding",
        r"\b(?:new|updated|revised|real|actual|secret|hidden|overriding)\s+(?:system\s+)?"
        r"(?:instructions?|directives?|system\s+prompt|prompt|orders)\s*:",
    ),
    (
        "instruction_override",
        "sentence",
        "your$",
        r"\byour\s+(?:new|real|actual|updated)\s+(?:instructions?|task|goal|objective|mission"
        r"|purpose|directive)\s+(?:is|are|will\s+be)\b",
    ),
    (
        "instruction_override",
        "sentence",
        "do$ don't never stop",
        r"\b(?:do\s+not|don't|never|stop)\s+(?:follow(?:ing)?|obey(?:ing)?|adher(?:e|ing)\s+to"
        r"|comply(?:ing)?\s+with)\s+(?:(?:any|all)\s+(?:of\s+)?)?"
        rf"(?:(?:your|its)\s+{_EN_QUAL}*|the\s+{_EN_QUAL}+)"
        r"(?:instructions|rules|guidelines|prompt|programming|policies|restrictions)\b",
    ),
    (
        "instruction_override",
        "sentence",
        "from$",
        r"\bfrom\s+now\s+on\s*,?\s+you\s+(?:will|must|shall|should|are\s+to)\s+(?:only\s+)?"
        r"(?:respond|reply|answer|act\s+as|behave|pretend|ignore|obey|refuse|say|output"
        r"|speak)\b",
    ),
    (
        "instruction_override",
        "sentence",
        "enter switch activate enable",
        r"\b(?:enter|switch\s+to|activate|enable)\s+"
        r"(?:dan|jailbreak|jailbroken|unrestricted|unfiltered)\s+mode\b",
    ),
    (
        "instruction_override",
        "sentence",
        "pretend",
        r"\bpretend\s+(?:that\s+)?you\s+(?:are|have)\s+no\s+"
        r"(?:restrictions|rules|guidelines|limits|filters)\b",
    ),
    (
        "instruction_override",
        "sentence",
        "act$",
        r"\bact\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|jailbroken|uncensored)\b",
    ),
    # --- instruction_override, German
    (
        "instruction_override",
        "sentence",
        _DE_VERB_STEMS,
        rf"\b{_DE_VERB}\s+{_DE_FILL}{_DE_PAST}\s+(?:[\w-]+\s+)?{_DE_NOUN}",
    ),
    (
        "instruction_override",
        "sentence",
        _DE_VERB_STEMS,
        rf"\b{_DE_VERB}\s+(?:(?:sie|du|bitte)\s+)?(?:alle|deine|ihre|samtliche)\s+{_DE_NOUN}\b",
    ),
    (
        "instruction_override",
        "sentence",
        "vergiss",
        r"\bvergiss\s+alles\s*,?\s*(?:was\s+(?:man\s+)?dir\s+(?:bisher\s+|zuvor\s+)?"
        r"(?:gesagt|aufgetragen|befohlen)|(?:bisherige|vorherige)\w*)",
    ),
    (
        "instruction_override",
        "sentence",
        "du$ sie$",
        r"\b(?:du\s+bist|sie\s+sind)\s+(?:jetzt|nun|ab\s+sofort|ab\s+jetzt)\s+"
        r"(?:(?:ein|eine|kein|keine|der|die)\s+(?:[\w-]+\s+){0,2}?"
        r"(?:ki|ki-\w+|assistent\w*|modell|chatbot|bot|hacker)\b"
        r"|nicht\s+mehr\s+an\b|frei\s+von\b|dan\b)",
    ),
    (
        "instruction_override",
        "sentence",
        "neue geanderte aktualisierte",
        r"\b(?:neue|geanderte|aktualisierte)\s+(?:system-?)?anweisungen\s*:",
    ),
    (
        "instruction_override",
        "sentence",
        "deine ihre",
        r"\b(?:deine|ihre)\s+(?:neuen?|eigentliche[n]?|wahren?)\s+"
        r"(?:anweisungen|aufgabe|instruktionen)\s+(?:lauten|sind|ist|lautet)\b",
    ),
    # --- instruction_override, French
    (
        "instruction_override",
        "sentence",
        _FR_VERB_STEMS,
        rf"\b{_FR_VERB}\s+{_FR_FILL}(?:{_FR_PAST}\s+{_FR_NOUN}|{_FR_NOUN}\s+{_FR_PAST})",
    ),
    (
        "instruction_override",
        "sentence",
        _FR_VERB_STEMS,
        rf"\b{_FR_VERB}\s+(?:toutes\s+)?(?:tes|vos)\s+{_FR_NOUN}\b",
    ),
    (
        "instruction_override",
        "sentence",
        "oublie",
        r"\boublie[rz]?\s+tout\s+ce\s+qu(?:e\s+|')\s*(?:l'on|on)\s+(?:t'a|vous\s+a)\s+"
        r"(?:dit|demande|appris|ordonne)",
    ),
    (
        "instruction_override",
        "sentence",
        "tu$ vous$",
        r"\b(?:tu\s+es|vous\s+etes)\s+(?:maintenant|desormais|a\s+present)\s+"
        r"(?:(?:un|une)\s+(?:[\w-]+\s+){0,2}?(?:ia|assistant|modele|chatbot|bot|agent"
        r"|pirate)\b|libre\s+de\b|dan\b)",
    ),
    (
        "instruction_override",
        "sentence",
        "nouvelle",
        r"\bnouvelles?\s+(?:instructions|consignes|directives)\s*:",
    ),
    # --- instruction_override, Spanish (and the Italian and Portuguese forms it shares)
    (
        "instruction_override",
        "sentence",
        _ES_VERB_STEMS,
        rf"\b{_ES_VERB}\s+{_ES_FILL}(?:{_ES_PAST}\s+{_ES_NOUN}|{_ES_NOUN}\s+{_ES_PAST})",
    ),
    (
        "instruction_override",
        "sentence",
        "olvida olvide",
        r"\bolvid[ae]\w*\s+todo\s+lo\s+(?:anterior|que\s+(?:te|se\s+te|le|les)\s+"
        r"(?:han|ha|hayan|habian)\s+(?:dicho|indicado|ordenado))",
    ),
    (
        "instruction_override",
        "sentence",
        "ahora a$ desde",
        r"\b(?:ahora|a\s+partir\s+de\s+ahora|desde\s+ahora)\s*,?\s+(?:eres|seras)\s+"
        r"(?:(?:un|una)\s+(?:[\w-]+\s+){0,2}?(?:ia|asistente|modelo|chatbot|bot|agente"
        r"|hacker)\b|libre\b|dan\b)",
    ),
    (
        "instruction_override",
        "sentence",
        "nuevas verdaderas",
        r"\b(?:nuevas|verdaderas)\s+(?:instrucciones|ordenes|indicaciones)\s*:",
    ),
    (
        "instruction_override",
        "sentence",
        "ya$",
        r"\bya\s+no\s+(?:sigas|obedezcas)\s+(?:tus|las)\s+(?:\w+\s+)?"
        r"(?:instrucciones|reglas|normas)",
    ),
    # --- role_marker (markers made of punctuation are in _ROLE_TOKEN_RE below)
    (
        "role_marker",
        "token",
        "begin end$ start",
        r"\b(?:begin|end|start)\s+(?:of\s+)?(?:the\s+)?system\s+prompt\b",
    ),
    (
        "role_marker",
        "heading",
        "system assistant human instruction",
        r"(?:system|assistant|human|instruction)[ \t]*:",
    ),
    (
        "role_marker",
        "line",
        "system assistant human",
        r"(?:system|assistant|human)[*_]{0,2}[ \t]*:[*_]{0,2}[ \t]*"
        r"(?:you[ \t]+(?:must|will|should|shall)|you[ \t]+are[ \t]+(?:now|an?|the)\b|ignore"
        r"|disregard|forget|from[ \t]+now[ \t]+on|new[ \t]+instructions|always|never"
        r"|do[ \t]+not|don't|the[ \t]+user|reveal|print|send|output)",
    ),
    # --- ai_addressed
    (
        "ai_addressed",
        "sentence",
        "if$",
        r"\bif\s+you\s+are\s+(?:an?\s+)?(?:ai\b|llm|large\s+language\s+model|language\s+model"
        r"|chatbot|bot\b|gpt|chatgpt|(?:ai|virtual|automated)\s+(?:assistant|agent|system"
        r"|program))",
    ),
    (
        "ai_addressed",
        "sentence",
        "note message memo instruction directive request",
        r"\b(?:note|message|memo|instructions?|directive|request)\s+(?:to|for)\s+"
        rf"(?:all\s+|any\s+|the\s+|every\s+)?{_AI_NOUN}\b",
    ),
    (
        "ai_addressed",
        "sentence",
        "dear hello hi$ hey attention psst greetings",
        r"\b(?:dear|hello|hi|hey|attention|psst|greetings)\s*,?\s+"
        rf"(?:all\s+|any\s+|the\s+|every\s+)?{_AI_NOUN}\b\s*[,:!.]",
    ),
    (
        "ai_addressed",
        "sentence",
        "to$ for$",
        rf"\b(?:to|for)\s+(?:any|all|every)\s+(?:[\w-]+\s+)?{_AI_NOUN}\s+"
        rf"(?:that\s+(?:is|are)\s+)?(?:{_READING}|analy[sz]ing|that\s+reads?)\b",
    ),
    (
        "ai_addressed",
        "sentence",
        _AI_NOUN_STEMS,
        rf"\b(?:ai\s+)?{_AI_NOUN}\s+(?:(?:that|who)\s+(?:is|are)\s+)?{_READING}\s+"
        r"(?:this|these)(?:\s+(?:page|text|article|document|content|site|website|post|message"
        r"|email|words|lines))?\s*[,:!.\u2013\u2014-]",
    ),
    (
        "ai_addressed",
        "sentence",
        "when$",
        r"\bwhen\s+(?:you\s+(?:are\s+)?)?(?:summari[sz]\w*|processing|asked\s+(?:about"
        r"|to\s+summari[sz]e))\s+this\s+(?:page|article|document|text|content|site|website"
        r"|post)\b",
    ),
    (
        "ai_addressed",
        "sentence",
        "wenn falls",
        r"\b(?:wenn|falls)\s+du\s+(?:eine?\s+)?(?:ki\b|ki-\w+|sprachmodell|chatbot|assistent"
        r"|bot\b|llm)",
    ),
    (
        "ai_addressed",
        "sentence",
        "hinweis nachricht anweisung",
        rf"\b(?:hinweis|nachricht|anweisung)\s+(?:an|fur)\s+(?:alle\s+|jede\s+|die\s+)?{_AI_DE}",
    ),
    (
        "ai_addressed",
        "sentence",
        "liebe hallo an$",
        rf"\b(?:liebe[rs]?|hallo|an\s+alle|an\s+jede)\s+{_AI_DE}",
    ),
    (
        "ai_addressed",
        "sentence",
        "si$",
        r"\bsi\s+(?:tu\s+es|vous\s+etes)\s+(?:une?\s+)?(?:ia\b|intelligence\s+artificielle"
        r"|modele\s+de\s+langage|assistant|chatbot|llm|robot)",
    ),
    (
        "ai_addressed",
        "sentence",
        "note message",
        r"\b(?:note|message)\s+(?:pour\s+les?|a\s+l'attention\s+des?)\s+"
        r"(?:ia|assistants?|modeles?|llms?)\b",
    ),
    (
        "ai_addressed",
        "sentence",
        "chere cher$ cheres a$",
        r"\b(?:chere?s?|a\s+toutes?\s+les)\s+(?:ia|assistants\s+(?:ia|d'ia))\b",
    ),
    (
        "ai_addressed",
        "sentence",
        "si$",
        r"\bsi\s+eres\s+(?:una?\s+)?(?:ia\b|inteligencia\s+artificial|modelo\s+de\s+lenguaje"
        r"|asistente|chatbot|llm|robot)",
    ),
    (
        "ai_addressed",
        "sentence",
        "nota mensaje",
        r"\b(?:nota|mensaje)\s+(?:para|a)\s+(?:la\s+|las\s+|cualquier\s+|toda\s+)?"
        r"(?:ia|ias|asistentes?|modelos?|llms?)\b",
    ),
    (
        "ai_addressed",
        "sentence",
        "querid estimad a$",
        r"\b(?:querida?s?|estimada?s?|a\s+cualquier|a\s+todas\s+las)\s+"
        r"(?:ia|ias|asistentes?\s+de\s+ia)\b",
    ),
    # --- data_request
    (
        "data_request",
        "sentence",
        "reveal print output repeat dump leak disclose expose recite tell show write spell give",
        r"\b(?:reveal|print|output|repeat|dump|leak|disclose|expose|recite|tell\s+me|show\s+me"
        r"|write\s+out|spell\s+out|give\s+me)\s+(?:(?:all|back)\s+(?:of\s+)?)?"
        r"(?:your\s+(?:(?:full|entire|complete|exact|original|initial|hidden|secret|internal"
        r"|verbatim|system)\s+){0,2}(?:system\s+prompt|prompt|instructions|system\s+message"
        r"|guidelines|rules)|the\s+(?:(?:full|entire|complete|exact|verbatim)\s+)?"
        r"(?:system\s+(?:prompt|message)|(?:hidden|secret|initial|original)\s+"
        r"(?:prompt|instructions)))\b",
    ),
    (
        "data_request",
        "sentence",
        "tell instruct direct advise urge encourage convince persuade remind",
        r"\b(?:tell|instruct|direct|advise|urge|encourage|convince|persuade|remind)\s+"
        r"(?:the\s+)?(?:user|users|reader|readers)\s+to\s+(?:visit|go\s+to|click|open|download"
        r"|install|call|contact|email|buy|purchase|sign\s+up|log\s+in|navigate|follow)\b"
        rf"{_TAIL}{_URL_OR_MAIL}",
    ),
    (
        "data_request",
        "sentence",
        "ask$",
        r"\bask\s+(?:the\s+)?(?:user|users|reader)\s+(?:for|to\s+(?:provide|share|send))\s+"
        r"(?:their|his|her|the|a)\s+(?:[\w-]+\s+)?(?:password|passcode|credentials|api\s+key"
        r"|credit\s+card|card\s+number|social\s+security|login|bank|pin|otp|one-time"
        r"|seed\s+phrase|recovery\s+phrase)",
    ),
    (
        "data_request",
        "sentence",
        "include insert add$ append embed render output put$ place",
        r"\b(?:include|insert|add|append|embed|render|output|put|place)\s+"
        r"(?:(?:the\s+following|this|these)\s+(?:[\w-]+\s+){0,2}?"
        rf"{_SNIPPET}\s+{_WHERE}\s+(?:your|every|each|all|any)"
        rf"|(?:an?\s+|the\s+)?(?:[\w-]+\s+){{0,2}}?{_SNIPPET}\s+{_WHERE}\s+(?:every|each|all|any))"
        rf"\s+(?:[\w-]+\s+)?{_ANSWER}\b",
    ),
    (
        "data_request",
        "sentence",
        "mention recommend promote praise advertise",
        r"\b(?:mention|recommend|promote|praise|advertise)\s+(?:[\w'-]+\s+){0,4}?in\s+"
        rf"(?:every|each|all|any)\s+(?:[\w-]+\s+)?{_ANSWER}\b",
    ),
    (
        "data_request",
        "sentence",
        "include insert add$ append embed render output",
        r"\b(?:include|insert|add|append|embed|render|output)\s+(?:the\s+following|this)\s+"
        r"(?:markdown\s+)?(?:link|url|image|hyperlink)\b",
    ),
    (
        "data_request",
        "sentence",
        _SEND_STEMS,
        rf"\b{_SEND_VERB}\s+{_CLAUSE}{_SENSITIVE}{_TAIL}{_DEST}",
    ),
    (
        "data_request",
        "sentence",
        "exfiltrate leak smuggle siphon",
        rf"\b(?:exfiltrate|leak|smuggle|siphon)\s+[^.!?\n]{{0,40}}?{_SENSITIVE}",
    ),
    (
        "data_request",
        "sentence",
        "send forward email e-mail post upload submit",
        r"\b(?:send|forward|e-?mail|post|upload|submit)\s+(?:everything|the\s+(?:summary"
        rf"|conversation|answer|response|output))\s+to\s+{_URL_OR_MAIL}",
    ),
    (
        "data_request",
        "sentence",
        "sende schick ubermittle leite senden schicken",
        r"\b(?:sende|schicke?|ubermittle|leite|senden\s+sie|schicken\s+sie)\s+"
        rf"{_CLAUSE}\b(?:(?:des|der|dem|den)\s+(?:nutzer|benutzer|anwender|kunden|leser)\w*"
        r"|nutzerdaten|benutzerdaten|kundendaten|zugangsdaten|passworter|passwort"
        r"|api-schlussel\w*|chatverlauf\w*|gesprachsverlauf\w*|unterhaltung)"
        rf"{_TAIL}\b(?:an|nach|zu)\s+(?:{_URL_OR_MAIL}|diese\s+(?:adresse|url))",
    ),
    (
        "data_request",
        "sentence",
        "gib$ zeig verrate nenne",
        r"\b(?:gib|zeige?|verrate|nenne)\s+(?:mir\s+)?(?:deine[nm]?|den|die|ihren|ihre)\s+"
        r"(?:system-?prompts?|(?:versteckten|geheimen|ursprunglichen)\s+"
        r"(?:anweisungen|instruktionen))",
    ),
    (
        "data_request",
        "sentence",
        "envoie envoyez transmets transmettez transmettre communique partage",
        r"\b(?:envoie[rz]?|envoyez|transmets|transmettez|transmettre|communique[rz]?"
        rf"|partage[rz]?)\s+{_CLAUSE}\b(?:(?:de\s+)?l'utilisateur|des\s+utilisateurs"
        r"|donnees\s+(?:personnelles|de\s+l'utilisateur)|mots?\s+de\s+passe|identifiants"
        r"|historique\s+(?:de\s+(?:la\s+)?)?(?:conversation|discussion)|cles?\s+(?:d')?api)"
        rf"{_TAIL}\b(?:a|vers|sur)\s+(?:{_URL_OR_MAIL}|cette\s+adresse)",
    ),
    (
        "data_request",
        "sentence",
        "revele affiche montre donne imprime",
        r"\b(?:revele[rz]?|affiche[rz]?|montre[rz]?|donne[rz]?|imprime[rz]?)(?:-moi)?\s+"
        r"(?:ton|votre|tes|vos|le|les)\s+(?:prompt\s+(?:systeme|initial)"
        r"|(?:instructions|consignes)\s+(?:systeme|initiales|cachees|secretes))",
    ),
    (
        "data_request",
        "sentence",
        "envia envie enviar manda mande transmit reenvia comparte",
        r"\b(?:envia|envie|enviar|manda|mande|transmite|transmita|reenvia|comparte)\s+"
        rf"{_CLAUSE}\b(?:(?:del|de\s+los)\s+usuarios?|datos\s+(?:personales|del\s+usuario)"
        r"|contrasenas?|credenciales|historial\s+(?:de\s+(?:la\s+)?)?(?:conversacion|chat)"
        rf"|claves?\s+(?:de\s+)?api){_TAIL}\b(?:a|hacia|en)\s+"
        rf"(?:{_URL_OR_MAIL}|esta\s+direccion)",
    ),
    (
        "data_request",
        "sentence",
        "revela muestra imprime dime ensename",
        r"\b(?:revela|muestra|imprime|dime|ensename)\s+(?:tu|tus|el|las)\s+"
        r"(?:prompt\s+(?:del\s+)?sistema|instrucciones\s+(?:ocultas|iniciales|originales"
        r"|del\s+sistema|secretas))",
    ),
)
# Role markers made of punctuation: chat-template tokens and tags.
_ROLE_TOKEN_RE: Final = re.compile(
    r"<\|\s*[a-z][a-z_]{1,40}\s*\|>(?:[ \t]*(?:system|user|assistant|developer|tool)\b)?"
    r"|\[/?inst\](?!\()|<</?sys>>|</s>|<(?:start|end)_of_turn>"
    r"|\[(?:system|/system|system\s+(?:message|prompt|note|override|instructions?))\](?!\()"
    r"|<\s*/?\s*(?:system|system_prompt|im_start|im_end)\s*>"
)
# What may precede a role word for it to open a line: a heading, or emphasis.
_LINE_PREFIXES: Final[Mapping[str, re.Pattern[str]]] = MappingProxyType(
    {
        "heading": re.compile(r"[ \t>]*#{1,6}[ \t]*"),
        "line": re.compile(r"[ \t>]*[*_]{0,2}"),
    }
)


@dataclass(frozen=True)
class _Phrase:
    kind: str
    scope: str
    pattern: re.Pattern[str]


_PHRASES: Final = tuple(
    _Phrase(kind, scope, re.compile(pattern)) for kind, scope, _, pattern in _PHRASE_TABLE
)


def _stem_index() -> dict[str, tuple[tuple[str, bool, int], ...]]:
    """Stems by first letter: (stem, whole word, phrase index)."""
    index: dict[str, list[tuple[str, bool, int]]] = {}
    for number, (_, _, stems, _) in enumerate(_PHRASE_TABLE):
        for stem in stems.split():
            word = stem.rstrip("$")
            index.setdefault(word[0], []).append((word, stem.endswith("$"), number))
    return {letter: tuple(entries) for letter, entries in index.items()}


def _trie_pattern(words: Iterable[str]) -> str:
    """A regular expression matching any of ``words`` (``$`` ends a whole word), as a trie."""
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
        ("(?![a-z])" if char == "$" else re.escape(char)) + _trie_node(child)
        for char, child in sorted(node.items())
    ]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


_STEMS: Final = _stem_index()
_STEM_TRIE: Final = _trie_pattern(
    stem for _, _, stems, _ in _PHRASE_TABLE for stem in stems.split()
)
# A word (after a non-word character) that opens some phrase; group 1 is the word.
_TRIGGER_RE: Final = re.compile(rf"[^a-z0-9_]((?={_STEM_TRIE})[a-z][a-z'-]*)")
_TRIGGER_AT_START_RE: Final = re.compile(rf"(?={_STEM_TRIE})[a-z][a-z'-]*")

# Imperative cues near an address to an AI.
_IMPERATIVE_RE: Final = re.compile(
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
_DISCUSSION_RE: Final = re.compile(
    r"\b(?:prompt[\s-]+injections?|injection\s+attacks?|jailbreak\w*|attackers?|adversar\w*"
    r"|malicious|red[\s-]team\w*|payloads?|for\s+(?:example|instance)|e\.g\.|such\s+as"
    r"|phrases?\s+(?:like|such)|zum\s+beispiel|par\s+exemple|por\s+ejemplo)"
)
_NEGATION_RE: Final = re.compile(
    r"\b(?:never|not|don't|do\s+not|must\s+not|shouldn't|won't|cannot|can't|nie|niemals|nicht"
    r"|jamais|nunca)\b"
)


@dataclass(frozen=True)
class _Hit:
    """A phrase match in the cleaned text."""

    kind: str
    scope: str
    start: int
    end: int
    homoglyph: bool = False


def _triggers(norm: str) -> Iterator[tuple[int, str]]:
    """(position, word) for each word that opens some phrase."""
    first = _TRIGGER_AT_START_RE.match(norm)
    if first is not None:
        yield 0, first.group()
    for match in _TRIGGER_RE.finditer(norm):
        yield match.start(1), match.group(1)


_T = TypeVar("_T")
CACHED_KEY_CHARS: Final = 2048
"""Longest string argument whose result the memo caches below keep: their entries are then
bounded in bytes as well as in number (a page's 5 MB word is judged, not kept)."""


def _small_key_cache(maxsize: int) -> Callable[[Callable[..., _T]], Callable[..., _T]]:
    """``functools.lru_cache(maxsize)`` for calls whose string arguments are at most
    ``CACHED_KEY_CHARS`` long; longer ones are computed without being cached."""

    def wrap(func: Callable[..., _T]) -> Callable[..., _T]:
        cached = functools.lru_cache(maxsize=maxsize)(func)

        @functools.wraps(func)
        def call(*args: Any) -> _T:
            if any(isinstance(arg, str) and len(arg) > CACHED_KEY_CHARS for arg in args):
                return func(*args)
            return cached(*args)

        return call

    return wrap


@_small_key_cache(4096)
def _candidates(word: str) -> tuple[int, ...]:
    """Indexes of the phrases that may start with ``word``."""
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


def _merge_hits(hits: list[_Hit]) -> list[_Hit]:
    """Overlapping matches of one type become one hit."""
    hits.sort(key=lambda h: (h.kind, h.start))
    merged: list[_Hit] = []
    for hit in hits:
        last = merged[-1] if merged else None
        if last is not None and last.kind == hit.kind and hit.start < last.end:
            merged[-1] = _Hit(last.kind, last.scope, last.start, max(last.end, hit.end))
        else:
            merged.append(hit)
    merged.sort(key=lambda h: (h.start, h.kind))
    return merged


def _phrase_matches(norm: str) -> list[_Hit]:
    """All phrase matches in normalised text."""
    hits: list[_Hit] = []
    for position, word in _triggers(norm):
        for number in _candidates(word):
            phrase = _PHRASES[number]
            match = phrase.pattern.match(norm, position)
            if match is not None and _opens_line(norm, position, phrase.scope):
                scope = "token" if phrase.scope == "token" else "sentence"
                hits.append(_Hit(phrase.kind, scope, position, match.end()))
    hits.extend(_Hit("role_marker", "token", *m.span()) for m in _ROLE_TOKEN_RE.finditer(norm))
    return _merge_hits(hits)


def _phrase_kinds(text: str) -> set[str]:
    return {hit.kind for hit in _phrase_matches(_normalise(text, []))}


# --------------------------------------------------------------------------------------------
# Invisible Unicode
# --------------------------------------------------------------------------------------------

_INVISIBLE_RE: Final = re.compile(
    "[\u200b-\u200d\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]"
)
_TAG_RUN_RE: Final = re.compile("[\U000e0000-\U000e007f]+")
_FORMAT_RUN_RE: Final = re.compile("[\u200b-\u200d\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069]+")
_BIDI: Final = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_JOINERS: Final = frozenset("\u200c\u200d")
_BLACK_FLAG: Final = "\U0001f3f4"
_CANCEL_TAG: Final = "\U000e007f"


@dataclass(frozen=True)
class _Invisible:
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


def _find_invisible(source: str) -> list[_Invisible]:
    if not _INVISIBLE_RE.search(source):
        return []
    found: list[_Invisible] = []
    for match in _TAG_RUN_RE.finditer(source):
        if not _tag_run_is_flag(source, match.start(), match.end()):
            decoded = _decode_tags(match.group())
            found.append(_Invisible(match.start(), match.end(), "tags", decoded))
    for match in _FORMAT_RUN_RE.finditer(source):
        run, start = match.group(), match.start()
        if start == 0 and run[0] == "\ufeff":  # a byte order mark opening the text
            run, start = run[1:], 1
        if not run or (run in _JOINERS and _joiner_is_ordinary(source, start)):
            continue
        variant = "bidi" if any(char in _BIDI for char in run) else "zero_width"
        found.append(_Invisible(start, match.end(), variant))
    found.sort(key=lambda item: item.start)
    return found


@dataclass(frozen=True)
class _OffsetMap:
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


def _without(source: str, removed: list[_Invisible]) -> tuple[str, _OffsetMap]:
    if not removed:
        return source, _OffsetMap()
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
    return "".join(pieces), _OffsetMap(tuple(clean_starts), tuple(source_starts))


# --------------------------------------------------------------------------------------------
# Homoglyphs
# --------------------------------------------------------------------------------------------


def _homoglyph_words(clean: str) -> list[tuple[int, int]]:
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


def _normalise(clean: str, words: list[tuple[int, int]]) -> str:
    """Fold case and accents, and fold the given homoglyph words to Latin."""
    norm = clean.lower() if clean.isascii() else clean.translate(_FOLD)
    if not words:
        return norm
    pieces: list[str] = []
    cursor = 0
    for start, end in words:
        pieces.append(norm[cursor:start])
        pieces.append(clean[start:end].translate(_CONFUSABLE_TABLE).translate(_FOLD))
        cursor = end
    pieces.append(norm[cursor:])
    return "".join(pieces)


# --------------------------------------------------------------------------------------------
# Encoded payloads
# --------------------------------------------------------------------------------------------

_BLOB_RE: Final = re.compile(r"[A-Za-z0-9+/_-]{40,}={0,2}")
_HEX_RE: Final = re.compile(r"[0-9a-fA-F]+")
_MAX_BLOB: Final = 20_000


@dataclass(frozen=True)
class _Payload:
    start: int
    end: int
    decoded: str
    kinds: frozenset[str]


def _decode_blob(blob: str) -> str | None:
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


def _find_payloads(clean: str) -> list[_Payload]:
    payloads: list[_Payload] = []
    for match in _BLOB_RE.finditer(clean):
        if clean[max(0, match.start() - 7) : match.start()].lower() == "base64,":
            continue
        decoded = _decode_blob(match.group())
        if decoded is not None:
            kinds = frozenset(_phrase_kinds(decoded))
            payloads.append(_Payload(match.start(), match.end(), decoded, kinds))
    return payloads


# --------------------------------------------------------------------------------------------
# Exfiltration URLs
# --------------------------------------------------------------------------------------------

# Template placeholders: {name}, {{ name }}, ${name}, $NAME, [NAME], <name>.
_PLACEHOLDER_RE: Final = re.compile(
    r"\{\{?\s*([A-Za-z_][\w .|-]{0,60}?)\s*\}\}?|\$\{([A-Za-z_][\w.]{0,60})\}"
    r"|\$([A-Z][A-Z0-9_]{2,40})\b|\[([A-Z][A-Z0-9_ ]{2,40})\]|<\s*([A-Za-z][\w .-]{0,40})\s*>"
)
_DATA_WORD_RE: Final = re.compile(
    r"user|data|secret|conversation|chat|histor|prompt|message|mail|passw|token|key|credential"
    r"|session|cookie|context|memory|summary|personal|ssn|card|info"
)
_LONG_QUERY: Final = 200
_SHORT_VALUE: Final = 80
_REPORTED_LINK: Final = 0.3  # Markdown links weaker than this are left to the HTML scan
_STRIPPED_LINK: Final = 0.5  # links and images at least this strong are removed when sanitizing
# Cheap test before parsing: placeholder characters (plain or percent-encoded) or a long value.
_URL_SUSPECT_RE: Final = re.compile(r"[{}$\[<]|%(?:7[bBdD]|24|5[bB]|3[cC])|=[A-Za-z0-9+/_%-]{40}")


@_small_key_cache(2048)
def _judge_url(url: str, page_host: str) -> str | None:
    """The exfiltration variant a URL shows (``data``, ``template``, ``long``...), or ``None``.

    The fragment is ignored: it never leaves the browser.
    """
    url = url.strip().split("#", 1)[0]
    if not url or url.lower().startswith(("data:", "javascript:")):
        return None
    if len(url) <= _LONG_QUERY and not _URL_SUSPECT_RE.search(url):
        return None
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower() if parts.netloc else page_host
    except ValueError:  # a malformed bracketed host
        return None
    variant = _placeholder_variant(parts.netloc, parts.path, parts.query)
    if variant is not None:
        return "local" if page_host and host == page_host else variant
    if any(_decode_blob(v) is not None for v in _query_values(parts.query) if len(v) >= 40):
        return "encoded"
    if len(parts.query) > _LONG_QUERY:
        return "long"
    return None


def _query_values(query: str) -> list[str]:
    """Decoded query values (or whole items without ``=``)."""
    items = (item.partition("=") for item in query.split("&") if item)
    return [unquote(unquote(value if equals else key)) for key, equals, value in items]


def _placeholder_variant(netloc: str, path: str, query: str) -> str | None:
    """``data`` for a placeholder naming user data in the host, a path segment or a short query
    value; ``template`` for another placeholder in a short query value. Long values (code in a
    playground link, say) are content, not templates."""
    found = None
    pieces = [(unquote(netloc), False)]
    pieces.extend((unquote(unquote(segment)), False) for segment in path.split("/"))
    pieces.extend((value, True) for value in _query_values(query))
    for piece, in_query in pieces:
        if len(piece) > _SHORT_VALUE:
            continue
        for match in _PLACEHOLDER_RE.finditer(piece):
            name = next(group for group in match.groups() if group is not None)
            if _DATA_WORD_RE.search(name.lower()):
                return "data"
            if in_query:
                found = "template"
    return found


def _url_severity(variant: str, image: bool) -> float:
    if variant == "data":
        return SEVERITY["exfiltration_link/image" if image else "exfiltration_link/link"]
    return SEVERITY[f"exfiltration_link/{variant}"]


# [text](url "title"); a "!" before it makes an image.
_MD_LINK_RE: Final = re.compile(
    r"\[([^\[\]\n]{0,300})\]\(\s*<?([^\s()<>]{1,2048}(?:\([^\s()]*\)[^\s()<>]*)?)>?"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_BARE_URL_RE: Final = re.compile(r"https?://[^\s<>\"'`)\]]{4,2048}")


@dataclass(frozen=True)
class _Link:
    start: int
    end: int
    url: str
    text: str
    image: bool
    severity: float


def _find_links(clean: str) -> list[_Link]:
    if "://" not in clean and "](" not in clean:
        return []
    links: list[_Link] = []
    covered: list[tuple[int, int]] = []
    for match in _MD_LINK_RE.finditer(clean):
        covered.append(match.span())
        variant = _judge_url(match.group(2), "")
        if variant is not None:
            image = match.start() > 0 and clean[match.start() - 1] == "!"
            start = match.start() - 1 if image else match.start()
            severity = _url_severity(variant, image)
            links.append(_Link(start, match.end(), match.group(2), match.group(1), image, severity))
    starts = [span[0] for span in covered]
    for match in _BARE_URL_RE.finditer(clean):
        k = bisect.bisect_right(starts, match.start()) - 1
        if k >= 0 and match.start() < covered[k][1]:
            continue
        variant = _judge_url(match.group(), "")
        if variant is not None:
            severity = _url_severity(variant, False)
            links.append(_Link(*match.span(), match.group(), "", False, severity))
    return links


# --------------------------------------------------------------------------------------------
# Text analysis shared by every channel
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Analysis:
    source: str
    clean: str
    norm: str
    offsets: _OffsetMap
    invisible: tuple[_Invisible, ...]
    hits: tuple[_Hit, ...]
    homoglyph_words: tuple[tuple[int, int], ...]
    payloads: tuple[_Payload, ...]
    links: tuple[_Link, ...]
    evasions: frozenset[int] = field(default_factory=frozenset)

    @functools.cached_property
    def quoted(self) -> _Ranges:
        """Code and quotation ranges of the cleaned text (computed when first needed)."""
        return _quoted_ranges(self.clean)

    def is_quoted(self, hit: _Hit) -> bool:
        """In code, a blockquote or quotation marks, or in a sentence discussing attacks."""
        if self.quoted.covers(hit.start):
            return True
        start, end = _sentence(self.norm, hit.start, hit.end)
        return _DISCUSSION_RE.search(self.norm, start, end) is not None

    def sentence(self, hit: _Hit) -> str:
        return self.clean[slice(*_sentence(self.clean, hit.start, hit.end))]

    def hidden_kinds(self) -> set[str]:
        """Instruction types carried by tag characters, encoded payloads or exfiltration URLs."""
        kinds: set[str] = set()
        for item in self.invisible:
            kinds |= _phrase_kinds(item.decoded) if item.decoded else set()
        for payload in self.payloads:
            kinds |= payload.kinds
        if any(link.severity >= _STRIPPED_LINK for link in self.links):
            kinds.add("exfiltration_link")
        return kinds


def _analyse(source: str) -> _Analysis:
    invisible = _find_invisible(source)
    clean, offsets = _without(source, invisible)
    words = _homoglyph_words(clean) if _GREEK_CYRILLIC_RE.search(clean) else []
    norm = _normalise(clean, words)
    hits = _phrase_matches(norm)
    if words:
        starts = [start for start, _ in words]
        hits = [
            _Hit(hit.kind, hit.scope, hit.start, hit.end, _overlaps(starts, words, hit))
            for hit in hits
        ]
    evasions = _evasions(hits, offsets, invisible)
    return _Analysis(
        source=source,
        clean=clean,
        norm=norm,
        offsets=offsets,
        invisible=tuple(invisible),
        hits=tuple(hits),
        homoglyph_words=tuple(words),
        payloads=tuple(_find_payloads(clean)),
        links=tuple(_find_links(clean)),
        evasions=evasions,
    )


def _overlaps(starts: list[int], spans: list[tuple[int, int]], hit: _Hit) -> bool:
    k = bisect.bisect_left(starts, hit.end) - 1
    return k >= 0 and spans[k][1] > hit.start


def _evasions(hits: list[_Hit], offsets: _OffsetMap, invisible: list[_Invisible]) -> frozenset[int]:
    """Indexes of hits whose source text has invisible characters inside."""
    if not invisible:
        return frozenset()
    runs = [item for item in invisible if item.variant != "tags"]
    ends = [item.end for item in runs]
    found: set[int] = set()
    for index, hit in enumerate(hits):
        start, end = offsets.source_span(hit.start, hit.end)
        k = bisect.bisect_right(ends, start)
        if k < len(runs) and runs[k].start < end:
            found.add(index)
    return frozenset(found)


_SENTENCE_START_RE: Final = re.compile(r"(?:[.!?\u3002\uff01\uff1f][\"'\u201d\u2019)\]]*\s+|\n)")
_SENTENCE_END_RE: Final = re.compile(r"[.!?\u3002\uff01\uff1f][\"'\u201d\u2019)\]]*(?=\s|$)|\n")
_LINE_PREFIX_RE: Final = re.compile(r"[ \t]*(?:(?:>|[*+-]|\d{1,9}[.)]|#{1,6})[ \t]+){0,4}")


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence around ``text[start:end]``: from the last boundary before to the next."""
    low = max(0, start - 400)
    left = low
    for match in _SENTENCE_START_RE.finditer(text, low, start):
        left = match.end()
    if left == 0 or text[left - 1] == "\n":
        prefix = _LINE_PREFIX_RE.match(text, left)
        if prefix is not None and prefix.end() <= start:
            left = prefix.end()
    closing = _SENTENCE_END_RE.search(text, end, min(len(text), end + 600))
    if closing is None:
        right = min(len(text), end + 600)
    else:
        right = closing.start() if closing.group() == "\n" else closing.end()
    while right < len(text) and text[right] in " \t":
        right += 1
    return left, right


# --------------------------------------------------------------------------------------------
# Quoted and code context in Markdown
# --------------------------------------------------------------------------------------------

_INLINE_CODE_RE: Final = re.compile(r"`[^`\n]+`")
_QUOTE_RES: Final = tuple(
    re.compile(pattern)
    for pattern in (
        r"\"[^\"\n]{1,500}\"",
        "\u201c[^\u201d\n]{1,500}\u201d",
        "\u00ab[^\u00bb\n]{1,500}\u00bb",
        "\u201e[^\u201c\u201d\n]{1,500}[\u201c\u201d]",
        "\u2018[^\u2019\n]{1,500}\u2019",
    )
)
_LIST_ITEM_RE: Final = re.compile(r"[ \t]*(?:[*+-]|\d{1,9}[.)])[ \t]")


@dataclass(frozen=True)
class _Ranges:
    """Sorted, merged ``[start, end)`` ranges."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]

    @classmethod
    def of(cls, spans: Iterable[tuple[int, int]]) -> _Ranges:
        merged: list[list[int]] = []
        for start, end in sorted(spans):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        return cls(tuple(s for s, _ in merged), tuple(e for _, e in merged))

    def covers(self, position: int) -> bool:
        k = bisect.bisect_right(self.starts, position) - 1
        return k >= 0 and position < self.ends[k]


def _block_ranges(text: str) -> Iterator[tuple[int, int]]:
    """Fenced and indented code blocks, and blockquote lines."""
    position = 0
    previous_blank = True
    previous_code = False
    for line, fenced in fenced_lines(text.split("\n")):
        stripped = line.strip()
        if fenced or stripped.startswith(">"):
            code = True
        else:
            code = (
                bool(stripped)
                and line.startswith(("    ", "\t"))
                and (previous_blank or previous_code)
                and not _LIST_ITEM_RE.match(line)
            )
        if code:
            yield position, position + len(line)
        previous_code = code or (previous_code and not stripped)
        previous_blank = not stripped
        position += len(line) + 1


def _quoted_ranges(text: str) -> _Ranges:
    spans = list(_block_ranges(text))
    spans.extend(m.span() for m in _INLINE_CODE_RE.finditer(text))
    if any(q in text for q in '"\u201c\u00ab\u201e\u2018'):
        for pattern in _QUOTE_RES:
            spans.extend(m.span() for m in pattern.finditer(text))
    return _Ranges.of(spans)


def _is_negated(analysis: _Analysis, hit: _Hit) -> bool:
    start, _ = _sentence(analysis.norm, hit.start, hit.end)
    window_start = max(start, hit.start - 40)
    return _NEGATION_RE.search(analysis.norm, window_start, hit.start) is not None


def _ai_variant(analysis: _Analysis, hit: _Hit) -> str:
    """How strongly an address to an AI reads as an instruction."""
    low, high = max(0, hit.start - 200), min(len(analysis.norm), hit.end + 300)
    if any(
        other.kind != "ai_addressed" and other.start < high and other.end > low
        for other in analysis.hits
    ):
        return "ai_addressed/combined"
    if _IMPERATIVE_RE.search(analysis.norm, hit.start, high):
        return "ai_addressed"
    return "ai_addressed/mention"


def _hit_severity(analysis: _Analysis, hit: _Hit) -> float:
    if hit.kind == "ai_addressed":
        return SEVERITY[_ai_variant(analysis, hit)]
    return SEVERITY[hit.kind]


def _live_hits(analysis: _Analysis) -> list[_Hit]:
    """Hits that are not negated requests ("never send your password to...")."""
    return [
        hit
        for hit in analysis.hits
        if not (hit.kind == "data_request" and _is_negated(analysis, hit))
    ]


# --------------------------------------------------------------------------------------------
# Findings shared by every channel: invisible characters, homoglyphs, encoded payloads
# --------------------------------------------------------------------------------------------


def _obfuscation_findings(analysis: _Analysis, location: str, *, quotable: bool) -> list[Finding]:
    """Invisible characters, homoglyphs and encoded payloads; ``quotable`` channels report those
    inside quotes or code as quoted examples."""
    findings = _invisible_findings(analysis, location)
    findings.extend(_homoglyph_findings(analysis, location, quotable=quotable))
    for payload in analysis.payloads:
        severity = SEVERITY["encoded_payload" if payload.kinds else "encoded_payload/text"]
        where = location
        if quotable and payload.kinds and analysis.quoted.covers(payload.start):
            severity, where = severity * QUOTED_FACTOR, "quoted"
        findings.append(Finding("encoded_payload", severity, where, _sample(payload.decoded)))
    return findings


def _invisible_findings(analysis: _Analysis, location: str) -> list[Finding]:
    findings: list[Finding] = []
    counts: dict[str, int] = {}
    for item in analysis.invisible:
        if item.variant == "tags":
            findings.extend(_tag_findings(item, location))
        else:
            counts[item.variant] = counts.get(item.variant, 0) + item.count
    for variant, count in sorted(counts.items()):
        severity = SEVERITY[f"invisible_unicode/{variant}"]
        sample = f"{count} invisible {variant.replace('_', '-')} character(s)"
        findings.append(Finding("invisible_unicode", severity, location, sample, count))
    for index in sorted(analysis.evasions):
        sample = _sample(analysis.sentence(analysis.hits[index]))
        findings.append(
            Finding("invisible_unicode", SEVERITY["invisible_unicode"], location, sample)
        )
    return findings


def _tag_findings(item: _Invisible, location: str) -> list[Finding]:
    sample = _sample(f"tag characters: {item.decoded}")
    findings = [Finding("invisible_unicode", SEVERITY["invisible_unicode/tags"], location, sample)]
    if _phrase_kinds(item.decoded):
        severity = SEVERITY["hidden_instructions"]
        findings.append(
            Finding("hidden_instructions", severity, "unicode_tags", _sample(item.decoded))
        )
    return findings


def _homoglyph_findings(analysis: _Analysis, location: str, *, quotable: bool) -> list[Finding]:
    findings: list[Finding] = []
    strong_spans: list[tuple[int, int]] = []
    for hit in analysis.hits:
        if hit.homoglyph:
            span = _sentence(analysis.norm, hit.start, hit.end)
            strong_spans.append(span)
            severity, where = SEVERITY["homoglyph"], location
            if quotable and analysis.is_quoted(hit):
                severity, where = severity * QUOTED_FACTOR, "quoted"
            findings.append(
                Finding("homoglyph", severity, where, _sample(analysis.norm[slice(*span)]))
            )
    weak = [
        (start, end)
        for start, end in analysis.homoglyph_words
        if not any(s <= start < e for s, e in strong_spans)
    ]
    if weak:
        start, end = weak[0]
        sample = _sample(f"{analysis.clean[start:end]} ({analysis.norm[start:end]})")
        findings.append(
            Finding("homoglyph", SEVERITY["homoglyph/weak"], location, sample, len(weak))
        )
    return findings


# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------


def _checksum(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def scan_markdown(markdown: str) -> TextScan:
    """Signals in the Markdown a model will read, and the edits that would remove them."""
    analysis = _analyse(markdown)
    findings = _obfuscation_findings(analysis, "markdown", quotable=True)
    edits = [_Edit(item.start, item.end) for item in analysis.invisible]
    for hit in _live_hits(analysis):
        in_quote = analysis.is_quoted(hit)
        if hit.homoglyph and not in_quote:
            edits.append(_sentence_edit(analysis, hit))
            continue
        severity = _hit_severity(analysis, hit)
        location = "markdown"
        if in_quote:
            severity, location = severity * QUOTED_FACTOR, "quoted"
        elif severity >= SEVERITY["ai_addressed"]:
            edits.append(_hit_edit(analysis, hit))
        sample = _sample(analysis.sentence(hit))
        findings.append(Finding(hit.kind, round(severity, 4), location, sample))
    for link in analysis.links:
        if link.severity < _REPORTED_LINK or analysis.quoted.covers(link.start):
            continue
        sample = _sample(analysis.clean[link.start : link.end])
        findings.append(Finding("exfiltration_link", link.severity, "markdown", sample))
        if link.severity >= _STRIPPED_LINK:
            start, end = analysis.offsets.source_span(link.start, link.end)
            edits.append(_Edit(start, end, "" if link.image else link.text))
    for payload in analysis.payloads:
        if payload.kinds and not analysis.quoted.covers(payload.start):
            edits.append(_Edit(*analysis.offsets.source_span(payload.start, payload.end)))
    return TextScan(tuple(findings), tuple(edits), _checksum(markdown))


def _sentence_edit(analysis: _Analysis, hit: _Hit) -> _Edit:
    start, end = _sentence(analysis.clean, hit.start, hit.end)
    return _Edit(*analysis.offsets.source_span(start, end))


def _hit_edit(analysis: _Analysis, hit: _Hit) -> _Edit:
    if hit.scope == "token":
        return _Edit(*analysis.offsets.source_span(hit.start, hit.end))
    return _sentence_edit(analysis, hit)


_MARKER_ONLY_RE: Final = re.compile(r"[ \t]*(?:(?:>|[*+-]|\d{1,9}[.)]|#{1,6}|\*\*|__|`|:)[ \t]*)*")
_BLANK_LINE_RE: Final = re.compile(r"\n[ \t]+(?=\n)")
_BLANK_RUNS_RE: Final = re.compile(r"\n{3,}")


def _apply_edits(source: str, edits: Iterable[_Edit]) -> tuple[str, list[int]]:
    """Apply non-overlapping edits (overlaps merge); returns the text and edit positions."""
    ordered = sorted(edits, key=lambda edit: (edit.start, -edit.end))
    pieces: list[str] = []
    marks: list[int] = []
    cursor = 0
    length = 0
    for edit in ordered:
        if edit.end <= cursor and edit.start < cursor:
            continue
        start = max(edit.start, cursor)
        pieces.append(source[cursor:start])
        length += start - cursor
        marks.append(length)
        pieces.append(edit.text)
        length += len(edit.text)
        cursor = max(cursor, edit.end)
    pieces.append(source[cursor:])
    return "".join(pieces), marks


def _drop_emptied_lines(text: str, marks: list[int]) -> str:
    if not marks:
        return text
    lines = text.split("\n")
    kept: list[str] = []
    position = 0
    k = 0
    for line in lines:
        end = position + len(line)
        touched = False
        while k < len(marks) and marks[k] <= end:
            touched = touched or marks[k] >= position
            k += 1
        if not (touched and _MARKER_ONLY_RE.fullmatch(line)):
            kept.append(line)
        elif kept and kept[-1].strip():
            kept.append("")
        position = end + 1
    return "\n".join(kept)


def _tidy(text: str) -> str:
    return _BLANK_RUNS_RE.sub("\n\n", _BLANK_LINE_RE.sub("\n", text))


def strip_markdown(markdown: str, scan: TextScan) -> str:
    """Remove the risky spans ``scan`` found: invisible characters, role markers, instruction
    sentences outside code and quotes, encoded instructions and exfiltration links."""
    if scan.checksum != _checksum(markdown):
        scan = scan_markdown(markdown)
    text, marks = _apply_edits(markdown, scan.edits)
    return _tidy(_drop_emptied_lines(text, marks))


# --------------------------------------------------------------------------------------------
# CSS: simple rules from <style> blocks and inline styles
# --------------------------------------------------------------------------------------------

_STYLE_PROPERTIES: Final = frozenset(
    {
        "display", "visibility", "opacity", "font-size", "font", "width", "height",
        "max-width", "max-height", "overflow", "overflow-x", "overflow-y", "clip", "clip-path",
        "position", "left", "top", "right", "bottom", "margin-left", "margin-top",
        "text-indent", "transform", "color", "background", "background-color",
    }
)  # fmt: skip
_CSS_BRACES_RE: Final = re.compile(r"[{}]")
_CLASS_TOKEN_RE: Final = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
_ID_TOKEN_RE: Final = re.compile(r"#(-?[_a-zA-Z][\w-]*)")
_MAX_SELECTORS: Final = 300
_TRANSLATOR: Final = HTMLTranslator()


def _strip_css_comments(css: str) -> str:
    pieces: list[str] = []
    cursor = 0
    while True:
        start = css.find("/*", cursor)
        if start < 0:
            pieces.append(css[cursor:])
            return "".join(pieces)
        pieces.append(css[cursor:start])
        end = css.find("*/", start + 2)
        if end < 0:
            return "".join(pieces)
        cursor = end + 2


def _top_level_rules(css: str) -> Iterator[tuple[str, str]]:
    """``(selectors, declarations)`` for rules outside at-rule blocks (``@media``... skipped)."""
    depth = 0
    selector_start = 0
    body_start = 0
    selector = ""
    for match in _CSS_BRACES_RE.finditer(css):
        if match.group() == "{":
            if depth == 0:
                selector = css[selector_start : match.start()].rsplit(";", 1)[-1].strip()
                body_start = match.end()
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                if selector and not selector.startswith("@"):
                    yield selector, css[body_start : match.start()]
                selector_start = match.end()


def _declarations(text: str) -> dict[str, str]:
    declarations: dict[str, str] = {}
    for part in text.split(";"):
        name, colon, value = part.partition(":")
        name = name.strip().lower()
        if colon and name in _STYLE_PROPERTIES:
            declarations[name] = value.replace("!important", "").strip().lower()
    return declarations


@_small_key_cache(1024)
def _selector_xpath(selector: str) -> etree.XPath | None:
    try:
        return etree.XPath(_TRANSLATOR.css_to_xpath(selector))
    except (CssSelectorError, etree.XPathError, ValueError, RecursionError):
        return None


def _document_names(root: Any) -> tuple[set[str], set[str]]:
    """Class names and ids used in the document."""
    classes = {name for value in root.xpath("//@class") for name in str(value).split()}
    ids = {str(value) for value in root.xpath("//@id")}
    return classes, ids


def _stylesheet_styles(root: Any) -> dict[Any, dict[str, str]]:
    """Declarations that simple ``<style>`` rules give each element, in source order."""
    rules: list[tuple[str, dict[str, str]]] = []
    for style in root.iter("style"):
        media = (style.get("media") or "all").lower()
        if "screen" not in media and "all" not in media:
            continue
        for selectors, body in _top_level_rules(_strip_css_comments(style.text or "")):
            declarations = _declarations(body)
            if declarations:
                rules.append((selectors, declarations))
    styles: dict[Any, dict[str, str]] = {}
    if not rules:
        return styles
    classes, ids = _document_names(root)
    budget = _MAX_SELECTORS
    for selectors, declarations in rules:
        for part in selectors.split(","):
            selector = part.strip()
            if not selector or ":" in selector or budget <= 0:
                continue
            if not set(_CLASS_TOKEN_RE.findall(selector)) <= classes:
                continue
            if not set(_ID_TOKEN_RE.findall(selector)) <= ids:
                continue
            budget -= 1
            xpath = _selector_xpath(selector)
            for element in xpath(root) if xpath is not None else ():
                styles.setdefault(element, {}).update(declarations)
    return styles


# --- values

_LENGTH_RE: Final = re.compile(r"(-?\d*\.?\d+)(px|em|rem|%|pt|vw|vh|ch|ex|cm|mm|in)?")
_UNIT_PX: Final[Mapping[str, float]] = MappingProxyType(
    {"px": 1.0, "pt": 4 / 3, "em": 16.0, "rem": 16.0, "ch": 8.0, "ex": 8.0, "%": 0.16,
     "vw": 12.0, "vh": 8.0, "cm": 37.8, "mm": 3.78, "in": 96.0, "": 1.0}
)  # fmt: skip
_NAMED_COLORS: Final[Mapping[str, tuple[int, int, int]]] = MappingProxyType(
    {
        "white": (255, 255, 255), "black": (0, 0, 0), "red": (255, 0, 0),
        "green": (0, 128, 0), "blue": (0, 0, 255), "yellow": (255, 255, 0),
        "gray": (128, 128, 128), "grey": (128, 128, 128), "silver": (192, 192, 192),
        "lightgray": (211, 211, 211), "lightgrey": (211, 211, 211),
        "gainsboro": (220, 220, 220), "whitesmoke": (245, 245, 245), "snow": (255, 250, 250),
        "ivory": (255, 255, 240), "ghostwhite": (248, 248, 255), "azure": (240, 255, 255),
        "aliceblue": (240, 248, 255), "mintcream": (245, 255, 250), "honeydew": (240, 255, 240),
        "seashell": (255, 245, 238), "linen": (250, 240, 230), "beige": (245, 245, 220),
        "floralwhite": (255, 250, 240), "oldlace": (253, 245, 230), "navy": (0, 0, 128),
        "maroon": (128, 0, 0), "orange": (255, 165, 0), "purple": (128, 0, 128),
        "teal": (0, 128, 128), "aqua": (0, 255, 255), "cyan": (0, 255, 255),
        "fuchsia": (255, 0, 255), "magenta": (255, 0, 255), "lime": (0, 255, 0),
        "olive": (128, 128, 0), "darkgray": (169, 169, 169), "darkgrey": (169, 169, 169),
        "dimgray": (105, 105, 105), "dimgrey": (105, 105, 105),
    }
)  # fmt: skip
_COLOR_TOKEN_RE: Final = re.compile(r"#[0-9a-f]{3,8}\b|(?:rgba?|hsla?)\([^)]*\)|[a-z]+")
_NUMBER_RE: Final = re.compile(r"-?\d*\.?\d+%?")
_SAME_COLOR: Final = 12
Color = tuple[int, int, int, float]


def _length_px(value: str) -> float | None:
    match = _LENGTH_RE.fullmatch(value.strip())
    if match is None:
        return None
    return float(match.group(1)) * _UNIT_PX[match.group(2) or ""]


def _channel(token: str, scale: float) -> float:
    return float(token[:-1]) * scale / 100 if token.endswith("%") else float(token)


def _parse_color(value: str) -> Color | None:
    """A CSS colour as (r, g, b, alpha), or ``None`` when it is not one we understand."""
    value = value.strip()
    if value == "transparent":
        return (0, 0, 0, 0.0)
    if value in _NAMED_COLORS:
        return (*_NAMED_COLORS[value], 1.0)
    if value.startswith("#"):
        digits = value[1:]
        if len(digits) in (3, 4):
            digits = "".join(d * 2 for d in digits)
        if len(digits) not in (6, 8) or not _HEX_RE.fullmatch(digits):
            return None
        alpha = int(digits[6:8], 16) / 255 if len(digits) == 8 else 1.0
        return (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16), alpha)
    numbers = _NUMBER_RE.findall(value)
    if len(numbers) < 3:
        return None
    alpha = _channel(numbers[3], 1.0) if len(numbers) > 3 else 1.0
    if value.startswith("rgb"):
        red, green, blue = (round(_channel(n, 255)) for n in numbers[:3])
        return (red, green, blue, alpha)
    if value.startswith("hsl"):
        hue = float(numbers[0].rstrip("%")) / 360
        sat, light = (float(n.rstrip("%")) / 100 for n in numbers[1:3])
        red_f, green_f, blue_f = colorsys.hls_to_rgb(hue % 1, light, sat)
        return (round(red_f * 255), round(green_f * 255), round(blue_f * 255), alpha)
    return None


def _first_color(value: str) -> Color | None:
    for token in _COLOR_TOKEN_RE.findall(value):
        color = _parse_color(token)
        if color is not None:
            return color
    return None


def _same_color(first: Color, second: Color) -> bool:
    return max(abs(a - b) for a, b in zip(first[:3], second[:3], strict=True)) <= _SAME_COLOR


# --- hiding tests: each takes the element's declarations and says why it hides, or nothing

_INSET_RE: Final = re.compile(r"inset\(\s*(\d+(?:\.\d+)?)%")
_OFFSCREEN_PX: Final = -500.0  # px; further left or up is off-screen
_TRANSLATE_RE: Final = re.compile(r"translate(?:x|y|3d)?\(\s*(-\d+(?:\.\d+)?)(px|em|rem|%)?")
_SCALE_ZERO_RE: Final = re.compile(r"scale(?:x|y)?\(\s*0(?:\.0+)?\s*[,)]")


def _hidden_by_display(style: Mapping[str, str]) -> bool:
    return style.get("display", "").split(" ")[0] == "none" or style.get("visibility", "") in (
        "hidden",
        "collapse",
    )


def _hidden_by_opacity(style: Mapping[str, str]) -> bool:
    value = style.get("opacity", "").strip()
    if not value:
        return False
    try:
        opacity = float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        return False
    return opacity < 0.1


def _hidden_by_font_size(style: Mapping[str, str]) -> bool:
    size = _length_px(style.get("font-size", ""))
    if size is None and "font" in style:
        first = style["font"].split("/")[0].split()
        sizes = [_length_px(token) for token in first]
        size = next((s for s in sizes if s is not None), None)
    return size is not None and size <= 1.0


def _hidden_by_clip(style: Mapping[str, str]) -> bool:
    clip = style.get("clip", "")
    if clip.startswith("rect("):
        numbers = [float(n.rstrip("%")) for n in _NUMBER_RE.findall(clip)]
        if numbers and all(abs(n) <= 1 for n in numbers):
            return True
    path = style.get("clip-path", "")
    inset = _INSET_RE.match(path)
    return bool(inset and float(inset.group(1)) >= 50) or path.startswith(
        ("circle(0", "circle(0px", "polygon(0 0, 0 0", "polygon(0px 0px, 0px 0px")
    )


def _hidden_by_size(style: Mapping[str, str]) -> bool:
    overflow = {style.get(name, "") for name in ("overflow", "overflow-x", "overflow-y")}
    if not overflow & {"hidden", "clip"}:
        return False
    sizes = (
        _length_px(style.get(name, "")) for name in ("width", "height", "max-width", "max-height")
    )
    return any(size is not None and size <= 1.0 for size in sizes)


def _hidden_off_screen(style: Mapping[str, str]) -> bool:
    indent = _length_px(style.get("text-indent", ""))
    if indent is not None and indent <= _OFFSCREEN_PX:
        return True
    transform = style.get("transform", "")
    translate = _TRANSLATE_RE.search(transform)
    if (
        translate
        and float(translate.group(1)) * _UNIT_PX[translate.group(2) or ""] <= _OFFSCREEN_PX
    ):
        return True
    if _SCALE_ZERO_RE.search(transform):
        return True
    if style.get("position") not in ("absolute", "fixed"):
        return False
    offsets = (
        _length_px(style.get(name, ""))
        for name in ("left", "top", "right", "bottom", "margin-left", "margin-top")
    )
    return any(offset is not None and offset <= _OFFSCREEN_PX for offset in offsets)


def _transparent_text(style: Mapping[str, str]) -> bool:
    color = _parse_color(style.get("color", ""))
    return color is not None and color[3] < 0.1


_HIDING_TESTS: Final[tuple[tuple[str, Callable[[Mapping[str, str]], bool]], ...]] = (
    ("display or visibility", _hidden_by_display),
    ("opacity", _hidden_by_opacity),
    ("font size", _hidden_by_font_size),
    ("clipping", _hidden_by_clip),
    ("zero-size box", _hidden_by_size),
    ("off-screen", _hidden_off_screen),
    ("transparent text", _transparent_text),
)


def _hidden_reason(element: Any, style: Mapping[str, str]) -> str | None:
    if element.get("hidden") is not None:
        return "hidden attribute"
    if (element.get("aria-hidden") or "").strip().lower() == "true":
        return "aria-hidden"
    if not style:
        return None
    for reason, test in _HIDING_TESTS:
        if test(style):
            return reason
    return None


# --------------------------------------------------------------------------------------------
# The HTML document
# --------------------------------------------------------------------------------------------

_NOT_RENDERED: Final = frozenset(
    {"script", "style", "noscript", "template", "head", "svg", "math", "canvas", "iframe",
     "object", "embed"}
)  # fmt: skip
_NO_TEXT: Final = frozenset({"script", "style"})
_BLOCKS: Final = frozenset(
    {"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th",
     "section", "article", "header", "footer", "aside", "nav", "blockquote", "pre", "table",
     "dd", "dt", "dl", "figure", "figcaption", "main", "form", "hr"}
)  # fmt: skip
_TEXT_ATTRIBUTES: Final = ("alt", "title", "aria-label", "aria-description")
_META_NAMES: Final = frozenset({"description", "keywords", "abstract", "subject", "summary"})
_META_PREFIXES: Final = ("og:", "twitter:", "dc.", "dcterms.")
_ROLE_TAGS: Final = ("system", "system_prompt", "instructions", "instruction", "assistant")
_DEFAULT_PAINT: Final[tuple[Color, Color]] = ((0, 0, 0, 1.0), (255, 255, 255, 1.0))
_STYLED_XPATH: Final = etree.XPath("descendant-or-self::*[@style or @hidden or @aria-hidden]")
_LABELLED_XPATH: Final = etree.XPath(
    "descendant-or-self::*[@alt or @title or @aria-label or @aria-description]"
)
_MIN_TEXT: Final = 2
_WHITESPACE_RE: Final = re.compile(r"\s+")


def _element_text(element: Any, skip: Callable[[Any], bool] | None = None) -> str:
    """Text of an element and its descendants with HTML whitespace collapsed, blocks on their
    own lines, scripts and styles left out, and so are descendants for which ``skip`` holds."""
    parts: list[str] = []
    stack: list[tuple[Any, bool]] = [(element, False)]
    while stack:
        node, closing = stack.pop()
        tag = node.tag
        if closing:
            if tag in _BLOCKS:
                parts.append("\n")
            if node is not element and node.tail:
                parts.append(_WHITESPACE_RE.sub(" ", node.tail))
            continue
        skipped = skip is not None and node is not element and skip(node)
        if isinstance(tag, str) and tag not in _NO_TEXT and not skipped:
            if tag in _BLOCKS:
                parts.append("\n")
            if node.text:
                parts.append(_WHITESPACE_RE.sub(" ", node.text))
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(node))
        elif node is not element and node.tail:
            parts.append(_WHITESPACE_RE.sub(" ", node.tail))
    return "".join(parts)


def _element_style(element: Any, sheet: Mapping[Any, dict[str, str]]) -> dict[str, str]:
    """Declarations from the page's style rules, then the inline style."""
    inline = element.get("style")
    ruled = sheet.get(element) if sheet else None
    if not inline:
        return ruled or {}
    style = dict(ruled) if ruled else {}
    style.update(_declarations(inline))
    return style


def _hidden_roots(root: Any, sheet: Mapping[Any, dict[str, str]]) -> Iterator[tuple[Any, str]]:
    """Outermost rendered elements hidden by attributes or CSS, with the reason.

    Only elements with a ``style``, ``hidden`` or ``aria-hidden`` attribute, or a page rule,
    can hide anything, so only those are judged.
    """
    body = root.find("body")
    scope = body if body is not None else root
    styled = set(_STYLED_XPATH(scope)) | set(sheet)
    if not styled:
        return
    hidden: set[Any] = set()
    for element in scope.iter(etree.Element):
        if element not in styled or _out_of_flow(element, hidden):
            continue
        style = _element_style(element, sheet)
        reason = _hidden_reason(element, style)
        if reason is None and _paints(style) and _same_paint(element, styled, sheet):
            reason = "text colour matches background"
        if reason is not None and (reason != "aria-hidden" or _element_text(element).strip()):
            hidden.add(element)
            yield element, reason


def _out_of_flow(element: Any, hidden: set[Any]) -> bool:
    """Inside an element already reported hidden, or one that is never rendered."""
    return (
        any(
            ancestor in hidden or ancestor.tag in _NOT_RENDERED
            for ancestor in element.iterancestors()
        )
        or element.tag in _NOT_RENDERED
    )


def _paints(style: Mapping[str, str]) -> bool:
    return "color" in style or "background" in style or "background-color" in style


def _same_paint(element: Any, styled: set[Any], sheet: Mapping[Any, dict[str, str]]) -> bool:
    """Text colour equals the background behind it (defaults: black on white)."""
    color: Color | None = None
    background: Color | None = None
    background_known = False
    for node in (element, *element.iterancestors()):
        if node not in styled:
            continue
        style = _element_style(node, sheet)
        if color is None and "color" in style:
            own = _parse_color(style["color"])
            color = own if own is not None and own[3] >= 0.1 else None
        if not background_known:
            background, background_known = _background(style)
        if color is not None and background_known:
            break
    color = color or _DEFAULT_PAINT[0]
    background = background if background_known else _DEFAULT_PAINT[1]
    if background is None or not _same_color(color, background):
        return False

    def repainted(node: Any) -> bool:
        return node in styled and _paints(_element_style(node, sheet))

    return bool(_element_text(element, repainted).strip())


def _background(style: Mapping[str, str]) -> tuple[Color | None, bool]:
    """(colour, known): ``(None, True)`` for an image or gradient, ``(None, False)`` if unset."""
    for name in ("background-color", "background"):
        value = style.get(name)
        if value is None:
            continue
        if "url(" in value or "gradient(" in value:
            return None, True
        own = _first_color(value)
        if own is not None and own[3] >= 0.5:
            return own, True
    return None, False


def _comments(root: Any) -> Iterator[Any]:
    yield from root.itersiblings(etree.Comment, preceding=True)
    yield from root.iter(etree.Comment)
    yield from root.itersiblings(etree.Comment)


def _meta_text(element: Any) -> str | None:
    name = element.get("name") or element.get("property") or element.get("itemprop") or ""
    name = name.strip().lower()
    if name in _META_NAMES or name.startswith(_META_PREFIXES):
        return element.get("content")
    return None


@dataclass
class _HtmlCollector:
    """Accumulates findings and strip targets while ``scan_html`` walks the document."""

    page_host: str
    findings: list[Finding] = field(default_factory=list)
    remove: list[Any] = field(default_factory=list)
    unwrap: list[Any] = field(default_factory=list)
    attributes: list[tuple[Any, str]] = field(default_factory=list)

    def container(self, text: str, location: str, *, hidden: bool, quotable: bool) -> bool:
        """Judge text from a place Markdown does not show; returns whether to strip it."""
        if len(text.strip()) < _MIN_TEXT:
            return False
        analysis = _analyse(text)
        self.findings.extend(_obfuscation_findings(analysis, location, quotable=quotable))
        live = _live_hits(analysis)
        smuggled = analysis.hidden_kinds()
        if not live and not smuggled:
            if hidden:
                sample = _sample(analysis.clean)
                self.findings.append(
                    Finding("hidden_text", SEVERITY["hidden_text"], location, sample)
                )
            return False
        kind = "hidden_instructions" if hidden else "comment_instructions"
        kinds = {hit.kind for hit in live} | smuggled
        variant = kind if kinds - {"ai_addressed"} else f"{kind}/addressed"
        if quotable and not smuggled and all(analysis.is_quoted(hit) for hit in live):
            variant = "comment_instructions/quoted"
        severity = SEVERITY[variant]
        sample = _sample(analysis.sentence(live[0]) if live else analysis.clean)
        self.findings.append(Finding(kind, severity, location, sample))
        return severity >= SEVERITY["comment_instructions/addressed"]

    def url(self, element: Any, value: str | None, base: str, *, image: bool) -> None:
        if not value or (len(value) <= _LONG_QUERY and not _URL_SUSPECT_RE.search(value)):
            return
        try:
            absolute = urljoin(base, value.strip()) if base else value.strip()
        except ValueError:
            absolute = value.strip()
        variant = _judge_url(absolute, self.page_host)
        if variant is None:
            return
        severity = _url_severity(variant, image)
        location = "image" if image else "link"
        self.findings.append(Finding("exfiltration_link", severity, location, _sample(value)))
        if severity >= _STRIPPED_LINK:
            (self.remove if image else self.unwrap).append(element)


def _host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def scan_html(root: Any, url: str) -> HtmlScan:
    """Scan the raw document ``root`` (not modified) for injection outside the rendered text."""
    collector = _HtmlCollector(page_host=_host(url))
    for element, _reason in _hidden_roots(root, _stylesheet_styles(root)):
        if collector.container(_element_text(element), "hidden_text", hidden=True, quotable=False):
            collector.remove.append(element)
    for comment in _comments(root):
        text = _collapse(comment.text or "")
        if collector.container(text, "html_comment", hidden=False, quotable=False):
            collector.remove.append(comment)
    for element in root.iter("noscript", "template"):
        if collector.container(_element_text(element), element.tag, hidden=False, quotable=False):
            collector.remove.append(element)
    _scan_attributes(root, collector)
    _scan_metadata(root, collector)
    for element in root.iter("a", "area"):
        collector.url(element, element.get("href"), url, image=False)
    for element in root.iter("img"):
        for name in ("src", "data-src"):
            collector.url(element, element.get(name), url, image=True)
    for element in root.iter(*_ROLE_TAGS):
        collector.findings.append(
            Finding("role_marker", SEVERITY["role_marker"], "html_tag", _sample(f"<{element.tag}>"))
        )
    return HtmlScan(
        findings=tuple(collector.findings),
        remove=tuple(dict.fromkeys(collector.remove)),
        unwrap=tuple(dict.fromkeys(collector.unwrap)),
        attributes=tuple(dict.fromkeys(collector.attributes)),
    )


def _scan_attributes(root: Any, collector: _HtmlCollector) -> None:
    for element in _LABELLED_XPATH(root):
        for name in _TEXT_ATTRIBUTES:
            value = _collapse(element.get(name) or "")
            if len(value) >= 8 and collector.container(
                value, f"attribute:{name}", hidden=False, quotable=True
            ):
                collector.attributes.append((element, name))


def _scan_metadata(root: Any, collector: _HtmlCollector) -> None:
    for element in root.iter("meta", "title"):
        text = _collapse((element.text if element.tag == "title" else _meta_text(element)) or "")
        if text and collector.container(text, "meta", hidden=False, quotable=True):
            collector.remove.append(element)


# --------------------------------------------------------------------------------------------
# Sanitizing the tree
# --------------------------------------------------------------------------------------------


def _safe_tail(tail: str | None) -> str:
    if not tail:
        return ""
    return strip_markdown(tail, scan_markdown(tail))


def _remove(node: Any) -> bool:
    """Remove ``node`` from its parent, keeping the part of its tail that is not risky. A
    comment outside the root element cannot be removed, so it is emptied."""
    parent = node.getparent()
    if parent is None:
        if isinstance(node.tag, str) or not node.text:
            return False
        node.text = ""
        return True
    node.tail = _safe_tail(node.tail) or None
    drop(node)
    return True


def _unwrap(element: Any) -> bool:
    """Replace a link with its text."""
    parent = element.getparent()
    if parent is None:
        return False
    text = element.text_content() if hasattr(element, "text_content") else ""
    previous = element.getprevious()
    joined = text + (element.tail or "")
    parent.remove(element)
    if previous is not None:
        previous.tail = (previous.tail or "") + joined
    else:
        parent.text = (parent.text or "") + joined
    return True


def _in_document(node: Any, document: Any) -> bool:
    """Still part of the document: under its root, or a comment beside it."""
    ancestors = list(node.iterancestors())
    if ancestors:
        return ancestors[-1] is document
    siblings = (*document.itersiblings(preceding=True), *document.itersiblings())
    return any(sibling is node for sibling in siblings)


def strip_html(root: Any, scan: HtmlScan) -> int:
    """Remove in place what ``scan`` flagged in ``root``: hidden instruction elements, risky
    comments, noscript, template and meta elements, exfiltration images (links keep their text)
    and risky attributes. Returns how many things were removed."""
    document = root.getroottree().getroot()
    count = 0
    for node in scan.remove:
        if _in_document(node, document) and _remove(node):
            count += 1
    for element in scan.unwrap:
        if _in_document(element, document) and _unwrap(element):
            count += 1
    for element, name in scan.attributes:
        if _in_document(element, document) and element.get(name) is not None:
            del element.attrib[name]
            count += 1
    return count


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Signal:
    """Findings of one (type, location): strongest first."""

    kind: str
    location: str
    severities: tuple[float, ...]
    sample: str

    @property
    def severity(self) -> float:
        return self.severities[0]

    @property
    def count(self) -> int:
        return len(self.severities)

    def weight(self) -> float:
        """Noisy-OR of the occurrences, the k-th strongest counting ``s / 2**k``."""
        return _noisy_or(s / 2**k for k, s in enumerate(self.severities[:_MAX_COUNT_TERMS]))


def _aggregate(findings: Iterable[Finding]) -> list[_Signal]:
    severities: dict[tuple[str, str], list[float]] = {}
    samples: dict[tuple[str, str], str] = {}
    for finding in findings:
        key = (finding.kind, finding.location)
        severities.setdefault(key, []).extend([finding.severity] * finding.count)
        samples.setdefault(key, finding.sample)
    signals = [
        _Signal(kind, location, tuple(sorted(values, reverse=True)), samples[kind, location])
        for (kind, location), values in severities.items()
    ]
    return sorted(signals, key=lambda s: (-s.severity, s.kind, s.location))


def _noisy_or(weights: Iterable[float]) -> float:
    miss = 1.0
    for weight in weights:
        miss *= 1.0 - weight
    return 1.0 - miss


def _risk(signals: list[_Signal]) -> float:
    quoted = _noisy_or(s.weight() for s in signals if s.location == "quoted")
    direct = [s.weight() for s in signals if s.location != "quoted"]
    return round(_noisy_or([*direct, min(quoted, QUOTED_CAP)]), 4)


def _level(score: float) -> str:
    return next(name for threshold, name in _LEVELS if score >= threshold)


def report(scan: HtmlScan, text: TextScan, mode: str) -> dict[str, object]:
    """The JSON-ready safety report for one page."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    signals = _aggregate((*scan.findings, *text.findings))
    score = _risk(signals)
    level = _level(score)
    return {
        "risk_score": score,
        "risk_level": level,
        "action_taken": mode,
        "signals": [
            {
                "type": signal.kind,
                "severity": round(min(max(signal.severity, 0.0), 1.0), 4),
                "count": signal.count,
                "sample": signal.sample[:_SAMPLE_CHARS],
                "location": signal.location,
            }
            for signal in signals
        ],
        "recommendation": _RECOMMENDATIONS[level],
    }
