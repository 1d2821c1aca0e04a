"""The site's name: the first name the page states (the order is
:data:`convert.metadata.rules.SITE_NAME_SOURCES`), the JSON-LD publisher's bare name over an
Open Graph one that holds it with more around it, and for a page that states none, the part of
its ``<title>`` or its logo's text that is the domain's name
(:func:`convert.metadata.titles.is_site_name`), before the bare domain. Pure."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from convert.metadata import rules
from convert.metadata.titles import is_site_name, junk_title
from convert.metadata.values import clean_text, compact

Checked = Callable[[tuple[str, ...]], Iterator[str]]
"""The names of some sources, in order, that pass :func:`checked_name` (the reader's)."""
SITE_NAME_MAX_CHARS = 120


def site_name(checked: Checked) -> str:
    """The first site name of :data:`~convert.metadata.rules.SITE_NAME_SOURCES`; a shorter
    name (:data:`~convert.metadata.rules.SITE_NAME_BARE_SOURCES`) inside an Open Graph one is
    taken instead ("Paycom" for "Paycom.com", "Columbia Star" for "Columbia Star - Columbia's
    locally owned newspaper")."""
    for source in rules.SITE_NAME_SOURCES:
        name = next(checked((source,)), "")
        if not name:
            continue
        if source == "meta:og:site_name":
            stated = compact(name)
            for bare in checked(rules.SITE_NAME_BARE_SOURCES):
                inside = compact(bare)
                if len(inside) >= rules.SITE_NAME_MIN_CHARS and inside in stated:
                    return bare if inside != stated else name
        return name
    return ""


def checked_name(raw: str) -> str:
    """A stated site name, cleaned; "" when it names nothing ("Home", a URL, a paragraph)."""
    text = clean_text(raw)
    if not text or junk_title(text) or len(text) > SITE_NAME_MAX_CHARS or "://" in text:
        return ""  # an unresolved JSON-LD reference is a URL, not a name
    return text


def domain_names(domain: str) -> set[str]:
    """The names a domain gives its site, as :func:`compact` writes them: the whole, and its
    labels that name something ("blog" and "com" do not)."""
    names = {compact(domain)}
    labels = domain.split(".")[:-1]
    names.update(compact(label) for label in labels if label not in rules.GENERIC_LABELS)
    names.discard("")
    return names


def naming_site(texts: Iterable[tuple[str, int]], names: set[str]) -> Iterator[str]:
    """The texts (a title's part, a logo's text, each with the words it may have beside the
    name) that are the site's name as its domain ``names`` say it."""
    for text, extra_words in texts:
        if is_site_name(clean_text(text), names, extra_words):
            yield text
