"""Sanitizing the tree: removing what the HTML scan flagged."""

from __future__ import annotations

from typing import Any

from convert.html.document import drop
from convert.safety.markdown import scan_markdown, strip_markdown
from convert.safety.signals import HtmlScan
from convert.safety.unicode import INVISIBLE_RE

# --------------------------------------------------------------------------------------------
# Sanitizing the tree
# --------------------------------------------------------------------------------------------


def _safe_tail(tail: str | None) -> str:
    if not tail:
        return ""
    return strip_markdown(tail, scan_markdown(tail))


def _remove(node: Any) -> bool:
    """Remove ``node`` from its parent, keeping the part of its tail that is not risky. A
    comment outside the root element cannot be removed, so it is emptied."""
    parent = node.getparent()
    if parent is None:
        if isinstance(node.tag, str) or not node.text:
            return False
        node.text = ""
        return True
    node.tail = _safe_tail(node.tail) or None
    drop(node)
    return True


def _unwrap(element: Any) -> bool:
    """Replace a link with its text."""
    parent = element.getparent()
    if parent is None:
        return False
    text = element.text_content() if hasattr(element, "text_content") else ""
    previous = element.getprevious()
    joined = text + (element.tail or "")
    parent.remove(element)
    if previous is not None:
        previous.tail = (previous.tail or "") + joined
    else:
        parent.text = (parent.text or "") + joined
    return True


def _in_document(node: Any, document: Any) -> bool:
    """Still part of the document: under its root, or a comment beside it."""
    ancestors = list(node.iterancestors())
    if ancestors:
        return ancestors[-1] is document
    siblings = (*document.itersiblings(preceding=True), *document.itersiblings())
    return any(sibling is node for sibling in siblings)


def _scrub(element: Any) -> None:
    """Remove invisible characters from the text of ``element`` and its descendants."""
    for node in element.iter():
        if node.text and isinstance(node.tag, str):
            node.text = INVISIBLE_RE.sub("", node.text)
        if node is not element and node.tail:
            node.tail = INVISIBLE_RE.sub("", node.tail)


def strip_html(root: Any, scan: HtmlScan) -> int:
    """Remove in place what ``scan`` flagged in ``root``: hidden instruction elements, risky
    comments, noscript, template and meta elements, exfiltration images (links keep their text)
    and risky attributes. Returns how many things were removed."""
    document = root.getroottree().getroot()
    count = 0
    for node in scan.remove:
        if _in_document(node, document) and _remove(node):
            count += 1
    for element in scan.unwrap:
        if _in_document(element, document) and _unwrap(element):
            count += 1
    for element in scan.scrub:
        if _in_document(element, document):
            _scrub(element)
            count += 1
    for element, name in scan.attributes:
        if _in_document(element, document) and element.get(name) is not None:
            del element.attrib[name]
            count += 1
    return count
