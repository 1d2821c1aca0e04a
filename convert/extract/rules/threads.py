"""Who said what: the posts of a thread and readers' comments under an article."""

from __future__ import annotations

import re

# -- threads: who said what (convert/extract/posts.py) ---------------------------------------------

AUTHOR_CLASS = re.compile(
    r"(?:^|[-_])(?:author|username|user-?name|user-?details|poster|creator|postauthor)(?:[-_]|$)",
    re.I,
)
"""A class name that marks a post's author (matched against each class of an element)."""
AUTHOR_HINTS = ("author", "user", "poster", "creator")
AUTHOR_HINT = re.compile("|".join(AUTHOR_HINTS), re.I)
"""What every class :data:`AUTHOR_CLASS` matches contains (in lower case)."""
DATE_CLASS = re.compile(
    r"(?:^|[-_])(?:date|time|timestamp|datetime|posted|post-?date|published|relativetime|datum)"
    r"(?:[-_]|$)",
    re.I,
)
"""A class name that marks a post's date, when the post has no ``<time>``."""
DATE_WORDS = re.compile(r"\d|\b(?:yesterday|today|ago|just now)\b", re.I)
"""What a date's text holds (a digit, or a relative date)."""
AUTHOR_MAX_CANDIDATES = 300
"""Author-named elements read at most on one page (a thread of 300 posts is long already)."""
AUTHOR_MAX_CHARS = 60
"""An author marker with a longer text is a block about the author, not a name."""
DATE_MAX_CHARS = 40
POST_MIN_TEXT = 30
"""Characters a post must hold besides its author marker."""
THREAD_MIN_POSTS = 2
"""Posts with alike author markers a page must have to be read as a thread."""
THREAD_LEAD_PROSE = 400
"""Characters of paragraphs before the first post above which the posts are comments on an
article (removed with the comment section), not a thread (every post kept)."""
POST_BODY_SHARE = 0.5
"""Share of a post's text a block inside it must hold to stay whatever its name."""

# -- readers' comments (convert/extract/comments.py) --------------------------------------------

