"""The verbs and frames of asking, as data for :mod:`.form`: the words that open a task (its
imperatives, the verbs of making, the German formal imperative, Dutch separable verbs), the
frames a request is put in ("could you", "I need", "pourriez-vous", "Könntest du"), said with or
without their subject, and the pronouns that go with them, in English, French, German, Spanish,
Italian, Portuguese and Dutch. The rest of a request's form (its nouns, the page's own voice, the
thresholds) is in :mod:`.rules_form`.

These are grammar, not attack phrases. Every word is in the scan's normal form (lower case,
accents off, apostrophes folded to ``'``).
"""

from __future__ import annotations

from typing import Final


def words(text: str) -> frozenset[str]:
    """The words of ``text``, as a set."""
    return frozenset(text.split())


def phrases(text: str) -> tuple[tuple[str, ...], ...]:
    """Phrases separated by ``;``, each as its words."""
    return tuple(tuple(phrase.split()) for phrase in text.split(";") if phrase.strip())


TASK_VERBS: Final = words(
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
) | words(
    # Dutch: the imperative (the verb's stem).
    "schrijf geef noem beschrijf vergelijk vertaal vertel bereken bedenk verklaar adviseer"
)
"""Verbs of tasks that ask for words (to write, tell, explain, compare, advise), as they open
an imperative clause."""

