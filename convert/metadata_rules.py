"""The rules of page metadata, as data: for each field the ordered sources it is read from, the
names of the meta tags and JSON-LD types behind them, the tables of junk values (placeholder
images, tracking pixels, "Home", boilerplate descriptions, non-names), the words of a byline
and a date, and the thresholds the checks use. :mod:`convert.metadata` iterates them; a rule is
read and changed here without reading the algorithm."""

from __future__ import annotations

import re

# -- sources, best first ------------------------------------------------------------------------
# Each field's sources are named entries that :mod:`convert.metadata` knows how to read; a value
# that fails the field's checks falls through to the next source.

TITLE_SOURCES = (
    "jsonld:headline",
    "meta:og:title",
    "meta:twitter:title",
    "meta:dc.title",
    "meta:dcterms.title",
    "meta:parsely-title",
    "meta:sailthru.title",
    "document:title",
)
"""The page's own statements of its title; each has the site's name trimmed off, then the
visible headline is preferred when it agrees with one of them (:data:`HEADLINE_AGREEMENT`)."""
TITLE_FALLBACK_SOURCES = ("microdata:headline", "rdfa:headline", "jsonld:name", "microdata:name")
"""Asked only when :data:`TITLE_SOURCES` gave no title (reading microdata and RDFa walks the
whole page; a page that has them states its title in its head as well, nearly always)."""
DESCRIPTION_SOURCES = (
    "meta:og:description",
    "meta:twitter:description",
    "meta:description",
    "jsonld:description",
    "microdata:description",
    "meta:dc.description",
    "meta:dcterms.description",
    "meta:parsely-description",
    "rdfa:description",
    "document:paragraph",
)
IMAGE_SOURCES = (
    "meta:og:image:secure_url",
    "meta:og:image:url",
    "meta:og:image",
    "meta:twitter:image",
    "meta:twitter:image:src",
    "jsonld:image",
    "microdata:image",
    "link:image_src",
    "meta:thumbnail",
    "meta:parsely-image-url",
    "meta:sailthru.image.full",
    "rdfa:image",
    "document:image",
)
CANONICAL_SOURCES = ("link:canonical", "meta:og:url", "meta:twitter:url", "jsonld:url")
SITE_NAME_SOURCES = (
    "meta:og:site_name",
    "jsonld:publisher",
    "jsonld:website",
    "meta:application-name",
    "meta:apple-mobile-web-app-title",
    "microdata:publisher",
    "document:domain",
)
SITE_NAMES = frozenset(
    {"meta:og:site_name", "jsonld:publisher", "jsonld:website", "meta:application-name",
     "meta:apple-mobile-web-app-title"}
)  # fmt: skip
"""The site-name sources whose names are trimmed off a title ("Page | Site"), beside the
domain's own names."""
LANGUAGE_SOURCES = (
    "document:lang",
    "meta:content-language",
    "meta:language",
    "meta:og:locale",
    "jsonld:inlanguage",
    "meta:dc.language",
    "meta:dcterms.language",
)
AUTHOR_SOURCES = (
    "jsonld:author",
    "microdata:author",
    "meta:author",
    "meta:article:author",
    "meta:parsely-author",
    "meta:sailthru.author",
    "meta:citation_author",
    "meta:citation_authors",
    "meta:dc.creator",
    "meta:dcterms.creator",
    "meta:byl",
    "card:author",
    "rdfa:author",
    "jsonld:organization-author",
)
"""Where the page states its author (an organization named as the author comes last: a page
that also names a person means the person); the byline a reader sees under the headline is weighed
against the first of them (:data:`BYLINE_WINS`)."""
CARD_LABELS = {"author": re.compile(r"(?:(?:written|posted|authored)\s+)?by|authors?", re.I)}
"""The labels of a Twitter card's label and data pair ("Written by" / "Jane Doe") that make its
data a field's value (``card:author`` in the source tables): WordPress SEO plugins and others
write the author there when no author tag says it."""
CARD_PAIRS = 4
"""Label and data pairs of a Twitter card read at most."""
AUTHOR_LIST_SOURCES = frozenset(
    {"meta:citation_author", "meta:citation_authors", "meta:dc.creator", "meta:dcterms.creator"}
)
"""Sources that state each of several authors in a tag of its own: their values are joined."""
AUTHORS_LISTED = 10
"""Authors joined from such a source at most."""
BYLINE_WINS = True
"""When the byline and the stated author name different people, the byline is taken (pages
show who wrote them; templates and syndication fill in another name)."""
PUBLISHED_SOURCES = (
    "document:dateline",
    "jsonld:datepublished",
    "meta:article:published_time",
    "meta:og:article:published_time",
    "microdata:datepublished",
    "meta:datepublished",
    "meta:date_published",
    "meta:published",
    "meta:published_time",
    "meta:publish_date",
    "meta:publish-date",
    "meta:publishdate",
    "meta:pubdate",
    "meta:parsely-pub-date",
    "meta:sailthru.date",
    "meta:dc.date.issued",
    "meta:dcterms.issued",
    "meta:citation_publication_date",
    "meta:citation_date",
    "meta:dc.date",
    "meta:dcterms.date",
    "meta:dcterms.created",
    "meta:dc.date.created",
    "meta:og:pubdate",
    "meta:article.published",
    "meta:article_date_original",
    "meta:published-date",
    "meta:publication-date",
    "meta:publication_date",
    "meta:date-published",
    "meta:ms.date",
    "meta:date",
    "rdfa:datepublished",
    "jsonld:datecreated",
    "jsonld:uploaddate",
    "document:time",
    "document:url",
    "jsonld:datemodified",
    "meta:article:modified_time",
    "meta:og:updated_time",
)
"""Where the page dates itself. The date a reader sees under the headline comes first: it is
what the page says it was published (or last updated) on, where structured data often holds a
template's or a syndication's date. A date in the page's path ("/2025/12/19/title") comes
after every stated one; a modification date is the last resort."""

