"""Where the markup says what a block is: the class and id words that mark boilerplate or
content, the roles and tags of page furniture, the blocks that hold text."""

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
    "author-info",
    "authorinfo",
    "author-description",
    "author-card",
    "about-the-author",
    "more-from",
    "morefrom",
    "read-more",
    "readmore",
    "jump-to",
    "skip-link",
    "feedback",
    "helpful",
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
NOT_NEGATIVE_AFTER = {"comment": "ar"}
"""What may follow a boilerplate fragment in a name that then says something else: the
author's "commentary" is the text, readers' "comments" are not."""
NEGATIVE_PART = re.compile(
    "|".join(
        re.escape(part) + (f"(?!{NOT_NEGATIVE_AFTER[part]})" if part in NOT_NEGATIVE_AFTER else "")
        for part in NEGATIVE_PARTS
    )
)
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
DATA_TABLE_ROWS = 3
"""Rows (a header among them) from which a table with header cells is data that keeps the block
named like boilerplate (a "drawer") holding it."""
DATA_TABLE_LINKS = 0.5
"""Link density under which a data table is the section's content: one denser is a grid of
links (other posts' titles) that does not save the section it stands in."""
DATA_CELL_CHARS = 300
"""Characters up to which a table cell holds data, whose elements are never taken for
boilerplate by their names (a longer one may be a page laid out in a table)."""
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

NOT_ITEMS = re.compile(r"comment|disqus|reply|replies|signal|ad-|advert|sponsor|carousel|slide")
"""Class names of repeated blocks that are never a listing's items, however many: readers'
comments (:mod:`convert.extract.comments` decides on them), a card's badges, advertising,
a carousel's slides (promotions)."""
NAMED_ITEMS_MIN = 5
NAMED_ITEMS_SHARE = 0.3
NAMED_ITEM_CHARS = 100
"""Blocks of one tag and class named like boilerplate are a listing's items, and stay, when
there are at least ``NAMED_ITEMS_MIN`` of them holding together at least ``NAMED_ITEMS_SHARE``
of the page's text, their median at least ``NAMED_ITEM_CHARS`` long (a post's byline, a tag
list is shorter)."""
