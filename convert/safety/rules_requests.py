"""Phrase rules for text addressed to an AI and requests for data or actions."""

from __future__ import annotations

from typing import Final

from convert.safety.rules import PhraseRule

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


ADDRESSED: Final[tuple[PhraseRule, ...]] = (
    # --- ai_addressed
    PhraseRule(
        name="ai-addressed-1",
        kind="ai_addressed",
        scope="sentence",
        stems="if+you",
        pattern=r"\bif\s+you\s+are\s+(?:an?\s+)?(?:ai\b|llm|large\s+language\s+model|language\s+model"
        r"|chatbot|bot\b|gpt|chatgpt|(?:ai|virtual|automated)\s+(?:assistant|agent|system"
        r"|program))",
    ),
    PhraseRule(
        name="ai-addressed-2",
        kind="ai_addressed",
        scope="sentence",
        stems="note message memo instruction directive request",
        pattern=r"\b(?:note|message|memo|instructions?|directive|request)\s+(?:to|for)\s+"
        rf"(?:all\s+|any\s+|the\s+|every\s+)?{_AI_NOUN}\b",
    ),
    PhraseRule(
        name="ai-addressed-3",
        kind="ai_addressed",
        scope="sentence",
        stems="dear hello hi$ hey attention psst greetings",
        pattern=r"\b(?:dear|hello|hi|hey|attention|psst|greetings)\s*,?\s+"
        rf"(?:all\s+|any\s+|the\s+|every\s+)?{_AI_NOUN}\b\s*[,:!.]",
    ),
    PhraseRule(
        name="ai-addressed-4",
        kind="ai_addressed",
        scope="sentence",
        stems="to+any to+all to+every for+any for+all for+every",
        pattern=rf"\b(?:to|for)\s+(?:any|all|every)\s+(?:[\w-]+\s+)?{_AI_NOUN}\s+"
        rf"(?:that\s+(?:is|are)\s+)?(?:{_READING}|analy[sz]ing|that\s+reads?)\b",
    ),
    PhraseRule(
        name="ai-addressed-5",
        kind="ai_addressed",
        scope="sentence",
        stems=_AI_NOUN_STEMS,
        pattern=rf"\b(?:ai\s+)?{_AI_NOUN}\s+(?:(?:that|who)\s+(?:is|are)\s+)?{_READING}\s+"
        r"(?:this|these)(?:\s+(?:page|text|article|document|content|site|website|post|message"
        r"|email|words|lines))?\s*[,:!.\u2013\u2014-]",
    ),
    PhraseRule(
        name="ai-addressed-6",
        kind="ai_addressed",
        scope="sentence",
        stems="when+you when+summari when+processing when+asked",
        pattern=r"\bwhen\s+(?:you\s+(?:are\s+)?)?(?:summari[sz]\w*|processing|asked\s+(?:about"
        r"|to\s+summari[sz]e))\s+this\s+(?:page|article|document|text|content|site|website"
        r"|post)\b",
    ),
    PhraseRule(
        name="ai-addressed-7",
        kind="ai_addressed",
        scope="sentence",
        stems="wenn falls",
        pattern=r"\b(?:wenn|falls)\s+du\s+(?:eine?\s+)?(?:ki\b|ki-\w+|sprachmodell|chatbot|assistent"
        r"|bot\b|llm)",
    ),
    PhraseRule(
        name="ai-addressed-8",
        kind="ai_addressed",
        scope="sentence",
        stems="hinweis nachricht anweisung",
        pattern=rf"\b(?:hinweis|nachricht|anweisung)\s+(?:an|fur)\s+(?:alle\s+|jede\s+|die\s+)?{_AI_DE}",
    ),
    PhraseRule(
        name="ai-addressed-9",
        kind="ai_addressed",
        scope="sentence",
        stems="liebe hallo an+alle an+jede",
        pattern=rf"\b(?:liebe[rs]?|hallo|an\s+alle|an\s+jede)\s+{_AI_DE}",
    ),
    PhraseRule(
        name="ai-addressed-10",
        kind="ai_addressed",
        scope="sentence",
        stems="si$",
        pattern=r"\bsi\s+(?:tu\s+es|vous\s+etes)\s+(?:une?\s+)?(?:ia\b|intelligence\s+artificielle"
        r"|modele\s+de\s+langage|assistant|chatbot|llm|robot)",
    ),
    PhraseRule(
        name="ai-addressed-11",
        kind="ai_addressed",
        scope="sentence",
        stems="note message",
        pattern=r"\b(?:note|message)\s+(?:pour\s+les?|a\s+l'attention\s+des?)\s+"
        r"(?:ia|assistants?|modeles?|llms?)\b",
    ),
    PhraseRule(
        name="ai-addressed-12",
        kind="ai_addressed",
        scope="sentence",
        stems="chere cher$ cheres a+toute",
        pattern=r"\b(?:chere?s?|a\s+toutes?\s+les)\s+(?:ia|assistants\s+(?:ia|d'ia))\b",
    ),
    PhraseRule(
        name="ai-addressed-13",
        kind="ai_addressed",
        scope="sentence",
        stems="si$",
        pattern=r"\bsi\s+eres\s+(?:una?\s+)?(?:ia\b|inteligencia\s+artificial|modelo\s+de\s+lenguaje"
        r"|asistente|chatbot|llm|robot)",
    ),
    PhraseRule(
        name="ai-addressed-14",
        kind="ai_addressed",
        scope="sentence",
        stems="nota mensaje",
        pattern=r"\b(?:nota|mensaje)\s+(?:para|a)\s+(?:la\s+|las\s+|cualquier\s+|toda\s+)?"
        r"(?:ia|ias|asistentes?|modelos?|llms?)\b",
    ),
    PhraseRule(
        name="ai-addressed-15",
        kind="ai_addressed",
        scope="sentence",
        stems="querid estimad a+cualquier a+todas",
        pattern=r"\b(?:querida?s?|estimada?s?|a\s+cualquier|a\s+todas\s+las)\s+"
        r"(?:ia|ias|asistentes?\s+de\s+ia)\b",
    ),
)

