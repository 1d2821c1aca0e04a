"""The rules of authors, bylines and dates, as data: the names that name nobody, the words of a
byline ("By", "Written by") and where a name in it ends, the classes and links of an author's
element, forum software's conventions, the labels of a date ("Published", "Updated"), month
names, and the thresholds the byline reader uses. :mod:`convert.metadata.byline`,
:mod:`convert.metadata.authors` and :mod:`convert.metadata.values` iterate them; a rule is read
and changed here without reading the algorithm (the sources each field is read from are in
:mod:`convert.metadata.rules`)."""

from __future__ import annotations

import re

# -- authors ------------------------------------------------------------------------------------

JUNK_AUTHORS = frozenset(
    {"admin", "administrator", "author", "authors", "by", "editor", "guest", "user", "unknown",
     "anonymous", "webmaster", "root", "wordpress", "wpadmin", "null", "undefined", "none",
     "n/a", "name", "your name", "share", "follow", "posted by", "written by", "authored by"}
)  # fmt: skip
"""Author values that name nobody (compared in lower case)."""
AUTHOR_MAX_CHARS = 160
AUTHOR_MAX_WORDS = 8
"""Words of one name at most (a longer text is a sentence, not a byline)."""
LOWERCASE_NAME_WORDS = 3
"""Words of a name in lower case ("jane doe") taken from a field that holds only a name; a
longer text in lower case is a phrase."""
AUTHOR_LABEL = re.compile(
    r"^\s*(?:(?:written|posted|published|reported|compiled|words|story|text|article|blog post|"
    r"authored)\s+by|by|author(?:s|ed by)?\s*:|authors?|von|par|por|di|door|av)\b\s*:?\s*",
    re.I,
)
"""The words before a name in a byline ("By", "Written by", "Author:"), removed."""
AUTHOR_CUT = re.compile(
    r"\s*(?:\||\bon behalf of\b|\bin collaboration\b|\u2022|\u00b7|\u2014|\u2013|\s-\s|/\s|"
    r"\bon\s+(?=\w+\s+\d)|\bupdated\b|"
    r"\bpublished\b|\bposted\b|\blast\b|\bposted on\b|\breviewed\b|\bfact[- ]checked\b|"
    r"\bedited by\b|\d{1,2}\s*min(?:ute)?s?\s+read|\bfollow\b|\bshare\b|\bemail\b|\bbio\b|"
    r"\bview all\b|\bmore from\b|\barticles by\b|\bsee all\b|\bcontributor\b|\bstaff writer\b)",
    re.I,
)
"""Where the name in a byline ends: a separator, a date label, a read time, a profile link."""
AUTHOR_ROLE = re.compile(
    r",\s*(?:[\w-]+\s+){0,2}(?:journalist|reporter|correspondent|columnist|desk|contributor|"
    r"staff writer|educators?|writer)\s*$",
    re.I,
)
"""A role after a byline's name ("Jane Doe, Journalist", "..., Global Desk"): not the name."""
AUTHOR_CLASS = re.compile(
    r"(?:^|[-_\s])(?:author|authors|byline|by-line|writer|contributor|creator|posted-by|"
    r"postedby|article-author|author-name|authorname|byline-name)(?:$|[-_\s])",
    re.I,
)
"""Class, id or ``rel`` words of the element holding a byline's name."""
AUTHOR_CLASS_SKIP = re.compile(
    r"(?:^|[-_])(?:bio|box|avatar|image|img|photo|pic|picture|description|about|social|follow|"
    r"card|more|title|role|job|position|date|time)$",
    re.I,
)
"""The last part of an author word ("author-bio", "author-box") that marks the author's picture
or biography, not the name ("author-box__name" is the name; "jobber-hero__author" has no
part named "job")."""
AUTHOR_ELEMENTS_READ = 30
"""Elements with an author class read anywhere on the page, at most, when neither the page's
statements nor its byline name the author (an author box at the article's end or beside it)."""
AUTHOR_FURNITURE = ("nav", "form", "button", "label", "select")
"""Ancestors that make an author element page furniture (a menu's, a form's)."""
AUTHOR_ELSEWHERE_SKIP = re.compile(
    r"comment|repl(?:y|ies)|testimonial|review|related|customer|modal", re.I
)
"""Classes of the blocks whose author elements name someone else than the page's author (a
comment's, a testimonial's, a related article's)."""
AUTHOR_ELSEWHERE_NAMES = 2
"""Different names those author elements may give at most: more are a listing's (each card
with its author), and none is the page's."""
THREAD_URL = re.compile(
    r"/(?:threads?|topics?|t|d|discussions?|comments|questions|viewtopic\.php|"
    r"showthread\.php)(?:/|$)|/thread-\d",
    re.I,
)
"""The path of a forum thread's page (the forum software's conventions): the first post's
author is the page's."""
POSTER_CLASS = re.compile(
    r"user-?name(?:$|[-_\s])|(?:^|[-_\s])(?:poster|post-?author)(?:$|[-_\s])", re.I
)
"""Class words forum software gives the element holding a post's author ("username",
"bigusername", "PostUser-name", "poster")."""
AUTHOR_LINK = re.compile(
    r"/(?:author|authors|autor|auteur|people|person|staff|writers?|contributors?|profiles?|"
    r"columnists?|journalists?|experts?|team|by|user|users|members?)/[^/?#]+/?(?:$|[?#])",
    re.I,
)
"""The path of a link to an author's page: its text is the author's name."""
NAME_LIKE = re.compile(r"^(?:[^\d@<>{}\[\]=#*|]{2,}|(?=(?:\d*[^\W\d_]){3})[\w.\-]+)$")
"""A name has no digits, markup, handles or separators (a date is not a name), unless it is
one word with three letters or more: a forum's user name ("paulb203")."""

