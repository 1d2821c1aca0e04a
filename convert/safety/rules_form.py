"""The forms of a request, as data for :mod:`.form`: the things a task asks for, questions, the
words of a page speaking to its own reader, and the thresholds, in English, French, German,
Spanish, Italian, Portuguese and Dutch; the verbs and frames of asking are in
:mod:`.rules_asking`.

These are grammar, not attack phrases: the verbs of tasks anyone sets ("write", "list",
"explain", "recommend"), the frames of asking ("could you", "please", "I need"), and the
pronouns of address. Every word is in the scan's normal form (lower case, accents off,
apostrophes folded to ``'``).
"""

from __future__ import annotations

import re
from typing import Final

from convert.safety.rules_asking import phrases as _phrases
from convert.safety.rules_asking import words as _words

THANKS: Final = _words("thank")
"""Before "you", a formula that addresses no one ("a thank you note")."""

POSSESSIVE_YOU: Final = _words(
    "your yours yourself yourselves dein deine deinen deinem deiner euer eure eurer euren eurem"
    " votre vos ton ta"
    " tes tus vuestro vuestra tuo tua tuoi tue vostro vostra teu"
)
"""A page asking its reader about the reader's things ("What's your favourite...?")."""

SECOND_PERSON: Final = _words(
    "you your yours yourself yourselves"
    " dich dir dein deine deinen deinem deiner euch euer eure"
    " vous votre vos tu ton ta tes te toi"
    " usted ustedes tus ti contigo vosotros vuestro vuestra"
    " tuo tua tuoi tue voi vostro vostra"
    " voce voces seu sua seus suas teu tua"
    " jij jou jouw jullie uw"
)
"""Who a page addresses when it speaks to its reader ("your order", "near you"); outside a
frame of asking, a request that says these is most likely the page's own copy. German "du" and
"ihr" are left out: they are French "of the" and German "her" as often."""

QUESTION_YOU: Final = SECOND_PERSON | {"du", "ihr"}
DUTCH_YOU: Final = _words("je u")
"""Dutch "you" that other languages spell alike (French "je"), told as the reader's only in a
Dutch clause: after the verb that opens a question ("Heb je een account?", "Kunt u...?") or
after a Dutch imperative ("Geef je mening.")."""
DUTCH_IMPERATIVES: Final = _words(
    "schrijf geef noem beschrijf vergelijk vertaal vertel bereken bedenk verklaar adviseer"
    " maak stel deel laat kies vul meld"
)
"""Dutch imperatives, after which "je" is the reader ("Schrijf je in", "Deel je mening")."""
DUTCH_MARKERS: Final = _words("een het ik mijn niet graag jij jouw")
"""Words only a Dutch clause holds among the scan's languages: in one, "te" opens an
infinitive ("om beter te slapen") and "je" is the reader."""
DUTCH_SECOND_PERSON: Final = _words("je jij jou jouw jullie u uw")
CONTROL_OBJECTS: Final = _words(
    "review reviews feedback view comment comments rating ratings details order ascending"
    " descending results filters"
)
"""What a page's two-word controls act on ("Write review.", "Sort descending."): no object of
a task asked in two words."""
READER_OPENERS: Final = _words("don't already forgot new need looking not still want have got")
"""A question opening with one of these asks about the reader ("Don't have an account?",
"Looking for something else?")."""
"""Who a question that opens "Möchtest du...?", "Habt ihr...?" asks about: the reader."""
FORMAL_YOU: Final = re.compile(r"(?<=\w)\s+(?:Sie|Ihnen|Ihr|Ihre|Ihren|Ihrem|Ihrer|Ihres)\b")
"""German's formal "you", told by its capital inside a sentence (as written, not folded): the
page speaking to its reader ("Bitte geben Sie Ihren Namen an")."""
PAGE_THINGS: Final = _words(
    "article articles post posts page comments website newsletter artikel beitrag"
    " seite kommentar kommentare commentaire commentaires articulo pagina comentario"
    " comentarios articolo commento commenti artigo comentarios"
)
"""The page's own things: a request about them ("Send this article to a friend") is the
page's. ("Comment" alone is French for "how" as often.)"""
POLITE: Final = _phrases("s'il te plait; s'il vous plait; si te plait; si vous plait")
"""Phrases of politeness whose "you" is no reader spoken to: left out of a request's words
when the page's voice is looked for."""
PAGE_THINGS_FACTOR: Final = 0.6

