"""The HTML toolkit the other jobs read pages with: parsing and cleaning a document with bounded
nesting (:mod:`~convert.html.document`, :mod:`~convert.html.depth`), the one walk over its
elements (:mod:`~convert.html.elements`), the page's CSS (:mod:`~convert.html.css`) and what hides
an element from a reader (:mod:`~convert.html.hiding`), a CSS selector matcher
(:mod:`~convert.html.selectors`), and telling a JavaScript app shell
(:mod:`~convert.html.appshell`)."""

from convert.html.appshell import detect_app_shell
from convert.html.document import (
    SelectorError,
    check_selectors,
    parse_document,
    read_document,
    split_selectors,
    text_of,
)
from convert.html.elements import PageElements, page_elements
from convert.html.hiding import is_hidden

__all__ = [
    "PageElements",
    "SelectorError",
    "check_selectors",
    "detect_app_shell",
    "is_hidden",
    "page_elements",
    "parse_document",
    "read_document",
    "split_selectors",
    "text_of",
]
