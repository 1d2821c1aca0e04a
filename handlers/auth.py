"""Where a request presents its API key: the ``app_id`` parameter, the ``api-key`` and
``X-API-Key`` headers, and ``Authorization: Bearer``. One key may be sent in several of them, but
two different keys in one request are refused (400 ``conflicting_keys``): which of them the
request meant is not Pagecast's guess to make. Who owns the key is the account service's business
(:class:`services.accounts.AccountService`)."""

from __future__ import annotations

import hmac

from tornado.httputil import HTTPServerRequest

from handlers.errors import ApiError

KEY_HEADERS = ("api-key", "X-API-Key")
"""Headers that may carry the key, after the app_id parameter and before Authorization."""


def _carried(request: HTTPServerRequest) -> list[tuple[str, str]]:
    """Every non-empty key the request carries, with where it came from, in the order the
    places are named (app_id, api-key, X-API-Key, Authorization)."""
    found = [
        (raw.decode("utf-8", "replace"), "app_id")
        for raw in request.query_arguments.get("app_id", [])
    ]
    for header in KEY_HEADERS:
        found += [(value, f"the {header} header") for value in request.headers.get_list(header)]
    for value in request.headers.get_list("Authorization"):
        scheme, _, token = value.partition(" ")
        if scheme.lower() == "bearer":
            found.append((token, "the Authorization header"))
    return [(key, carrier) for key, carrier in found if key]


def presented_key(request: HTTPServerRequest) -> tuple[str, str]:
    """The key as sent, never trimmed, and where it came from (for a refusal's words); 401 when
    there is none, 400 when the request carries two different keys (the same key sent in several
    places is one key)."""
    found = _carried(request)
    if not found:
        raise ApiError(
            "unauthorized",
            "an API key is required: the app_id parameter, the api-key or X-API-Key "
            "header, or Authorization: Bearer",
        )
    key, carrier = found[0]
    other = next(((k, c) for k, c in found if k != key), None)
    if other is not None:
        # Neither key is named: the message says only where each came from.
        places = f"in {carrier}" if other[1] == carrier else f"in {carrier} and {other[1]}"
        raise ApiError("conflicting_keys", f"two different API keys {places}; send one key")
    return key, carrier


def bearer_matches(request: HTTPServerRequest, token: str) -> bool:
    """Whether the request's ``Authorization: Bearer`` credential is ``token``, compared in
    constant time (for the operator's token of the metrics listener, not an API key)."""
    scheme, _, sent = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(sent.strip().encode("utf-8"), token.encode("utf-8"))