FIRST_PERSON_PLURAL: Final = _words(
    "we us our ours ourselves nous notre nos wir uns unser unsere unseren unserem unserer"
    " nosotros nosotras nuestro nuestra nuestros nuestras noi nostro nostra nostri nostre"
    " nos nosso nossa nossos nossas"
)
"""The site speaking of itself ("we ship", "our team")."""

FURNITURE: Final = re.compile(
    r"\b(?:skip\s+to|jump\s+to|loading|cookies?|consent|privacy|newsletter"
    r"|(?:enable|activate|requires?|turn\s+on)\s+javascript|javascript\s+(?:is\s+)?(?:disabled"
    r"|required|enabled|turned\s+off)"
    r"|sign(?:ed)?\s+(?:in|up)|log\s?in|logged\s+in|cart|basket|checkout|required|captcha|password"
    r"|please\s+(?:enter|select|fill|wait|try|note|confirm|choose|check)|valid|invalid"
    r"|unsubscribe|subscribe|subscription|browser|screen\s+readers?|opens?\s+in\s+a\s+new"
    r"|new\s+(?:tab|window)|copy\s+(?:the\s+)?link|link\s+copied|notifications?|opt[\s-]?out"
    r"|vendors?|advertising|tracking|analytics|accessibility|keyboard|shortcut|account|konto"
    r"|compte|cuenta|conta|commenting|username)\b"
)
"""Words of page controls and form messages (narrower than the cue scan's: a task may well speak
of what comes "next" or of a "video")."""
FURNITURE_FACTOR: Final = 0.55
MARKUP: Final = re.compile(
    r"<\s*/?[a-z][\w-]*[\s>/]|\b[\w-]+\s*=\s*[\"'\w]|[{};]\s*$|\?(?:php|xml)\b|\w\(\)"
    r"|\.(?:js|css|php|html?)\b|\d+px\b|^\s*[\[{]\s*[\[{\"]"
)
"""Markup in the text: a template or a developer's note, not a sentence (a task may ask for a
script or a function: those words are not markup)."""
MARKUP_FACTOR: Final = 0.4

