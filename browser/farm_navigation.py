"""Loading a page within its budget: the deadlines of one request, navigation that tolerates a
page whose load event never fires, and the mapping of Chromium's network errors (and of the
egress guard's refusals) to :class:`FarmError` kinds."""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Response
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from browser.egress import EGRESS_HEADER as GUARD_HEADER
from browser.farm_types import FarmError, FarmErrorKind

log = logging.getLogger(__name__)

_NET_ERROR = re.compile(r"net::(ERR_[A-Z0-9_]+)")
_PROXY_ERRORS = frozenset(
    {
        "ERR_TUNNEL_CONNECTION_FAILED",
        "ERR_PROXY_CONNECTION_FAILED",
        "ERR_PROXY_AUTH_UNSUPPORTED",
        "ERR_PROXY_AUTH_REQUESTED",
        "ERR_NO_SUPPORTED_PROXIES",
        "ERR_MANDATORY_PROXY_CONFIGURATION_FAILED",
    }
)
_UNREACHABLE = {
    "ERR_NAME_NOT_RESOLVED": "the target host could not be resolved",
    "ERR_NAME_RESOLUTION_FAILED": "the target host could not be resolved",
    "ERR_CONNECTION_REFUSED": "the target refused the connection",
    "ERR_CONNECTION_RESET": "the target reset the connection",
    "ERR_CONNECTION_CLOSED": "the target closed the connection",
    "ERR_CONNECTION_FAILED": "the connection to the target failed",
    "ERR_CONNECTION_TIMED_OUT": "the connection to the target timed out",
    "ERR_ADDRESS_UNREACHABLE": "the target address is unreachable",
    "ERR_ADDRESS_INVALID": "the target address is invalid",
    "ERR_EMPTY_RESPONSE": "the target closed the connection without answering",
    "ERR_INVALID_RESPONSE": "the target sent a malformed response",
    "ERR_INVALID_HTTP_RESPONSE": "the target sent a malformed response",
    "ERR_TOO_MANY_REDIRECTS": "the target redirected too many times",
    "ERR_UNSAFE_PORT": "the target port is not allowed",
    "ERR_SSL_PROTOCOL_ERROR": "the TLS handshake with the target failed",
    "ERR_SSL_VERSION_OR_CIPHER_MISMATCH": "the TLS handshake with the target failed",
}
EGRESS_HEADER = GUARD_HEADER.lower()  # Playwright lowercases header names
"""The header with which the egress guard (browser/egress.py) marks its own answers;
lowercase, as Playwright gives header names."""
EGRESS_REFUSED = (
    "the target could not be reached through the egress guard; the address may not be allowed"
)


@dataclass
class Budget:
    """The deadlines of one request, as ``time.monotonic()`` values."""

    navigation: float
    """When the page must have loaded (navigationTimeout after the start)."""
    waits: float
    """When waits for selectors must end, leaving time for the capture itself."""
    deadline: float
    """When the whole request must be done."""

    @classmethod
    def start(cls, navigation_s: float, margin_s: float, delay_s: float) -> Budget:
        now = time.monotonic()
        navigation = now + navigation_s
        return cls(navigation, navigation + margin_s / 2, navigation + margin_s + delay_s)

    def left(self, until: float | None = None) -> float:
        """Seconds until ``until`` (the deadline by default), never below zero."""
        return max((self.deadline if until is None else until) - time.monotonic(), 0.0)

    def ms(self, until: float | None = None) -> float:
        """Milliseconds until ``until`` for a Playwright timeout (at least 1: 0 means none)."""
        return max(self.left(until) * 1000.0, 1.0)


async def navigate(page: Page, url: str, budget: Budget) -> Response | None:
    """Load ``url``; returns the main document's response.

    Waits for ``load`` until navigationTimeout, but a page whose subresources never finish is still
    used once its document has been parsed (``domcontentloaded``). Only a document that never
    arrived is a navigation_timeout.
    """
    try:
        response = await page.goto(url, wait_until="commit", timeout=budget.ms(budget.navigation))
    except PlaywrightTimeoutError as exc:
        raise FarmError(
            FarmErrorKind.navigation_timeout, "the page did not respond within navigationTimeout"
        ) from exc
    except PlaywrightError as exc:
        error = _navigation_error(exc)
        if error is None:
            raise
        raise error from exc
    if response is not None:
        refusal = _egress_refusal(response)
        if refusal is not None:
            raise refusal
    try:
        await page.wait_for_load_state("domcontentloaded", timeout=budget.ms(budget.navigation))
    except PlaywrightTimeoutError as exc:
        raise FarmError(
            FarmErrorKind.navigation_timeout,
            "the page's document did not arrive within navigationTimeout",
        ) from exc
    try:
        await page.wait_for_load_state("load", timeout=budget.ms(budget.navigation))
    except PlaywrightTimeoutError:
        log.debug("the load event did not fire in time; continuing with the parsed document")
    return response


def _navigation_error(exc: PlaywrightError) -> FarmError | None:
    """The FarmError for a failed navigation, or None when it is not the target's doing."""
    if "Download is starting" in exc.message:
        return FarmError(
            FarmErrorKind.capture_failed, "the address serves a file download, not a page"
        )
    match = _NET_ERROR.search(exc.message)
    if match is None:
        return None
    code = match.group(1)
    if code in _PROXY_ERRORS:
        return FarmError(FarmErrorKind.target_unreachable, EGRESS_REFUSED)
    if code in _UNREACHABLE:
        return FarmError(FarmErrorKind.target_unreachable, _UNREACHABLE[code])
    if code.startswith("ERR_CERT_"):
        return FarmError(FarmErrorKind.target_unreachable, "the target's TLS certificate failed")
    if code == "ERR_TIMED_OUT":
        return FarmError(
            FarmErrorKind.navigation_timeout, "the page did not respond within navigationTimeout"
        )
    if code == "ERR_BLOCKED_BY_CLIENT":
        return FarmError(FarmErrorKind.capture_failed, "the page itself matched a blocked pattern")
    if code == "ERR_ABORTED":
        return None  # also what a closing browser reports; the farm decides
    return FarmError(FarmErrorKind.capture_failed, f"the page could not be loaded ({code})")


def _egress_refusal(response: Response) -> FarmError | None:
    """The egress guard's own answer to a plain-HTTP page, as an error (an HTTPS destination it
    refuses fails the CONNECT tunnel instead, ERR_TUNNEL_CONNECTION_FAILED).

    The guard marks its answers with ``X-Pagecast-Egress`` (refused, unreachable, failed), so a
    target's own 403 or 502 is captured like any page. An RFC 9209 ``Proxy-Status`` header naming
    an error (as other forward proxies send) counts the same as a refusal.
    """
    if response.status < 400:
        return None
    verdict = response.headers.get(EGRESS_HEADER, "").strip().lower()
    if verdict == "refused":
        return FarmError(FarmErrorKind.target_unreachable, EGRESS_REFUSED)
    if verdict == "unreachable":
        return FarmError(FarmErrorKind.target_unreachable, "the target could not be reached")
    if verdict:
        return FarmError(
            FarmErrorKind.capture_failed, "the egress guard could not relay the request"
        )
    if "error=" in response.headers.get("proxy-status", ""):
        return FarmError(FarmErrorKind.target_unreachable, EGRESS_REFUSED)
    return None
