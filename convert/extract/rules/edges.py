"""The edges of the kept content: what opens and ends an article, what follows its end, the
captions of its pictures; and the lead-in sentences that stay."""

from __future__ import annotations

import re

# -- the edges of the kept content (convert/extract/edges.py) --------------------------------------

EDGE_SHORT = 60
"""Characters below which a block at the start or the end of the content is boilerplate
("Home", "Share", "Was this helpful?")..."""
PRICE = re.compile(r"[$€£¥₹]\s?\d|\d[\d.,]*\s?(?:€|£|EUR|USD|GBP|kr|zł|CHF)\b")
"""A price: a short block with one is a product's, not boilerplate."""
SENTENCE_END = re.compile("[.\u3002\uff0e]\\s*$")
LEAD_IN_END = re.compile("[:\uff1a]\\s*$")
"""A block ending so introduces what follows it ("Install the SDK with pip:")..."""
LEAD_IN_TARGETS = frozenset({"pre", "table", "blockquote", "dl", "figure"})
LEAD_IN_LISTS = frozenset({"ul", "ol", "dl"})
"""...when that is a code block, a table, a quote, a definition list or a list's item: it is the
start of the content, never an edge to trim."""
"""A block ending a sentence is prose, however short (CJK sentences are short in characters)."""
SIGN_OFF = re.compile(
    r"^\W*(?:(?:x{1,3}o*x*|xoxo|euer|eure|liebe(?:n)? grüße|viele grüße|herzlichst|"
    r"sei(?:d)? herzlich gegrüßt|bis bald|cheers|best wishes|bisous|besos)\b(?!\W*\?)|"
    r"love,)",
    re.I,
)
"""The writer's sign-off at the end of a post ("Euer Hans", "x Franzi", "Liebe Grüße"): a
short line after the last prose that says so is the post's own, not boilerplate (a closing
exclamation is not asked: "Contact us today!" ends a service page the same way)."""
EDGE_LINKS = 0.5
"""...as is one with at least this share of link text there."""
EDGE_MAX_SHARE = 0.15
"""Share of the content's text the edges may take away at most (a listing of link cards is
not trimmed)."""
EDGE_MIN_BLOCKS = 4
"""Content of fewer blocks is left as it is."""
TITLE_SEPARATOR = re.compile(r"\s+(?:[-|\u2013\u2014\u00b7:\u00bb/]|::)\s+")
"""What separates a page's own title from its site's name in ``<title>`` ("Traits - The Rust
Programming Language"): a heading over the content that says only the site's part is the
site's name, not the page's headline."""

# -- pictures' captions and credits (convert/extract/prune.py) ----------------------------------

CAPTION_TAGS = ("figcaption", "p", "div", "span", "small", "cite", "h2", "h3", "h4", "h5", "h6")
CAPTION_HEADINGS = frozenset({"h2", "h3", "h4", "h5", "h6"})
"""Of those, the ones that are a caption only inside a ``<figure>`` (elsewhere a heading named
"caption" is set in a caption's type: a product card's title)."""
CAPTION_CLASS = re.compile(
    r"(?:^|[\s_-])(?:wp-caption-text|caption|image-?credit|photo-?credit|credits?|"
    r"bildunterschrift|bilduntertitel|bildquelle|bildnachweis|fotonachweis|copyright|legende?|"
    r"didascalia|(?:img|image|photo|foto|bild)[-_]?(?:description|metadata|meta|"
    r"source|author))"
    r"(?:$|[\s_-])"
)
"""A class or id that names a picture's caption or credit."""
PHOTO_CREDIT = re.compile(
    r"(?:^|\W)(?:photo(?:graph)?s?|fotos?|bild(?:er)?|image|picture|credits?|crédits? photos?)"
    r"(?: by| von| de)?\s*[:\uff1a]|"
    r"^\W*(?:(?:photo(?:graph)?s?|fotos?|image) (?:by|von|de|courtesy)\b|©|\(c\)\s)|"
    r"(?:[,:]|(?<!/)/|\bvia|\bby)\s*(?:getty ?images|shutterstock|istock(?:photo)?|"
    r"imago(?: images)?|picture[- ]alliance|dpa|afp|ap photo|keystone|epa|unsplash|pixabay|"
    r"adobe ?stock|"
    r"[\w-]+\.com)[\w /.-]{0,30}\W*$",
    re.I,
)
"""A line that only credits a picture ("Foto: dpa", "(Photo: Getty)", "Name/Getty Images",
"Judy Eddy/WENN.com"): a block no longer than :data:`PHOTO_CREDIT_MAX` that is one goes."""
PHOTO_CREDIT_MAX = 80
NUMBERED_CAPTION = re.compile(
    r"^\W{0,3}(?:figure|fig\.?|table|listing|diagram|chart|exhibit|abbildung|abb\.|tabelle|"
    r"grafik|figura|tabla|tableau|tabela|schéma|图|圖|図|表)\s*\d+(?:[.-]\d+)?[a-z]?\s*[:.)\u2013\u2014-]",
    re.I,
)
"""A caption numbered as the text refers to it ("Figure 1: ...", "Table 2.3 -", "Abb. 4:"): a
technical figure's caption, part of the text, kept where a photo's caption goes."""
CAPTION_MAX = 400
"""Characters above which a block named a caption is text all the same."""


