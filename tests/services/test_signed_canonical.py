"""The canonical form a signed link's signature covers, byte for byte as docs/screenshots.md
states it: every parameter but the signature as sent, with key_id and url, sorted by name then
value, percent-encoded but for the unreserved characters, joined with &."""

from __future__ import annotations

import hashlib
import hmac

from services.screenshots.signed import canonical, key_secret, signature


def test_canonical_form_is_sorted_and_encoded_as_documented() -> None:
    query = {
        "signature": ["ignored"],
        "format": ["png"],
        "exclude_selectors": [".ad, #chat"],
        "expires": ["1900000000"],
        "Zed": ["b", "a"],
    }
    url = "https://example.com/a b?q=é&x=1~2"
    assert canonical("pc_Ab3dE6gH", url, query) == (
        b"Zed=a&Zed=b&exclude_selectors=.ad%2C%20%23chat&expires=1900000000&format=png"
        b"&key_id=pc_Ab3dE6gH&url=https%3A%2F%2Fexample.com%2Fa%20b%3Fq%3D%C3%A9%26x%3D1~2"
    )


def test_signature_is_hex_hmac_sha256_of_the_canonical_form() -> None:
    secret = key_secret("installation", "pc_Ab3dE6gH")
    assert secret == hmac.new(b"installation", b"pc_Ab3dE6gH", hashlib.sha256).hexdigest()
    assert key_secret("installation", "pc_Ab3dE6gI") != secret
    query = {"format": ["png"]}
    expected = hmac.new(
        secret.encode(), b"format=png&key_id=pc_Ab3dE6gH&url=http%3A%2F%2Fx%2F", hashlib.sha256
    ).hexdigest()
    assert signature(secret, "pc_Ab3dE6gH", "http://x/", query) == expected
