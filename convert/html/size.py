"""A bound on how much of a document is converted: the first elements, in document order.

Every pass of a conversion is linear in the number of elements, but main-content extraction,
absolute links and Markdown rendering together cost tens of microseconds an element: a page of
hundreds of thousands of links or tiny blocks would run past the conversion's time limit. Once
what a reader never sees is gone (scripts, hidden elements), such a page is cut after its first
:data:`MAX_ELEMENTS` elements, and the conversion says it was truncated.
"""

from __future__ import annotations

from lxml import etree

MAX_ELEMENTS = 100_000
"""Elements of a cleaned page that are converted; the rest is dropped. Far above
long articles and reference pages (a few thousand to tens of thousands), below what the
conversion's default 30 s allow on a busy two-core host (about 0.1 ms an element at worst)."""


def keep_first_elements(root: etree._Element, limit: int) -> bool:
    """Keep the first ``limit`` nodes of ``root`` in document order (``root`` itself counts) and
    drop every node and text after them; returns whether anything was dropped."""
    first_dropped = None
    for count, element in enumerate(root.iter()):
        if count == limit:
            first_dropped = element
            break
    if first_dropped is None:
        return False
    _drop_from(first_dropped)
    return True


def _drop_from(element: etree._Element) -> None:
    """Drop ``element`` and all that follows it in document order: its following siblings and
    those of each of its ancestors, and the ancestors' tails (text after their end tags)."""
    parent = element.getparent()
    if parent is None:
        return
    del parent[parent.index(element) :]  # the element, its tail and its following siblings
    child = parent
    while (parent := child.getparent()) is not None:
        child.tail = None
        del parent[parent.index(child) + 1 :]
        child = parent
