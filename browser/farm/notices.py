"""Consent notices no list knows, hidden before a screenshot is taken: an element fixed or
sticky near the top or bottom of the viewport that speaks of cookies or consent and offers a
control answering it. The words and limits come with the capture (:class:`NoticeRules`); the
farm only looks."""

from __future__ import annotations

import logging
from dataclasses import asdict

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from browser.farm.types import NoticeRules

log = logging.getLogger(__name__)

# From each text that speaks of consent, up to the nearest fixed or sticky ancestor; hidden when
# it is small, near an edge and holds an answering control. The page's scroll lock goes with it.
_HIDE_NOTICES = """
(rules) => {
  const notice = new RegExp(rules.notice, 'i');
  const purpose = new RegExp(rules.purpose, 'i');
  const choice = new RegExp(rules.choice, 'i');
  const height = window.innerHeight;
  const walker = document.createTreeWalker(document.body || document.documentElement,
                                           NodeFilter.SHOW_TEXT);
  const judged = new Set();
  let hidden = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!notice.test(node.nodeValue)) continue;
    let box = node.parentElement;
    while (box && box !== document.body) {
      const position = getComputedStyle(box).position;
      if (position === 'fixed' || position === 'sticky') break;
      box = box.parentElement;
    }
    if (!box || box === document.body || judged.has(box)) continue;
    judged.add(box);
    const said = box.innerText || '';
    if (said.length > rules.max_chars || !purpose.test(said)) continue;
    const rect = box.getBoundingClientRect();
    const nearEdge = rect.top <= rules.edge * height || rect.bottom >= (1 - rules.edge) * height;
    if (!nearEdge || rect.width === 0 || rect.height === 0) continue;
    const controls = box.querySelectorAll(
      'button, a, [role=button], input[type=button], input[type=submit]');
    const answers = Array.from(controls).some(
      (c) => choice.test(c.tagName === 'INPUT' ? c.value : (c.innerText || c.textContent)));
    if (!answers) continue;
    box.style.setProperty('display', 'none', 'important');
    hidden += 1;
  }
  if (hidden) {
    for (const root of [document.documentElement, document.body]) {
      if (root && getComputedStyle(root).overflowY === 'hidden') {
        root.style.setProperty('overflow', 'auto', 'important');
      }
    }
  }
  return hidden;
}
"""


async def hide_notices(page: Page, rules: NoticeRules) -> int:
    """Hide the page's consent notices as ``rules`` read them; returns how many. A page that
    defeats the look (it navigates away meanwhile, or its scripts broke what the look calls) is
    pictured as it is: a banner left showing does not fail the capture."""
    try:
        hidden: int = await page.evaluate(_HIDE_NOTICES, asdict(rules))
    except PlaywrightError as exc:
        log.info("consent notices not looked for: %s", exc.message.splitlines()[0])
        return 0
    return hidden
