"""The page's preview image: its image sources (:data:`convert.metadata.rules.IMAGE_SOURCES`)
asked in order, best first, each value made absolute and refused when it is a placeholder, a
tracking pixel or, from a source a template fills (``<link rel="image_src">``), a logo or an
icon. The declared size comes with the value when the source gives one (``og:image:width``, an
``<img>``'s attributes). Pure."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from convert.metadata import rules, visible
from convert.metadata.sources import PageSources
from convert.metadata.values import absolute_url, junk_image

Values = Callable[[str], Iterator[str]]
"""The raw values of a source by its name (the metadata reader's)."""


def page_image(sources: PageSources, url: str, values: Values) -> tuple[str, int, int]:
    """(absolute URL, width, height) of the page's image; sizes 0 when not declared, ("", 0, 0)
    when the page has none."""
    for source in rules.IMAGE_SOURCES:
        checked = source in rules.FURNITURE_CHECKED_IMAGES
        for raw, width, height in _candidates(sources, source, values):
            found = absolute_url(url, raw) if raw else ""
            if not found or junk_image(found):
                continue
            if checked and visible.furniture_image(found):
                continue
            return found, visible.pixels(width), visible.pixels(height)
    return "", 0, 0


def _candidates(
    sources: PageSources, source: str, values: Values
) -> Iterator[tuple[str, str, str]]:
    """(raw value, declared width, declared height) of one source, in page order."""
    meta = sources.meta
    if source.startswith("meta:og:image"):
        sizes = (_first(meta, "og:image:width"), _first(meta, "og:image:height"))
        for index, raw in enumerate(values(source)):
            yield (raw, *sizes) if index == 0 else (raw, "", "")
    elif source == "jsonld:image":
        yield from sources.entities.images()
    elif source == "document:image":
        src, width, height = visible.largest_image(sources.images)
        yield src, str(width or ""), str(height or "")
    elif source == "document:article-image":
        yield visible.article_image(sources.main_regions), "", ""
    else:
        for raw in values(source):
            yield raw, "", ""


def _first(meta: dict[str, list[str]], name: str) -> str:
    found = meta.get(name)
    return found[0] if found else ""
