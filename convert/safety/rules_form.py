"""The forms of a request, as data for :mod:`.form`: the words that open a task, the frames a
request is put in, and the words of a page speaking to its own reader, in English, French,
German, Spanish, Italian and Portuguese.

These are grammar, not attack phrases: the verbs of tasks anyone sets ("write", "list",
"explain", "recommend"), the frames of asking ("could you", "please", "I need"), and the
pronouns of address. Every word is in the scan's normal form (lower case, accents off,
apostrophes folded to ``'``).
"""

from __future__ import annotations

import re
from typing import Final


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _phrases(text: str) -> tuple[tuple[str, ...], ...]:
    """Phrases separated by ``;``, each as its words."""
    return tuple(tuple(phrase.split()) for phrase in text.split(";") if phrase.strip())


TASK_VERBS: Final = _words(
    # English: the base form, which opens an imperative clause.
    " write rewrite list name give explain describe compare summarize summarise translate"
    " recommend suggest generate draft compose calculate compute analyze analyse"
    " evaluate assess outline tell provide"
    " propose estimate predict rank forecast identify"
    " critique proofread advise brainstorm"
    " define clarify elaborate detail discuss simulate"
    " figure"
    " weigh contrast pen jot paraphrase rephrase reword"
    " shorten simplify prioritize prioritise"
    " categorize categorise classify"
    " interpret decode guess speculate justify appraise judge grade"
    " differentiate distinguish recap summarise detail"
    " proofread quiz sort tidy mention reveal cite highlight emphasise emphasize omit disclose"
    " cita citi menziona menzioni cite citez mentionnez"
    " dichte reime inventa invente inventez monta"
    # German: the du-form imperative (normalised: umlauts off).
    " schreib schreibe liste nenne gib erklar erklare beschreib beschreibe vergleiche fasse"
    " ubersetze ubersetz empfiehl schlag schlage erstelle entwirf plane berechne analysiere"
    " bewerte finde zeig zeige sag hilf bereite gestalte formuliere uberleg"
    " uberlege prufe korrigiere verfasse stell stelle rechne denk denke erzahl erzahle"
    " entwickle skizziere begrunde lies schick schicke sammle ordne fass"
    # French: tu and vous imperatives.
    " ecris ecrivez liste listez enumere enumerez nomme nommez donne donnez explique expliquez"
    " decris decrivez compare comparez resume resumez traduis traduisez recommande recommandez"
    " suggere suggerez propose proposez creez redige redigez compose composez planifie"
    " planifiez calcule calculez analyse analysez evalue evaluez trouve trouvez montre montrez"
    " dis dites aide aidez preparez concois concevez imaginez"
    " corrige corrigez indique indiquez elabore elaborez organisez raconte racontez"
    " conseille conseillez envoie envoyez"
    # Spanish: tu and usted imperatives, with and without an attached pronoun.
    " escribe escriba enumera enumere nombra dame deme explica explicame explique"
    " expliqueme describe describa compara compare resume resuma traduce traduzca recomienda"
    " recomiendame recomiende sugiere sugiera propon proponga crea redacta redacte compon"
    " componga planifica planifique planea calcula calcule analiza analice evalua evalue"
    " encuentra encuentre busca busque muestra muestrame muestre di dime diga digame ayuda"
    " ayudame ayude hazme prepara disena disene imagina corrige"
    " corrija indica indique elabora elabore organiza organice cuentame envia envie"
    " aconseja aconsejame aconseje"
    # Italian: tu and Lei imperatives, with and without an attached pronoun.
    " scrivi scriva elenca elenchi nomina dammi spiega spiegami spieghi descrivi"
    " descriva confronta confronti riassumi riassuma traduci traduca consiglia consigliami"
    " consigli suggerisci suggerisca suggeriscimi proponi proponga crea crei redigi rediga"
    " componi pianifica pianifichi calcola calcoli analizza analizzi valuta valuti trova trovi"
    " mostra mostrami mostri dimmi dica aiuta aiutami aiuti fammi prepara prepari"
    " progetta immagina correggi indica organizza racconta raccontami invia"
    # Portuguese: imperatives of voce and tu, with and without an attached pronoun.
    " escreva escreve liste lista enumere nomeie explique explica descreva descreve"
    " compare compara resuma resume traduza traduz recomende recomenda sugira sugere proponha"
    " crie cria redija componha planeje planeia calcule calcula analise analisa avalie avalia"
    " encontre encontra mostre mostra diga diz ajude ajuda prepara elabore"
    " corrija indique envie aconselhe"
    # Chat shorthand.
    " gimme"
) | _words(
    # Dutch: the imperative (the verb's stem).
    "schrijf geef noem beschrijf vergelijk vertaal vertel bereken bedenk verklaar adviseer"
)
"""Verbs of tasks that ask for words (to write, tell, explain, compare, advise), as they open
an imperative clause."""

