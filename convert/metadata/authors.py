"""Who wrote a page: the author it states (the first source that names one; a source that
lists each author in a tag of its own joined), weighed against the byline a reader sees under
the headline, and, when neither names anyone, an author element or a link to an author's page
elsewhere on the page (an author box beside or after the article, a "Text by" credit at its
end; on a forum thread's page, its first poster). Pure; the words and thresholds are data in
:mod:`convert.metadata.rules_bylines`."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from lxml import etree

from convert.metadata import byline as bylines
from convert.metadata import rules, visible
from convert.metadata import rules_bylines as byline_rules
from convert.metadata.values import compact, split_names, stated_author, words


def stated(values: Callable[[str], Iterator[str]]) -> str:
    """The first author stated by :data:`~convert.metadata.rules.AUTHOR_SOURCES` (``values``
    gives a source's raw values); the values of a source that lists each author apart
    (``citation_author``) joined."""
    for source in rules.AUTHOR_SOURCES:
        names: list[str] = []
        for raw in values(source):
            name = stated_author(raw) if raw else ""
            if name and name not in names:
                names.append(name)
                if source not in rules.AUTHOR_LIST_SOURCES:
                    break
        if names:
            return ", ".join(names[: rules.AUTHORS_LISTED])
    return ""


def weighed(stated: str, shown: str, sites: set[str]) -> str:
    """The stated author, unless the byline says more: the stated one is the site's own name
    (``sites``, a template's default), or the byline names the same people more fully ("Dr.
    Jane Doe"), not counting the site's name after them. A byline naming some of the stated
    co-authors, or a shorter form of the name, gives way to the stated names."""
    if not stated or not shown:
        return stated or shown
    named, listed = set(words(stated)), set(words(shown))
    if compact(stated) in sites:
        return shown
    if named <= listed:
        return stated if _site_added(stated, shown, sites) else shown
    if listed < named and _fuller(stated, shown):
        return stated
    return shown if rules.BYLINE_WINS else stated


def _site_added(stated: str, shown: str, sites: set[str]) -> bool:
    """Whether ``shown`` is the stated names with the site's name after them ("Jane Doe,
    Example Times" where "Jane Doe" is stated)."""
    people = {compact(name) for name in split_names(stated)}
    added = [key for key in map(compact, split_names(shown)) if key not in people]
    return bool(added) and all(key in sites for key in added)


def _fuller(stated: str, shown: str) -> bool:
    """Whether ``stated`` (whose words include all of ``shown``'s) names the same people more
    fully ("Maria" shown, "Maria Smith" stated), or the people of ``shown`` and more people
    besides (names of capitalised words, not an organization's "The ..." nor a phrase)."""
    people = {compact(name): name for name in split_names(stated)}
    shown_people = {compact(name) for name in split_names(shown)}
    if len(people) == len(shown_people):
        return True
    if not shown_people or not shown_people < people.keys():
        return False
    return all(
        byline_rules.BARE_NAME.match(name)
        and name.split()[0].lower() not in byline_rules.NAME_ARTICLES
        for key, name in people.items()
        if key not in shown_people
    )


def marked(elements: list[etree._Element], *, thread: bool = False) -> str:
    """The first name held by an author element among ``elements`` (anywhere on the page) that
    is not furniture, nor inside a comment, a testimonial or a related article; "" when they
    name more than :data:`~convert.metadata.rules_bylines.AUTHOR_ELSEWHERE_NAMES` people (a
    listing's cards, each with its own author), unless the page is a ``thread`` (its first
    post's author, a poster's element counting as an author's)."""
    names: list[str] = []
    for element in elements:
        if visible.in_furniture(element, byline_rules.AUTHOR_FURNITURE) or _elsewhere(element):
            continue
        if thread and byline_rules.POSTER_CLASS.search(element.get("class") or ""):
            name = bylines.first_name(element)
        else:
            name = bylines.author_marker(element)
        if name and thread:
            return name
        if name and name not in names:
            names.append(name)
            if len(names) > byline_rules.AUTHOR_ELSEWHERE_NAMES:
                return ""
    return names[0] if names else ""


def _elsewhere(element: etree._Element) -> bool:
    """Whether ``element`` or an ancestor below the body is a comment, a testimonial or a
    related article."""
    for ancestor in element.iterancestors():
        if ancestor.tag == "body":
            break  # the page's own classes ("comments-page") say what kind of page it is
        names = ancestor.get("class")
        if names and byline_rules.AUTHOR_ELSEWHERE_SKIP.search(names):
            return True
    return bool(byline_rules.AUTHOR_ELSEWHERE_SKIP.search(element.get("class") or ""))
