"""Signed screenshot links, minted offline: a URL that renders a screenshot with fixed parameters
when first fetched and serves the stored image after, for ``<img src="...">`` on any page,
without the API key in it.

>>> from pagecast_client import sign_screenshot_url
>>> sign_screenshot_url(
...     "https://pagecast.example", "pc_Ab3dE6gH", "0" * 64, "https://example.com/",
...     format="png", expires=1900000000,
... )  # doctest: +ELLIPSIS
'https://pagecast.example/api/1.1/screenshot/signed/pc_Ab3dE6gH/https%3A%2F%2Fexample.com%2F?...'

The key's prefix (``key_id``) and its signing secret come from ``GET /api/1.1/signing-secret``
(:meth:`pagecast_client.Pagecast.signing_secret`); the secret is the only thing to keep private.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Unpack
from urllib.parse import quote, urlencode

from pagecast_client.params import SignedScreenshotParams, encode


@dataclass(frozen=True)
class SigningSecret:
    """What ``GET /api/1.1/signing-secret`` answers: the key's prefix and its signing secret."""

    key_id: str
    signing_secret: str


def sign_screenshot_url(
    base_url: str,
    key_id: str,
    signing_secret: str,
    url: str,
    **params: Unpack[SignedScreenshotParams],
) -> str:
    """A signed screenshot link to ``url`` on the Pagecast at ``base_url``, signed with the
    signing secret of the key whose prefix is ``key_id``. ``params`` are the screenshot
    endpoint's but for ``response_type`` (a signed link answers the image), and ``expires``
    (Unix seconds) ends the link; without it, the link lives until the key is revoked."""
    query = encode("sign_screenshot_url", SignedScreenshotParams, params)
    pairs = sorted([*query.items(), ("key_id", key_id), ("url", url)])
    canonical = urlencode(pairs, quote_via=quote).encode()
    signature = hmac.new(signing_secret.encode(), canonical, hashlib.sha256).hexdigest()
    target = quote(url, safe="")
    link = f"{base_url.rstrip('/')}/api/1.1/screenshot/signed/{key_id}/{target}"
    return f"{link}?{urlencode({**query, 'signature': signature}, quote_via=quote)}"