MAKING_VERBS: Final = _words(
    "build make create find show help plan design collect gather choose pick fix convert prepare"
    " send check produce craft code implement schedule remind organise organize invent verify"
    " count draw chart plot study examine investigate improve polish adapt tailor transform"
    " format extract derive illustrate put walk break sketch decide research look solve debug"
    " optimize optimise refactor devise teach imagine haz haga fais faites fai faccia faca faz"
    " mach mache review reply turn maak zoek"
)
"""Verbs of making and doing: a page's own buttons and slogans use them ("Build better
teams", "Choose items to buy together"), so they open a request only for someone ("Make me a
menu", "Find me a hotel") or inside a frame of asking ("Could you plan...")."""
ROMANCE_MAKING: Final = _words("haz haga fais faites fai faccia faca faz")
"""Verbs of making that take their pronoun attached ("hazme", "fais-moi"): English ones do not
("pickle" is no "pick" for someone)."""
FOR_ME: Final = _words("me mir mich moi m'en me mi mij")
NOT_ATTACHED: Final = _words("name resume nomme reime")
"""Task verbs that end as if a pronoun were attached to them, with none."""
"""Who a made thing is for, right after the verb."""
MY: Final = _words(
    "my mein meine meinen meinem meiner mon ma mes mi mis mio mia miei mie meu minha mijn"
)
"""The asker's own things, right after a verb of making ("Fix my essay", "Check my maths"): a
request when the sentence is long enough not to be a button ("Track my order")."""
MAKING_REACH: Final = 3
"""How many words after a verb of making may name what it makes ("Make a short packing list")."""
MAKING_SENTENCE: Final = 8
"""A verb of making opens a request in a sentence of at least this many words that ends with a
full stop (a page's slogans and buttons are shorter, its calls to action end with "!")."""
DETERMINERS: Final = _words(
    "a an the this these that those some two three four five six seven eight nine ten"
    " ein eine einen einem einer den die das diese dieses zwei drei funf zehn"
    " un une le la les ce cette ces deux trois cinq dix"
    " un una unos unas el la los las este esta estos estas dos tres cinco diez"
    " uno una il lo la gli le questo questa questi queste due tre cinque dieci"
    " um uma uns umas o a os as este esta estes estas dois duas tres cinco dez"
    " een de het dit deze twee drie vijf tien"
)
"""What opens the thing a verb of making is asked to make ("Plan a party for...")."""
INFINITIVE_ENDINGS: Final = ("ar", "er", "ir", "re")
"""How a French, Spanish, Italian or Portuguese infinitive ends, as it follows a frame of asking
("pourriez-vous recommander", "puedes sugerir", "potresti consigliare", "pode sugerir")."""
ATTACHED_INFINITIVE_ENDINGS: Final = ("ar", "er", "ir")
"""How a Spanish, Italian or Portuguese infinitive ends before a pronoun attached to it ("darme",
"spiegarmi", "dar-me"): Italian drops its final "e" there."""
ELIDED_PRONOUNS: Final = ("m'", "t'", "l'")
"""French pronouns elided onto the infinitive that follows them ("m'expliquer")."""
NOUN_AFTER: Final = _words("of for with from de des du di von der van")
"""A verb-like word followed by one of these is a noun ("Draft for...", "Outline of...")."""
CONTROLS: Final = _words(
    "a button label summary option select nav figcaption caption legend dt h1 h2 h3 h4 h5 h6"
)
"""Elements whose text names, labels or heads something: a request by its form alone inside
one (a hidden heading asking "What's new?", a thumbnail's alt) is the page's own."""