# -- JSON-LD ------------------------------------------------------------------------------------

URL_DATE = re.compile(r"/((?:19|20)\d\d)[/-](0[1-9]|1[0-2])[/-](0[1-9]|[12]\d|3[01])(?=[/+\-_.]|$)")
"""A date in a page's path ("/2025/12/19/title", "/2025-12-15-title"): the day it was published,
when the page states none."""
STATED_PUBLISHED = ("jsonld:datepublished", "meta:article:published_time", "meta:datepublished")
"""The publication dates a dateline that says only "Updated ..." gives way to, and one that
shows a date shortly after them (:data:`DATELINE_LATER_DAYS`)."""
DATELINE_EARLIER_DAYS = 2
"""A dateline at least this many days after the stated publication date (and at most
:data:`DATELINE_LATER_DAYS`) shows a later edit or a thread's later reply: the stated date is
taken. One day apart is the same moment in two time zones, and the dateline is what the page
shows."""
DATELINE_LATER_DAYS = 7


MAIN_ENTITY_TYPES = (
    "NewsArticle",
    "ReportageNewsArticle",
    "AnalysisNewsArticle",
    "OpinionNewsArticle",
    "ReviewNewsArticle",
    "BackgroundNewsArticle",
    "Article",
    "BlogPosting",
    "LiveBlogPosting",
    "TechArticle",
    "ScholarlyArticle",
    "Report",
    "SocialMediaPosting",
    "DiscussionForumPosting",
    "Question",
    "Recipe",
    "Review",
    "HowTo",
    "VideoObject",
    "Product",
    "Event",
    "Course",
    "Book",
    "Movie",
    "PodcastEpisode",
    "JobPosting",
    "SoftwareApplication",
    "Service",
)
"""Types of the thing a page is about, most specific first: the first entity of one of these
types is the page's main entity (its headline, author, dates, image)."""
PAGE_TYPES = (
    "WebPage",
    "ItemPage",
    "CollectionPage",
    "FAQPage",
    "QAPage",
    "AboutPage",
    "ContactPage",
    "ProfilePage",
    "MedicalWebPage",
    "SearchResultsPage",
)
"""Types of the page itself: its entity stands in when no main entity is found."""
SITE_TYPES = ("WebSite",)
ORGANIZATION_TYPES = (
    "Organization",
    "NewsMediaOrganization",
    "Corporation",
    "LocalBusiness",
    "EducationalOrganization",
    "GovernmentOrganization",
    "NGO",
    "OnlineStore",
    "Store",
)
JSONLD_BLOCK_LIMIT = 400_000
"""Characters of one JSON-LD block parsed at most (a bigger one is a catalogue, not metadata)."""

