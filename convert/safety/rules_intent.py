"""Cues that text asks a reader's assistant for something, as data for :mod:`.intent`.

Hidden text on a real page is page furniture (menus, labels, screen-reader text, form
messages); hidden text that addresses an assistant, or asks for an action on its output, is an
injection whether or not it says "ignore previous instructions". Each cue is a grammatical or
topical feature, matched on normalised text (lower case, accents off), in English, French,
German, Spanish, Italian, Portuguese and Dutch:

- an imperative verb opening a clause, split into verbs that shape an answer ("include", "tell",
  "recommend", "write") and verbs of page controls ("click", "subscribe", "buy");
- second-person obligation ("you must", "vous devez", "du musst");
- an addressee that only an assistant has: "the AI", "your answer", "the summary", "when
  summarizing";
- the user in the third person ("tell the user"): pages speak to their reader as "you";
- something to pass on (a URL, an e-mail address, a phone number), a language or format demand,
  product or opinion steering, an alarm (a locked account, a failed payment), a request for
  personal data.

Cues combine as a noisy-OR of their weights (each cue counted once); furniture (cookie and
form messages, menus, "Loading...", "skip to content") scales the result down unless the text
names an assistant or the user.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Cue:
    """One feature of a request: ``pattern`` matched anywhere in a clause, ``weight`` its
    contribution; ``addressee`` cues say who is spoken to (they lift the furniture discount)."""

    name: str
    pattern: re.Pattern[str]
    weight: float
    addressee: bool = False
    keywords: str | None = None
    """Words (a regular expression for one word: a run of letters, digits and underscores)
    of which every match of ``pattern`` holds one whole: a text without any is not searched.
    Looking a text's words up, each once, is much cheaper than trying a pattern that opens
    with many alternatives at every position of the text."""
    anchor: re.Pattern[str] | None = None
    """A cheap pattern that every match of ``pattern`` contains, within :data:`ANCHOR_REACH`
    characters of it (by default the keywords as whole words): a long text is searched only
    around its matches."""

    def __post_init__(self) -> None:
        if self.anchor is None and self.keywords is not None:
            object.__setattr__(self, "anchor", re.compile(rf"\b(?:{self.keywords})\b"))


ANCHOR_REACH: Final = 120
"""Characters before and after an anchor's match within which its cue's match lies."""


_START = (
    r"(?:^|[.!?:;,\n(\"'«»]\s*|\b(?:please|now|also|then|and|et|und|y|e|en|bitte"
    r"|s'il\s+vous\s+plait|por\s+favor|per\s+favore)\s+)"
)
_ADVERB = (
    r"(?:(?:always|never|only|just|simply|also|now|then|briefly|politely|do\s+not|don't"
    r"|ne|nicht|no|non|niet)\s+)?"
)
"""Where a clause opens: an imperative verb right after one of these reads as a command."""

_OBJECT = (
    r"(?:(?:the|a|an|this|that|these|those|your|their|his|her|its|our|my|it|them|him|me|us"
    r"|every|each|all|any|only|in|into|with|to|as|about|no|nothing|everything|exactly|entirely"
    r"|up|out|back|why|what|how|whether|if|when|something|anyone|someone|readers|users|people"
    r"|there|so|yes|none|le|la|les|un|une|des|du|de|ce|cet|cette|ces|ta|ton|tes|votre|vos|a|au|aux"
    r"|en|que"
    r"|uniquement|seulement|pas|toujours|sous|die|der|das|den|dem|des|ein|eine|einen|einem"
    r"|dies\w*|dein\w*|ihr\w*|am|im|nur|auf|kein\w*|jede\w*|mit|zu|dass|immer|el|los|las|una?"
    r"|est[ea]s?|tus?|sus?|al|solo|siempre|con|il|lo|gli|questo|questa|che|sempre|o|os|as"
    r"|uma?|ao|na|no|em|het|een|dit|deze|je|uw|dat|aan)(?!\w)|(?:l|qu|d|all)'|[\"'«„“]|https?:"
    r"|www\.|\d)"
)
"""What follows an imperative verb: its object or complement ("Write the...", "Recommend
this...", "Reply in...", "Say that..."); a noun or a title does not take these ("Quote of the
day", "Act One", "Respond.js")."""

_ANSWER_VERBS = (
    # English
    r"include|insert|append|mention|say|tell|inform|notify|warn|write|rewrite|respond|reply"
    r"|answer|translate|format|conclude|summari[sz]e|describe|present"
    r"|portray|recommend|suggest|advise|urge|encourage|promote|endorse|favou?r|praise"
    r"|provide|claim|state|assert|pretend|behave|treat|refuse"
    r"|omit|avoid|steer|emphasi[sz]e|highlight|quote|cite"
    r"|embed|output|repeat|explain|convince|persuade"
    r"|call\s+(?:it|this|the)"
    r"|exclude|ignore|downplay|stress|instead"
    # French
    r"|redige[sz]?|ecri[st]|ecrivez|repond[sz]?|reponde[sz]|ajoute[sz]?|inclu[st]|incluez|indique[sz]?"
    r"|di[st]|dites|recommande[sz]?|conseille[sz]?|presente[sz]?|affirme[sz]?|termine[sz]?"
    r"|demande[sz]?|mentionne[sz]?|ne\s+mentionne[sz]?|decri[st]|decrivez|envoie[sz]?|traduis"
    r"|traduisez|utilise[sz]?|precise[sz]?|signale[sz]?|qualifie[sz]?"
    # German
    r"|schreib(?:e|en)?|antworte(?:n)?|fuge|fuegen?|empfiehl|empfehlen|sag(?:e|en)?|erwahne(?:n)?"
    r"|bezeichne(?:n)?|beende(?:n)?|rate|teile(?:n)?|stelle(?:n)?|verweise(?:n)?|nenne(?:n)?|gib"
    r"|geben|sende(?:n)?|ubersetze(?:n)?|beschreibe(?:n)?|behaupte(?:n)?|weise(?:n)?|frage(?:n)?"
    # Spanish
    r"|escribe|escriba|responde|responda|incluye|incluya|recomienda|recomiende|dile|digale|di"
    r"|diga|menciona|mencione|no\s+menciones|describe|describa|termina|termine|aconseja|aconseje"
    r"|indica|indique|presenta|presente|envia|envie|pide|pida|traduce|traduzca|afirma|afirme"
    r"|agrega|agregue|anade|anada|usa|utiliza"
    # Italian, Portuguese
    r"|scrivi|rispondi|includi|consiglia|raccomanda|descrivi|aggiungi|di'|dica|inclua|recomende"
    r"|escreva|adicione|descreva|informe|avise"
    # Dutch
    r"|schrijf|raad|vertel|antwoord|voeg|beveel|noem|zeg|stuur|beschrijf|vermeld"
)
_CONTROL_VERBS = (
    r"click|tap|visit|go|call|contact|share|buy|purchase|order|shop|subscribe|sign|join|open"
    r"|download|install|read|learn|check|follow|try|get|see|find|browse|discover|explore|enter"
    r"|register|log|view|watch|listen|register|book|request|apply|donate|support|upgrade"
    r"|klicke?n?|besuche|kaufe|abonniere|cliquez|clique|visitez|achetez|abonnez|haz\s+clic|visita"
    r"|compra|suscribete|bel|koop|add|keep|begin|make|use|create|report|post|save|submit|change"
    r"|list|focus|leave|hide|delete|collect|ask|thank|end|finish|act|stop|point|direct|let"
    r"|print|link|label|refer|put|paste|speak|skip|remember|ensure|give|send|forward|rate|rank"
)

_AI_STRONG = (
    r"(?:ai|a\.i\.|ia|ki|llms?|(?:large\s+)?language\s+models?|sprachmodell\w*|chatbots?"
    r"|chatgpt|gpt-?\d[\w.-]*|assistants?|assistente|asistente|assistante)"
    r"(?:[\s-](?:assistants?|agents?|models?|systems?|tools?))?"
)
_MACHINE = r"(?:models?|modele|modelo|bots?|agents?|crawlers?|scrapers?)"
_AI_NOUN = rf"(?:{_AI_STRONG}|{_MACHINE})"
_AI = rf"\b{_AI_NOUN}\b"
_ADDRESSED = (
    rf"\b(?:dear|hello|hi|hey|attention|psst|note\s+(?:to|for)|message\s+(?:to|for)"
    rf"|if\s+you\s+are|you\s+are|liebe[rs]?|hallo|cher|chere|querid[oa]|si\s+eres|si\s+tu\s+es"
    rf"|wenn\s+du|an\s+(?:alle|die|den|jede))\s+(?:an?\s+|the\s+|any\s+|all\s+|every\s+"
    rf"|une?\s+|eine?\s+|el\s+|la\s+)?(?:\w+\s+)?{_AI_NOUN}\b"
    rf"|(?:^|[.!?:;\n]\s*)(?:the\s+)?{_AI_STRONG}\s*,\s*(?:please\s+)?(?:you|when|if|make|do"
    rf"|don't|always|never|{_ANSWER_VERBS})\b"
    rf"|\b{_AI_STRONG}\s+(?:(?:reading|processing|summari[sz]ing|parsing|crawling|browsing|reads?"
    rf"|processes|summari[sz]es|sees)\s+(?:this|these|the\s+(?:page|text|article))"
    rf"|that\s+(?:reads?|process\w*)|should|must|shall|need\s+to|has\s+to)\b"
    rf"|\b{_AI_NOUN}\s+(?:notes?|instructions?)\s*:"
    rf"|\b{_MACHINE}\s+(?:reading|processing|parsing|crawling|browsing|summari[sz]ing)\s+this\b"
    rf"|\b(?:the|any|all|every)\s+{_MACHINE}\s+(?:should|must|shall)\b"
)
_ANSWER_NOUN = (
    r"(?:(?:whole|entire|full|next|final|first|last|every|complete)\s+)?(?:answers?|responses?"
    r"|repl(?:y|ies)|summar(?:y|ies)|outputs?|completions?)"
)
_OUTPUT = (
    rf"\b(?:in|into|to|with|of|end|start|begin|finish|conclude)\s+(?:your|every|any|each)\s+"
    rf"(?:\w+\s+)?{_ANSWER_NOUN}\b"
    rf"|\b(?:your|the)\s+{_ANSWER_NOUN}\s+(?:should|must|has\s+to|needs?\s+to|will|may\s+only)\b"
    rf"|\b(?:your|every|any)\s+(?:(?:whole|entire|full|next|final)\s+)?(?:summar(?:y|ies)|outputs?"
    rf"|completions?|repl(?:y|ies))\b|\bevery\s+(?:answer|response)\b|\bthe\s+(?:summary|output)\b"
    r"|\b(?:tu|tus|su|sus|ta|ton|tes|votre|vos|deine[rnm]?|ihre[rnm]?|jede[rnm]?|je|jouw|uw"
    r"|la\s+tua|sua)\s+(?:reponses?|resumes?|antwort(?:en)?|zusammenfassung(?:en)?|respuestas?"
    r"|resumen(?:es)?|risposta|riassunto|resposta|resumo|samenvatting|antwoord)\b"
    r"|\b(?:any|every)\s+\w+\s+(?:summar(?:y|ies)|answers?|responses?)\b"
    r"|\b(?:this|our|cette|dieses|esta)\s+(?:conversation|conversacion|gesprach|chat)\b"
    r"|\b(?:chat|conversation)\s+history|\bchatverlauf|\b(?:browsing|browser|search|web|email"
    r"|e-mail|calendar|python|memory)\s+tool\b|\b\w+_\w+\s+tool\b|\btool\s+calls?\b"
    r"|\bwhen\s+(?:you\s+(?:are\s+)?)?(?:summari[sz]|answer|respond|repl|describ|writ|compar"
    r"|mention|discuss)\w*|\bwhen\s+asked\b|\bwhen\s+(?:you\s+)?(?:read|process)\w*\s+this\b"
    r"|\b(?:wenn\s+(?:du|sie)|si\s+(?:tu|vous)|cuando|si\s+eres|quando|se\s+(?:tu|voce))\s+"
    r"(?:[\w'-]+\s+){0,5}?(?:zusammenfass|beantwort|antwort|resum|repond|respond|rispond|riassum"
    r"|escrib|schreib|ecri|scriv|(?:ki|ia|ai|assistent|assistant|asistente|assistente|modell"
    r"|modele|modelo|modello|bot|chatbot)\b)"
)
"""The assistant's answer as the place of a demand ("in your answer", "your summary", "when you
summarize", "wenn du eine KI bist"): only an assistant has one. "Wenn Sie", "si vous" alone open
a page's every note to its reader ("Wenn Sie diese Seite teilen möchten, klicken Sie...")."""
_YOUR_ANSWER = rf"\byour\s+{_ANSWER_NOUN}\b"
"""A reader's answer or response (a survey, a form) is also "your answer": a weaker cue."""
_USER = (
    r"\b(?:the|their)\s+users?\b(?!'|\s+(?:experience|interface|guide|manual|agent|name|id|account"
    r"|base|research|journey|data|generated|friendly|reviews?|ratings?|profile|settings|group"
    r"|community|forum|story|stories|testing|needs))|\bthe\s+readers?\b|\bwhoever\s+is\b"
    r"|\banyone\s+asking|\b(?:point|direct|send|refer|redirect|steer)\s+(?:readers|users|people"
    r"|anyone|everyone|visitors)\b|\btout\s+utilisateur|\btous\s+les\s+utilisateurs|\bl'utilisateur|\bles\s+utilisateurs|\ble\s+lecteur"
    r"|\b(?:dem|den|der|die)\s+(?:nutzer|benutzer|leser)\w*|\b(?:al|el|los|del)\s+(?:usuarios?"
    r"|lector)|\bl'utente|\ball'utente|\b(?:ao|o)\s+(?:usuario|utilizador)|\bde\s+(?:gebruiker"
    r"|lezer)"
)
_FOLLOW = (
    r"\b(?:follow|obey|execute|carry\s+out|run)\s+(?:the|these|those|its|my|our|all|any)\s+"
    r"(?:\w+\s+)?(?:instructions|steps|commands|orders|directions)\b"
)
_MODAL = (
    r"\byou\s+(?:must|should|shall|will|need\s+to|have\s+to|are\s+(?:to|required|instructed"
    r"|expected|asked)|may\s+only|can\s+only)\b|\bmake\s+sure\b|\bbe\s+sure\s+to\b"
    r"|\bit\s+is\s+(?:essential|important|mandatory)\s+that\s+you\b|\byour\s+task\b"
    r"|\btu\s+dois\b|\bvous\s+devez\b|\bdu\s+(?:musst|sollst)\b|\bsie\s+(?:mussen|sollen)\b"
    r"|\bdebes\b|\bdeben\b|\bdevi\b|\bdeve\b|\bvoce\s+deve\b|\bje\s+moet\b|\bu\s+moet\b"
)
_RELAY = (
    r"https?://|\bwww\.[\w-]+\.|\b[\w.+-]+@[\w-]+\.[a-z]{2,}\b"
    r"|(?<![\w/.=-])(?:\+?\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)\s?|\d{2,4}[\s.-])\d{2,4}[\s.-]?\d{2,6}\b"
    r"|\bwhatsapp\b|\bhashtag\b|#[a-z]\w{3,}"
)
_LANGUAGE = (
    r"\b(?:in|into)\s+(?:english|french|german|spanish|italian|portuguese|dutch|russian|chinese"
    r"|japanese|korean|arabic|hindi|polish|swedish|turkish|latin)\b"
    r"|\ben\s+(?:anglais|francais|allemand|espagnol|italien|portugais|neerlandais|ingles|frances"
    r"|aleman|espanol|italiano|portugues)\b|\bauf\s+(?:englisch|deutsch|franzosisch|spanisch"
    r"|italienisch)\b|\bin\s+(?:inglese|francese|tedesco|spagnolo|italiano)\b"
    r"|\bem\s+(?:ingles|portugues|frances|espanhol)\b|\bin\s+het\s+(?:engels|frans|duits|spaans)\b"
)
_FORMAT = (
    r"\b(?:all\s+(?:caps|capital|uppercase)|capital\s+letters|upper\s?case|haiku|poem|poeme|gedicht"
    r"|poema|limerick|rhym\w*|reimform|pirate|emojis?|shakespeare|json|bullet\s+points?"
    r"|numbered\s+list|one\s+word|\d+\s+words|(?:one|two|three|four|five|ten)\s+words|tone"
    r"|in\s+the\s+style\s+of|as\s+if\s+you\s+were|backwards|the\s+letter\s+\w|sarcastic|rude"
    r"|enthusiastic|alarming|sous\s+forme\s+de|en\s+forme\s+de)\b"
)
_STEER = (
    r"\b(?:recommend\w*|endorse\w*|the\s+(?:best|only|most|cheapest|safest|obvious)\b|best\s+"
    r"(?:choice|option|pick|product|service|battery|price|in)|superior|flawless|trustworthy"
    r"|reliable|guaranteed|(?:five|5)[\s-]stars?|\d+\s+out\s+of\s+10|overwhelmingly|no\s+(?:side"
    r"\s+effects|downsides?)|award[\s-]winning|(?:negative|bad)\s+reviews?|competitors?|rivals?"
    r"|without\s+hesitation|world[\s-]leading|definitive|peer[\s-]reviewed|official\s+"
    r"(?:retailer|source|site)|primary\s+source|(?:lowest|cheapest)\s+(?:price|available)"
    r"|positively|winner|meilleure?s?|fiables?|digne\s+de\s+confiance|recommand\w*|empfiehl\w*"
    r"|empfehl\w*|beste[nrs]?|zuverlassig\w*|vertrauenswurdig\w*|mejor(?:es)?|de\s+confianza"
    r"|recomiend\w*|recomend\w*|migliore|melhor|confiavel|aanbevel\w*|beste)\b"
)
_ALARM = (
    r"\b(?:(?:account|konto|compte|cuenta|conto|conta)\b[^.]{0,30}\b(?:locked|suspended|blocked"
    r"|closed|compromised|frozen|gesperrt|bloque|bloqueada|bloccato|suspensa|geblokkeerd)"
    r"|(?:payment|card)\s+(?:failed|declined)|infected|virus|malware|suspicious\s+activity"
    r"|verify\s+(?:your|their|his|her)\s+(?:identity|account|details)|confirm\s+(?:your|their)"
    r"\s+(?:details|identity)|won\s+a\s+prize|qualif\w+\s+for\s+a\s+refund|refund|expire[sd]?"
    r"|customs|gift\s+cards?|(?:card|credit\s+card)\s+number|login\s+details"
    r"|licen[cs]e\s+key\s+is\s+invalid|offer\s+ends|daten\s+bestatigen"
    r"|confirmar\s+sus\s+datos|numero\s+de\s+carte|numero\s+de\s+telefono)\b"
)
_PERSONAL = (
    r"\b(?:home\s+address|date\s+of\s+birth|full\s+name|phone\s+number|email\s+address"
    r"|e-mail-adresse|card\s+number|address\s+book|on\s+the\s+user's\s+behalf|the\s+\w+\s+tool"
    r"|browsing\s+tool|this\s+conversation|the\s+conversation)\b"
)
_PERSIST = (
    r"\b(?:only|solely|exclusively|uniquement|seulement|nur|ausschliesslich|solo|solamente"
    r"|unicamente|alleen|from\s+now\s+on|whatever\s+(?:the|language)|no\s+matter|every\s+(?:response|answer"
    r"|reply|question)|any\s+(?:summary|further)|each\s+time|whenever|in\s+all\s+(?:responses"
    r"|answers)|a\s+partir\s+de\s+maintenant|ab\s+(?:jetzt|sofort)|de\s+ahora\s+en\s+adelante)\b"
)

_THAT_CLAUSE = (
    r"\b(?:say|state|claim|report|mention|conclude|explain|assert|pretend|emphasi[sz]e|suggest"
    r"|imply|affirme[sz]?|dis|dites|sag(?:e|en)?|erwahne|behaupte|di|diga|dile|afirma|menciona"
    r"|zeg|vertel)\s+(?:\w+\s+){0,3}?(?:that|que|dass|che)\b"
    r"|\b(?:say|claim|state|report|assert|pretend)\s+(?:the|this|that|it|there|they|he|she|its|their)"
    r"\s+(?:\w+\s+){0,2}?(?:is|are|was|were|has|have|had|will|can|could|does|did)\b"
)
_SELF = (
    r"\bthe\s+(?:page|article|website)\b"
    r"|\bthis\s+(?:page|article|site|website|text|document|post|content|product|hotel"
    r"|restaurant|company|study|author|sources?|event|offer|review|brand|store|shop|app|course)\b"
    r"|\b(?:cet|cette|ce)\s+(?:article|page|site|produit|hotel|restaurant|texte)\b"
    r"|\b(?:diese[rnms]?)\s+(?:artikel|seite|produkt\w*|anbieter|text)\b"
    r"|\b(?:este|esta|esto)\s+(?:articulo|pagina|producto|hotel|servicio|empresa|texto)\b"
)

_RELAY_GATE: Final = re.compile(r"[@\d]|www\.|://|whatsapp|hashtag|#")
# Keywords: a whole word that every match of a cue holds (see Cue.keywords). A phrase in a verb
# list counts by one of its words ("call it" by "call", "no menciones" by "menciones").
_ANSWER_VERB_WORDS = rf"{_ANSWER_VERBS}|call|menciones"
_AI_WORDS = (
    r"ai|i|ia|ki|llms?|language|sprachmodell\w*|chatbots?|chatgpt|gpt\w*|assistants?|assistente"
    r"|asistente|assistante|models?|modele|modelo|bots?|agents?|crawlers?|scrapers?"
)
_ANSWER_NOUN_WORDS = r"answers?|responses?|repl(?:y|ies)|summar(?:y|ies)|outputs?|completions?"
_MODAL_WORDS = r"you|sure|task|dois|devez|musst|sollst|mussen|sollen|debes|deben|devi|deve|moet"
_OUTPUT_WORDS = (
    rf"{_ANSWER_NOUN_WORDS}|reponses?|resumes?|antwort(?:en)?|zusammenfassung(?:en)?"
    r"|respuestas?|resumen(?:es)?|risposta|riassunto|resposta|resumo|samenvatting|antwoord"
    r"|conversation|conversacion|gesprach|chat|chatverlauf\w*|tool|when|wenn|si|cuando"
)
_USER_WORDS = (
    r"users?|readers?|whoever|anyone|everyone|people|visitors|utilisateur\w*|lecteur\w*"
    r"|(?:be)?nutzer\w*|leser\w*|usuario\w*|lector\w*|utente\w*|utilizador\w*|gebruiker\w*"
    r"|lezer\w*"
)
_THAT_WORDS = (
    r"say|state|claim|report|mention|conclude|explain|assert|pretend|emphasi[sz]e|suggest"
    r"|imply|affirme[sz]?|dis|dites|sag(?:e|en)?|erwahne|behaupte|di|diga|dile|afirma|menciona"
    r"|zeg|vertel"
)

CUES: Final[tuple[Cue, ...]] = (
    Cue(
        "answer verb",
        re.compile(
            rf"{_START}{_ADVERB}(?:{_ANSWER_VERBS})\s+{_OBJECT}"
            rf"|{_START}(?:always|never|only|do\s+not|don't)\s+(?:{_ANSWER_VERBS})\b"
        ),
        0.45,
        keywords=_ANSWER_VERB_WORDS,
    ),
    Cue(
        "control verb",
        re.compile(rf"{_START}{_ADVERB}(?:{_CONTROL_VERBS})\b"),
        0.15,
        keywords=rf"{_CONTROL_VERBS}|haz",
    ),
    Cue("obligation", re.compile(_MODAL), 0.4, keywords=_MODAL_WORDS),
    Cue(
        "obligation to answer",
        re.compile(
            r"\b(?:you|vous|tu|du|sie)\s+(?:must|should|shall|will|need\s+to|have\s+to|devez|dois"
            rf"|musst|mussen|sollst|sollen)\s+{_ADVERB}(?:{_ANSWER_VERBS})\b"
        ),
        0.45,
        keywords=_ANSWER_VERB_WORDS,
    ),
    Cue(
        "instructions to follow",
        re.compile(_FOLLOW),
        0.45,
        keywords="instructions|steps|commands|orders|directions",
    ),
    Cue("assistant addressed", re.compile(_ADDRESSED), 0.55, addressee=True, keywords=_AI_WORDS),
    Cue("assistant mentioned", re.compile(_AI), 0.15, keywords=_AI_WORDS),
    Cue("reported speech", re.compile(_THAT_CLAUSE), 0.35, keywords=_THAT_WORDS),
    Cue("this page", re.compile(_SELF), 0.3),
    Cue("output", re.compile(_OUTPUT), 0.45, addressee=True, keywords=_OUTPUT_WORDS),
    Cue("your answer", re.compile(_YOUR_ANSWER), 0.3, keywords=_OUTPUT_WORDS),
    Cue("user", re.compile(_USER), 0.45, addressee=True, keywords=_USER_WORDS),
    Cue("user's things", re.compile(r"\busers?'s?(?=\s)"), 0.3, keywords="users?"),
    Cue("pass on", re.compile(_RELAY), 0.25, anchor=_RELAY_GATE),
    Cue("language", re.compile(_LANGUAGE), 0.35),
    Cue("format", re.compile(_FORMAT), 0.3),
    Cue("steering", re.compile(_STEER), 0.3),
    Cue("alarm", re.compile(_ALARM), 0.3),
    Cue("personal data", re.compile(_PERSONAL), 0.3),
    Cue("persistence", re.compile(_PERSIST), 0.25),
)

FURNITURE: Final = re.compile(
    r"\b(?:skip\s+to|jump\s+to|loading|cookies?|consent|privacy|javascript|newsletter|sign\s+(?:in|up)"
    r"|log\s?in|logged\s+in|cart|basket|checkout|required|please\s+(?:enter|select|fill|wait|try)"
    r"|valid|invalid|close|menu|search|toggle|copy\s+(?:the\s+)?link|link\s+copied"
    r"|opens?\s+in\s+a\s+new|new\s+(?:tab|window)|screen\s+readers?|back\s+to\s+top|scroll"
    r"|accept|preferences|unsubscribe|browser|captcha|error|thank\s+you|thanks|share\s+(?:this|on"
    r"|via|to)|(?:facebook|twitter|linkedin|pinterest|whatsapp|reddit|telegram)\b"
    r"|notifications?|settings|expand|collapse|previous|next|slide|carousel|video|player"
    r"|play|pause|mute|volume|caption|transcript|download\s+(?:the\s+)?app|password|account"
    r"|forgot|notify|view\s+(?:more|all|post)|read\s+more|e-?mail|always\s+active"
    r"|opt[\s-]?out|vendors?|partners|advertising|ads|tracking|analytics)\b"
)
"""Words of page controls and messages: a hidden text with these is most likely furniture."""
FURNITURE_FACTOR: Final = 0.55
READER_TALK: Final = re.compile(
    r"\byour\s+(?!(?:answers?|responses?|repl(?:y|ies)|summar(?:y|ies)|outputs?|task|instructions"
    r"|first\s+sentence|whole|entire|full|next|final)\b)[a-z]|\byours\b|\b(?:me|my)\b"
    r"|\byou\s+[a-z]+ed\b|\b(?:do|are|have|can|will|did|would)\s+you\b(?!\s+an?\s)|\byou(?:'re|'ll|'ve|\s+can|\s+get"
    r"|\s+want|\s+may|\s+might)\b"
)
"""A page speaking to its own reader ("your order", "notify me", "we ship"): the "you" of
page copy is a person, not an assistant..."""
READER_FACTOR: Final = 0.65
"""...so without an assistant or the user named, such text scores at this share; the site
speaking of itself ("we", "our") is a weaker sign (attacks advertise "our" products too)..."""
SITE_TALK: Final = re.compile(
    r"\b(?:we|us|our|ours|nous|notre|nos|wir|uns|unser\w*|nosotros|nuestr[oa]s?)\b"
)
SITE_FACTOR: Final = 0.9
MIN_WORDS: Final = 3
"""Fewer words than this is a label, never a request."""
SHORT_WORDS: Final = 5
"""Fewer words than this (a button, a prompt in a form) scores at..."""
SHORT_FACTOR: Final = 0.85
"""...this share."""
CODE: Final = re.compile(
    r"<\s*/?[a-z][\w-]*[\s>/]|\b(?:class|id|href|src)\s*=|[{};]\s*$|\b(?:todo|fixme|wrapper"
    r"|container|div|span|script|plugin|version|generated|cached?|do\s+not\s+(?:modify|edit"
    r"|remove|change|delete|touch))\b"
)
CODE_FACTOR: Final = 0.4
"""Markup, code and developers' notes: what HTML comments mostly hold."""
CONTEXT_CHARS: Final = 400
"""In a hidden text longer than this (a tab, a slide, a collapsed answer), a window that names
neither an assistant nor the user is most likely the page's own copy: it scores at..."""
CONTEXT_FACTOR: Final = 0.75
"""...this share."""
INSTRUCTION_SCORE: Final = 0.6
"""A clause scoring this much reads as a request to an assistant."""
