"""The rules of page metadata, as data: for each field the ordered sources it is read from, the
names of the meta tags and JSON-LD types behind them, the tables of junk values ("Home",
boilerplate descriptions), and the thresholds the checks use (the words of authors, bylines and
dates are in :mod:`convert.metadata.rules_bylines`; placeholder images, tracking pixels and
the bounds of the image fallbacks in :mod:`convert.metadata.rules_images`).
:mod:`convert.metadata.read` iterates them; a rule is read and changed here without reading the
algorithm."""

from __future__ import annotations

import re

# -- sources, best first ------------------------------------------------------------------------
# Each field's sources are named entries that :mod:`convert.metadata.read` knows how to read; a
# value that fails the field's checks falls through to the next source.

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
    "document:article-image",
)
FURNITURE_CHECKED_IMAGES = frozenset({"link:image_src", "meta:thumbnail"})
"""Image sources read as a template fills them, not as the page chose its picture: a logo or an
icon there (:mod:`convert.metadata.rules_images`) is refused, as it is
among the page's images."""
CANONICAL_SOURCES = ("link:canonical", "meta:og:url", "meta:twitter:url", "jsonld:url")
SITE_NAME_SOURCES = (
    "meta:og:site_name",
    "jsonld:publisher",
    "jsonld:website",
    "meta:application-name",
    "meta:apple-mobile-web-app-title",
    "microdata:publisher",
    "document:title-site",
    "document:logo",
    "document:domain",
)
"""The site's stated names first; then the part of the ``<title>`` that names the site ("Dental
Care | ONE Health Ohio" on onehealthohio.org), then a logo's text that does ("Tarkett Logo" on
tarkett.co.uk), before the bare domain. A title's part or a logo's text is taken only when it
names the domain (:func:`convert.metadata.titles.names_site`): a tagline or a section's name
does not."""
SITE_NAME_BARE_SOURCES = ("jsonld:publisher",)
"""Sources whose name, when an ``og:site_name`` holds it with more around it (a domain's ending,
a tagline, "Blog"), is taken instead: the name itself, as the publisher states it."""
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
STATED_MODIFIED = ("jsonld:datemodified", "meta:article:modified_time", "meta:og:updated_time")
"""Where a page states when it was last modified: a dateline showing that day (after the stated
publication date) is the update's, and the stated publication date is taken."""
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
SITE_NAME_EXTRA_WORDS = 3
"""Capitalised words the last part of a title or a logo's text may have beside the domain's
name and still be taken as the site's name ("Cornell Garden-Based Learning" on cornell.edu)."""
SITE_INITIALS_MIN = 3
"""Initials this long or longer may stand for the site's name ("LMU" on lmu.edu)."""
SITE_NAME_MIN_CHARS = 4
"""A domain's name shorter than this is not looked for inside a title's part or a logo's text."""
SITE_PREFIX_SHARE = 2 / 3
"""A title's part or logo's text that begins the domain's name and covers this share of it names
the site ("Encore Realty" on encorerealtysc.com)."""
SITE_FIRST_EXTRA_WORDS = 1
"""The same for a title's first part ("Raspberry Pi Forums - Topic"), more often the page's
subject there ("Humanscale M/Class Monitor Arms - Up to 79% more")."""
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
SITE_TITLE_LAST = True
"""A stated title that is only the site's name (a blog's post whose ``og:title`` is the blog's
name, as its ``og:site_name`` is) is the title of a page away from the site's home only when
nothing else names the page: its headline, or another stated title (a JSON-LD headline, the
story before the site's name in its ``<title>``), is the story's title."""
IDENTIFIER_TITLE = re.compile(r"^[\w.-]*[^\W\d_][\w.-]*/[\w.-]*[^\W\d_][\w.-]*(?=$|:\s)")
"""A stated title that starts with a repository's identifier ("owner/name", then its
description after a colon): the page's title as it states it. The visible heading that agrees
with it spells the identifier for show ("owner / name" and a badge such as "Public"), so it
does not replace the stated title."""
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
DESCRIPTION_DOTS = re.compile(r"\s?\.\.\.$")
"""Three dots ending a stated description (a summary cut short by the site): written as the
ellipsis Pagecast's own cuts end with ("\u2026"), as metascraper writes it."""
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

# -- times --------------------------------------------------------------------------------------

TIMES_READ = 10
"""``<time>`` elements looked at for a date when the byline has none, at most."""

# -- sites and languages ------------------------------------------------------------------------

DOMAIN_PREFIXES = ("www.", "www1.", "www2.", "m.", "mobile.", "amp.", "en.")
"""Host prefixes dropped from the domain shown as a site's name."""
CANONICAL_DOMAIN = True
"""A page fetched by address (an IP address, or another host than its canonical URL's: a
mirror, a staging host) has its site's name matched against the names of its canonical URL's
domain (``link rel=canonical``, ``og:url``...) as well ("Harbour Watch" in the logo of a page
fetched from a staging host whose ``og:url`` is on harbourwatch.example). Fetched by an IP
address or a local name (:data:`LOCAL_HOST_SUFFIXES`), the page is shown under its canonical
domain when it names its site nowhere; fetched from another public host (a syndicated copy),
under the host that shows it."""
LOCAL_HOST_SUFFIXES = (".local", ".localhost", ".internal", ".lan", ".home.arpa", ".localdomain")
"""Endings of host names that are a machine's address on a private network, never a site's
name (as are an IP address and a name without a dot, such as "localhost")."""
LANGUAGE_TAG = re.compile(
    r"^(?P<language>[a-z]{2,3})(?:-(?P<script>[a-z]{4}))?(?:-(?P<region>[a-z]{2}|\d{3}))?"
    r"(?P<rest>(?:-[a-z\d]{1,8})*)$",
    re.I,
)
"""A BCP 47 language tag: language, optional script and region, then variants."""
JUNK_LANGUAGES = frozenset({"x-default", "und", "zxx", "mul", "xx", "none", "null"})