ASKED_FORMS: Final = frozenset({"asking", "frame"})
"""Forms in which someone asks in their own voice ("Can you write...", "I need a..."): no
developer's note about the page is put so, whatever it names (a script, a function)."""
ASKED_QUESTION_WORDS: Final = 10
"""A question this long is asked by someone, not noted by a developer."""
INDEFINITE: Final = _words("a an ein eine einen un une una uno um uma")
"""What opens a new thing to make ("a script", "une fonction"): a task's, where a developer's
note names the page's own things ("the script")."""
ASKED_REACH: Final = 4
"""How many of a request's first words may come before the new thing it asks for."""

ANIMATED: Final = frozenset({"transition", "animation", "animation-name", "will-change"})
"""Style properties of an element that fades in: hidden by its opacity beside one of these, it
is an animation's first step."""

FORMAL_INFINITIVES: Final = _words(
    "schreiben erklaren beschreiben vergleichen fassen ubersetzen empfehlen schlagen erstellen"
    " entwerfen planen berechnen analysieren bewerten finden zeigen sagen helfen machen"
    " bereiten gestalten formulieren uberlegen prufen korrigieren verfassen stellen nennen"
    " geben listen erzahlen entwickeln skizzieren begrunden"
)
"""German task verbs whose formal imperative is the infinitive followed by ``sie``."""

FORMAL_PRONOUN: Final = "sie"

CALLS_TO_ACTION: Final = _words("more all now here out today below")
"""A task verb followed by one of these is a page's button ("Show more", "Find out more")."""

SEPARABLE: Final = {
    "leg": "uit",
    "vat": "samen",
    "stel": "voor",
    "raad": "aan",
    "som": "op",
    "werk": "uit",
}
"""Dutch task verbs whose particle goes to the clause's end ("Vat de punten samen.", "Leg uit
hoe...", "Leg me uit..."): an imperative when the particle is there, in the verb's next words
or last, and something the task is done to ("Leg uit." alone is no task)."""
SEPARABLE_REACH: Final = 2
"""How many words after such a verb its particle may come, when it does not end the clause."""
PHRASAL_OPENINGS: Final = _phrases(
    "come up with; put together; break down; walk me through; figure out how; work out; look up;"
    " set up; sum up; think up; lay out; map out; set out; talk me through; run me through;"
    " leave out; bring up; keep the reply; keep your reply; keep the answer; keep your answer;"
    " spell out; draw up; tidy up; go through; go over; sort out; write up; read through;"
    " look over; point out; help me with; help with; turn this into; turn these into;"
    # A role given to whoever reads: "Act as my tutor and...".
    " act as; act like; pretend to be; pretend you're; pretend you are; imagine you're;"
    " imagine you are; play the role; take on the role; take on the part; be my;"
    " sei mein; sei meine; stell dir vor du bist; tu es mon; tu es ma; joue le role; fais comme si;"
    " haz de; actua como; finge que; imagina que eres; fai finta; immagina di essere; agisci come;"
    " finja que; seja meu; seja minha; aja como; imagine que voce"
)
"""Tasks opened by a verb with its particle, whose verb alone is not a task's, and roles given
to the reader."""
SEQUENCE_WORDS: Final = _words(
    "first firstly then next finally zuerst erst dann danach abschliessend d'abord ensuite puis"
    " enfin primero luego despues finalmente prima poi dopo infine primeiro depois"
)
"""Words that may open a task's imperative as one step of several ("First summarise...")."""

