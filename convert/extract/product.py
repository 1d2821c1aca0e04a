"""What a product page says only in its JSON-LD: shops often render the description, the price
or the specifications with scripts, or in tabs the page never sends, while the schema.org
``Product`` object in the page's JSON-LD carries them for search engines.

:func:`product_facts` reads that object before the page is cleaned (cleaning removes scripts);
:func:`add_missing_facts` puts back, after main-content extraction, whatever of it the extracted
content lacks: the name as a heading, the price, the description, the specifications. What the
page already shows is never repeated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import lxml.html
from lxml import etree

from convert.extract import rules
from convert.html.document import body_of, xml_safe
from convert.metadata.jsonld import json_ld_objects

_WORDS = re.compile(r"\w+")
_NUMBER = re.compile(r"\d[\d.,\u00a0 ]*\d|\d")


@dataclass(frozen=True)
class ProductFacts:
    name: str
    description: str
    price: str
    """The price with its currency ("49.95 EUR"), or ""."""
    properties: tuple[tuple[str, str], ...]
    """``additionalProperty`` name and value pairs (the specifications)."""


def product_facts(root: lxml.html.HtmlElement) -> ProductFacts | None:
    """The page's JSON-LD product, or None when it has none."""
    for item in json_ld_objects(root):
        kinds = item.get("@type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if rules.PRODUCT_TYPES.isdisjoint(kind for kind in kinds if isinstance(kind, str)):
            continue
        name = _text(item.get("name"))
        if not name:
            continue
        return ProductFacts(
            name=name[: rules.PRODUCT_FIELD_CHARS],
            description=_plain(_text(item.get("description")))[: rules.PRODUCT_DESCRIPTION_CHARS],
            price=_price(item.get("offers")),
            properties=_properties(item.get("additionalProperty")),
        )
    return None


def add_missing_facts(root: lxml.html.HtmlElement, facts: ProductFacts) -> None:
    """Add to the extracted ``root`` the facts its text does not show, in place."""
    body = body_of(root)
    # itertext, not text_content: block boundaries must part words ("2</h1><p>The").
    text = " ".join(body.itertext())
    shown = set(_WORDS.findall(text.casefold()))
    if not _shown(facts.name, shown):
        heading = lxml.html.Element("h1")
        heading.text = facts.name
        body.insert(0, heading)
        heading.tail, body.text = body.text, None
    if facts.price and not _price_shown(facts.price, text):
        _paragraph(body, f"Price: {facts.price}")
    if facts.description and not _shown(facts.description, shown):
        for part in facts.description.split("\n"):
            if part.strip():
                _paragraph(body, part.strip())
    missing = [(key, value) for key, value in facts.properties if not _shown(value, shown)]
    if missing:
        items = etree.SubElement(body, "ul")
        for key, value in missing:
            etree.SubElement(items, "li").text = f"{key}: {value}" if key else value


def _shown(fact: str, shown: set[str]) -> bool:
    words = _WORDS.findall(fact.casefold())
    if not words:
        return True
    return sum(word in shown for word in words) >= rules.PRODUCT_PRESENT_SHARE * len(words)


def _price_shown(price: str, text: str) -> bool:
    """Whether the page shows the price's amount, however it writes it ("4345" against
    "$4,345.00" or "4.345,00 €")."""
    amount = _amount(price.split(maxsplit=1)[0]) if price.split() else None
    if amount is None:
        return True
    return any(_amount(number) == amount for number in _NUMBER.findall(text))


def _amount(number: str) -> float | None:
    """A written number's value: the last of "," and "." is the decimal separator when both
    are used, a lone separator followed by exactly three digits groups thousands."""
    digits = number.replace(" ", "").replace("\u00a0", "")
    if "," in digits and "." in digits:
        decimal = "," if digits.rfind(",") > digits.rfind(".") else "."
        digits = digits.replace("." if decimal == "," else ",", "").replace(decimal, ".")
    elif "," in digits or "." in digits:
        mark = "," if "," in digits else "."
        head, _, tail = digits.rpartition(mark)
        digits = digits.replace(mark, "") if len(tail) == 3 else f"{head.replace(mark, '')}.{tail}"
    try:
        return float(digits)
    except ValueError:
        return None


def _paragraph(body: etree._Element, text: str) -> None:
    etree.SubElement(body, "p").text = text


def _text(value: Any) -> str:
    if isinstance(value, list) and value:
        value = value[0]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        return ""
    return xml_safe(" ".join(value.split()))[: rules.PRODUCT_DESCRIPTION_CHARS]


def _plain(value: str) -> str:
    """A description that carries HTML, as its text (block breaks kept as line breaks)."""
    if "<" not in value:
        return value
    try:
        fragment = lxml.html.fragment_fromstring(value, create_parent="div")
    except (etree.ParserError, ValueError):
        return value
    for block in fragment.iter("p", "li", "br", "div", "h2", "h3", "h4"):
        block.tail = "\n" + (block.tail or "")
    lines = (" ".join(line.split()) for line in fragment.text_content().split("\n"))
    return "\n".join(line for line in lines if line)


def _price(offers: Any) -> str:
    offer = offers[0] if isinstance(offers, list) and offers else offers
    if not isinstance(offer, dict):
        return ""
    price = _text(offer.get("price") or offer.get("lowPrice"))
    currency = _text(offer.get("priceCurrency"))
    field = rules.PRODUCT_FIELD_CHARS
    return f"{price[:field]} {currency[:field]}".strip() if price else ""


def _properties(values: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(values, list):
        return ()
    found = []
    for value in values[: rules.PRODUCT_MAX_PROPERTIES]:
        if isinstance(value, dict):
            key, text = _text(value.get("name")), _text(value.get("value"))
            if text:
                found.append((key[: rules.PRODUCT_FIELD_CHARS], text[: rules.PRODUCT_FIELD_CHARS]))
    return tuple(found)
