"""Loading a page within its budget: the deadlines of one request, navigation that tolerates a
page whose load event never fires, and the mapping of Chromium's network errors, of the egress
guard's refusals and of what a page does to itself during a capture to :class:`FarmError`
kinds."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Request, Response
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from browser.egress.guard import EGRESS_HEADER as GUARD_HEADER
from browser.egress.guard import EGRESS_REASON_HEADER
from browser.farm.types import FarmError, FarmErrorKind

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
    "ERR_CONTENT_LENGTH_MISMATCH": "the target's response broke off before its announced end",
    "ERR_INCOMPLETE_CHUNKED_ENCODING": "the target's response broke off before its end",
    "ERR_RESPONSE_HEADERS_TOO_BIG": "the target's response headers are too large",
    "ERR_UNSAFE_REDIRECT": "the target redirected to an address that is not http or https",
    "ERR_UNKNOWN_URL_SCHEME": "the target redirected to an address that is not http or https",
    "ERR_DISALLOWED_URL_SCHEME": "the target redirected to an address that is not http or https",
    "ERR_INVALID_REDIRECT": "the target sent an invalid redirect",
    "ERR_CONTENT_DECODING_FAILED": "the target's response could not be decoded",
    "ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH": "the target sent a malformed response",
    "ERR_RESPONSE_HEADERS_MULTIPLE_LOCATION": "the target sent a malformed response",
    "ERR_INVALID_CHUNKED_ENCODING": "the target sent a malformed response",
    "ERR_HTTP2_PROTOCOL_ERROR": "the target sent a malformed response",
}
ABORT_EXPLAINED_WAIT = 0.5
"""Seconds to wait, after an aborted navigation, for the failed request that explains it."""
ABORTED = (
    "the browser abandoned loading the page (a redirect to an address that is not http or "
    "https, or a file download)"
)
EGRESS_HEADER = GUARD_HEADER.lower()  # Playwright lowercases header names
_REASON_HEADER = EGRESS_REASON_HEADER.lower()
"""The header with which the egress guard (browser/egress/guard.py) marks its own answers;
lowercase, as Playwright gives header names."""
EGRESS_REFUSED = (
    "the target could not be reached through the egress guard; the address may not be allowed"
)
REASON_CHARS = 200
"""Most characters of the egress guard's reason passed on in an error message."""
SCHEME_CHARS = 20
"""Most characters of a redirect's scheme named in an error message."""
PAGE_CAUSED: tuple[tuple[str, str], ...] = (
    (
        "Execution context was destroyed",
        "the page navigated away or reloaded itself while it was being captured",
    ),
    (
        "Cannot find context with specified id",
        "the page navigated away or reloaded itself while it was being captured",
    ),
    (
        "Not attached to an active page",
        "the page navigated away or reloaded itself while it was being captured",
    ),
    (
        "Target page, context or browser has been closed",
        "the page closed itself while it was being captured",
    ),
    ("Target closed", "the page closed itself while it was being captured"),
    (
        "page is navigating",
        "the page navigated away or reloaded itself while it was being captured",
    ),
    ("frame was detached", "the page removed the frame being captured"),
    ("Frame has been detached", "the page removed the frame being captured"),
    ("Element is not attached to the DOM", "the page removed the element being captured"),
    ("Node is detached from document", "the page removed the element being captured"),
)
"""Playwright's words (matched case-insensitively) for failures a page causes itself by
navigating, reloading, closing itself or removing what is being captured, with the message the
client gets (target_unreachable, 502). Only consulted once the browser is known to be alive."""


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
    arrived is a navigation_timeout; a document whose load failed at the network level (reset,
    cut short, refused by the egress guard mid-body) ends the navigation at once.
    """
    failed: asyncio.Future[FarmError] = asyncio.get_running_loop().create_future()

    def on_failed(request: Request) -> None:
        if failed.done():
            return
        try:
            frame = request.frame
        except PlaywrightError:
            return  # a service worker's request has no frame
        if frame != page.main_frame:
            return
        if not request.is_navigation_request():
            return
        scheme = urlsplit(request.url).scheme.lower()
        if scheme not in ("http", "https"):
            # A redirect to gopher:, ftp:, file:... (Chromium aborts it).
            failed.set_result(
                FarmError(
                    FarmErrorKind.target_unreachable,
                    f"the target redirected to a {scheme[:SCHEME_CHARS] or 'schemeless'}: "
                    "address; only http and https are followed",
                )
            )
            return
        error = _navigation_error_text(request.failure or "")
        if error is not None:
            failed.set_result(error)

    page.on("requestfailed", on_failed)
    try:
        return await _navigate(page, url, budget, failed)
    except PlaywrightError as exc:
        # Chromium reports some of these as an aborted load: the failed request (whose event
        # may come just after) says better.
        if "ERR_ABORTED" in exc.message and not failed.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(failed), ABORT_EXPLAINED_WAIT)
        if failed.done() and not failed.cancelled():
            raise failed.result() from exc
        if "ERR_ABORTED" in exc.message:
            # The farm first checks whether its browser went away (which aborts loads too).
            raise FarmError(FarmErrorKind.target_unreachable, ABORTED) from exc
        raise
    finally:
        page.remove_listener("requestfailed", on_failed)
        if not failed.done():
            failed.cancel()


async def _navigate(
    page: Page, url: str, budget: Budget, failed: asyncio.Future[FarmError]
) -> Response | None:
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
        await _unless_failed(
            page.wait_for_load_state("domcontentloaded", timeout=budget.ms(budget.navigation)),
            failed,
        )
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


async def _unless_failed(wait: Awaitable[None], failed: asyncio.Future[FarmError]) -> None:
    """``wait``, abandoned with the main document's network error the moment it fails."""
    task = asyncio.ensure_future(wait)
    try:
        await asyncio.wait((task, failed), return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, PlaywrightError):
                await task
    if task.done() and not task.cancelled():
        task.result()
        return
    raise failed.result()


