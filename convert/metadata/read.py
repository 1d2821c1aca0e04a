"""Page metadata: title, description, canonical URL, site name, image, language, final URL,
author and publication date, each read from an ordered list of sources with checks, the way
good metadata scrapers do.

For every field, :mod:`convert.metadata.rules` names the sources best first (JSON-LD, Open
Graph, Twitter cards, microdata and RDFa, ``<meta name>``, ``<link rel>``, then what a reader
sees: the ``<title>``, the headline, the byline, the first meaningful paragraph, the largest
content image). A value is normalised (entities, whitespace, absolute URLs, BCP 47 tags, ISO
8601 dates) and refused when it is junk (a placeholder image or tracking pixel, "Home", a
site-wide boilerplate description, a name that names nobody); the next source is asked then.
Sources are read lazily: a page whose head says everything costs one pass over its tree.

The title is the page's headline as the reader sees it when it agrees with a title the page
states (the stated titles have the site's name trimmed first), else the first stated title
with its site name trimmed. A stated title that is only the site's name (a blog's name as its
post's ``og:title``) comes last away from the site's home, and a repository's stated
"owner/name: description" stands over the heading that spells "owner / name". The site name
falls back to the JSON-LD publisher, the application name, the part of the ``<title>`` or the
logo's text that names the domain, then a readable form of the domain; for a page fetched by
address (an IP address, another host) the domain of its canonical URL is named too.

Every field is capped here, where the page is read (:mod:`convert.metadata.fields`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cached_property
from urllib.parse import urlsplit

import lxml.html
from lxml import etree

from convert.metadata import authors, dates, images, rules, sites, visible
from convert.metadata import byline as bylines
from convert.metadata import rules_bylines as byline_rules
from convert.metadata.fields import ELLIPSIS, TEXT_LIMITS, PageMetadata, cap_text, cap_url
from convert.metadata.sources import PageSources
from convert.metadata.titles import (
    agrees,
    junk_title,
    main_part,
    site_parts,
    stated_title,
    trim_site,
    variants,
)
from convert.metadata.values import (
    absolute_url,
    address_host,
    author_name,
    clean_text,
    compact,
    comparable,
    language_tag,
    readable_domain,
    words,
)


def page_metadata(root: lxml.html.HtmlElement, url: str) -> dict[str, str]:
    """Every field of :data:`FIELDS` as a string ("" when the page says nothing)."""
    return read_metadata(root, url).as_dict()


def read_metadata(root: lxml.html.HtmlElement, url: str) -> PageMetadata:
    """The page's metadata (``root`` is not changed)."""
    reader = _Reader(PageSources(root), url)
    found = PageMetadata(final_url=cap_url(url))
    found.title = reader.title()
    found.stated_title = cap_text(stated_title(reader.sources), TEXT_LIMITS["title"])
    found.description = reader.description(found.title)
    found.canonical_url = reader.canonical() or found.final_url
    found.site_name = reader.site_name()
    found.image, found.image_width, found.image_height = reader.image()
    found.language = reader.language()
    found.author = reader.author()
    found.published_at = reader.published()
    for name, limit in TEXT_LIMITS.items():
        setattr(found, name, cap_text(getattr(found, name), limit))
    return found


_Shown = tuple[etree._Element, str]
"""A visible headline and its text."""
_Check = Callable[[str], str]
"""Normalises a raw value, or refuses it with ""."""