# -- titles -------------------------------------------------------------------------------------

TITLE_SEPARATOR = re.compile(
    r"\s+[|\-\u2013\u2014\u2022\u00b7:/~\u00bb\u2039\u203a]{1,2}\s+|\s*[|\u2022\u00b7\u00bb]\s*"
)
"""What stands between a page's title and its site's name: "Page | Site", "Site - Page"."""
SITE_PART_WORDS = 4
"""A part of a title this short that holds the site's name is the site's name ("Raspberry Pi
Forums" on raspberrypi.com)."""
GENERIC_LABELS = frozenset(
    {"www", "com", "org", "net", "edu", "gov", "co", "ac", "blog", "blogs", "news", "forum",
     "forums", "shop", "store", "docs", "help", "support", "app", "web", "site", "online", "en",
     "us", "uk", "de", "info", "io", "m", "amp", "api", "dev", "go", "my", "the"}
)  # fmt: skip
"""Labels of a host that name no site ("blog.example.com": "blog" is not the site)."""
HEADLINE_TAGLINE = re.compile(r"\s\|\s")
"""A visible headline with this separator carries a tagline or a section's name ("Best movers
2025 | Top 19 companies"): its main part is the title (as a stated title's would be)."""
TITLE_MAX_CHARS = 200
"""A stated title or headline longer than this is a paragraph, not a title."""
TITLE_TAIL_WORDS = 4
"""Parts of a title this short beside a longer one are a tagline or a section, not the page's
name: the longest part is the title then."""
HEADLINE_DEPTH = 12
"""Levels of markup inside a headline read for its text, at most."""
HEADLINES_READ = 4
"""Visible headline candidates compared with the stated titles at most."""
HEADLINE_AGREEMENT = 0.6
"""Share of a visible headline's words that must be in a stated title (and of the title's in the
headline, at least :data:`HEADLINE_COVERAGE`) for the headline to be taken as the title."""
HEADLINE_COVERAGE = 0.45
HEADLINE_FURNITURE = ("nav", "footer", "aside", "form", "button", "label")
"""Ancestors that make an ``<h1>`` page furniture (a logo, a menu), never the headline."""
JUNK_TITLES = frozenset(
    {"home", "homepage", "home page", "index", "untitled", "untitled document",
     "untitled page", "no title", "new page", "document", "default", "welcome", "loading",
     "loading...", "blank", "null", "undefined", "skip to content", "skip to main content",
     "follow the author"}
)  # fmt: skip
"""Titles that say nothing about the page (compared in lower case, stripped of punctuation)."""
HEADING_ANCHORS = "\u00b6#\u00a7\U0001f517"
"""Permalink signs documentation generators put after a heading's text (removed)."""

# -- descriptions -------------------------------------------------------------------------------

BOILERPLATE_DESCRIPTIONS = re.compile(
    r"^(?:just another wordpress site|my (?:wordpress )?blog|description(?: goes here)?|"
    r"default description|page description|site description|lorem ipsum\b.*|"
    r"(?:welcome to|official (?:web)?site of|the official (?:web)?site)\b.{0,60}|"
    r"undefined|null|none|n/?a|todo|tbd|\W*)$",
    re.I,
)
"""Descriptions that say nothing about the page: CMS defaults, placeholders, a bare welcome."""
DESCRIPTION_MIN_CHARS = 10
DESCRIPTION_MIN_WORDS = 2
"""A stated description shorter than these is junk (a word, a site name)."""
PARAGRAPH_MIN_CHARS = 80
PARAGRAPH_MIN_WORDS = 12
PARAGRAPHS_READ = 40
"""Paragraphs looked at for the first meaningful one, at most."""
PARAGRAPH_FURNITURE = ("header", "nav", "footer", "aside", "form", "figcaption", "blockquote")
PARAGRAPH_JUNK = re.compile(
    r"\b(?:cookies?|javascript|your browser|subscribe|sign up|newsletter|log ?in|privacy policy|"
    r"terms of (?:use|service)|all rights reserved|copyright|\u00a9)\b",
    re.I,
)
"""A paragraph saying one of these is furniture (a consent notice, a sign-up pitch)."""