DATA_REQUESTS: Final[tuple[PhraseRule, ...]] = (
    # --- data_request
    PhraseRule(
        name="data-request-1",
        kind="data_request",
        scope="sentence",
        stems="reveal print output repeat dump leak disclose expose recite tell show write spell"
        " give",
        pattern=r"\b(?:reveal|print|output|repeat|dump|leak|disclose|expose|recite|tell\s+me|show\s+me"
        r"|write\s+out|spell\s+out|give\s+me)\s+(?:(?:all|back)\s+(?:of\s+)?)?"
        r"(?:your\s+(?:(?:full|entire|complete|exact|original|initial|hidden|secret|internal"
        r"|verbatim|system)\s+){0,2}(?:system\s+prompt|prompt|instructions|system\s+message"
        r"|guidelines|rules)|the\s+(?:(?:full|entire|complete|exact|verbatim)\s+)?"
        r"(?:system\s+(?:prompt|message)|(?:hidden|secret|initial|original)\s+"
        r"(?:prompt|instructions)))\b",
    ),
    PhraseRule(
        name="data-request-2",
        kind="data_request",
        scope="sentence",
        stems="tell instruct direct advise urge encourage convince persuade remind",
        pattern=r"\b(?:tell|instruct|direct|advise|urge|encourage|convince|persuade|remind)\s+"
        r"(?:the\s+)?(?:user|users|reader|readers)\s+to\s+(?:visit|go\s+to|click|open|download"
        r"|install|call|contact|email|buy|purchase|sign\s+up|log\s+in|navigate|follow)\b"
        rf"{_TAIL}{_URL_OR_MAIL}",
    ),
    PhraseRule(
        name="data-request-3",
        kind="data_request",
        scope="sentence",
        stems="ask$",
        pattern=r"\bask\s+(?:the\s+)?(?:user|users|reader)\s+(?:for|to\s+(?:provide|share|send))\s+"
        r"(?:their|his|her|the|a)\s+(?:[\w-]+\s+)?(?:password|passcode|credentials|api\s+key"
        r"|credit\s+card|card\s+number|social\s+security|login|bank|pin|otp|one-time"
        r"|seed\s+phrase|recovery\s+phrase)",
    ),
    PhraseRule(
        name="data-request-4",
        kind="data_request",
        scope="sentence",
        stems="include insert add$ append embed render output put$ place",
        pattern=r"\b(?:include|insert|add|append|embed|render|output|put|place)\s+"
        r"(?:(?:the\s+following|this|these)\s+(?:[\w-]+\s+){0,2}?"
        rf"{_SNIPPET}\s+{_WHERE}\s+(?:your|every|each|all|any)"
        rf"|(?:an?\s+|the\s+)?(?:[\w-]+\s+){{0,2}}?{_SNIPPET}\s+{_WHERE}\s+(?:every|each|all|any))"
        rf"\s+(?:[\w-]+\s+)?{_ANSWER}\b",
    ),
    PhraseRule(
        name="data-request-5",
        kind="data_request",
        scope="sentence",
        stems="mention recommend promote praise advertise",
        pattern=r"\b(?:mention|recommend|promote|praise|advertise)\s+(?:[\w'-]+\s+){0,4}?in\s+"
        rf"(?:every|each|all|any)\s+(?:[\w-]+\s+)?{_ANSWER}\b",
    ),
    PhraseRule(
        name="data-request-6",
        kind="data_request",
        scope="sentence",
        stems="include insert add$ append embed render output",
        pattern=r"\b(?:include|insert|add|append|embed|render|output)\s+(?:the\s+following|this)\s+"
        r"(?:markdown\s+)?(?:link|url|image|hyperlink)\b",
    ),
    PhraseRule(
        name="data-request-7",
        kind="data_request",
        scope="sentence",
        stems=_SEND_STEMS,
        pattern=rf"\b{_SEND_VERB}\s+{_CLAUSE}{_SENSITIVE}{_TAIL}{_DEST}",
    ),
    PhraseRule(
        name="data-request-8",
        kind="data_request",
        scope="sentence",
        stems="exfiltrate leak smuggle siphon",
        pattern=rf"\b(?:exfiltrate|leak|smuggle|siphon)\s+[^.!?\n]{{0,40}}?{_SENSITIVE}",
    ),
    PhraseRule(
        name="data-request-9",
        kind="data_request",
        scope="sentence",
        stems="send forward email e-mail post upload submit",
        pattern=r"\b(?:send|forward|e-?mail|post|upload|submit)\s+(?:everything|the\s+(?:summary"
        rf"|conversation|answer|response|output))\s+to\s+{_URL_OR_MAIL}",
    ),
    PhraseRule(
        name="data-request-10",
        kind="data_request",
        scope="sentence",
        stems="sende schick ubermittle leite senden schicken",
        pattern=r"\b(?:sende|schicke?|ubermittle|leite|senden\s+sie|schicken\s+sie)\s+"
        rf"{_CLAUSE}\b(?:(?:des|der|dem|den)\s+(?:nutzer|benutzer|anwender|kunden|leser)\w*"
        r"|nutzerdaten|benutzerdaten|kundendaten|zugangsdaten|passworter|passwort"
        r"|api-schlussel\w*|chatverlauf\w*|gesprachsverlauf\w*|unterhaltung)"
        rf"{_TAIL}\b(?:an|nach|zu)\s+(?:{_URL_OR_MAIL}|diese\s+(?:adresse|url))",
    ),
    PhraseRule(
        name="data-request-11",
        kind="data_request",
        scope="sentence",
        stems="gib$ zeig verrate nenne",
        pattern=r"\b(?:gib|zeige?|verrate|nenne)\s+(?:mir\s+)?(?:deine[nm]?|den|die|ihren|ihre)\s+"
        r"(?:system-?prompts?|(?:versteckten|geheimen|ursprunglichen)\s+"
        r"(?:anweisungen|instruktionen))",
    ),
    PhraseRule(
        name="data-request-12",
        kind="data_request",
        scope="sentence",
        stems="envoie envoyez transmets transmettez transmettre communique partage",
        pattern=r"\b(?:envoie[rz]?|envoyez|transmets|transmettez|transmettre|communique[rz]?"
        rf"|partage[rz]?)\s+{_CLAUSE}\b(?:(?:de\s+)?l'utilisateur|des\s+utilisateurs"
        r"|donnees\s+(?:personnelles|de\s+l'utilisateur)|mots?\s+de\s+passe|identifiants"
        r"|historique\s+(?:de\s+(?:la\s+)?)?(?:conversation|discussion)|cles?\s+(?:d')?api)"
        rf"{_TAIL}\b(?:a|vers|sur)\s+(?:{_URL_OR_MAIL}|cette\s+adresse)",
    ),
    PhraseRule(
        name="data-request-13",
        kind="data_request",
        scope="sentence",
        stems="revele affiche montre donne imprime",
        pattern=r"\b(?:revele[rz]?|affiche[rz]?|montre[rz]?|donne[rz]?|imprime[rz]?)(?:-moi)?\s+"
        r"(?:ton|votre|tes|vos|le|les)\s+(?:prompt\s+(?:systeme|initial)"
        r"|(?:instructions|consignes)\s+(?:systeme|initiales|cachees|secretes))",
    ),
    PhraseRule(
        name="data-request-14",
        kind="data_request",
        scope="sentence",
        stems="envia envie enviar manda mande transmit reenvia comparte",
        pattern=r"\b(?:envia|envie|enviar|manda|mande|transmite|transmita|reenvia|comparte)\s+"
        rf"{_CLAUSE}\b(?:(?:del|de\s+los)\s+usuarios?|datos\s+(?:personales|del\s+usuario)"
        r"|contrasenas?|credenciales|historial\s+(?:de\s+(?:la\s+)?)?(?:conversacion|chat)"
        rf"|claves?\s+(?:de\s+)?api){_TAIL}\b(?:a|hacia|en)\s+"
        rf"(?:{_URL_OR_MAIL}|esta\s+direccion)",
    ),
    PhraseRule(
        name="data-request-15",
        kind="data_request",
        scope="sentence",
        stems="revela muestra imprime dime ensename",
        pattern=r"\b(?:revela|muestra|imprime|dime|ensename)\s+(?:tu|tus|el|las)\s+"
        r"(?:prompt\s+(?:del\s+)?sistema|instrucciones\s+(?:ocultas|iniciales|originales"
        r"|del\s+sistema|secretas))",
    ),
)
