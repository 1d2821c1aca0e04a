"""API keys on a request: where a key may be presented (the ``app_id`` parameter, a header,
``Authorization: Bearer``), and who owns it, with unknown keys from one address paid for from a
bucket of their own so that they cannot crowd the database or a valid key out."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from tornado.httputil import HTTPServerRequest

from handlers.errors import ApiError
from handlers.lookupgate import NoTurn
from store.keys import KeyFlaw, key_flaw
from store.store import KeyInfo, StoreUnavailable

if TYPE_CHECKING:  # the composition root builds what the handlers are given
    from app.services import Services

log = logging.getLogger(__name__)

# Unknown keys a client address may send: a burst of 20, then one a second. Only keys found
# unknown keep what they take from it, so a valid key is never refused for what others sent from
# its address (behind a reverse proxy, every client shares one).
BAD_KEY_RATE = 1.0
BAD_KEY_BURST = 20
# Once that bucket is empty, the address's key lookups go one at a time: a request waits at most
# this long for its turn, then gets 429 with this Retry-After.
LOOKUP_TURN_SECONDS = 5.0
LOOKUP_RETRY_AFTER = 1
KEY_HEADERS = ("api-key", "X-API-Key")
"""Headers that may carry the key, after the app_id parameter and before Authorization."""
# A presented key refused before any lookup: the status and kind of each flaw.
KEY_FLAW_ERRORS: dict[KeyFlaw, str] = {
    KeyFlaw.TOO_LONG: "invalid_parameter",
    KeyFlaw.SPACE_OR_CONTROL: "unauthorized",
}


async def key_owner(request: HTTPServerRequest, services: Services) -> KeyInfo:
    """The key's owner. A key remembered as known never waits. Every database lookup is
    paid for in advance from the address's unknown-key bucket (given back when the key turns
    out known); once the bucket is empty, the address's lookups wait in its line, one at a
    time, for at most ``LOOKUP_TURN_SECONDS`` (then 429). A key found unknown is 429 when
    the bucket is empty, else 401: a valid key is delayed by its address's bad keys, never
    refused for them."""
    key = presented_key(request)
    store, limiter = services.store, services.limiter
    address = request.remote_ip or "-"
    bucket = f"bad-key:{address}"
    paid = False
    try:
        if not store.needs_lookup(key):
            info = await store.authenticate(key)  # remembered, or malformed: no lookup
        elif limiter.take(bucket, BAD_KEY_RATE, BAD_KEY_BURST) is None:
            paid = True
            info = await store.authenticate(key)
        else:
            info = await _lookup_in_line(services, key, address)
    except StoreUnavailable:
        if paid:
            limiter.give_back(bucket, BAD_KEY_BURST)
        raise  # answered "unavailable" by write_error
    if info is not None:
        if paid:
            limiter.give_back(bucket, BAD_KEY_BURST)
        return info
    wait = None if paid else limiter.take(bucket, BAD_KEY_RATE, BAD_KEY_BURST)
    if wait is not None:
        raise ApiError("rate_limited", "too many unknown keys from this client", retry_after=wait)
    raise ApiError("unauthorized", "the API key is unknown or revoked")


async def _lookup_in_line(services: Services, key: str, address: str) -> KeyInfo | None:
    """Look ``key`` up in ``address``'s turn; 429 when the turn does not come in time."""
    try:
        async with services.key_gate.turn(address, LOOKUP_TURN_SECONDS):
            return await services.store.authenticate(key)
    except NoTurn as exc:
        log.info("key lookup from %s refused: %s", address, exc)
        raise ApiError(
            "rate_limited",
            "too many unknown keys from this client; the key could not be checked in time",
            retry_after=LOOKUP_RETRY_AFTER,
        ) from exc


def presented_key(request: HTTPServerRequest) -> str:
    """The key as sent (the app_id parameter, else the api-key or X-API-Key header, else
    ``Authorization: Bearer``), never trimmed: one that is missing, over-long or holds
    spaces or control characters is refused here."""
    values = request.query_arguments.get("app_id") or [b""]
    key, carrier = values[-1].decode("utf-8", "replace"), "app_id"
    for header in KEY_HEADERS:
        if key:
            break
        key, carrier = request.headers.get(header, ""), f"the {header} header"
    if not key:
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() == "bearer":
            key, carrier = token, "the Authorization header"
    if not key:
        raise ApiError(
            "unauthorized",
            "an API key is required: the app_id parameter, the api-key or X-API-Key "
            "header, or Authorization: Bearer",
        )
    flaw = key_flaw(key)
    if flaw is not None:
        raise ApiError(KEY_FLAW_ERRORS[flaw], f"{carrier} {flaw.value}")
    return key
