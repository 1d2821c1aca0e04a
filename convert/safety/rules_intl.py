"""Instruction override phrases in German, French and Spanish (with the Italian and Portuguese
forms Spanish shares)."""

from __future__ import annotations

from typing import Final

from convert.safety.rules import PhraseRule

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


OVERRIDE_INTL: Final[tuple[PhraseRule, ...]] = (
    # --- instruction_override, German
    PhraseRule(
        name="override-de-1",
        kind="instruction_override",
        scope="sentence",
        stems=_DE_VERB_STEMS,
        pattern=rf"\b{_DE_VERB}\s+{_DE_FILL}{_DE_PAST}\s+(?:[\w-]+\s+)?{_DE_NOUN}",
    ),
    PhraseRule(
        name="override-de-2",
        kind="instruction_override",
        scope="sentence",
        stems=_DE_VERB_STEMS,
        pattern=rf"\b{_DE_VERB}\s+(?:(?:sie|du|bitte)\s+)?(?:alle|deine|ihre|samtliche)\s+{_DE_NOUN}\b",
    ),
    PhraseRule(
        name="override-de-3",
        kind="instruction_override",
        scope="sentence",
        stems="vergiss",
        pattern=r"\bvergiss\s+alles\s*,?\s*(?:was\s+(?:man\s+)?dir\s+(?:bisher\s+|zuvor\s+)?"
        r"(?:gesagt|aufgetragen|befohlen)|(?:bisherige|vorherige)\w*)",
    ),
    PhraseRule(
        name="override-de-4",
        kind="instruction_override",
        scope="sentence",
        stems="du$ sie$",
        pattern=r"\b(?:du\s+bist|sie\s+sind)\s+(?:jetzt|nun|ab\s+sofort|ab\s+jetzt)\s+"
        r"(?:(?:ein|eine|kein|keine|der|die)\s+(?:[\w-]+\s+){0,2}?"
        r"(?:ki|ki-\w+|assistent\w*|modell|chatbot|bot|hacker)\b"
        r"|nicht\s+mehr\s+an\b|frei\s+von\b|dan\b)",
    ),
    PhraseRule(
        name="override-de-5",
        kind="instruction_override",
        scope="sentence",
        stems="neue geanderte aktualisierte",
        pattern=r"\b(?:neue|geanderte|aktualisierte)\s+(?:system-?)?anweisungen\s*:",
    ),
    PhraseRule(
        name="override-de-6",
        kind="instruction_override",
        scope="sentence",
        stems="deine ihre",
        pattern=r"\b(?:deine|ihre)\s+(?:neuen?|eigentliche[n]?|wahren?)\s+"
        r"(?:anweisungen|aufgabe|instruktionen)\s+(?:lauten|sind|ist|lautet)\b",
    ),
    # --- instruction_override, French
    PhraseRule(
        name="override-fr-1",
        kind="instruction_override",
        scope="sentence",
        stems=_FR_VERB_STEMS,
        pattern=rf"\b{_FR_VERB}\s+{_FR_FILL}(?:{_FR_PAST}\s+{_FR_NOUN}|{_FR_NOUN}\s+{_FR_PAST})",
    ),
    PhraseRule(
        name="override-fr-2",
        kind="instruction_override",
        scope="sentence",
        stems=_FR_VERB_STEMS,
        pattern=rf"\b{_FR_VERB}\s+(?:toutes\s+)?(?:tes|vos)\s+{_FR_NOUN}\b",
    ),
    PhraseRule(
        name="override-fr-3",
        kind="instruction_override",
        scope="sentence",
        stems="oublie",
        pattern=r"\boublie[rz]?\s+tout\s+ce\s+qu(?:e\s+|')\s*(?:l'on|on)\s+(?:t'a|vous\s+a)\s+"
        r"(?:dit|demande|appris|ordonne)",
    ),
    PhraseRule(
        name="override-fr-4",
        kind="instruction_override",
        scope="sentence",
        stems="tu$ vous$",
        pattern=r"\b(?:tu\s+es|vous\s+etes)\s+(?:maintenant|desormais|a\s+present)\s+"
        r"(?:(?:un|une)\s+(?:[\w-]+\s+){0,2}?(?:ia|assistant|modele|chatbot|bot|agent"
        r"|pirate)\b|libre\s+de\b|dan\b)",
    ),
    PhraseRule(
        name="override-fr-5",
        kind="instruction_override",
        scope="sentence",
        stems="nouvelle",
        pattern=r"\bnouvelles?\s+(?:instructions|consignes|directives)\s*:",
    ),
    # --- instruction_override, Spanish (and the Italian and Portuguese forms it shares)
    PhraseRule(
        name="override-es-1",
        kind="instruction_override",
        scope="sentence",
        stems=_ES_VERB_STEMS,
        pattern=rf"\b{_ES_VERB}\s+{_ES_FILL}(?:{_ES_PAST}\s+{_ES_NOUN}|{_ES_NOUN}\s+{_ES_PAST})",
    ),
    PhraseRule(
        name="override-es-2",
        kind="instruction_override",
        scope="sentence",
        stems="olvida olvide",
        pattern=r"\bolvid[ae]\w*\s+todo\s+lo\s+(?:anterior|que\s+(?:te|se\s+te|le|les)\s+"
        r"(?:han|ha|hayan|habian)\s+(?:dicho|indicado|ordenado))",
    ),
    PhraseRule(
        name="override-es-3",
        kind="instruction_override",
        scope="sentence",
        stems="ahora a+partir desde",
        pattern=r"\b(?:ahora|a\s+partir\s+de\s+ahora|desde\s+ahora)\s*,?\s+(?:eres|seras)\s+"
        r"(?:(?:un|una)\s+(?:[\w-]+\s+){0,2}?(?:ia|asistente|modelo|chatbot|bot|agente"
        r"|hacker)\b|libre\b|dan\b)",
    ),
    PhraseRule(
        name="override-es-4",
        kind="instruction_override",
        scope="sentence",
        stems="nuevas verdaderas",
        pattern=r"\b(?:nuevas|verdaderas)\s+(?:instrucciones|ordenes|indicaciones)\s*:",
    ),
    PhraseRule(
        name="override-es-5",
        kind="instruction_override",
        scope="sentence",
        stems="ya$",
        pattern=r"\bya\s+no\s+(?:sigas|obedezcas)\s+(?:tus|las)\s+(?:\w+\s+)?"
        r"(?:instrucciones|reglas|normas)",
    ),
)
