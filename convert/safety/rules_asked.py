"""More forms of a request, as data for :mod:`.asked`: questions written without their question
mark, search-box queries, tasks wanted by someone named in the third person, role set-ups, and a
task's head before the text or the constraints it applies to; in English, German, French,
Spanish, Italian and Portuguese.

Grammar, not attack phrases: question words and the auxiliaries that follow them, superlatives,
verbs of wanting, the copula of a role. Every word is in the scan's normal form (lower case,
accents off, apostrophes folded to ``'``).
"""

from __future__ import annotations

from typing import Final

from convert.safety.rules_asking import phrases as _phrases
from convert.safety.rules_asking import words as _words

WH_WORDS: Final = _words(
    "what what's whats which where how why who"
    " was warum wieso weshalb wie welche welcher welches welchen welchem womit wo wozu wer"
    " comment pourquoi combien quel quelle quels quelles qu'est-ce est-ce quoi"
    " como cuanto cuanta cuantos cuantas cual cuales donde"
    " come cosa quanto quanta quanti quante quale quali dove perche"
    " qual quais onde porque que"
)
"""Words that open a question, said without its question mark ("how long should I boil an
egg", "womit sollte er anfangen."): only with an auxiliary, a subject or an infinitive after
them (:data:`QUESTION_VERBS`), since many of them open a relative clause as well."""
STRONG_WH: Final = _words(
    "what's whats pourquoi combien warum wieso weshalb cuanto cuanta cuantos cuantas quanto"
    " quanta quanti quante"
)
"""Question words that open no relative clause, or hold their verb ("what's"): a question
without its mark whatever follows."""
WH_PAIRS: Final = _phrases("por que; che cosa; o que; en que; de que; a que")
"""Two words that open a question as one ("por qué", "o que")."""
QUESTION_VERBS: Final = _words(
    "do does did should could would can is are will shall might need i"
    " man ich kann konnen konnte soll sollte sollten muss mussen ist sind dauert gibt lohnt"
    " brauche brauch mache"
    " je on faut dois peut peuvent puis est sont vaut"
    " puedo debo debe hay conviene es son tengo hago se"
    " posso devo deve conviene si e sono faccio"
    " pode tenho faco sao ha"
)
"""What follows a question word within a few words in a question: an auxiliary or modal, a
subject, a verb that opens questions ("dauert", "conviene"), or "man" ("wie man...")."""
QUESTION_REACH: Final = 3
"""How many words after the question word its verb may come."""
TO_WORDS: Final = _words("to")
""""How to...", "what to...": a question word and the infinitive's "to"."""
YES_NO: Final = _words("is are can do does should could")
YES_NO_SUBJECTS: Final = _words("it there i we")
"""A yes-or-no question without its mark opens with an auxiliary and its subject ("is it safe
to...", "do I need..."); "you" asks about the page's reader as often."""
NOT_QUESTION_AFTER: Final = _words("why whom")
"""A relative clause's words after "which is" ("Which is why...")."""
ASKERS: Final = _words(
    "i i'm i've my we me ich mir mich mein meine je j'ai moi mon ma yo mi puedo debo tengo io"
    " posso devo eu meu minha"
)
"""Without a question mark or a full stop, a question asks only with its asker in it ("how long
should I boil an egg", "was kann ich..."): a search-like caption has none ("how to grow lemon
trees from seeds", an image's alt text)."""
ROMANCE_ARTICLES: Final = _words("o a os as il lo la le les gli el los las l'")
"""A Romance infinitive opens a task's head before its article ("Corrigir o erro:"); an
English word in -er before "the" is no infinitive ("Master the basics:")."""
UNMARKED_WORDS: Final = 6
"""A question without its mark or a full stop has at least this many words ("How it works" is
a label, "welches Lebensmittel soll ich kaufen" an image's caption)..."""
ENDED_UNMARKED_WORDS: Final = 4
"""...one ending with a full stop at least this many ("Womit sollte er anfangen.")."""
SHORT_INFINITIVES: Final = ("are", "ere", "ire", "ar", "er", "ir")
"""Endings of a four-letter Romance infinitive after a question word ("come fare")."""

