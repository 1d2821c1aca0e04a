"""Other things' cards on a page about one thing: a product page's carousels of other products
("Similar items", "Customers also bought", sponsored listings), each card a picture, a linked
name and a price (convert/extract/cards.py)."""

from __future__ import annotations

CARD_PAGE_TYPES = frozenset({"product"})
"""The page types whose content is one thing: cards of others there are furniture (on a
collection or a listing, the cards are the content)."""
CARD_MAX_CHARS = 400
"""A card is short: longer siblings are sections of the page..."""
CARD_MIN_COUNT = 3
"""...and a run of cards has at least this many siblings of one tag..."""
CARD_MIN_SHARE = 0.6
"""...this share of which are cards (a price and a link or a picture each)."""
CARDS_MAX_SHARE = 0.8
"""Share of the content's text above which the cards are what the page is about (a collection
taken for a product): they stay."""