class _Reader:
    """The sources of one page, asked field by field."""

    def __init__(self, sources: PageSources, url: str) -> None:
        self.sources = sources
        self.url = url
        self.headline: etree._Element | None = None
        self.at_home = urlsplit(url).path in ("", "/")
        """Whether the page is its site's home page."""
        self._sites: set[str] | None = None

    @cached_property
    def _fetched_domain(self) -> str:
        return readable_domain(self.url)

    @cached_property
    def _canonical_domain(self) -> str:
        """The canonical URL's domain when it is not the one the page was fetched from (""
        otherwise, or with :data:`~convert.metadata.rules.CANONICAL_DOMAIN` off)."""
        if not rules.CANONICAL_DOMAIN or not self.canonical():
            return ""
        canonical = readable_domain(self.canonical())
        return canonical if canonical != self._fetched_domain else ""

    @cached_property
    def domain(self) -> str:
        """The site's domain as a person writes it: the page's, or its canonical URL's when the
        page was fetched by an IP address or a local name."""
        if self._canonical_domain and address_host(self._fetched_domain):
            return self._canonical_domain
        return self._fetched_domain

    @cached_property
    def _domain_names(self) -> set[str]:
        """The names the domains of the page give its site: the fetched host's (unless it is
        an address) and the canonical URL's."""
        names: set[str] = set()
        if not address_host(self._fetched_domain):
            names |= sites.domain_names(self._fetched_domain)
        if self._canonical_domain:
            names |= sites.domain_names(self._canonical_domain)
        return names

    # -- raw values by source name --------------------------------------------------------------

    def values(self, source: str) -> Iterator[str]:
        """The raw values of one source (see the ``*_SOURCES`` tables), in page order."""
        kind, _, name = source.partition(":")
        pages = self.sources
        if kind == "meta":
            yield from pages.meta.get(name, ())
        elif kind == "jsonld":
            yield from pages.entities.source(name)
        elif kind == "card":
            yield from pages.card(name)
        elif kind in ("microdata", "rdfa"):
            yield from pages.properties(kind, name)
        elif kind == "link":
            for element in pages.links.get(name, ()):
                yield element.get("href") or ""
        elif source == "document:title":
            yield pages.title
        elif source == "document:lang":
            yield pages.lang
        elif source == "document:domain":
            yield self.domain
        elif source == "document:title-site":
            yield from sites.naming_site(site_parts(pages.title), self._domain_names)
        elif source == "document:logo":
            logos = visible.logo_texts(pages.images)
            named = ((text, rules.SITE_NAME_EXTRA_WORDS) for text in logos)
            yield from sites.naming_site(named, self._domain_names)
        elif source == "document:paragraph":
            yield visible.first_paragraph(pages.paragraphs)
        elif source == "document:byline":
            yield self._byline.author
        elif source == "document:dateline":
            yield self._byline.published
        elif source == "document:time":
            yield visible.first_time(pages.times)
        elif source == "document:url":
            found = rules.URL_DATE.search(urlsplit(self.url).path)
            yield "-".join(found.groups()) if found else ""

    @cached_property
    def _byline(self) -> bylines.Byline:
        """The byline under the headline (the first ``<h1>`` when none agreed with a stated
        title; the start of the ``<article>`` or ``<main>`` when there is none)."""
        anchor = self.headline
        if anchor is None:
            shown = next(visible.headlines(self.sources.h1), None)
            anchor = shown[0] if shown else None
        if anchor is not None:
            return bylines.byline(anchor)
        if self.sources.containers:
            return bylines.byline(self.sources.containers[0], inside=True)
        return bylines.Byline()

    def _checked(self, sources: tuple[str, ...], check: _Check) -> Iterator[str]:
        """The values of ``sources`` in order that pass ``check`` (which also normalises)."""
        for source in sources:
            for raw in self.values(source):
                value = check(raw) if raw else ""
                if value:
                    yield value

    # -- fields ---------------------------------------------------------------------------------

    def title(self) -> str:
        """The visible headline when it agrees with a stated title, else the first stated
        title (its site name trimmed), else the first visible headline. A stated title that is
        only the site's name comes last away from the site's home
        (:data:`~convert.metadata.rules.SITE_TITLE_LAST`); a repository's stated title stands
        over the heading that spells its identifier
        (:data:`~convert.metadata.rules.IDENTIFIER_TITLE`)."""
        stated: list[str] = []
        only_site: list[str] = []
        sites = self._site_names()
        seen: set[str] = set()
        overlong = ""
        set_aside = rules.SITE_TITLE_LAST and not self.at_home
        for source in (*rules.TITLE_SOURCES, *rules.TITLE_FALLBACK_SOURCES):
            if stated and source in rules.TITLE_FALLBACK_SOURCES:
                break
            for raw in self.values(source):
                if not raw or raw in seen:
                    continue
                seen.add(raw)
                text = clean_text(raw)
                if len(text) > rules.TITLE_MAX_CHARS:
                    overlong = overlong or text
                if not text or len(text) > rules.TITLE_MAX_CHARS:
                    continue
                trimmed = trim_site(text, sites)
                if junk_title(trimmed) or trimmed in stated or trimmed in only_site:
                    continue
                if set_aside and compact(trimmed) in sites:
                    only_site.append(trimmed)
                else:
                    stated.append(trimmed)
        parts = [(title, [set(words(part)) for part in variants(title)]) for title in stated]
        first: _Shown | None = None
        for tag in ("h1", "h2"):
            group = self.sources.h1 if tag == "h1" else self.sources.h2  # h2 only when needed
            for element, text in self._shown(group, sites):
                first = first or (element, text)
                shown = set(words(text))
                said = next(
                    (title for title, its in parts if any(agrees(shown, part) for part in its)),
                    None,
                )
                if said is not None:
                    self.headline = element
                    if rules.IDENTIFIER_TITLE.match(said):
                        return said
                    trimmed = trim_site(text, sites)
                    tagged = rules.HEADLINE_TAGLINE.search(trimmed)
                    return main_part(trimmed) if tagged else trimmed
            if first is not None:
                break  # a page with a visible <h1> has its headline there, if anywhere
        if stated:
            return main_part(stated[0])
        if first:
            return first[1]
        return only_site[0] if only_site else overlong  # a paragraph, as a last resort

    def _shown(self, elements: list[etree._Element], sites: set[str]) -> Iterator[_Shown]:
        """The visible headlines among ``elements`` worth comparing with the stated titles."""
        count = 0
        for element, text in visible.headlines(elements):
            short = len(text) <= rules.TITLE_MAX_CHARS
            if short and not junk_title(text) and compact(text) not in sites:
                yield element, text
                count += 1
            if count >= rules.HEADLINES_READ:
                return

    def description(self, title: str) -> str:
        site_wide = {
            comparable(value)
            for entity in (self.sources.entities.site, self.sources.entities.organization)
            if entity is not None
            for value in [entity.get("description")]
            if isinstance(value, str)
        }
        at_home = self.at_home

        def check(raw: str) -> str:
            text = clean_text(raw)
            short = len(text) < rules.DESCRIPTION_MIN_CHARS
            if short or len(text.split()) < rules.DESCRIPTION_MIN_WORDS:
                return ""
            if rules.BOILERPLATE_DESCRIPTIONS.match(text):
                return ""
            said = comparable(text)
            if said == comparable(title) or (said in site_wide and not at_home):
                return ""
            return rules.DESCRIPTION_DOTS.sub(ELLIPSIS, text)

        return next(self._checked(rules.DESCRIPTION_SOURCES, check), "")

    def canonical(self) -> str:
        return self._canonical

    @cached_property
    def _canonical(self) -> str:
        at_home = self.at_home

        def check(raw: str) -> str:
            url = absolute_url(self.url, raw)
            if not url:
                return ""
            # A canonical URL naming the site's home on a deeper page is a template's mistake.
            parts = urlsplit(url)
            if parts.path in ("", "/") and not at_home and not parts.query:
                return ""
            return url

        return next(self._checked(rules.CANONICAL_SOURCES, check), "")

    def site_name(self) -> str:
        return sites.site_name(lambda names: self._checked(names, sites.checked_name))

    def image(self) -> tuple[str, int, int]:
        """(URL, width, height) of the page's image; sizes 0 when not declared."""
        return images.page_image(self.sources, self.url, self.values)

    def language(self) -> str:
        return next(self._checked(rules.LANGUAGE_SOURCES, language_tag), "")

    def author(self) -> str:
        """The page's author (see :mod:`convert.metadata.authors`); an author element elsewhere
        on the page (then a link to an author's page) is asked only when nothing else names
        one, and not on a site's home or a page whose main entity names none."""
        stated = authors.stated(self.values)
        shown = author_name(self._byline.author) if self._byline.author else ""
        if stated or shown:
            return authors.weighed(stated, shown, self._site_names())
        if self.at_home or self.sources.entities.main is not None:
            return ""
        thread = bool(byline_rules.THREAD_URL.search(urlsplit(self.url).path))
        marked = authors.marked(self.sources.author_marked(thread), thread=thread)
        return marked or authors.marked(self.sources.author_links())

    def published(self) -> str:
        """The page's publication date (see :mod:`convert.metadata.dates`)."""
        return dates.published(self.values, updated=self._byline.updated)

    def _site_names(self) -> set[str]:
        """The site's names as :func:`compact` writes them: stated ones and the domain's."""
        if self._sites is None:
            named = tuple(name for name in rules.SITE_NAME_SOURCES if name in rules.SITE_NAMES)
            found = self._checked(named, sites.checked_name)
            self._sites = {compact(value) for value in found} | self._domain_names
        return self._sites


def _text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())
