"""The rules that decide a page's type, as data: what each piece of evidence says for which type,
and how much. :mod:`convert.extract.page_type` adds the weights up; a rule is read and changed
here without reading the algorithm.

The types are WCXB's: ``article`` (news, blog posts, essays), ``forum`` (threads, Q&A,
discussions, where the posts are the content), ``product``, ``collection`` (a shop's category,
a catalogue), ``listing`` (search results, archives, a tag's posts), ``documentation`` and
``service`` (a company's pages: what it offers, pricing, about, contact).
"""

from __future__ import annotations

import re

PAGE_TYPES = ("article", "forum", "product", "collection", "listing", "documentation", "service")
DEFAULT_TYPE = "article"
"""The type of a page no evidence speaks for (the most common on the web)."""

SCHEMA_TYPES: dict[str, tuple[str, float]] = {
    "Article": ("article", 2.5),
    "NewsArticle": ("article", 3.0),
    "ReportageNewsArticle": ("article", 3.0),
    "AnalysisNewsArticle": ("article", 3.0),
    "OpinionNewsArticle": ("article", 3.0),
    "BlogPosting": ("article", 3.0),
    "LiveBlogPosting": ("article", 3.0),
    "Report": ("article", 2.0),
    "ScholarlyArticle": ("article", 2.0),
    "Recipe": ("article", 2.0),
    "Review": ("article", 1.0),
    "DiscussionForumPosting": ("forum", 4.0),
    "QAPage": ("forum", 4.0),
    "Question": ("forum", 3.0),
    "SocialMediaPosting": ("forum", 2.0),
    "Product": ("product", 4.0),
    "ProductGroup": ("product", 4.0),
    "IndividualProduct": ("product", 4.0),
    "ProductModel": ("product", 3.0),
    "Car": ("product", 3.0),
    "CollectionPage": ("collection", 3.0),
    "OfferCatalog": ("collection", 2.0),
    "ItemList": ("collection", 1.0),
    "SearchResultsPage": ("listing", 3.0),
    "TechArticle": ("documentation", 3.0),
    "APIReference": ("documentation", 4.0),
    "SoftwareSourceCode": ("documentation", 1.5),
    "HowTo": ("documentation", 1.0),
    "Service": ("service", 2.5),
    "ProfessionalService": ("service", 2.5),
    "FinancialService": ("service", 2.5),
    "LocalBusiness": ("service", 1.5),
    "AboutPage": ("service", 2.0),
    "ContactPage": ("service", 2.0),
    "FAQPage": ("service", 1.0),
    "SoftwareApplication": ("service", 1.0),
}
"""schema.org types (JSON-LD ``@type``, microdata ``itemtype``) -> (type, weight)."""

OPEN_GRAPH_TYPES: dict[str, tuple[str, float]] = {
    "article": ("article", 1.5),
    "blog": ("article", 1.0),
    "product": ("product", 2.5),
    "og:product": ("product", 2.5),
    "product.item": ("product", 2.5),
    "product.group": ("product", 2.0),
}
"""``og:type`` values -> (type, weight)."""

GENERATORS: tuple[tuple[re.Pattern[str], str, float], ...] = (
    (re.compile(r"discourse|vbulletin|phpbb|xenforo|invision|mybb|flarum|nodebb|lemmy", re.I),
     "forum", 3.0),
    (re.compile(r"docusaurus|mkdocs|sphinx|vitepress|vuepress|gitbook|docfx|antora|readthedocs",
                re.I), "documentation", 3.0),
    (re.compile(r"wordpress|ghost|blogger|medium|substack|typepad", re.I), "article", 0.5),
    (re.compile(r"shopify|woocommerce|magento|prestashop|shopware|bigcommerce", re.I),
     "product", 0.5),
)  # fmt: skip
"""``<meta name="generator">`` (and the names sites give their software) -> (type, weight)."""