# -- bylines and dates ---------------------------------------------------------------------------

BYLINE_ELEMENTS = 25
"""Texts read after (and before) the headline when looking for its byline, at most."""
BYLINE_BEFORE = 8
"""Texts read before the headline, at most (some pages put the byline above it)."""
BYLINE_CHARS = 500
"""Characters of text read after the headline when looking for its byline, at most."""
BYLINE_FURNITURE = ("nav", "footer", "form", "button", "select", "figure")
"""Elements a byline is never inside (an ``<aside>`` near the headline often holds the date)."""
TIME_FURNITURE = ("nav", "footer", "aside", "form")
"""Elements whose ``<time>`` is not the page's date (another post's, in a sidebar)."""
PUBLISHED_LABEL = re.compile(r"\b(?:published|posted|originally|released|created)\b", re.I)
UPDATE_CLASS = re.compile(
    r"(?:^|[-_\s])(?:updated?|modified|date-?modified|last-?modified)(?:$|[-_\s])", re.I
)
"""Class or ``itemprop`` words of the element holding an update's date ("updated",
"updated-on", "dateModified")."""
PUBLISH_CLASS = re.compile(
    r"(?:^|[-_\s])(?:published|date-?published|pub-?date|posted(?:-on)?)(?:$|[-_\s])", re.I
)
"""Class or ``itemprop`` words of the element holding the publication's date."""
DATE_LABEL = re.compile(
    r"\b(?:published|posted|originally|released|created|updated|modified|revised|edited|"
    r"reviewed)\b",
    re.I,
)
"""Any label of a date: the text that holds one sets the label of the dates after it."""
MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january", "janvier", "januar", "enero", "gennaio", "januari"),
            ("feb", "february", "fevrier", "février", "februar", "febrero", "febbraio", "februari"),
            ("mar", "march", "mars", "märz", "marzo", "maart"),
            ("apr", "april", "avril", "abril", "aprile"),
            ("may", "mai", "mayo", "maggio", "mei"),
            ("jun", "june", "juin", "juni", "junio", "giugno"),
            ("jul", "july", "juillet", "juli", "julio", "luglio"),
            ("aug", "august", "août", "aout", "agosto", "augustus"),
            ("sep", "sept", "september", "septembre", "septiembre", "settembre"),
            ("oct", "october", "octobre", "oktober", "octubre", "ottobre"),
            ("nov", "november", "novembre", "noviembre"),
            ("dec", "december", "décembre", "decembre", "dezember", "diciembre", "dicembre"),
        ),
        1,
    )
    for name in names
}
"""Month names and their usual abbreviations, in English and the larger European languages."""
YEARS = (1800, 2100)
"""Years a publication date may carry (outside: a typo or a template's zero date)."""
ZERO_DATES = frozenset({"1970-01-01", "1900-01-01"})
"""Dates that templates write for "no date" (the epoch, a spreadsheet's zero)."""
BYLINE_START = re.compile(r"^\s*(?:by|written by|posted by|words by|story by|author:?)\b", re.I)
"""A chunk of text that opens a byline and names the author in the same breath."""
BODY_TEXT_CHARS = 400
"""A text this long after the headline is the article's prose: the byline is read no further."""
BYLINE_SEPARATOR = re.compile(r"\s+[\u00b7\u2022|\u2013\u2014]\s+")
"""What stands between a byline's parts in one text ("Dec. 19, 2025 · Jane Doe")."""
DATE_TEXT_CHARS = 120
"""A text longer than this is prose, not a dateline: dates in it are not the page's."""
DATE_ITEMPROPS = ("datePublished", "dateCreated", "uploadDate")
OTHERS_LABEL = re.compile(
    r"\b(?:last|latest|newest|recent)\s+(?:post|posted|reply|replied|comment|activity|"
    r"message|edited|edit)(?:\s+by)?\b",
    re.I,
)
"""A label before someone other than the author and the date of what they did ("last post by",
"Latest reply", "Last edited by"): the byline reads past them."""
OTHERS_CHUNKS = 4
"""Texts after such a label left out at most (its name and date; a date ends it sooner)."""
NAME_JOINER = re.compile(r"^(?:,|&|and|und|et|y|e)?\s*(?:,|&|and|und|et|y|e)?$", re.I)
"""A chunk between two names of one byline ("A, B and C")."""
NAME_CHUNKS = 6
"""Texts inside an author element read for its name, at most (the rest is a biography)."""
UI_WORDS = frozenset(
    {"more", "read", "shop", "shopping", "click", "here", "subscribe", "sign", "login", "follow",
     "share", "menu", "search", "view", "posts", "comments", "reply", "learn", "contact",
     "profile", "cart", "download", "watch", "listen", "print", "save", "privacy", "policy",
     "find", "reputation", "post"}
)  # fmt: skip
"""Words of a menu or a button: a text holding one is not a name (compared in lower case)."""
LEADING_WORDS = frozenset(
    {"on", "in", "this", "our", "your", "you", "of", "to", "for", "with", "is", "are", "was",
     "updated", "published", "min", "minutes", "and", "at", "from", "a", "an", "it", "we",
     "i", "if", "when", "how", "what", "why", "start", "home", "written", "recipe", "insights",
     "reviewed", "edited", "photo", "photos", "image", "video", "source", "sources", "connect"}
)  # fmt: skip
"""Words a name never starts with: a text starting with one is a sentence or a label."""
STATED_LEADING_WORDS = frozenset({"our"})
"""Of those, the words a name stated in an author field may start with: a field that holds only
a name holds a team's ("Our Editors", "Our Team"), where a byline's text would be a sentence."""
NAME_PARTICLES = frozenset(
    {"van", "der", "den", "de", "la", "le", "von", "zu", "bin", "al", "da", "di", "du", "del",
     "dos", "das", "ten", "ter", "y", "e", "and", "und", "et", "&", "of", "the"}
)  # fmt: skip
"""Lower-case words a name may hold ("Marna van der Merwe", "Editors of the Times")."""
NAME_ARTICLES = frozenset({"the", "a", "an"})
"""Words an organization's name starts with, and a person's never does."""
BARE_NAME = re.compile(r"^[A-Z][\w'.\-]+(?:\s+[A-Z][\w'.\-]+){1,3}$")
"""A text that is a person's name without a label: two to four capitalised words. It is taken
only beside a date (a byline without "By")."""