MAKING_VERBS: Final = words(
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
ROMANCE_MAKING: Final = words("haz haga fais faites fai faccia faca faz")
"""Verbs of making that take their pronoun attached ("hazme", "fais-moi"): English ones do not
("pickle" is no "pick" for someone)."""
FOR_ME: Final = words("me mir mich moi m'en me mi mij")
NOT_ATTACHED: Final = words("name resume nomme reime")
"""Task verbs that end as if a pronoun were attached to them, with none."""
"""Who a made thing is for, right after the verb."""
MY: Final = words(
    "my mein meine meinen meinem meiner mon ma mes mi mis mio mia miei mie meu minha mijn"
)
"""The asker's own things, right after a verb of making ("Fix my essay", "Check my maths"): a
request when the sentence is long enough not to be a button ("Track my order")."""
MAKING_REACH: Final = 3
"""How many words after a verb of making may name what it makes ("Make a short packing list")."""
MAKING_SENTENCE: Final = 8
"""A verb of making opens a request in a sentence of at least this many words that ends with a
full stop (a page's slogans and buttons are shorter, its calls to action end with "!")."""
DETERMINERS: Final = words(
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
NOUN_AFTER: Final = words("of for with from de des du di von der van")
"""A verb-like word followed by one of these is a noun ("Draft for...", "Outline of...")."""
CONTROLS: Final = words(
    "a button label summary option select nav figcaption caption legend dt h1 h2 h3 h4 h5 h6"
)
"""Elements whose text names, labels or heads something: a request by its form alone inside
one (a hidden heading asking "What's new?", a thumbnail's alt) is the page's own."""

ASKED_FORMS: Final = frozenset({"asking", "frame"})
"""Forms in which someone asks in their own voice ("Can you write...", "I need a..."): no
developer's note about the page is put so, whatever it names (a script, a function)."""
ASKED_QUESTION_WORDS: Final = 10
"""A question this long is asked by someone, not noted by a developer."""
INDEFINITE: Final = words("a an ein eine einen un une una uno um uma")
"""What opens a new thing to make ("a script", "une fonction"): a task's, where a developer's
note names the page's own things ("the script")."""
ASKED_REACH: Final = 4
"""How many of a request's first words may come before the new thing it asks for."""

ANIMATED: Final = frozenset({"transition", "animation", "animation-name", "will-change"})
"""Style properties of an element that fades in: hidden by its opacity beside one of these, it
is an animation's first step."""

FORMAL_INFINITIVES: Final = words(
    "schreiben erklaren beschreiben vergleichen fassen ubersetzen empfehlen schlagen erstellen"
    " entwerfen planen berechnen analysieren bewerten finden zeigen sagen helfen machen"
    " bereiten gestalten formulieren uberlegen prufen korrigieren verfassen stellen nennen"
    " geben listen erzahlen entwickeln skizzieren begrunden"
)
"""German task verbs whose formal imperative is the infinitive followed by ``sie``."""

FORMAL_PRONOUN: Final = "sie"

CALLS_TO_ACTION: Final = words("more all now here out today below")
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
PHRASAL_OPENINGS: Final = phrases(
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
SEQUENCE_WORDS: Final = words(
    "first firstly then next finally zuerst erst dann danach abschliessend d'abord ensuite puis"
    " enfin primero luego despues finalmente prima poi dopo infine primeiro depois"
)
"""Words that may open a task's imperative as one step of several ("First summarise...")."""

DROPPED_SUBJECT: Final = phrases(
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
SEEKING: Final = phrases(
    "searching for; hoping for; buscando; procurando; cercando;"
    " alla ricerca di; a la recherche d'un; a la recherche d'une; auf der suche nach"
)
"""Frames of seeking said without their subject, which open a request only when a task's noun
follows within :data:`SEEKING_REACH` words ("Searching for a good recipe for...", not "Hoping
for a better tomorrow, the town...")."""
SEEKING_REACH: Final = 3
DROPPED_SUBJECT_WORDS: Final = 6
"""How many words such a sentence has at least."""
PLEASE: Final = words("please pls plz bitte svp stp porfa graag alsjeblieft alstublieft aub")
"""A word asking politely, beside a thing named as the task ("Eine Zusammenfassung, bitte."):
with a deliverable among the sentence's first words, a request whatever follows the noun."""
PLEASE_PHRASES: Final = phrases(
    "por favor; per favore; per piacere; s'il te plait; s'il vous plait; se faz favor;"
    " thanks in advance; thx in advance; merci d'avance; danke im voraus; gracias de antemano;"
    " grazie in anticipo; obrigado desde ja; alvast bedankt"
)
STANDING: Final = words(
    "always never only immer nie nur toujours jamais seulement siempre nunca solo sempre mai"
)
"""Adverbs of a standing order, before its imperative ("Always list...", "Cita sempre...")."""
FILLERS: Final = words(
    "please pls plz kindly just perhaps maybe possibly also quickly briefly bitte mal por favor per"
    " porfa graag eens even"
)
"""Words that may stand between a frame of asking and the task ("could you please list")."""

REQUEST_FRAMES: Final = phrases(
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
OWN_PURPOSES: Final = words(
    "goal aim question wish request ziel frage wunsch objectif question souhait objetivo"
    " pregunta deseo obiettivo domanda desiderio pergunta desejo doel vraag wens"
)
"""What the asker's own purpose is called ("My goal is to...", "Mijn vraag is..."): whatever
follows it is what is asked for."""
COPULAS: Final = words("is ist est es e")
"""The verb that says what a task or a purpose is ("The task is...", "Mon objectif est...")."""

ANSWERS: Final = words("yes no ja nein oui non si sim nao")
"""A clause opening with one of these is a choice's button ("No, I don't want to save")."""

ASKING_YOU: Final = phrases(
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
GERMAN_ASKING: Final = words(
    "kannst konntest konnen konnten wurdest wurden kun kan kunt zou wil wilt"
)
"""The first words of German and Dutch frames of asking, whose task verb ends the clause."""
DUTCH_INFINITIVES: Final = words(
    "schrijven uitleggen geven noemen beschrijven vergelijken vertalen vertellen berekenen"
    " bedenken samenvatten voorstellen aanraden adviseren helpen maken opstellen zoeken"
    " verklaren opsommen plannen sturen tonen laten zien uitwerken"
)
"""Dutch task verbs' infinitives, which close a Dutch frame of asking ("Kunt u mij een boek
aanraden?")."""
CLITICS: Final = words("me mi m' te ti t' moi mir mich uns nous nos ci ce se lui le la les")
"""Pronouns that come between a frame of asking and its verb ("me donner", "mi dai")."""
ENCLITICS: Final = ("-me", "-moi", "-nos", "me", "mi", "nos", "ci", "lo", "la", "le", "li")
"""Pronouns a Romance infinitive or imperative takes at its end ("darme", "darmi", "dar-me")."""

KNOWING_YOU: Final = phrases(
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
