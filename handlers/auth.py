"""Where a request presents its API key: the ``app_id`` parameter, then the ``api-key`` and
``X-API-Key`` headers, then ``Authorization: Bearer``. Who owns it is the account service's
business (:class:`services.accounts.AccountService`)."""

from __future__ import annotations

from tornado.httputil import HTTPServerRequest

from handlers.errors import ApiError

KEY_HEADERS = ("api-key", "X-API-Key")
"""Headers that may carry the key, after the app_id parameter and before Authorization."""


def presented_key(request: HTTPServerRequest) -> tuple[str, str]:
    """The key as sent, never trimmed, and where it came from (for a refusal's words); 401 when
    there is none."""
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
    return key, carrier
