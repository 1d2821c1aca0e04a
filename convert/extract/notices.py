"""Consent notices no list knows: a small block that speaks of cookies or consent
(:data:`~convert.extract.consent.NOTICE_WORDS`) around a control whose whole text answers it
(:data:`~convert.extract.consent.CHOICE_WORDS`: accept, reject, manage…). Found from the
controls up, so a page that only mentions cookies in its text keeps it."""

from __future__ import annotations

import re

from lxml import etree

from convert.extract.consent import (
    CHOICE_WORDS,
    NOTICE_CLIMB,
    NOTICE_MAX_CHARS,
    NOTICE_PURPOSES,
    NOTICE_WORDS,
)
from convert.extract.measures import Measures
from convert.html.document import text_of

_NOTICE = re.compile(NOTICE_WORDS, re.IGNORECASE)
_PURPOSE = re.compile(NOTICE_PURPOSES, re.IGNORECASE)
_CHOICE = re.compile(CHOICE_WORDS, re.IGNORECASE)
_BUTTON_INPUTS = ("button", "submit")
_LABEL_MAX = 40
"""Characters a control's text may hold to answer a notice."""
_PROSE = etree.XPath(".//text()[not(ancestor::a or ancestor::button)]")


def unlisted_notices(body: etree._Element, measures: Measures) -> list[etree._Element]:
    """The consent notices in ``body``: for each answering control, the nearest ancestor (at
    most :data:`NOTICE_CLIMB` up) whose text speaks of consent, when that text is short."""
    found: list[etree._Element] = []
    seen: set[etree._Element] = set()
    for control in _controls(body, measures):
        block = control
        for _ in range(NOTICE_CLIMB):
            parent = block.getparent()
            if parent is None or parent is body:
                break
            block = parent
            if block in seen or measures.length(block) > NOTICE_MAX_CHARS:
                break
            said = _said(block)
            if _NOTICE.search(said) and _PURPOSE.search(said):
                seen.add(block)
                found.append(block)
                break
    return found


def _said(block: etree._Element) -> str:
    """The block's text outside its links and buttons: a footer's "Cookie settings" link names
    a page, it does not speak of consent."""
    return " ".join(_PROSE(block))


def _controls(body: etree._Element, measures: Measures) -> list[etree._Element]:
    """The buttons and button-like links whose whole text answers a consent notice."""
    controls: list[etree._Element] = []
    for element in body.iter("button", "a", "input"):
        if element.tag == "input":
            if element.get("type", "").lower() not in _BUTTON_INPUTS:
                continue
            label = element.get("value", "")
        elif measures.length(element) > _LABEL_MAX:
            continue  # too long to be an answer: its text is not read
        else:
            label = text_of(element)
        if len(label) <= _LABEL_MAX and _CHOICE.match(label):
            controls.append(element)
    return controls
