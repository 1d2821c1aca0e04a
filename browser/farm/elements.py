"""Waiting for the elements a request names, each for a bounded time.

- ``wait_for_selector``'s element is waited for from the page's load, at most the request's
  ``wait_timeout``: the request says the page builds it late.
- The element to capture (``selector``) and ``load_more_selector``'s button are looked for once
  the page is ready (its readiness wait is over, or ``wait_for_selector``'s element is there). A
  ready page seldom adds an element after that, so each is given :data:`SELECTOR_GRACE` (never
  more than ``wait_timeout``): a missing element to capture fails the request about a second
  after the page was ready instead of at the end of its navigation budget, and a missing button
  means there is nothing more to load.
- ``load_more_selector``'s clicks, and the settling of what each one loads, take at most
  ``wait_timeout`` in all.

Every wait also keeps to the request's :class:`~browser.farm.navigation.Budget`. An element
that never comes is :class:`~browser.farm.types.FarmError` ``selector_not_found``, whose message
names the parameter, its selector and how long it was waited for.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal, Protocol

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from browser.farm.navigation import Budget
from browser.farm.types import SELECTOR_GRACE, FarmError, FarmErrorKind

LOAD_MORE_CLICKS = 3
"""Most clicks on load_more_selector (SPEC 8)."""
CLICK_TIMEOUT = 2.0
"""Most seconds one click on load_more_selector may take (Playwright waits for it to be
actionable)."""
SELECTOR_CHARS = 200
"""Most characters of a selector quoted in an error message."""
# How a message says from when, or by what bound, an element was waited for.
ON_READY = "once the page was ready"
AWAITED = "(wait_timeout)"
CUT_SHORT = "(all that was left of the request's time limit)"

State = Literal["attached", "visible"]


@dataclass(frozen=True)
class Wanted:
    """An element a request names: the parameter that names it, its selector, the state it
    must reach, the most seconds it is waited for, and the words that say from when."""

    parameter: str
    selector: str
    state: State
    limit: float
    since: str

    @classmethod
    def awaited(cls, selector: str, state: State, wait_timeout_ms: int) -> Wanted:
        """``wait_for_selector``'s element: ``wait_timeout`` from the page's load."""
        return cls("wait_for_selector", selector, state, wait_timeout_ms / 1000, AWAITED)

    @classmethod
    def on_ready(cls, parameter: str, selector: str, wait_timeout_ms: int) -> Wanted:
        """A visible element looked for once the page is ready: the grace, within
        ``wait_timeout``."""
        limit = min(SELECTOR_GRACE, wait_timeout_ms / 1000)
        return cls(parameter, selector, "visible", limit, ON_READY)


class Clicking(Protocol):
    """What the load-more clicks need of a request's page
    (:class:`~browser.farm.page.PageSession`)."""

    page: Page

    async def settle(self, budget: Budget, *, until: float | None = None) -> None:
        """Wait until the network settles, never past ``until``."""


async def wait_for(page: Page, wanted: Wanted, budget: Budget) -> Locator:
    """The first element matching ``wanted`` once it reaches its state, waited for at most its
    limit within the time the budget leaves for waits; ``selector_not_found`` otherwise."""
    limit = min(wanted.limit, budget.left(budget.waits))
    locator = page.locator(wanted.selector).first
    try:
        await _reach(locator, wanted, limit)
    except PlaywrightTimeoutError as exc:
        raise not_found(wanted, limit) from exc
    return locator


def not_found(wanted: Wanted, limit: float) -> FarmError:
    """The error of ``wanted`` not met within ``limit`` seconds."""
    bound = CUT_SHORT if limit < wanted.limit else wanted.since
    what = "visible element" if wanted.state == "visible" else "element"
    why = f"no {what} matched within {round(limit * 1000)} ms {bound}"
    return FarmError(
        FarmErrorKind.selector_not_found,
        f"{wanted.parameter} {_shown(wanted.selector)}: {why}",
        problems=((wanted.parameter, why),),
    )


async def click_load_more(
    session: Clicking, button: Wanted, wait_timeout_ms: int, budget: Budget
) -> int:
    """Click ``button`` up to LOAD_MORE_CLICKS times while it is there, letting the network
    settle after each click, all within ``wait_timeout_ms``; returns the clicks. A button that
    does not show within its grace is no error: the page has nothing more to load."""
    until = min(time.monotonic() + wait_timeout_ms / 1000, budget.waits)
    locator = session.page.locator(button.selector).first
    try:
        await _reach(locator, button, min(button.limit, budget.left(until)))
    except PlaywrightTimeoutError:
        return 0
    clicks = 0
    while clicks < LOAD_MORE_CLICKS and time.monotonic() < until:
        if clicks and not await locator.is_visible():
            break  # gone or hidden: nothing more to load
        try:
            await locator.click(timeout=budget.ms(min(until, time.monotonic() + CLICK_TIMEOUT)))
        except PlaywrightTimeoutError:
            break  # covered or disabled
        clicks += 1
        await session.settle(budget, until=until)
    return clicks


async def _reach(locator: Locator, wanted: Wanted, seconds: float) -> None:
    """Wait ``seconds`` for ``locator`` to reach ``wanted.state`` (Playwright's timeout error
    when it does not); a selector Chromium cannot parse is ``selector_not_found``."""
    try:
        await locator.wait_for(state=wanted.state, timeout=max(seconds * 1000, 1.0))
    except PlaywrightTimeoutError:
        raise
    except PlaywrightError as exc:
        if "while parsing" in exc.message:  # Playwright's words for a malformed selector
            raise FarmError(
                FarmErrorKind.selector_not_found,
                f"{wanted.parameter} {_shown(wanted.selector)} is not a valid CSS selector",
                problems=((wanted.parameter, "not a valid CSS selector"),),
            ) from exc
        raise


def _shown(selector: str) -> str:
    """``selector`` quoted for a message, cut to SELECTOR_CHARS."""
    cut = selector if len(selector) <= SELECTOR_CHARS else selector[:SELECTOR_CHARS] + "..."
    return repr(cut)