# -- what follows the end of an article (convert/extract/tail.py) -------------------------------

_TAIL_WORDS = (
    r"(?:"
    # English
    r"related(?: \w+)?|more (?:from|in|on|about|like this|stories|articles|news|to read|"
    r"reading)\b.*|read (?:more|next|also|further\b.*)|see also|you (?:may|might) also (?:like|"
    r"enjoy)|recommended(?: for you| reading)?|(?:most|more) (?:read|popular|viewed)|"
    r"popular (?:posts|stories|articles)|latest (?:news|posts|stories|articles)|"
    r"(?:about|more about) the author|about (?:the )?writer|author(?: bio)?|authors|"
    r"tags?|tagged|"
    r"categories|category|share(?: this)?(?: \w+)?|like this|follow us|"
    r"further reading|keep reading|don'?t miss|editor'?s picks?|"
    # German
    r"mehr zu(?:m thema| diesem thema| \w+(?: und \w+)?)?|(?:(?:ähnliche|verwandte) "
    r"(?:beiträge|artikel|themen)|weitere (?:artikel|beiträge|informationen|nachrichten|themen|"
    r"meldungen|news))(?: (?:zu(?:m|r)?|aus|auf|in|von) (?:(?:der|dem|unserem|unserer) )?"
    r"(?:thema|\w+))?|"
    r"lesen sie (?:auch|mehr|weiter)|zum weiterlesen|lust auf mehr|"
    r"auch interessant|empfehlungen(?: aus der redaktion)?|redaktionstipps?|"
    r"siehe auch|über (?:den|die) autor(?:in)?|zu(?:m|r) autor(?:in)?|schlagw(?:o|ö)rter|"
    r"schlagworte|kategorien|teilen(?: sie (?:dies|diesen beitrag) mit)?|gefällt mir|"
    r"meistgelesen(?:e)?(?: (?:artikel|beiträge|news|nachrichten))?|meistdiskutiert(?:e)?"
    r"(?: (?:artikel|beiträge))?|meist kommentiert|kommentierte artikel|viel gelesen(?: in \w+)?|"
    r"top[- ]themen|schon gelesen|auch lesen|entdecke weitere \w+|"
    r"das (?:thema )?könnte (?:sie|dich) (?:auch )?interessieren|"
    # French, Spanish, Italian, Dutch
    r"(?:à|a) lire (?:aussi|également)|lire aussi|sur le même (?:sujet|thème)|articles? "
    r"(?:similaires|liés|les plus lus|recommandés)|dans la même rubrique|"
    r"vous aimerez aussi|à découvrir (?:aussi|également)|"
    r"(?:te|le) puede interesar|(?:artículos|notas|noticias|temas) relacionad[oa]s|"
    r"lee también|"
    r"leggi anche|articoli correlati|potrebbe interessarti|"
    r"lees ook|gerelateerde artikelen|meer (?:over|nieuws)|"
    # Finnish, Polish, Swedish
    r"lue (?:myös|seuraavaksi)|zobacz (?:również|też|także)|czytaj (?:także|też)|"
    r"läs (?:också|mer)"
    r")"
)
TAIL_HEADING = re.compile(rf"^\W*{_TAIL_WORDS}\W*$", re.I)
"""A heading (or a line on its own) that announces what follows an article: related and "more"
stories, the author's box, tags, categories, sharing, in the languages seen most."""
TAIL_LABEL = re.compile(rf"^\W*{_TAIL_WORDS}\s*[:\uff1a]", re.I)
"""The same words as a line's label ("Lue myös: <a>...</a>", "Mehr zum Thema: ..."): with a link
after it, the line points to another story, wherever it stands."""
LABELLED_LINK_MAX = 300
LABELLED_LINK_SHARE = 0.5
"""Such a line goes when at most this long and at least this share of it is links."""
RELATED_BOX_ITEMS = 12
"""Blocks of links (at least :data:`EDGE_LINKS` links) a heading that announces related stories
may head inside an article (a "Mehr zum Thema" box among its paragraphs): the heading and they
go."""
TAIL_MAX_SHARE = 0.4
"""The most of the content's prose (its text outside links) that what follows such a heading may
hold to be cut: a longer part is content that happens to be titled so (a paper's "Related work");
a list of links after a short post is not."""
CARDS_MIN = 2
"""Titles linking to other pages of the site, each with at most a short teaser, that make a run
of other stories' cards at the end of an article..."""
CARD_TEASER_MAX = 320
"""...their teasers at most this long (a longer block outside links is the article's prose)..."""
CARD_HEADING_LINKED = 0.8
"""...and their titles at least this share link text: a heading, or a line no longer than..."""
CARD_TITLE_MAX = 120
CARD_LINK_LEVELS = 4
"""Levels above a title a link may wrap it at most for the title to link to its story (a card
the page makes one link of)."""
ANNOUNCED_CARDS_AFTER = 600
"""Characters of prose an article holds before a heading that announces other stories ("Mehr
zum Thema") for that heading and the cards that fill the rest of the content to go, however long
they are (a listing's first heading has little before it)."""
ANNOUNCED_TEASER_MAX = 600
"""Characters a card's teaser may hold in a run of cards a heading announces (the heading says
what they are, so their teasers may be longer than :data:`CARD_TEASER_MAX`)..."""
CARD_TEXT_BLOCKS = 2
"""...and a card may hold this many blocks of text under its title (a byline and a teaser)."""
SECTION_HEADINGS = frozenset({"h1", "h2"})
"""Headings that, not linked, open a section of the article's own: a run of cards stops there
(lower ones may label a group of cards)."""
TAIL_LINE_MAX = 60
"""Characters a line that is not a heading may hold to announce the tail."""
POST_META = re.compile(
    r"^\W*(?:this (?:entry|post|article) was (?:posted|published|filed)|posted in\b|filed "
    r"under\b|published in\b|tags?:|tagged(?: with)?:|categor(?:y|ies):|"
    r"dieser (?:eintrag|beitrag|artikel|text) wurde|der (?:beitrag|artikel) wurde am|"
    r"erstellt am .{0,40}(?:abgelegt|unter)|veröffentlicht (?:am|in|unter)\b.{0,80}"
    r"(?:kategorie|schlagw|abgelegt)|schlagw(?:o|ö)rter:|kategorien?:|"
    r"publié (?:le|dans)\b.{0,80}(?:catégorie|tags?)|publicado en\b|pubblicato in\b)",
    re.I,
)
"""The line that files a post (where and when it was posted, its tags), wherever it stands."""
POST_META_MAX = 450
"""Characters above which a block starting so is text all the same."""

