"""Titles as pages state them, read: the first title a page states, the site's name trimmed
off ("Page | Site"), a stated title's parts, the part that names the page, and whether a visible
headline agrees with a stated title. String work on what :mod:`convert.metadata.sources` read;
the separators, word lists and thresholds are data in :mod:`convert.metadata.rules`."""

from __future__ import annotations

import re

from convert.metadata import rules
from convert.metadata import rules_bylines as byline_rules
from convert.metadata.sources import PageSources
from convert.metadata.values import compact, comparable, words


def stated_title(pages: PageSources) -> str:
    """The first title the page states, as it states it: Open Graph, Twitter, a JSON-LD
    headline, the ``<title>``, a JSON-LD name, the first ``<h1>``."""
    entities = pages.entities.entities
    meta = pages.meta
    for value in (
        (meta.get("og:title") or [""])[0],
        (meta.get("twitter:title") or [""])[0],
        next((e["headline"] for e in entities if _text(e.get("headline"))), ""),
        pages.title,
        next((e["name"] for e in entities if _text(e.get("name"))), ""),
        pages.h1[0].text_content() if pages.h1 else "",
    ):
        if value and value.strip():
            return str(value)
    return ""


def _text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def junk_title(text: str) -> bool:
    """Whether a title says nothing about the page ("Home", "Untitled", only punctuation)."""
    said = comparable(text).strip(" .!?:;-|")
    return not said or said in rules.JUNK_TITLES


def trim_site(title: str, sites: set[str]) -> str:
    """``title`` without its site's name before or after a separator ("Page | Site")."""
    parts = rules.TITLE_SEPARATOR.split(title)
    if len(parts) < 2:
        return title
    separators = rules.TITLE_SEPARATOR.findall(title)
    for end in (-1, 0):
        if names_site(parts[end], sites):
            kept_parts = parts[:-1] if end == -1 else parts[1:]
            kept_separators = separators[:-1] if end == -1 else separators[1:]
            rebuilt = kept_parts[0]
            for separator, part in zip(kept_separators, kept_parts[1:], strict=True):
                rebuilt += separator + part
            return rebuilt.strip() or title
    return title


def variants(title: str) -> list[str]:
    """A stated title and its parts between separators ("A | B" -> "A | B", "A", "B"), and
    before a colon ("Hiking Boots: Shop Boots for Hiking" -> "Hiking Boots")."""
    parts = [part for part in rules.TITLE_SEPARATOR.split(title) if part.strip()]
    found = [title, *parts] if len(parts) > 1 else [title]
    head, colon, _ = title.partition(": ")
    if colon and head.strip() and head not in found:
        found.append(head)
    return found


def main_part(title: str) -> str:
    """The part of a title that names the page when the headline does not say which: the
    longest, when the others are short and capitalised (a tagline, a section's name), else the
    whole."""
    parts = [part.strip() for part in rules.TITLE_SEPARATOR.split(title) if part.strip()]
    if len(parts) < 2:
        return title
    longest = max(parts, key=len)
    others = [part for part in parts if part is not longest]
    if all(len(part.split()) <= rules.TITLE_TAIL_WORDS and _capitalised(part) for part in others):
        return longest
    return title


def _capitalised(part: str) -> bool:
    """Whether a part of a title starts as a name or a tagline does (a capital or a digit), not
    as the rest of a sentence ("the menu")."""
    return part[:1].isupper() or part[:1].isdigit()


def site_parts(title: str) -> list[tuple[str, int]]:
    """The end parts of a title that may be its site's name, the last first ("Page | Site",
    then "Site - Page"), each with the words it may have beside the site's name (fewer for the
    first part, which is as often the page's subject: "Humanscale M/Class Monitor Arms"); none
    when the title has no separator."""
    if len(title) > rules.TITLE_MAX_CHARS:
        return []  # not a title a site's name is read from
    parts = [part.strip() for part in rules.TITLE_SEPARATOR.split(title) if part.strip()]
    if len(parts) < 2:
        return []
    return [(parts[-1], rules.SITE_NAME_EXTRA_WORDS), (parts[0], rules.SITE_FIRST_EXTRA_WORDS)]


def is_site_name(text: str, sites: set[str], extra_words: int) -> bool:
    """Whether a title's part or a logo's text is the site's name itself, as a site-name field
    wants it: one of the domain's names (small words such as "the" and "for" aside: "The
    Partnership for Student Success" on partnershipstudentsuccess.org), their initials, most of
    one ("Encore Realty" on encorerealtysc.com), or one of them with at most ``extra_words``
    more words, each capitalised as a name's are ("Raspberry Pi Forums", "Stripe API
    Reference"; not "Workout shirts from Gymshark"). Numbers and a domain's generic words do
    not count ("SQLAlchemy 2.0 Documentation", "virtualbox.org")."""
    names = words(text)
    said = compact(text)
    core = "".join(word for word in names if word not in byline_rules.NAME_PARTICLES)
    if not core:
        return False
    if said in sites or core in sites:
        return True
    initials = "".join(word[0] for word in names if word not in byline_rules.NAME_PARTICLES)
    if len(initials) >= rules.SITE_INITIALS_MIN and initials in sites:
        return True
    tokens = [token for token in _TOKEN.findall(text) if token.isalpha() and len(token) > 1]
    for site in sites:
        if len(site) < rules.SITE_NAME_MIN_CHARS:
            continue
        if site.startswith(core) and len(core) >= rules.SITE_PREFIX_SHARE * len(site):
            return True
        if site in said or site in core:
            extra = [
                token
                for token in tokens
                if compact(token) not in site and token.lower() not in rules.GENERIC_LABELS
            ]
            capitalised = all(token[0].isupper() for token in extra)
            if capitalised and len(extra) <= extra_words:
                return True
    return False


_TOKEN = re.compile(r"[^\W_]+")


def names_site(part: str, sites: set[str]) -> bool:
    """Whether a part of a title is the site's name: one of its names, one of them with a word
    or two more ("Raspberry Pi Forums"), or their initials ("OSHA")."""
    said = compact(part)
    if not said:
        return False
    short = len(part.split()) <= rules.SITE_PART_WORDS
    initials = "".join(word[0] for word in words(part) if word not in byline_rules.NAME_PARTICLES)
    for site in sites:
        if said == site or (len(initials) >= 3 and initials == site):
            return True
        if short and len(site) >= 4 and site in said:
            return True
    return False


def agrees(shown: set[str], stated: set[str]) -> bool:
    """Whether a visible headline says what a stated title says (most of their words, given as
    sets, shared)."""
    if not shown or not stated:
        return False
    shared = len(shown & stated)
    enough_shown = shared >= rules.HEADLINE_AGREEMENT * len(shown)
    return enough_shown and shared >= rules.HEADLINE_COVERAGE * len(stated)