COMMENT_WORDS = (
    "comment",
    "kommentar",
    "commentaire",
    "comentario",
    "commento",
    "reactie",
    "disqus",
    "leserkommentar",
    "nutzerkommentar",
    "usercomment",
    "readercomment",
)
"""Starts of the class and id words that name a comment section ("comments", "commentlist",
"comment-list", "kommentare", "disqus_thread", "leserkommentare", "usercomments"), each word of
a name tried on its own."""
REVIEW_WORDS = ("review", "rezension", "bewertung", "avis", "jdgm-rev", "yotpo", "trustpilot")
"""Starts of the words that name the customers' reviews of a product page: its readers'
comments (a review site's article is not a product page)."""
NOT_COMMENT_WORDS = frozenset(
    {"editorial", "respond", "form", "count", "counter", "link", "icon", "commentary"}
)
"""Words that make a name say something else than readers' comments: a publisher's editorial
reviews, the form to write one, the count of comments and the link to them, the author's own
commentary (a section of the text: "Commentary", a documentation page's notes)."""
COMMENT_SECTION_TAGS = frozenset({"div", "section", "ol", "ul", "aside", "footer", "dl"})
"""Elements a comment section is made of (a lone comment's paragraph is not a section)."""
FORUM_COMMENTS_SHARE = 0.3
"""Share of a forum page's text its comment sections may hold together to be the comments on
its posts (a Q&A site's); more, they are the posts."""
COMMENT_LEAD_PROSE = 200
"""Characters of prose that must come before a comment section: the article has begun (a
wrapper that holds the article and is named after its comments is not one)."""
COMMENT_ITEMS_SHARE = 0.6
"""Share of a section's text its comment items must hold for it to be a list of comments
wherever it stands (before the article, in a column the page's source puts first)."""
NOT_PROSE_TAGS = (
    "a", "nav", "header", "footer", "aside", "form", "button", "select", "label", "figcaption",
    "script", "style", "noscript", "template",
)  # fmt: skip
"""Elements whose text does not count as an article's prose before its comments."""
COMMENT_ITEMPROPS = frozenset({"comment", "comments"})
COMMENT_ITEMTYPES = ("/Comment", "/UserComments")
"""schema.org's marks of a comment (the end of an ``itemtype`` URL)."""
COMMENT_HEADING = re.compile(
    r"^\s*(?:\d+\s+)?(?:comments?|responses?|replies|reactions?|kommentare?|antworten|"
    r"leserkommentare|commentaires?|comentarios?|commenti)\b|"
    r"\b(?:comments?|responses?|kommentare?|antworten) (?:on|to|zu|auf)\b|"
    r"^\s*leave a (?:reply|comment)|^\s*schreibe? einen kommentar",
    re.I,
)
"""A heading that only announces the comments ("12 Comments", "5 Kommentare on ..."): under the
section's own heading it goes."""
COMMENTS_HEADING = "Comments"
"""The heading of the section the comments are given back under."""
COMMENT_ITEM_ID = re.compile(r"(?:^|[-_])comment[-_]?\d+$|^(?:kommentar|c)[-_]\d+$", re.I)
"""An id that names one comment ("comment-8354", "li-comment-216", "div-comment-143")."""
COMMENT_NUMBER = re.compile(r"\d+$")
"""The number that tells a comment's elements from those of its replies."""
COMMENT_ITEM_CLASS = re.compile(
    r"^(?:(?:leser|nutzer|user|reader)[-_]?)?(?:comment|kommentar|commentaire|comentario)"
    r"(?:[-_]?(?:item|entry|box|single))?$|"
    r"^(?:single|user|reader)[-_]comment$",
    re.I,
)
"""A class that names one comment ("comment", "kommentar-item", "single-comment")."""
COMMENT_CONTENT_CLASS = re.compile(
    r"^(?:\w+[-_]?)?(?:comment|kommentar|commentaire)[-_]?(?:content|text|body-text|message)$",
    re.I,
)
"""A class that names a comment's own text (inside it, no other comment starts)."""
COMMENT_AUTHOR_CLASS = re.compile(
    r"^(?:comment|kommentar)[-_]?(?:author|autor|name|user)(?:[-_]name)?$|^(?:fn|author|"
    r"username|user-name|commenter|commentator|benutzer|nutzer|autor)$",
    re.I,
)
"""A class that names a comment's author."""
COMMENT_AUTHOR_MAX_CHARS = 80
COMMENT_META_CLASS = re.compile(
    r"^(?:comment|kommentar)[-_]?(?:meta|metadata|date|datum|time|zeit)$|^commentmetadata$", re.I
)
"""A class that names the line holding a comment's date (its text must hold a digit)."""
SAYS = re.compile(r"\s*(?:says|sagt|schreibt|écrit|dice|wrote|schrieb)\s*:?\s*$", re.I)
"""The verb WordPress and others put after a commenter's name ("Anhora sagt:")."""
COMMENT_ATTRIBUTION_TAGS = frozenset({"time", "cite", "header", "footer"})
"""Elements that hold a comment's author and date line, not its text (when short)."""
COMMENT_TITLE_TAGS = frozenset({"h2", "h3", "h4", "h5", "h6"})
COMMENT_TITLE_MAX_CHARS = 200
"""A comment's title: a heading of it outside its text, given back as a bold line."""
COMMENT_SAYING_TAGS = ("p", "blockquote")
"""Blocks of a comment's text: one inside its author line without a name in it is what the
comment says (some themes put the text in the author block)."""
COMMENT_NOISE_TAGS = ("img", "picture", "svg", "form", "button", "input", "select", "textarea")
COMMENT_ACTION = re.compile(
    r"^\s*(?:reply|antworten|répondre|responder|rispondi|like|liken|gefällt mir|report|melden|"
    r"edit|bearbeiten|quote|zitieren|permalink|link)\s*(?:↓|→)?\s*$",
    re.I,
)
"""The text of a link that acts on a comment instead of saying something."""
COMMENT_SEPARATORS = re.compile(r"^[\s|\u00b7\u2022/\-\u2013\u2014]+$")
"""The text of an element left with nothing but the separators between controls taken out."""
