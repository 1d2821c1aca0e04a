"""The rules of main-content extraction, as data: the class and id words that mark boilerplate or
content, the tags and roles of page furniture, the texts of boilerplate links, headings and teasers,
and the thresholds the steps use. :mod:`convert.extract.selection` and
:mod:`convert.extract.furniture` iterate them; a rule is read and changed here without reading the
algorithm."""

from __future__ import annotations

import re

# Class/id fragments that mark boilerplate: matched anywhere in the name ("relatedPosts").
NEGATIVE_PARTS = (
    "comment",
    "disqus",
    "share",
    "sharing",
    "social",
    "related",
    "recommend",
    "newsletter",
    "subscribe",
    "signup",
    "sign-up",
    "sidebar",
    "breadcrumb",
    "cookie",
    "consent",
    "gdpr",
    "promo",
    "sponsor",
    "advert",
    "outbrain",
    "taboola",
    "trending",
    "popular",
    "most-read",
    "mostread",
    "paywall",
    "pagination",
    "navbar",
    "toolbar",
    "masthead",
    "footer",
    "author-bio",
    "authorbio",
    "about-author",
    "author-box",
    "authorbox",
    "more-from",
    "morefrom",
    "read-more",
    "readmore",
    "jump-to",
    "skip-link",
    "feedback",
    "helpful",
    "carousel",
    "also-bought",
    "alsobought",
    "bought-together",
    "upsell",
    "cross-sell",
    "signature",
    "newsflash",
    "ticker",
    "disclosure",
    "noprint",
    "sitenotice",
    "site-notice",
    "affiliate",
    "avatar",
    "userdetails",
    "user-details",
    "userextras",
    "userinfo",
    "user-info",
    "usercard",
    "user-card",
    "message-user",
    "postprofile",
    "reactions",
    "actionbar",
    "action-bar",
    "attribution",
)
NEGATIVE_PART = re.compile("|".join(re.escape(part) for part in NEGATIVE_PARTS))
UTILITY_CLASS = re.compile(r"[:\[\]/]")
"""A utility class of a CSS framework ("print:hidden", "md:w-1/2", "[--gap:4px]") says how an
element looks, not what it is: such names are not read for boilerplate or content words."""
# Class/id words that mark boilerplate only as whole words ("ad", not "header" or "read").
NEGATIVE_WORDS = frozenset(
    {
        "ad",
        "ads",
        "adslot",
        "advertisement",
        "nav",
        "menu",
        "tags",
        "tag",
        "taglist",
        "bio",
        "toc",
        "rating",
        "ratings",
        "reviews",
        "review",
        "modal",
        "popup",
        "overlay",
        "skip",
        "print",
        "votes",
        "vote",
        "byline",
        "meta",
        "breadcrumbs",
        "crumb",
        "crumbs",
        "aside",
        "banner",
        "hero-nav",
        "sr",
        "prevnext",
        "pager",
        "edit",
        "editsection",
        "navbox",
        "links",
        "copyright",
        "submenu",
        "buttons",
        "mega",
        "legal",
        "icons",
        "actions",
        "tools",
        "utility",
        "selector",
        "drawer",
        "dialog",
        "flyout",
        "account",
        "sort",
        "gnav",
    }
)
POSITIVE_WORDS = frozenset(
    {
        "article",
        "content",
        "entry",
        "post",
        "story",
        "body",
        "main",
        "text",
        "prose",
        "markdown",
        "recipe",
        "blog",
        "hentry",
        "answer",
        "question",
        "readme",
        "articlebody",
        "page",
    }
)
NOT_CONTENT_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "search", "dialog", "alertdialog"}
)
ARTICLE_SHARE_OF_RAIL = 0.5
"""Share of the page's text a ``<nav>`` or ``<aside>`` holding the page's ``<h1>`` must hold to
be taken for the article (the parser nested the page in it); one without the ``<h1>`` never is."""
FURNITURE_TAGS = ("nav", "aside", "form", "button", "select", "input", "textarea", "label")
BLOCKS = ("div", "section", "ul", "ol", "dl", "table", "p", "span", "figure", "header", "footer")
BLOCK_CHILDREN = frozenset(
    {
        "div",
        "p",
        "ul",
        "ol",
        "dl",
        "table",
        "pre",
        "section",
        "article",
        "blockquote",
        "figure",
        "header",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "main",
        "aside",
        "nav",
    }
)
HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
COMMAS = (",", "\uff0c", "\u3001")
"""Commas count as a sign of prose: the Latin one and the CJK full-width and ideographic ones."""
SCORED = ("p", "pre", "td", "blockquote", "li", "dd", "h2", "h3")
BOILERPLATE_TEXT = re.compile(
    r"^(share( this( article| post| story)?)?|advertisement|sponsored|read more|related( posts|"
    r" articles| stories)?|was this (page|article) helpful\??|print( this)?( page| recipe)?|"
    r"tweet|pin( it)?|email|follow us|sign up|subscribe|\W*back to (the )?[\w ]{1,40}|"
    r"jump to (recipe|comments|navigation|search|(main )?content)|"
    r"print recipe|skip to (main )?content|back to top|\d+ comments?|leave a (comment|reply)|"
    r"view (all|more|earlier|older)( \w+)?|see (all|more)( \w+)?|show more|load more|"
    r"(older|newer) (posts|entries)|(next|previous) (post|article|story|page)|"
    r"loading( \w+)?\W*|cookies?|accept( all)?( cookies)?|click to expand|start a free trial|"
    r"(get|request) a (free )?(quote|demo)|contact (us|sales)|book a (demo|call)|"
    r"be the first to (comment|review)|join our (newsletter|mailing list)|newsletters?|"
    r"sign up for (our|the) (free )?newsletter|log ?in|already have an account\W*log ?in|"
    r"add to (cart|bag|basket)|(written|posted) by [\w .'-]{1,40}|(feature[d]? )?(image|photo)s? "
    r"(by|via|courtesy of) [\w .,'&-]{1,60}|sponsored|advertisement|page \d+ of \d+|"
    r"(in|out of) stock|(expand|collapse) (description|all|details)|view (less|the whole list)|"
    r"(posts|threads|messages|reputation|likes|reactions|points|karma)\W{0,3}\d[\d,.km]*|"
    r"(joined|member since|registered)\W{0,3}[\w ,./-]{0,20}\d{2,4}|get started( today| now)?|"
    r"shop now|book now|learn more|schedule a (demo|call|consultation)|talk to (a|an|our) \w+|"
    r"speak (to|with) (a|an|our) \w+|explore (our )?products|what our (customers|clients) "
    r"(are )?say(ing)?|share (this )?(article|post|story|page|on other sites)|link to "
    r"(post|comment)|sign ?in( now| here)?|sign in or register( to (comment|reply|post))?|"
    r"create an account|register (a new account|now|here)|ask (a )?question|add a comment|"
    r"recently browsing \d+ members?|no registered users viewing this page|go to topic listing|"
    r"you need to be a member in order to (leave a comment|reply)|start asking to get answers|"
    r"join the (conversation|discussion)|(popular|recent|latest) (posts|articles|stories)|"
    r"you (may|might) (also )?like|try it (for yourself|free|now)|(start|get) your free trial|"
    r"download (our|the) free [\w -]{1,30}|not open for further replies|"
    r"join date\W{0,3}[\w ,./-]{0,20}\d{2,4}|\d+ repl(y|ies) to this (topic|thread)|"
    r"top posters in this (topic|thread)|reply with quote|terms of (use|service)|"
    r"privacy (policy|notice)|free (shipping|delivery|returns)|"
    r"returns? (&|and) exchanges accepted|select an? (size|colou?r|option|variant)|"
    r"(customers|people) who (viewed|bought) this (item|product) also (viewed|bought)|"
    r"showing \d+( ?[-\u2013] ?\d+)? of \d+( \w+)?|follow the author)\W*$",
    re.I,
)
LABEL_TEXT = re.compile(
    r"^(reply with quote|(posts|threads|messages|reputation|likes|reactions|points|karma)\W{0,3}"
    r"\d[\d,.km]*|(joined|member since|registered|join date)\W{0,3}[\w ,./-]{0,20}\d{2,4}|"
    r"\d+ repl(y|ies) to this (topic|thread)|top posters in this (topic|thread)|"
    r"free (shipping|delivery|returns)|returns? (&|and) exchanges accepted|"
    r"select an? (size|colou?r|option|variant)|follow the author|add to (cart|bag|basket)|"
    r"not open for further replies|share( this( article| post| story)?)?|tweet|pin it)\W*$",
    re.I,
)
"""What a list item or definition says when it is only a label of a forum's or a shop's
furniture ("Reply with quote", "Posts: 116", "Free shipping"): such an item goes."""
DISCLOSURE = re.compile(
    r"affiliate (links?|marketer|commissions?|partners?)|earns? (a |an )?(small )?"
    r"(affiliate )?commission|reader-supported|from qualifying purchases|products are chosen "
    r"independently|(may|might) (earn|receive) (a |an )?(small )?(share|commission|"
    r"compensation)|paid (partnership|promotion)|\(sponsored\)|sponsor this (newsletter|post)",
    re.I,
)
"""An affiliate or advertising disclosure ("We may earn a commission from links on this
page"): a block shorter than :data:`DISCLOSURE_MAX` that says it is one goes."""
DISCLOSURE_MAX = 400
NOTICE = re.compile(
    r"(this (topic|thread) was (automatically )?closed[^.]{0,80}\.\s*)?"
    r"new replies are no longer allowed|"
    r"your payment information is processed securely\.?[^.]{0,120}|"
    r"(taxes|shipping)(,| and)? (\w+ and )?(shipping|taxes|duties) calculated at checkout|"
    r"(get )?notif(y me|ied)( by e-?mail)? when (this (product|item) is )?(back )?in stock",
    re.I,
)
"""A notice the site puts on every page of a kind ("Taxes and shipping calculated at checkout",
"This topic was closed... New replies are no longer allowed"): a block shorter than
:data:`DISCLOSURE_MAX` that says nothing else (no other word, no price) goes."""
PITCH = re.compile(
    r"\b(sign up|subscribe|join|get)\b.{0,80}\b(newsletters?|inbox|mailing list)\b|"
    r"\b(newsletters?|inbox)\b.{0,60}\b(sign up|subscribe)\b|"
    # A sign-up form's small print, and a plea for money.
    r"\bnever spam you\b|\bor unsubscribe at any ?time\b|"
    r"\bby (sharing|submitting|entering|providing) your e-?mail\b|"
    r"\b(consent|agree) to receive (our )?(e-?mails?|messages|communications)\b|"
    r"\bfunded by readers like you\b|\bplease (consider )?support(ing)? us\b",
    re.I,
)
"""A newsletter pitch ("Get the best of X, directly in your inbox"), a sign-up form's small
print ("Modify your preferences or unsubscribe at any time") or a plea for support: a block
shorter than :data:`PITCH_MAX` that makes one goes."""
PITCH_MAX = 250
AUTHOR_BIO = re.compile(
    r"[A-Z][\w.'\u2019-]+( [A-Z][\w.'\u2019-]+){0,3},? (is|has been) (a|an|the) "
    r"([\w-]+ ){0,4}(writer|journalist|editor|author|reporter|contributor|columnist|blogger)\b"
)
"""A note about the writer ("Jane Doe is a freelance writer who covers..."), which opens with
the name: at the end of the content, a block shorter than :data:`DISCLOSURE_MAX` that is one
goes (an article about a writer opens the same way, so the start is left alone)."""
LABELLED_ITEMS = ("li", "dd", "dt")
"""Items asked only whether they are a short furniture label as a whole (LABEL_TEXT)."""
LABEL_MAX = 60
PRUNED_BLOCKS = (
    "div",
    "section",
    "ul",
    "ol",
    "dl",
    "p",
    "span",
    "small",
    "table",
    "footer",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
)
"""The blocks inside the content that are judged for boilerplate, one by one."""
CTA_MAX_CHARS = 40
"""A block whose whole text is a link this short, starting with a verb of :data:`CTA_TEXT`, is
a call to action (a button)..."""
CTA_TEXT = re.compile(
    r"^\W*(get|start|request|book|schedule|contact|sign|join|try|learn|shop|buy|download|"
    r"register|subscribe|talk|speak|see|explore|discover|watch|call|apply|order|claim|create|"
    r"build|hire|compare|chat|let'?s|find out|view all|read more|browse|record|save|grab|"
    r"unlock|upgrade|claim|reserve|enroll|donate)\b",
    re.I,
)
CTA_NOT_IN = frozenset({"li", "td", "th", "dd", "dt", "h1", "h2", "h3", "h4", "h5", "h6", "nav"})
"""...unless the block is one of these (a list of links, a table, a linked heading)."""
INLINE_TAGS = frozenset({"span", "b", "strong", "em", "i", "small", "u", "font"})
EDIT_LINK = re.compile(
    r"edit (this page|on github|this article)|improve this (page|doc)|suggest an edit|"
    r"view (page )?source|log in or register|sign in to (reply|comment)|"
    r"you must (log|be logged) in",
    re.I,
)
BOILERPLATE_HEADING = re.compile(
    r"^(\d+\s+)?(comments?|replies|community q ?& ?a|customer questions? (and|&) "
    r"answers?|related(\s+\w+)?|you (may|might) also like|more (from|like this|stories|"
    r"articles|to read)|recommended( for you)?|popular( posts)?|most (read|popular)|trending|"
    r"(customer |user )?reviews|leave a (reply|comment)|share this( \w+)?|about the author|"
    r"newsletter|follow us|kommentare|commentaires|comentarios)\W*$",
    re.I,
)
RECOMMENDATION_HEADING = re.compile(
    r"^((complete|shop) the look|how about these|variations of this style|(customers|people) "
    r"(also|who) \w+( \w+)?|similar (products|items|articles|posts)|recently viewed( \w+)?|"
    r"frequently bought together|more from (this|the) (brand|seller|author)|you (may|might) "
    r"also (like|enjoy|need)|related (posts|articles|stories|products|content|reading|links)|"
    r"recommended( for you)?|(read|see) next|"
    r"further reading|more (stories|articles|to read)|(other )?(posts|articles|stories|"
    r"recipes) you (may|might|will) (also )?(like|enjoy|love))\W*$",
    re.I,
)
"""A heading over recommendations: it and the blocks after it, up to the next heading as high,
are not the page's content, wrapped in a section of their own or not."""
CITATION = re.compile(r"^\[(\d+|[a-z]|citation needed)\]$", re.I)
SIGNUP_WORDS = re.compile(r"subscribe|sign up|newsletter|abonnieren|s'inscrire|suscrib", re.I)
TEASER = re.compile(
    r"^(read (more|next|also)|related( stories| articles| posts| reading)?|see also|also read|"
    r"more on this( story)?|recommended( for you)?|further reading|you might also like|"
    r"lesen sie auch|mehr zum thema|à lire aussi|lire aussi|lee también)\s*[:\u203a\u00bb]",
    re.I,
)
SMALL_BLOCK = 200
"""Characters below which a block named both as content and as boilerplate is boilerplate."""
MIN_TEXT = 200
"""Characters below which an extraction is near-empty (when the page has more than that)."""
SECTIONS_GAIN = 1.5
"""How much more scored prose an ancestor of the best-scored element must hold to be taken
instead (an article of several text modules, where the best is one of them)..."""
SECTIONS_MAX_LINKS = 0.25
"""...when at most this share of its text is links..."""
SECTIONS_LEVELS = 12
"""...and it is at most this many levels above."""
REFERENCES_ELSEWHERE = 0.8
REFERENCE_WORDS = 4
"""A list of links is a list of references, not a farm, when this share of its links lead to
other sites and they hold this many words each on average (a social bar's "Twitter" does not)."""
FARMS_MAX_SHARE = 0.5
"""Share of the content's text above which its link lists are its content (an index page, a
list of links), not link farms to remove."""
RETRY_SHARE = 0.25
"""Share of the page's prose (text outside links) below which an extraction is done again with
only the furniture the markup declares..."""
RETRY_MAX_TEXT = 2000
"""...when it is also shorter than this: a full article above a longer comment thread is kept
as it is."""