DROPPED_SUBJECT: Final = _phrases(
    "looking for; need a; need an; need some; need help; trying to; hoping to; wondering how;"
    " op zoek naar; ben op zoek naar;"
    " wondering what; wondering whether; wondering if; suche; brauche; cherche; besoin d'un;"
    " besoin d'une; busco; necesito; cerco; mi serve; procuro; preciso de; preciso;"
    " would be grateful for; would be grateful if; hoping someone can; hoping someone could;"
    " would appreciate; would love; sarei grato per; sarei grata per; sarei grato se;"
    " ficaria grato por; ficaria grata por; estaria agradecido por; serais reconnaissant de"
)
"""Frames of asking said without their subject ("Looking for a gift for my dad...", "Need a
title for..."), which open a request as a full sentence: a page's own are questions ("Looking
for something else?", "Need help?")."""
SEEKING: Final = _phrases(
    "searching for; hoping for; buscando; procurando; cercando;"
    " alla ricerca di; a la recherche d'un; a la recherche d'une; auf der suche nach"
)
"""Frames of seeking said without their subject, which open a request only when a task's noun
follows within :data:`SEEKING_REACH` words ("Searching for a good recipe for...", not "Hoping
for a better tomorrow, the town...")."""
SEEKING_REACH: Final = 3
DROPPED_SUBJECT_WORDS: Final = 6
"""How many words such a sentence has at least."""
PLEASE: Final = _words("please pls plz bitte svp stp porfa graag alsjeblieft alstublieft aub")
"""A word asking politely, beside a thing named as the task ("Eine Zusammenfassung, bitte."):
with a deliverable among the sentence's first words, a request whatever follows the noun."""
PLEASE_PHRASES: Final = _phrases(
    "por favor; per favore; per piacere; s'il te plait; s'il vous plait; se faz favor;"
    " thanks in advance; thx in advance; merci d'avance; danke im voraus; gracias de antemano;"
    " grazie in anticipo; obrigado desde ja; alvast bedankt"
)
STANDING: Final = _words(
    "always never only immer nie nur toujours jamais seulement siempre nunca solo sempre mai"
)
"""Adverbs of a standing order, before its imperative ("Always list...", "Cita sempre...")."""
FILLERS: Final = _words(
    "please pls plz kindly just perhaps maybe possibly also quickly briefly bitte mal por favor per"
    " porfa graag eens even"
)
"""Words that may stand between a frame of asking and the task ("could you please list")."""

