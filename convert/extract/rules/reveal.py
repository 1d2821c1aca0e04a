"""Content revealed before extraction (hidden, collapsed, in ``<noscript>``) and a product's
facts read from its JSON-LD."""

from __future__ import annotations

# -- content revealed before extraction (convert/extract/reveal.py) -----------------------------

NOSCRIPT_MIN_TEXT = 500
"""Characters of text ``<noscript>`` elements must hold together to count as the content."""
NOSCRIPT_SHARE = 0.67
"""Share of the body's visible text they must hold: the rest of the page is an empty shell."""
HIDDEN_MIN_TEXT = 500
"""Characters a hidden block must hold to be taken for content waiting to be revealed."""
HIDDEN_SHARE = 0.5
"""Share of the body's text (the hidden block's included) it must hold..."""
HIDDEN_MAX_LINKS = 0.6
"""...with less than this share of link text (a hidden menu or drawer stays hidden), unless it
holds this share of the body's text (the whole page hidden until a script shows it):"""
HIDDEN_WHOLE_PAGE = 0.9
PANEL_ROLES = frozenset({"tabpanel", "region"})
"""ARIA roles of the panels of tabs and accordions."""
PANEL_NAMES = frozenset(
    {"accordion", "tabpanel", "tab-pane", "tab-panel", "faq", "answer", "accordion-content"}
)
"""Class or id words (split at spaces, ``_`` and ``__``) that name a collapsed panel."""
PANEL_MAX_NODES = 2000
PANEL_MAX_TEXT = 20_000
"""Bounds of a panel told by the button before it: a larger hidden block is not read as one."""
PANEL_TAGS = frozenset({"dd", "pre", "details"})
"""Elements that are content even when hidden: a definition, a code block."""


# -- a product's facts from its JSON-LD (convert/extract/product.py) ----------------------------

PRODUCT_TYPES = frozenset({"Product", "ProductGroup", "IndividualProduct", "ProductModel"})
PRODUCT_PRESENT_SHARE = 0.7
"""Share of a fact's words the extracted text must hold for the fact to count as shown."""
PRODUCT_MAX_PROPERTIES = 50
PRODUCT_DESCRIPTION_CHARS = 5000
"""Longest description kept (characters); every other field is cut at
:data:`PRODUCT_FIELD_CHARS`."""
PRODUCT_FIELD_CHARS = 300