# -- threads: who said what (convert/extract/posts.py) ---------------------------------------------

AUTHOR_CLASS = re.compile(
    r"(?:^|[-_])(?:author|username|user-?name|user-?details|poster|creator|postauthor)(?:[-_]|$)",
    re.I,
)
"""A class name that marks a post's author (matched against each class of an element)."""
DATE_CLASS = re.compile(
    r"(?:^|[-_])(?:date|time|timestamp|datetime|posted|post-?date|published|relativetime)"
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


# -- content revealed before extraction (convert/extract/reveal.py) -----------------------------

NOSCRIPT_MIN_TEXT = 500
"""Characters of text ``<noscript>`` elements must hold together to count as the content."""
NOSCRIPT_SHARE = 0.67
"""Share of the body's visible text they must hold: the rest of the page is an empty shell."""
HIDDEN_MIN_TEXT = 500
"""Characters a hidden block must hold to be taken for content waiting to be revealed."""
HIDDEN_SHARE = 0.5
"""Share of the body's text (the hidden block's included) it must hold..."""
HIDDEN_MAX_LINKS = 0.6
"""...with less than this share of link text (a hidden menu or drawer stays hidden), unless it
holds this share of the body's text (the whole page hidden until a script shows it):"""
HIDDEN_WHOLE_PAGE = 0.9
PANEL_ROLES = frozenset({"tabpanel", "region"})
"""ARIA roles of the panels of tabs and accordions."""
PANEL_NAMES = frozenset(
    {"accordion", "tabpanel", "tab-pane", "tab-panel", "faq", "answer", "accordion-content"}
)
"""Class or id words (split at spaces, ``_`` and ``__``) that name a collapsed panel."""
PANEL_MAX_NODES = 2000
PANEL_MAX_TEXT = 20_000
"""Bounds of a panel told by the button before it: a larger hidden block is not read as one."""
PANEL_TAGS = frozenset({"dd", "pre", "details"})
"""Elements that are content even when hidden: a definition, a code block."""


# -- a product's facts from its JSON-LD (convert/extract/product.py) ----------------------------

PRODUCT_TYPES = frozenset({"Product", "ProductGroup", "IndividualProduct", "ProductModel"})
PRODUCT_PRESENT_SHARE = 0.7
"""Share of a fact's words the extracted text must hold for the fact to count as shown."""
PRODUCT_MAX_PROPERTIES = 50
PRODUCT_DESCRIPTION_CHARS = 5000
"""Longest description kept (characters); every other field is cut at
:data:`PRODUCT_FIELD_CHARS`."""
PRODUCT_FIELD_CHARS = 300


# -- readers' comments (convert/extract/comments.py) --------------------------------------------

COMMENT_WORDS = (
    "comment",
    "kommentar",
    "commentaire",
    "comentario",
    "commento",
    "reactie",
    "disqus",
)
"""Starts of the class and id words that name a comment section ("comments", "commentlist",
"comment-list", "kommentare", "disqus_thread"), each word of a name tried on its own."""
REVIEW_WORDS = ("review", "rezension", "bewertung", "avis", "jdgm-rev", "yotpo", "trustpilot")
"""Starts of the words that name the customers' reviews of a product page: its readers'
comments (a review site's article is not a product page)."""
NOT_COMMENT_WORDS = frozenset({"editorial", "respond", "form", "count", "counter", "link", "icon"})
"""Words that make a name say something else than readers' comments: a publisher's editorial
reviews, the form to write one, the count of comments and the link to them."""
COMMENT_SECTION_TAGS = frozenset({"div", "section", "ol", "ul", "aside", "footer", "dl"})
"""Elements a comment section is made of (a lone comment's paragraph is not a section)."""
COMMENT_LEAD_PROSE = 200
"""Characters of prose that must come before a comment section: the article has begun (a
wrapper that holds the article and is named after its comments is not one)."""
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
section's own heading it becomes a line of text."""
COMMENTS_HEADING = "Comments"
"""The heading of the section the comments are given back under."""
COMMENT_ITEM_ID = re.compile(r"(?:^|[-_])comment[-_]?\d+$|^(?:kommentar|c)[-_]\d+$", re.I)
"""An id that names one comment ("comment-8354", "li-comment-216", "div-comment-143")."""
COMMENT_NUMBER = re.compile(r"\d+$")
"""The number that tells a comment's elements from those of its replies."""
COMMENT_ITEM_CLASS = re.compile(
    r"^(?:comment|kommentar|commentaire|comentario)(?:[-_]?(?:item|entry|box|single))?$|"
    r"^(?:single|user|reader)[-_]comment$",
    re.I,
)
"""A class that names one comment ("comment", "kommentar-item", "single-comment")."""
COMMENT_CONTENT_CLASS = re.compile(
    r"^(?:comment|kommentar|commentaire)[-_]?(?:content|text|body-text|message)$",
    re.I,
)
"""A class that names a comment's own text (inside it, no other comment starts)."""
COMMENT_AUTHOR_CLASS = re.compile(
    r"^(?:comment|kommentar)[-_]?(?:author|autor|name|user)(?:[-_]name)?$|^(?:fn|author|"
    r"username|user-name|commenter|commentator)$",
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
COMMENT_NOISE_TAGS = ("img", "picture", "svg", "form", "button", "input", "select", "textarea")
COMMENT_ACTION = re.compile(
    r"^\s*(?:reply|antworten|répondre|responder|rispondi|like|liken|gefällt mir|report|melden|"
    r"edit|bearbeiten|quote|zitieren|permalink|link)\s*(?:↓|→)?\s*$",
    re.I,
)
"""The text of a link that acts on a comment instead of saying something."""


# -- how sure a selection is (convert/extract/selection.py) -------------------------------------

CONFIDENCE_BASE = {"semantic": 0.8, "scored": 0.6, "whole_body": 0.35, "fallback": 0.15}
"""Each selection method's own certainty: a container the markup names (``articleBody``, the
one ``<article>``, ``<main>``) over the best-scored block, over the whole body, over a
fallback."""
CONFIDENCE_LINKED = 0.5
"""Kept text more linked than this share reads like navigation..."""
CONFIDENCE_SMALL_SHARE = 0.1
"""...and kept prose under this share of the page's prose may be a fragment of the content:
either costs :data:`CONFIDENCE_PENALTY`."""
CONFIDENCE_PENALTY = 0.2
CONFIDENCE_TYPE_BONUS = 0.15
"""Added times the page type's own confidence."""