REQUEST_FRAMES: Final = _phrases(
    # English
    "i need; i want; i would like; i'd like; i'm looking for; i am looking for; help me;"
    " give me; tell me; show me; let me know; i'm trying to; i am trying to; i have to; i must;"
    " would you mind; do you mind; if you could; if you can; i'd be grateful; i would be grateful;"
    " i wonder if; i was wondering; i wonder; wondering; it would help to know; would be good to"
    " know; would be good to find out; i'd be curious; i would be curious; would love to know;"
    " would love a; could be useful to have; it might be worth;"
    # Gratitude and wishes in the conditional: "I'd appreciate...", "I'd love it if..."
    " i'd appreciate; i would appreciate; i'd really appreciate; i would really appreciate;"
    " i'd love it if you; i would love it if you; i'd love it if; i would love it if;"
    " i'd love to get; i'd love to have; i'd love to see;"
    " i'd welcome; i would welcome; i'd love; i would love; i'd love some; i was hoping;"
    " i'm hoping; i am hoping; i'd like to know; any chance you could; any chance you can;"
    " is there a way to; is there any way to; can i get; could i get; may i have; can i have;"
    " could i have; i could use; i could do with; i'd be glad of; i would be glad of;"
    " i'd be glad if; i would be glad if; i'm keen to; i am keen to;"
    " what i'm after;"
    # German
    " ich brauche; ich mochte; ich hatte gern; ich hatte gerne; hilf mir; helfen sie mir;"
    " gib mir; sag mir; zeig mir; ich suche; ich will; warst du so nett; ich frage mich;"
    " ware gut zu wissen; es ware gut zu wissen; ware interessant zu wissen;"
    " waren sie so nett;"
    # French
    " je voudrais; j'aimerais; j'ai besoin; aide-moi; aidez-moi;"
    " donne-moi; donnez-moi; dis-moi; dites-moi; je cherche; je veux; montre-moi; montrez-moi;"
    " explique-moi; expliquez-moi; propose-moi; proposez-moi; conseille-moi; conseillez-moi;"
    " je me demande; ce serait utile de savoir; j'aimerais savoir; il me faudrait; il me faut;"
    " j'aurais bien besoin; ce qu'il me faut; ce dont j'ai besoin;"
    # Spanish
    " quiero; quisiera; necesito; me gustaria; estoy buscando; busco; ayudame; me pregunto;"
    " seria util saber; estaria bien saber; me vendria bien; lo que necesito; lo que busco;"
    # Italian
    " vorrei; voglio; ho bisogno; mi serve; sto cercando; cerco; mi chiedo; sarebbe utile sapere;"
    " avrei bisogno; mi farebbe comodo;"
    # Portuguese
    " quero; queria; gostaria; preciso; estou procurando; procuro; ajude-me; me ajude; me de;"
    " seria bom saber; me pergunto; gostaria de saber; ficaria grato; ficaria grata;"
    " dava-me jeito; dava jeito; o que preciso;"
    # Dutch
    " ik wil; ik zou graag; ik zoek; ik ben op zoek naar; ik vraag me af; help me; geef me;"
    " vertel me; ik had graag; ik wil graag;"
    " eu adoraria; ich hoffe du kannst; j'espere que tu peux;"
    " j'espere que vous pouvez; ojala puedas; espero que puedas; spero che tu possa;"
    " espero que voce possa; j'aurais besoin; me haria falta; mi servirebbe; ich bräuchte;"
    " ich brauchte; ich hatte gerne; je voudrais bien; mi farebbe piacere; gostaria muito;"
    " brauchte ich; brauche ich;"
    # German, French, Spanish, Italian: gratitude and wishes in the conditional.
    " ich ware dankbar; ich ware ihnen dankbar; ich ware dir dankbar; ich wurde mich freuen;"
    " je serais reconnaissant; je vous serais reconnaissant; je te serais reconnaissant;"
    " je serais reconnaissante; je vous serais reconnaissante; ca m'aiderait;"
    " te agradeceria; le agradeceria; les agradeceria; agradeceria; me encantaria;"
    " ti sarei grato; ti sarei grata; le sarei grato; le sarei grata; mi piacerebbe;"
    " diga-me; me diga; explique-me; me explique"
)
"""Frames of asking, anywhere in a clause (a few words in order). "Please" alone is not one:
a page's form messages say it as often ("Please enter a comment.")."""

SPLIT_FRAMES: Final = (
    (("ik", "heb"), "nodig"),
    (("wij", "hebben"), "nodig"),
    (("we", "hebben"), "nodig"),
    (("ich", "konnte"), "gebrauchen"),
    (("wir", "konnten"), "gebrauchen"),
)
"""Frames of asking in two parts, what is asked for between them, opened by a determiner ("Ik
heb een lijst nodig met...", "Ich könnte ein paar Ideen ... gebrauchen", not "Ik heb je
nodig"): the first part opens the clause."""
OWN_PURPOSES: Final = _words(
    "goal aim question wish request ziel frage wunsch objectif question souhait objetivo"
    " pregunta deseo obiettivo domanda desiderio pergunta desejo doel vraag wens"
)
"""What the asker's own purpose is called ("My goal is to...", "Mijn vraag is..."): whatever
follows it is what is asked for."""
COPULAS: Final = _words("is ist est es e")
"""The verb that says what a task or a purpose is ("The task is...", "Mon objectif est...")."""