def _navigation_error(exc: PlaywrightError) -> FarmError | None:
    """The FarmError for a failed navigation, or None when it is not the target's doing."""
    if "Download is starting" in exc.message:
        return FarmError(
            FarmErrorKind.target_unreachable, "the address serves a file download, not a page"
        )
    return _navigation_error_text(exc.message)


def _navigation_error_text(message: str) -> FarmError | None:
    """The FarmError for Chromium's ``net::ERR_...`` text, or None when it is not the target's
    doing (an aborted load: a closing browser, or the page navigating elsewhere)."""
    match = _NET_ERROR.search(message)
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
    # Any other network error of the main document is the target's (or its network's) doing.
    return FarmError(FarmErrorKind.target_unreachable, f"the page could not be loaded ({code})")


def page_caused_error(message: str) -> FarmError | None:
    """The FarmError for a Playwright failure the page caused itself (see PAGE_CAUSED), or None.
    The caller has ruled out a browser that went away and a crashed renderer."""
    lowered = message.lower()
    for words, explanation in PAGE_CAUSED:
        if words.lower() in lowered:
            return FarmError(FarmErrorKind.target_unreachable, explanation)
    return None


def _egress_refusal(response: Response) -> FarmError | None:
    """The egress guard's own answer to a plain-HTTP page, as an error (an HTTPS destination it
    refuses fails the CONNECT tunnel instead, ERR_TUNNEL_CONNECTION_FAILED).

    The guard marks its answers with ``X-Pagecast-Egress`` (refused, unreachable, failed), so a
    target's own 403 or 502 is captured like any page. An RFC 9209 ``Proxy-Status`` header naming
    an error (as other forward proxies send) counts the same as a refusal.
    """
    # Only the guard's answers to plain HTTP can carry its verdict (it strips the header from
    # what origins send); over HTTPS the header could only come from the target itself.
    if response.status < 400 or not response.url.lower().startswith("http:"):
        return None
    verdict = response.headers.get(EGRESS_HEADER, "").strip().lower()
    if verdict == "refused":
        return FarmError(FarmErrorKind.target_unreachable, EGRESS_REFUSED)
    if verdict == "unreachable":
        return FarmError(FarmErrorKind.target_unreachable, "the target could not be reached")
    if verdict == "limited":
        reason = response.headers.get(_REASON_HEADER, "").strip()[:REASON_CHARS]
        return FarmError(
            FarmErrorKind.target_unreachable, reason or "the target's response broke the limits"
        )
    if verdict:
        return FarmError(
            FarmErrorKind.capture_failed, "the egress guard could not relay the request"
        )
    if "error=" in response.headers.get("proxy-status", ""):
        return FarmError(FarmErrorKind.target_unreachable, EGRESS_REFUSED)
    return None