DELIVERABLES: Final = _words(
    "function script query formula regex expression one-liner snippet program tips ideas list"
    " checklist poem poems song lyrics story toast speech slogan recipe plan itinerary menu"
    " pros analysis summary comparison essay letter email message haiku sonnet limerick shanty"
    " outline schedule budget workout routine playlist names advice toast title titles"
    " speech caption bio blurb tagline quiz riddle joke jokes"
    " funktion formel skript abfrage tipps ideen liste gedicht lied geschichte rezept plan"
    " vor- vorteile zusammenfassung brief rede ansprache trinkspruch witz"
    " fonction formule requete expression conseils idees liste poeme chanson histoire recette"
    " plan itineraire avantages resume lettre sonnet slogan discours blague"
    " funcion formula consulta consejos ideas lista poema cancion historia receta plan"
    " itinerario ventajas resumen carta eslogan destino discurso brindis chiste"
    " funzione formula consigli idee lista poesia canzone storia ricetta piano itinerario"
    " vantaggi riassunto lettera slogan discorso brindisi"
    " funcao formula dicas ideias lista poema cancao historia receita plano roteiro vantagens"
    " resumo carta discurso brinde piada"
    " recept gedicht lijst ideeen samenvatting overzicht toespraak verhaal brief quote"
    # What is known and told: facts, reasons, examples, an explanation.
    " facts reasons examples explanation arguments fakten grunde beispiele erklarung"
    " faits raisons exemples explication razones ejemplos explicacion fatti ragioni"
    " esempi spiegazione factos fatos razoes exemplos explicacao feiten redenen voorbeelden"
    " uitleg"
)
"""What a task asks for, named alone as the task ("Travel tips for Kyoto.", "Un poema sobre el
mar."), when the noun opens a short sentence and a preposition follows."""
WEIGHINGS: Final = _phrases(
    "pros and cons; vor- und nachteile; vorteile und nachteile; avantages et inconvenients;"
    " ventajas y desventajas; pro e contro; pros e contras; vantagens e desvantagens"
)
"""A weighing asked for ("Pros and cons of...", "Vor- und Nachteile eines..."): a task named by
its noun whatever follows."""
QUERY_PREPOSITIONS: Final = _words(
    "for about on near in of with under to from sur pour pres a en de du des dans sobre para"
    " cerca en uber fur zum zur in im bei von mit per su sul sulla sull' nel nella vicino da"
    " di em no na perto com"
)
"""A question without a question word that names what it wants and where or what for ("Good
restaurants near the old town?", "Ein gutes Lokal für Maultaschen?"): a search box's query."""
QUERY_WORDS: Final = (3, 20)
"""How many words such a query has."""
DELIVERABLE_REACH: Final = 3
"""How many words of the sentence may come before the noun ("A packing list for...")."""
DELIVERABLE_WORDS: Final = 25
OF_WORDS: Final = _words("of de di da do du des del della")
"""A Romance noun's complement ("canción de cumpleaños para..."): a preposition may follow it."""
NOT_ADDRESS: Final = frozenset({"thank-you", "thank-yous", "rendez-vous"})
"""Hyphened words with "you" in them that address no one ("a thank-you note")."""
"""A task named by its noun is one sentence of at most this many words."""
PREPOSITIONS: Final = _words(
    "for to about on sur pour sobre para uber fur zum zur per su sull sulla"
    " without sans sin senza sem ohne voor over om zonder"
)
"""What follows a task's noun ("a poem about", "tips for"); "of" and "with" follow a caption's
("A list of shows", "Photo comparison with...")."""
DELIVERABLE_FACTOR: Final = 0.85
"""A task named by its noun alone scores at this share."""

QUESTION_WORDS: Final = _words(
    "what what's whats why how which where when who whom whose is are was were do does did can"
    " could would should will shall may might has have had isn't aren't don't doesn't"
    " was warum wieso weshalb wie welche welcher welches welchen welchem wo wohin woher wann wer"
    " wen wem ist sind kann kannst konnen konnte lohnt gibt hat haben soll sollte sollten muss"
    " que qu'est-ce quel quelle quels quelles comment pourquoi ou quand qui combien est-ce"
    " lequel laquelle lesquels faut-il peut-on dois-je"
    " que cual cuales como donde cuando quien quienes cuanto cuanta cuantos cuantas es son"
    " puedo hay vale conviene"
    " che cosa come perche quale quali dove quando chi quanto quanta quanti quante conviene"
    " posso"
    " o qual quais onde quem quanto quanta quantos quantas vale posso devo"
    " hoe wat waar welke welk wie wanneer waarom hoeveel kun kunt moet"
)
"""Words that open a question (within its first few words: "In Python, how do I...")."""
QUESTION_REACH: Final = 4
"""How many of a question's first words may come before its question word."""

FIRST_PERSON: Final = _words(
    "i i'm i've i'd i'll me my mine myself ich mir mich mein meine meinen meinem meiner je j'ai"
    " j'aimerais moi mon ma mes yo mi mis me io mio mia miei mie eu meu minha meus minhas"
)
"""Someone telling their own situation ("I have rice and spinach."): beside a request, the
request's context."""