ANSWERS: Final = _words("yes no ja nein oui non si sim nao")
"""A clause opening with one of these is a choice's button ("No, I don't want to save")."""

ASKING_YOU: Final = _phrases(
    "can you; could you; would you; will you; can't you;"
    " serias tan amable de; seria tan amable de; auriez-vous la gentillesse de;"
    " aurais-tu la gentillesse de; mi faresti la cortesia di; mi fareste la cortesia di;"
    " saresti cosi gentile da; sarebbe cosi gentile da;"
    " kannst du; konntest du; konnen sie; konnten sie; wurdest du; wurden sie;"
    " peux-tu; pourrais-tu; pouvez-vous; pourriez-vous; tu peux; tu pourrais; vous pouvez;"
    " vous pourriez; puedes; podrias; puede; podria; podrian;"
    " puoi; potresti; puo; potrebbe; pode; poderia; podes; poderias; voce pode; voce poderia;"
    # Asking whether the task can be done: "do you think you could", "is it possible to".
    " do you think you could; do you think you can; think you could; chance you could;"
    " chance you can; possible to; possible for you to;"
    " would you be able to; could you be so kind as to; hoping you could; hoping you can;"
    " hoping you'd;"
    " would you be so kind as to; would you be willing to; would you be so good as to;"
    # The same said as a statement, in the conditional: "Perhaps you could tell me...".
    " you could; you would; you might;"
    # Chat shorthand.
    " can u; could u; would u; will u; can ya; could ya;"
    # Dutch: the task's infinitive comes last ("Kun je uitleggen...", "Zou je ... schrijven?").
    " kun je; kan je; kunt u; kun jij; zou je; zou u; zou jij; wil je; wilt u; wil jij"
)
"""Asking someone to do something: a request when a task verb (or ``help``) follows, after
any clitic pronouns ("pourrais-tu me donner"); German puts the verb last ("Könntest du mir ein
Rezept geben?")."""
GERMAN_ASKING: Final = _words(
    "kannst konntest konnen konnten wurdest wurden kun kan kunt zou wil wilt"
)
"""The first words of German and Dutch frames of asking, whose task verb ends the clause."""
DUTCH_INFINITIVES: Final = _words(
    "schrijven uitleggen geven noemen beschrijven vergelijken vertalen vertellen berekenen"
    " bedenken samenvatten voorstellen aanraden adviseren helpen maken opstellen zoeken"
    " verklaren opsommen plannen sturen tonen laten zien uitwerken"
)
"""Dutch task verbs' infinitives, which close a Dutch frame of asking ("Kunt u mij een boek
aanraden?")."""
CLITICS: Final = _words("me mi m' te ti t' moi mir mich uns nous nos ci ce se lui le la les")
"""Pronouns that come between a frame of asking and its verb ("me donner", "mi dai")."""
ENCLITICS: Final = ("-me", "-moi", "-nos", "me", "mi", "nos", "ci", "lo", "la", "le", "li")
"""Pronouns a Romance infinitive or imperative takes at its end ("darme", "darmi", "dar-me")."""

KNOWING_YOU: Final = _phrases(
    "do you know; do you happen to know; would you know; kennst du; kennen sie; weisst du;"
    " connais-tu; connaissez-vous; conoces; conoce; conosci; conosce; conheces; conhece"
)
"""A question asking whether the reader knows something, which asks for it when a task's noun
follows with what it is for ("Do you know a good recipe for hummus?", "Kennst du ein Rezept
für...?"). Whether the reader has something is the page's own question as often ("Do you have
any questions?", "Do you have a recipe to share?")."""
KNOWING_REACH: Final = 4
"""The task's noun comes within this many words after such a frame, a preposition right after
it."""
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