# -- images -------------------------------------------------------------------------------------

_PLACEHOLDER_WORD = (
    r"(?:placeholder|spacer|blank|pixel|transparent|clear|empty|dummy|missing|grey|gray|loader|"
    r"loading|spinner|lazy|\d+x\d+)"
)
PLACEHOLDER_STEM = re.compile(
    rf"^{_PLACEHOLDER_WORD}(?:[-_]?(?:{_PLACEHOLDER_WORD}|\d+))*$",
    re.I,
)
"""A file name (without its extension) made only of placeholder words: "spacer", "1x1",
"blank-400x300", "pixel" ("pixel-art-contest" is a picture)."""
PLACEHOLDER_NAME = re.compile(
    r"placeholder|no[-_]?(?:image|img|photo|picture|thumb)|"
    r"image[-_]?(?:not[-_]?found|missing|coming[-_]?soon)|lazy[-_]?load|"
    r"default[-_]?(?:og|share|social|thumb|thumbnail|avatar|image|img|featured|preview)",
    re.I,
)
"""Words anywhere in a file name that mark a placeholder ("default-og-image", "no_photo")."""
TRACKING_HOSTS = (
    "facebook.com", "facebook.net", "google-analytics.com", "googletagmanager.com",
    "doubleclick.net", "googlesyndication.com", "googleadservices.com",
    "scorecardresearch.com", "quantserve.com", "bat.bing.com", "analytics.twitter.com", "t.co",
    "ads.linkedin.com", "px.ads.linkedin.com", "pixel.wp.com", "stats.wp.com",
    "pixel.quantserve.com", "sb.scorecardresearch.com", "ct.pinterest.com",
    "analytics.tiktok.com", "mc.yandex.ru", "pixel.mathtag.com", "adsrvr.org", "criteo.com",
    "criteo.net", "amazon-adsystem.com", "hotjar.com",
)  # fmt: skip
"""Hosts (and their subdomains) whose images are tracking pixels or ads, never a page's image."""
TRACKING_PATH = re.compile(
    r"(?:^|/)(?:tr|pixel|track|tracking|beacon|collect|impression)(?:/|\?|$|\.gif)", re.I
)
CONTENT_IMAGE_SKIP = re.compile(
    r"(?:^|[-_\s/])(?:logo|icon|avatar|sprite|badge|emoji|gravatar|author|profile|ad|ads|advert|"
    r"banner-ad|rating|stars?|flag|payment|social|share|button|btn|arrow|qr)(?:[-_\s./]|$)",
    re.I,
)
"""Class, id, alt or file-name words of images that are furniture, not the page's picture."""
CONTENT_IMAGE_MIN = (200, 120)
"""Smallest width and height (declared in the markup) of the largest-content-image fallback."""
IMAGES_READ = 60
"""``<img>`` elements looked at for the largest content image, at most."""
TIMES_READ = 10
"""``<time>`` elements looked at for a date when the byline has none, at most."""
IMAGE_SIZE_LIMIT = 20_000
"""Largest declared width or height believed (a bigger number is a mistake)."""

# -- sites and languages ------------------------------------------------------------------------

DOMAIN_PREFIXES = ("www.", "www1.", "www2.", "m.", "mobile.", "amp.", "en.")
"""Host prefixes dropped from the domain shown as a site's name."""
LANGUAGE_TAG = re.compile(
    r"^(?P<language>[a-z]{2,3})(?:-(?P<script>[a-z]{4}))?(?:-(?P<region>[a-z]{2}|\d{3}))?"
    r"(?P<rest>(?:-[a-z\d]{1,8})*)$",
    re.I,
)
"""A BCP 47 language tag: language, optional script and region, then variants."""
JUNK_LANGUAGES = frozenset({"x-default", "und", "zxx", "mul", "xx", "none", "null"})

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