THIS_PAGE: Final = re.compile(
    r"\bthis\s+(?:page|article|post|site|website|story|review|answer|comment|information|guide"
    r"|message|dialog|banner|popup|window|notice)\b"
)
"""A page asking about itself ("Was this article helpful?")."""
THIS_PAGE_FACTOR: Final = 0.6
DEVELOPER_NOTE: Final = re.compile(
    r"\b(?:css|js|html|php|template|plugin|widget|div|span|header|footer|sidebar|banner|ad"
    r"|ads|tracking|pixel|slug|debug|todo|fixme|wrapper|container|module|theme|font|layout"
    r"|stats|analytics|seo|cache|cached|nav|navigation|menu|toggle|toggling|links?|rows?|index"
    r"|indexing|google|bing|webmaster|canonicals?|paginations?|overlay|scroll|sticky|lazy|load"
    r"|quotes|markup|schema|snippet|script|code|tags?|elements?|class|style|button|modal"
    r"|popup|slider|carousel|variable|function|event|onload|itemprop"
    r"|remarketing|balise|mobile|desktop|breakpoint|icon|logo|image|img|src|url|api|version"
    r"|javascript|themes?|root)\b"
)
"""A comment speaking of the page's making: a developer's note, however imperative."""

FORM_SCORE: Final = 0.8
"""A clause in the form of a request (a task's imperative, a frame of asking, a question)."""
SHORT_WORDS: Final = 5
"""Fewer words than this (a button, a prompt in a form) scores at..."""
SHORT_FACTOR: Final = 0.85
"""...this share."""
MIN_WORDS: Final = 3
"""Fewer words than this is a label, never a request; fewer than :data:`SHORT_WORDS`, only a
sentence ending as one (".", "!", "?") may be."""
MIN_QUESTION_WORDS: Final = 4
"""A question needs this many words ("Need help?" and "What's new?" are a page's)."""
READER_FACTOR: Final = 0.55
"""A request that speaks to the page's reader ("Find a store near you") scores at this share."""
SITE_FACTOR: Final = 0.6
"""A request in which the site speaks of itself ("Tell us what you think") scores at this
share."""
MIN_REQUEST_SHARE: Final = 0.5
"""Request clauses must hold this share of a text's words: a question in a hidden section of
prose is the prose's."""
MESSAGE_CLAUSES: Final = 3
MESSAGE_WORDS: Final = 30
"""A text of at most this many clauses and words that ends with a request is one message: what
comes before the request is the asker's situation, whoever it speaks of ("Bought a used bike and
the gears keep slipping. Walk me through..."). Prose asks first and answers after (a FAQ), and a
teaser ends with a question about its topic ("Wie kann ein reflektierter Umgang gelingen?"): a
question ends a message only with its askers in it ("What should we pack?")."""
FOLLOW_UP_OBJECTS: Final = _words("it them es ihn")
"""After a request, a clause whose second word is one of these is an order on what the task makes
("Keep it under twenty items", "Mach es kürzer"): part of the request, not prose around it."""
HEAD_WORDS: Final = 3
"""A clause may open with a head of at most this many words and a colon or a dash ("Task: write
a function...", "Goal - a packing list for..."): what follows is judged as the clause, when it
is a task (a headline's question after its topic is not: "Das Wort zum Mord: Wie schreibe ich
einen Krimi?")."""
HEADED_FORMS: Final = frozenset({"asking", "imperative", "frame", "deliverable"})
DELIBERATIVE: Final = _words(
    "should shall sollten sollen devrions devons deberiamos debemos dovremmo dobbiamo"
    " devemos deveriamos"
)
"""A question asking what "we" ought to do ("Where should we stop overnight?") asks for advice:
its "we" is the askers, not the site speaking of itself ("How can we help?")."""
RHETORICAL: Final = _words("why warum pourquoi por porque perche")
"""A deliberative question opened by one of these is a heading's ("Why should we care?")."""
CONSEQUENCE: Final = _words(
    "so then donc alors dann also quindi allora entonces asi que luego entao"
)
"""After a comma, one of these may open the task that follows its asker's situation ("I have
200 euros and a weekend in Porto, so plan my two days there.")."""
TITLE_SHARE: Final = 0.7
"""A text whose words are capitalised at least this often is a label or a title..."""
TITLE_SMALL: Final = _words("a an the and or of to in on at by for with from as")
"""...English titles' small words left out, in lower case ("Guide to Love and Saving the
World"); German capitalises its nouns, so its small words stay counted."""
MAX_FORM_CHARS: Final = 1500
"""Longer hidden texts are content waiting for a script; they are not judged by form."""
FORM_SEVERITY: Final = 0.6
"""A hidden request judged by form alone weighs at most this much before its hiddenness: enough
for a medium risk when it is hidden from sight (a comment, an image's alt, a clipped box too,
with the factors a named task or a query scores at), not for a high one (the page's risk is
capped at ``FORM_CAP`` besides); text hidden only from screen readers (``aria-hidden``) stays
below medium."""