# -- under the headline (convert/extract/edges.py: clear_masthead) -------------------------------

BYLINE = re.compile(
    r"^\W*(?:by|von|por|par|di|door|av|przez|written by|text(?:o)?:|autor(?:in)?:|author:|"
    r"fotos?:|photos?(?:graph)?(?: by)?:?)\s+\S",
    re.I,
)
"""A line that names who wrote the article or took its pictures ("By Sarah Yang", "Von Anna
Muster", "Por Redacción")..."""
BYLINE_MAX = 80
"""...at most this long (a sentence that starts "By 2030, ..." is longer, or ends as one)."""
DATE_TOKENS = re.compile(
    r"\b(?:jan(?:uary|uar|vier)?|feb(?:ruary|ruar|rero|braio)?|f[ée]vrier|m[aä]r(?:ch|z|s|zo)?|"
    r"apr(?:il|ile)?|avril|abril|ma[iy]o?|mai|juni?o?|june?|juin|giugno|jul(?:y|i|io)?|juillet|"
    r"luglio|aug(?:ust)?|ao[uû]t|agosto|sep(?:t(?:ember|iembre|embre)?)?|okt(?:ober)?|"
    r"oct(?:ober|obre|ubre)?|ottobre|nov(?:ember|embre|iembre)?|de[cz](?:ember|embre|iembre)?|"
    r"d[ée]cembre|dicembre|monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|"
    r"dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lundi|mardi|mercredi|jeudi|vendredi|"
    r"samedi|dimanche|lunes|martes|mi[ée]rcoles|jueves|viernes|s[áa]bado|domingo|updated|"
    r"published|posted|modified|last|aktualisiert|ver[öo]ffentlicht|zuletzt|stand|erstellt|"
    r"mis à jour|publi[ée]|actualizado|publicado|aggiornato|pubblicato|am|um|uhr|on|at|the|"
    r"de|del|le|el|den|der|pm|am|h|min|read|lesezeit|cet|cest|utc|gmt|edt|est|pst)\b|\d+|\W|_",
    re.I,
)
"""What a line that only dates the article is made of: months, weekdays, the words that say
"updated on ... at", numbers and punctuation ("Updated May 06, 2019", "martes, 3 de mayo de
2022 · 23:57", "05.02.2020, 05:00 Uhr", "5 min read")..."""
DATE_SHAPE = re.compile(
    r"\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}|"
    r"\b\d{1,2}\.? ?[a-zäéû]{3,9}\.? \d{4}\b|\b[a-zäéû]{3,9}\.? \d{1,2},? \d{4}\b|\b\d+ ?min\b",
    re.I,
)
"""...and dated by one of these shapes (a price is made of numbers too)..."""
DATELINE_MAX = 60
"""...at most this long."""
MASTHEAD_LINK_MAX = 40
"""Characters of a line that is one link (a section's or a tag's name over the article) below
which it goes from under the headline."""
MASTHEAD_MAX_LINES = 4
"""Lines a masthead holds at most: more such lines under a headline are a collection's items."""
MASTHEAD_ENDS_AFTER = 2
MASTHEAD_PROSE = 150
"""Paragraphs of at least this many characters after which the article's text has begun: no
byline, dateline or label is looked for past them..."""
MASTHEAD_MAX_CHARS = 1000
"""...nor past this many characters of text under the headline."""
