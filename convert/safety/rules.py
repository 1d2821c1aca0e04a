"""Instruction phrase rules as data: the rule type, English override phrases and role markers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

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


@dataclass(frozen=True)
class PhraseRule:
    """One instruction phrase, matched on normalised text.

    ``stems`` lists the literal word starts a match can begin with ("$" ends a whole word; "+"
    joins a whole word to the start of the next one, after white space, for phrases that open
    with a common word such as "to" or "you"); a trigger scan finds those cheaply and
    ``pattern`` is only tried there. ``scope`` "sentence"
    removes the whole sentence when sanitizing, "token" only the match, "heading" and "line" are
    role markers that must open a line. ``kind`` is the signal type (its severity is
    ``SEVERITY[kind]``).
    """

    name: str
    kind: str
    scope: str
    stems: str
    pattern: str


OVERRIDE_EN: Final[tuple[PhraseRule, ...]] = (
    # --- instruction_override, English
    PhraseRule(
        name="override-en-1",
        kind="instruction_override",
        scope="sentence",
        stems=_EN_VERB_STEMS,
        pattern=rf"\b{_EN_VERB}\s+{_EN_DET}{_EN_PAST}\s+{_EN_ADJ}{_EN_NOUN}\b",
    ),
    PhraseRule(
        name="override-en-2",
        kind="instruction_override",
        scope="sentence",
        stems=f"{_EN_VERB_STEMS} override overwrite",
        pattern=rf"\b(?:{_EN_VERB}|override|overwrite)\s+(?:(?:all|any)\s+(?:of\s+)?)?your\s+{_EN_OWN}\b",
    ),
    PhraseRule(
        name="override-en-3",
        kind="instruction_override",
        scope="sentence",
        stems=f"{_EN_VERB_STEMS} override overwrite",
        pattern=rf"\b(?:{_EN_VERB}|override|overwrite)\s+(?:all\s+(?:of\s+)?)?the\s+"
        r"(?:system|developer|safety|hidden|internal)\s+"
        r"(?:prompt|instructions|message|rules|guidelines)\b",
    ),
    PhraseRule(
        name="override-en-4",
        kind="instruction_override",
        scope="sentence",
        stems=_EN_VERB_STEMS,
        pattern=rf"\b{_EN_VERB}\s+(?:all|every|any)\s+(?:instructions|rules|guidelines)\s+"
        r"(?:you\s+(?:were|have\s+been)\s+given|(?:given\s+)?(?:above|before|so\s+far|previously))",
    ),
    PhraseRule(
        name="override-en-5",
        kind="instruction_override",
        scope="sentence",
        stems="ignore disregard forget",
        pattern=r"\b(?:ignore|disregard|forget)\s+(?:everything|anything|all)\s+"
        r"(?:(?:that\s+)?you\s+(?:were|have\s+been|had\s+been)\s+(?:told|given|instructed"
        r"|taught)(?!\s+about)|(?:that\s+)?(?:came\s+|was\s+(?:said|written)\s+)?"
        r"(?:above|before\s+this|previously|so\s+far|prior\s+to\s+this))",
    ),
    PhraseRule(
        name="override-en-6",
        kind="instruction_override",
        scope="sentence",
        stems="ignore disregard",
        pattern=r"\b(?:ignore|disregard)\s+(?:all\s+(?:of\s+)?|everything\s+)?(?:the\s+)?"
        r"(?:above|foregoing|preceding)\s+(?:(?:text|content|prompt)\s+)?and\s+(?:instead\s+)?"
        r"(?:say|print|output|write|respond|reply|tell|translate|repeat|return|answer|follow"
        r"|do)\b",
    ),
    PhraseRule(
        name="override-en-7",
        kind="instruction_override",
        scope="sentence",
        stems="you+are",
        pattern=r"\byou\s+are\s+now\s+(?:no\s+longer\b"
        r"|in\s+(?:dan|jailbreak|jailbroken|unrestricted|unfiltered|god|evil)\s+mode\b"
        rf"|(?:a|an|my|the)\s+(?:[\w-]+\s+){{0,2}}?{_AI_TARGET}"
        r"|(?:dan|jailbroken|unrestricted|unfiltered|uncensored)\b"
        r"|free\s+(?:from|of)\s+(?:all|any|your)\b)",
    ),
    PhraseRule(
        name="override-en-8",
        kind="instruction_override",
        scope="sentence",
        stems="new+system new+instruction new+directive new+prompt new+order updated revised real$"
        " actual secret hidden overriding",
        pattern=r"\b(?:new|updated|revised|real|actual|secret|hidden|overriding)\s+(?:system\s+)?"
        r"(?:instructions?|directives?|system\s+prompt|prompt|orders)\s*:",
    ),
    PhraseRule(
        name="override-en-9",
        kind="instruction_override",
        scope="sentence",
        stems="your+new your+real your+actual your+updated",
        pattern=r"\byour\s+(?:new|real|actual|updated)\s+(?:instructions?|task|goal|objective|mission"
        r"|purpose|directive)\s+(?:is|are|will\s+be)\b",
    ),
    PhraseRule(
        name="override-en-10",
        kind="instruction_override",
        scope="sentence",
        stems="do+not don't never stop",
        pattern=r"\b(?:do\s+not|don't|never|stop)\s+(?:follow(?:ing)?|obey(?:ing)?|adher(?:e|ing)\s+to"
        r"|comply(?:ing)?\s+with)\s+(?:(?:any|all)\s+(?:of\s+)?)?"
        rf"(?:(?:your|its)\s+{_EN_QUAL}*|the\s+{_EN_QUAL}+)"
        r"(?:instructions|rules|guidelines|prompt|programming|policies|restrictions)\b",
    ),
    PhraseRule(
        name="override-en-11",
        kind="instruction_override",
        scope="sentence",
        stems="from+now",
        pattern=r"\bfrom\s+now\s+on\s*,?\s+you\s+(?:will|must|shall|should|are\s+to)\s+(?:only\s+)?"
        r"(?:respond|reply|answer|act\s+as|behave|pretend|ignore|obey|refuse|say|output"
        r"|speak)\b",
    ),
    PhraseRule(
        name="override-en-12",
        kind="instruction_override",
        scope="sentence",
        stems="enter switch activate enable",
        pattern=r"\b(?:enter|switch\s+to|activate|enable)\s+"
        r"(?:dan|jailbreak|jailbroken|unrestricted|unfiltered)\s+mode\b",
    ),
    PhraseRule(
        name="override-en-13",
        kind="instruction_override",
        scope="sentence",
        stems="pretend",
        pattern=r"\bpretend\s+(?:that\s+)?you\s+(?:are|have)\s+no\s+"
        r"(?:restrictions|rules|guidelines|limits|filters)\b",
    ),
    PhraseRule(
        name="override-en-14",
        kind="instruction_override",
        scope="sentence",
        stems="act$",
        pattern=r"\bact\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|jailbroken|uncensored)\b",
    ),
)

ROLE_MARKERS: Final[tuple[PhraseRule, ...]] = (
    # --- role_marker (markers made of punctuation are in _ROLE_TOKEN_RE below)
    PhraseRule(
        name="role-marker-1",
        kind="role_marker",
        scope="token",
        stems="begin end$ start",
        pattern=r"\b(?:begin|end|start)\s+(?:of\s+)?(?:the\s+)?system\s+prompt\b",
    ),
    PhraseRule(
        name="role-marker-2",
        kind="role_marker",
        scope="heading",
        stems="system assistant human instruction",
        pattern=r"(?:system|assistant|human|instruction)[ \t]*:",
    ),
    PhraseRule(
        name="role-marker-3",
        kind="role_marker",
        scope="line",
        stems="system assistant human",
        pattern=r"(?:system|assistant|human)[*_]{0,2}[ \t]*:[*_]{0,2}[ \t]*"
        r"(?:you[ \t]+(?:must|will|should|shall)|you[ \t]+are[ \t]+(?:now|an?|the)\b|ignore"
        r"|disregard|forget|from[ \t]+now[ \t]+on|new[ \t]+instructions|always|never"
        r"|do[ \t]+not|don't|the[ \t]+user|reveal|print|send|output)",
    ),
)