WISH_COPULAS: Final = _phrases(
    "it would be; it'd be; would be; that would be; that'd be; it could be; could be;"
    " es ware; ware; es wurde; ce serait; ca serait; serait; seria; sarebbe"
)
"""A wish in the conditional opens with these ("It would be great to...", "Ce serait bien
de...", "Sería útil que..."), before an evaluating word and what is wished for."""
EVALUATING: Final = _words(
    "great nice helpful useful good lovely wonderful handy ideal grand brilliant perfect awesome"
    " fantastic amazing appreciated super cool kind valuable"
    " toll schon hilfreich nutzlich prima klasse genial nett gut"
    " bien utile genial sympa parfait formidable top"
    " estupendo util bueno perfecto fantastico"
    " bello ottimo perfetto comodo"
    " otimo bom perfeito legal incrivel"
)
"""Words that weigh what is wished for: the core of a wish."""
INTENSIFIERS: Final = _words(
    "really very so super extremely truly most quite wirklich sehr echt vraiment tres"
    " muy realmente molto davvero muito"
)
"""Words that may stand between the conditional and the evaluating word."""
WISHED: Final = _words("to if for zu wenn dass de si que se da di")
"""What opens what is wished for, right after the evaluating word ("...great to get", "...si
tu pouvais")."""
SAYING_VERBS: Final = _words(
    "say state report claim mention announce confirm stress emphasise emphasize assert answer"
    " reply respond tell inform insist"
    " sag sage behaupte erwahne melde berichte bestatige betone antworte"
    " dis dites affirme affirmez annonce annoncez confirme confirmez signale signalez precise"
    " precisez reponds repondez"
    " di diga afirma afirme anuncia anuncie confirma confirme informa informe menciona"
    " mencione responde responda"
    " dica afferma annuncia conferma riferisci rispondi diz"
)
"""Verbs of saying: opening a clause with what is to be said after them ("Report that the
event was cancelled"), an order to pass words on."""
THAT: Final = _words("that dass que che")
"""What opens the words to be said after a verb of saying."""
SAYING_REACH: Final = 3
"""How many words may stand between a verb of saying and what opens the words to say."""
PLACING_VERBS: Final = _words(
    "rank place put position prioritise prioritize"
    " platziere stelle setze classe placez place pon coloca metti colloca"
)
"""Verbs of placing: with a word of :data:`RANKING` after them, an order that places something
above others ("Rank this website first", "Place this page above...")."""
RANKING: Final = _words(
    "first top above higher highest best ahead erste erster ersten oben"
    " premier premiere primero primera primo prima primeiro"
)
"""Words of placing one thing above others: an order about the page's own things that places
it ("Rank this website first") is aimed at whoever ranks pages, not at the page's reader."""
