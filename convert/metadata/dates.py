"""When a page was published: the first date of the sources it dates itself by, the dateline a
reader sees under the headline first; a dateline that says only when the page was updated,
that shows the day the page states it was modified, or that shows a date a few days after the
stated publication date (a later edit, a thread's later reply), gives way to the stated date.
Pure; the sources and thresholds are data in :mod:`convert.metadata.rules`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date

from convert.metadata import rules
from convert.metadata.values import iso_date

Values = Callable[[str], Iterator[str]]
"""A source's raw values by source name (see the ``*_SOURCES`` tables)."""


def published(values: Values, *, updated: bool) -> str:
    """The first date of :data:`~convert.metadata.rules.PUBLISHED_SOURCES` (``values`` gives a
    source's raw values; ``updated``: the dateline is labelled as an update's)."""
    for source in rules.PUBLISHED_SOURCES:
        loose = source.startswith("document:")
        for raw in values(source):
            day = iso_date(raw, loose=loose) if raw else ""
            if day and source == "document:dateline":
                stated = stated_published(values)
                shows_update = updated or _shows_modified(values, day, stated)
                if shows_update or (stated and _shortly_before(stated, day)):
                    return stated or day
            if day:
                return day
    return ""


def stated_published(values: Values) -> str:
    """The publication date the page states (:data:`~convert.metadata.rules.STATED_PUBLISHED`)."""
    for source in rules.STATED_PUBLISHED:
        for raw in values(source):
            day = iso_date(raw) if raw else ""
            if day:
                return day
    return ""


def _shows_modified(values: Values, shown: str, stated: str) -> bool:
    """Whether the dateline shows the day the page states it was modified, later than the day
    it states it was published (the dateline is the last update's, unlabelled)."""
    if not stated or stated[:10] >= shown[:10]:
        return False
    for source in rules.STATED_MODIFIED:
        for raw in values(source):
            day = iso_date(raw) if raw else ""
            if day:
                return day[:10] == shown[:10]
    return False


def _shortly_before(stated: str, shown: str) -> bool:
    """Whether a stated publication date is a few days before the dateline's (see
    :data:`~convert.metadata.rules.DATELINE_EARLIER_DAYS`)."""
    try:
        days = (date.fromisoformat(shown[:10]) - date.fromisoformat(stated[:10])).days
    except ValueError:
        return False
    return rules.DATELINE_EARLIER_DAYS <= days <= rules.DATELINE_LATER_DAYS
