"""The metadata fixture set: small pages written for Pagecast, each with every metadata field it
should give, covering the sources (JSON-LD with ``@graph``, arrays and references, Open Graph,
Twitter cards, microdata, RDFa, ``<meta name>``, Dublin Core, ``<link rel>``, the ``<title>``,
the headline, the byline, the first paragraph, the largest image) and the junk a page may hold
(placeholders, tracking pixels, "Home", boilerplate descriptions, non-names, zero dates).

``tests/metadata_pages/expected.json`` maps each page's file name (without ``.html``) to its URL
and the fields (:data:`convert.metadata.fields.FIELDS`) it should give, compared exactly. Nothing
here imports the reader: the test and the bench call it and score with these functions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

PAGES = Path(__file__).parent / "metadata_pages"


@dataclass(frozen=True)
class FixturePage:
    """One page and what it should give."""

    name: str
    url: str
    html: str
    expected: dict[str, str]


def fixture_pages(directory: Path = PAGES) -> list[FixturePage]:
    """Every page of the set, by name."""
    expected = json.loads((directory / "expected.json").read_text("utf-8"))
    return [
        FixturePage(
            name=name,
            url=entry["url"],
            html=(directory / f"{name}.html").read_text("utf-8"),
            expected=entry["fields"],
        )
        for name, entry in sorted(expected.items())
    ]


def field_misses(got: dict[str, str], page: FixturePage) -> dict[str, tuple[str, str]]:
    """The fields ``got`` has wrong on ``page``: name -> (got, expected)."""
    return {
        name: (got.get(name, ""), want)
        for name, want in page.expected.items()
        if got.get(name, "") != want
    }


def field_accuracy(results: list[tuple[FixturePage, dict[str, str]]]) -> dict[str, float]:
    """For each field, the share of pages that have it right."""
    if not results:
        return {}
    names = list(results[0][0].expected)
    return {
        name: sum(got.get(name, "") == page.expected[name] for page, got in results) / len(results)
        for name in names
    }