HOST_SIGNALS: tuple[tuple[re.Pattern[str], str, float], ...] = (
    (re.compile(r"(?:^|[.-])(?:forums?|boards?|community|discuss|discourse)(?:[.-]|$)|forum"),
     "forum", 3.0),
    (re.compile(r"stackexchange\.com$|stackoverflow\.com$|superuser\.com$|serverfault\.com$|"
                r"askubuntu\.com$|mathoverflow\.net$|reddit\.com$|lobste\.rs$|"
                r"news\.ycombinator\.com$|slashdot\.org$|lemmy\."), "forum", 3.0),
    (re.compile(r"^(?:docs?|developers?|devdocs|learn|help|support|api|wiki)\."),
     "documentation", 2.0),
)  # fmt: skip
"""The host name (without ``www.``) -> (type, weight)."""

PATH_SIGNALS: tuple[tuple[re.Pattern[str], str, float], ...] = (
    (re.compile(r"/(?:forums?|boards?|community|discussions?|threads?|topics?|showthread)"
                r"(?:[/.]|$)|/questions/\d+|/q/\d+|/t/[^/]+/\d+|/r/[^/]+/comments/|"
                r"/s/[a-z0-9]{6}(?:/|$)|/post/\d+|/story/\d{2}/\d{2}/"), "forum", 2.5),
    (re.compile(r"/(?:docs?|documentation|reference|api|manual|guides?|tutorials?|handbook|"
                r"kb|knowledge-?base|wiki|learn|getting-started|howto)(?:[/.]|$)"),
     "documentation", 2.0),
    (re.compile(r"/(?:products?|p|item|items|dp|produkt)/|/[^/]*-p-\d+"), "product", 1.5),
    (re.compile(r"/(?:collections?|categor(?:y|ies)|c|department|brands?|kategorie|shop)"
                r"(?:/|$)"), "collection", 1.5),
    (re.compile(r"/(?:tags?|search|archives?|page/\d+|latest|authors?)(?:/|$)|"
                r"[?&](?:q|s|query|search|page)="), "listing", 1.0),
    (re.compile(r"/\d{4}/\d{1,2}/|/(?:blog|news|articles?|posts?|stories|magazin|artikel|"
                r"nachrichten|aktuelles|presse|press|opinion|features)/"), "article", 1.5),
    (re.compile(r"/(?:services?|pricing|prices|about|about-us|contact|solutions|features|"
                r"plans|company|team|careers|leistungen|kontakt|ueber-uns)(?:[/.]|$)|^/?$"),
     "service", 1.0),
)  # fmt: skip
"""The URL's path (and query) -> (type, weight)."""

MARKUP_SIGNALS: tuple[tuple[tuple[tuple[str, str, str], ...], str, float], ...] = (
    # A blog's comment form (WordPress and its kin): the comments are on a post.
    ((("id", "=", "respond"), ("id", "=", "commentform"), ("class", "contains", "comment-respond")),
     "article", 1.5),
    # Forum software's own markup.
    ((("class", "contains", "ipsComment"), ("class", "contains", "postbit"),
      ("class", "contains", "topic-post"), ("id", "contains", "post_message_")),
     "forum", 2.0),
)  # fmt: skip
"""Markup only some kinds of page hold: any element with one of the attribute values (``=``: the
whole value; ``contains``: a part of it, case as written) -> (type, weight)."""
THREAD_WEIGHT = 3.0
"""A thread found in the page (posts with alike author markers, the first one leading)."""
CODE_BLOCKS = 2
CODE_WEIGHT = 1.5
"""At least ``CODE_BLOCKS`` code blocks speak for documentation."""
PRODUCT_FACTS_WEIGHT = 1.0
"""A product's JSON-LD facts found on the page."""
CONFIDENCE_MARGIN = 3.0
"""The lead over the runner-up at which the type is certain (confidence 1.0); a page no
evidence speaks for has confidence 0."""