MORE_DELIVERABLES: Final = _words(
    "consiglio conseil consejo conselho idea tipp"
    " story stories comebacks questions names tips steps ways topics route timetable description"
    " guide overview pointers reading letter cover toast"
    " geschenkideen vorschlage namen satze uberblick ubersicht"
    " poeme idees noms phrases sorties questions suggestions discours"
    " cuento consejos nombres frases preguntas sugerencias correo rutina"
    " racconto nomi frasi domande suggerimenti elenco ricetta"
    " conto nomes frases perguntas sugestoes lista"
)
"""Nouns of what a task asks for besides :data:`~.rules_form.DELIVERABLES`."""
COMPOUND_ENDS: Final = (
    "ideen",
    "liste",
    "plan",
    "tipps",
    "gedicht",
    "rezept",
    "vorschlage",
    "skript",
)
"""German compounds end with the noun they are ("Geschenkideen", "Wochenplan")."""
COMPOUND_MIN: Final = 7
NOUN_HEAD_MAX_PART: Final = 7
"""A constraint after a task's noun is a fragment of at most this many words..."""
NOUN_HEAD_MEAN_PART: Final = 5
"""...and most are shorter: this many words on average (prose after a label is no list)."""
HEAD_MAKING_AFTER: Final = _words("this these into it me")
"""A verb of making opens a task's head when it makes something of the text ("Turn into
bullet points:", "Make this warmer:"), not a page's control ("Check availability:")."""

NOUN_HEAD_WORDS: Final = 4
"""A task's noun before its constraints has at most this many words ("Dinner menu.")."""

WANTING: Final = _phrases(
    "wants; needs; would like; is asking for; asks for; is looking for; expects; is after;"
    " was looking for;"
    " mochte; braucht; will; sucht; wunscht; hatte gern; wird;"
    " souhaite; voudrait; veut; demande; cherche; a besoin d';"
    " quiere; necesita; busca; pide; quisiera; desea;"
    " vuole; chiede; cerca; vorrebbe; ha bisogno di; desidera;"
    " quer; precisa de; procura; pede; gostaria de; deseja;"
    " wil; wilt; zoekt; vraagt om; zou graag"
)
"""Verbs of wanting said of someone else ("The user wants a list of...", "La cliente voudrait
une lettre..."): a task told in the third person when what is wanted (a task's noun or verb)
comes right after."""
WANTING_AT: Final = (1, 4)
"""Where the verb of wanting may stand: after the subject's one to three words."""
WANTED_REACH: Final = 4
"""How many words after the verb of wanting the task's noun or verb may come."""
TASK_NAMES: Final = _words(
    "task goal job request assignment aufgabe ziel tache objectif tarea objetivo compito"
    " obiettivo tarefa opdracht"
)
"""A task's own name, whose "is" names what it asks ("The task is to write...")."""
SUBJECTS: Final = _words(
    "someone somebody jemand quelqu'un alguien qualcuno alguem gesucht iemand"
    " he she they er elle ella lui lei ele ela hij zij"
)
"""Who wants something, said in one word ("Someone is looking for..."); "gesucht wird"."""
WANT_DETERMINERS: Final = _words("the this a der die das le la l' el lo il o a de het")
"""A third-person subject opens with an article ("The client needs...")."""

ROLES: Final = _phrases(
    "you are; you're; pretend you are; pretend you're; imagine you are; imagine you're;"
    " act as if you were; du bist; stell dir vor du bist; tu es; imagine que tu es;"
    " eres; imagina que eres; haz de; sei; fai finta di essere; immagina di essere;"
    " es; finge que es; imagina que es"
)
"""A role set-up ("You are a travel agent.", "Sei un nutrizionista."): its "you" is the one set
the task, no reader spoken to; said in a sentence of its own, it is the task's context."""
ROLE_ARTICLES: Final = _words("a an my un une una uno um uma mein meine ein eine mon ma mi il")
"""A role is a person named with an article ("you are a...", "du bist mein...")."""

HEAD_MAX_WORDS: Final = 7
"""A task's head before the text it applies to ("Fix this function:", "Più formale:") has at
most this many words."""
HEAD_MIN_WORDS: Final = 2
"""A task's head before a text has at least this many words; a task's noun before its
constraints may stand alone ("Poem: four lines, rhyming...")."""
MATERIAL_MIN_WORDS: Final = 3
COMPARATIVES: Final = _words(
    "shorter simpler clearer longer warmer friendlier politer more less"
    " kurzer einfacher freundlicher formeller hoflicher klarer"
    " plus moins mas menos piu meno mais"
)
"""A head that asks for the text changed opens with a comparative ("Shorter please:")."""
HEAD_NOUNS: Final = _words(
    "check correction review proofreading korrektur correction revision correccion revisione"
    " revisao correcao"
)
"""Nouns of a task done to a text, after what it is done for ("Grammar check:", not "Check
availability:")."""
HEAD_THIS: Final = _words(
    "this these that esto esta este isso isto questo ceci cela dies das davon"
)
"""A task's noun that points at the text after it ("Summary of this:", "Resumen de esto:")."""
MATERIAL_SHARE: Final = 0.12
"""A clause whose characters are symbols and digits at this share is code or figures."""
CONSTRAINT_PARTS: Final = 3
"""A task's noun followed by constraints: at least this many parts ("Poem: four lines,
rhyming, about the sea")."""
HEAD_SEPARATORS: Final = ":,.-\u2013\u2014"
