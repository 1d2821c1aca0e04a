"""What a block's text says of it: boilerplate links, labels, disclosures, notices, pitches,
author notes, calls to action, edit links, headings over recommendations, teasers."""

from __future__ import annotations

import re

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
    r"showing \d+( ?[-\u2013] ?\d+)? of \d+( \w+)?|follow the author|"
    # The same buttons in the languages seen most.
    r"(rezept )?drucken|merken|bild anzeigen|weiterlesen|mehr lesen|lire la suite|"
    r"leer m[aá]s|continua a leggere|like (this )?recipe\??)\W*$",
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
    r"\bfunded by readers like you\b|\bplease (consider )?support(ing)? us\b|"
    # Follow the site, get its app, subscribe for the rest of the story, in the languages
    # seen most.
    r"^\W*(follow|folg(e|en sie)|s[ií]guenos)\b.{0,60}\b(twitter|instagram|facebook|telegram|"
    r"whatsapp|tiktok|youtube|linkedin|google news)\b|"
    r"\bcanal de (telegram|whatsapp|youtube)\b|"
    r"\b(download|get) (the|our) [\w ]{0,30}\bapps?\b.{0,30}\b(ios|android|app store|"
    r"google play)\b|"
    r"\b(subscribe|log in|sign in)\b.{0,60}\b(full|entire|rest of the) (story|article)\b|"
    r"\b(to (read|view|continue reading)) (the full|the rest of|this) (story|article)\b|"
    r"\bnever miss\b.{0,40}\b(news|stories|story|updates?)\b|"
    r"\bwe want to hear what you think\b|"
    r"\b(hazte (miembro|socio)|suscr[ií]bete|apoya (nuestro|el) periodismo)\b|"
    r"\bunterstütze?n? sie (uns|unsere arbeit|unseren journalismus)\b",
    re.I,
)
"""A newsletter pitch ("Get the best of X, directly in your inbox"), a sign-up form's small
print ("Modify your preferences or unsubscribe at any time") or a plea for support: a block
shorter than :data:`PITCH_MAX` that makes one goes."""
PITCH_MAX = 250
AUTHOR_BIO = re.compile(
    r"[A-Z][\w.'\u2019-]+( [A-Z][\w.'\u2019-]+){0,3},? (?i:(is|has been) (a|an|the) "
    r"([\w-]+ ){0,4}(writer|journalist|editor|author|reporter|contributor|columnist|blogger|"
    r"co-?founder|founder|correspondent)\b|(writes|reports) (about|on|for)\b|covers\b|"
    r"(ist|war) ([\w-]+ ){0,3}(journalist|redakteur|autor|korrespondent)(in)?\b|"
    r"schreibt (über|für)\b|est (journaliste|rédact(eur|rice)|correspondant))"
)
"""A note about the writer ("Jane Doe is a freelance writer who covers...", "Evan Halper writes
about..."), which opens with the name: at the end of the content, a block shorter than
:data:`AUTHOR_NOTE_MAX` that is one goes (an article about a writer opens the same way, so the
start is left alone)."""
AUTHOR_NOTE_MAX = 700
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
KEPT_EMPTY = frozenset({"table", "span", "small"})
"""Of those, the ones kept when they hold no text: a table's empty cells are its shape, and an
inline element of white space is the space between two words."""
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
