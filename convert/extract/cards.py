"""Other things' cards: on a page about one product, the runs of short sibling blocks that each
show another product (a price with a link or a picture) are carousels of similar or sponsored
items, not the product's content. The rules are data in :mod:`convert.extract.rules.cards`."""

from __future__ import annotations

from collections import defaultdict

from lxml import etree

from convert.extract import rules
from convert.extract.measures import Measures
from convert.html.document import drop, text_of


def drop_other_cards(container: etree._Element, measures: Measures, kind: str) -> None:
    """Remove from ``container`` (the content of a page of type ``kind``) the runs of other
    products' cards, unless the page is not about one thing, the cards are most of it or no
    price is left besides theirs (a shop's category taken for a product); the headline's block
    is never a card. ``measures`` know ``container`` and are kept so."""
    if kind not in rules.CARD_PAGE_TYPES:
        return
    headline = next(container.iter("h1"), None)
    keep = set(headline.iterancestors()) if headline is not None else set()
    runs: list[list[etree._Element]] = []
    for parent in container.iter():
        if not isinstance(parent.tag, str) or len(parent) < rules.CARD_MIN_COUNT:
            continue
        siblings: defaultdict[str, list[etree._Element]] = defaultdict(list)
        for child in parent:
            if isinstance(child.tag, str):
                siblings[child.tag].append(child)
        for group in siblings.values():
            if len(group) < rules.CARD_MIN_COUNT:
                continue
            cards = [child for child in group if child not in keep and _card(child, measures)]
            if len(cards) >= max(rules.CARD_MIN_COUNT, rules.CARD_MIN_SHARE * len(group)):
                runs.append(cards)
    doomed = _outermost([card for run in runs for card in run])
    total = measures.length(container)
    if (
        not doomed
        or sum(measures.length(card) for card in doomed) > rules.CARDS_MAX_SHARE * total
        or not rules.PRICE.search(_text_besides(container, set(doomed)))
    ):
        return
    for card in doomed:
        measures.forget(card)
        drop(card)


def _card(element: etree._Element, measures: Measures) -> bool:
    """A short block with a price and a link or a picture."""
    length = measures.length(element)
    if not 0 < length <= rules.CARD_MAX_CHARS:
        return False
    if not (measures.links(element) or measures.holds(element, "img")):
        return False
    return bool(rules.PRICE.search(text_of(element)))


def _text_besides(container: etree._Element, left_out: set[etree._Element]) -> str:
    """The text of ``container`` outside the elements ``left_out``."""
    parts: list[str] = []

    def walk(element: etree._Element) -> None:
        parts.append(element.text or "")
        for child in element:
            if child not in left_out:
                walk(child)
            parts.append(child.tail or "")

    walk(container)
    return " ".join(parts)


def _outermost(elements: list[etree._Element]) -> list[etree._Element]:
    """Those of ``elements`` not inside another of them."""
    chosen = set(elements)
    return [e for e in elements if not any(a in chosen for a in e.iterancestors())]
