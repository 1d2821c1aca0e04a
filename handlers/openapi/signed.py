"""The signed links' part of ``/openapi.json``: the signed screenshot link (its parameters from
its own table, the image as its only answer) and the signing-secret read.

Public API: :func:`signed_paths` (headers, security, error responses) -> the ``paths`` entries.
"""

from __future__ import annotations

from typing import Any

from handlers.params.frames import KEY_ONLY
from handlers.params.screenshot import SIGNED_SCREENSHOT_PARAMS

_IMAGE = {
    kind: {"schema": {"type": "string", "format": "binary"}}
    for kind in ("image/jpeg", "image/png", "image/webp", "application/pdf")
}

_PATH_PARAMS = [
    {
        "name": "key_id",
        "in": "path",
        "required": True,
        "description": "The prefix of the key that signed the link (pc_ and 8 characters).",
        "schema": {"type": "string", "pattern": "^pc_[A-Za-z0-9_-]{8}$"},
        "example": "pc_Ab3dE6gH",
    },
    {
        "name": "encoded_url",
        "in": "path",
        "required": True,
        "description": "The target URL, percent-encoded whole (it is signed as it decodes).",
        "schema": {"type": "string"},
        "example": "https%3A%2F%2Fexample.com%2F",
    },
]


def signed_paths(
    headers: dict[str, Any], security: list[dict[str, list[str]]], errors: dict[str, Any]
) -> dict[str, Any]:
    """The signed link and the signing-secret read, with the document's common ``headers``,
    ``security`` and the oEmbed-shape ``errors``."""
    link = {
        "operationId": "signedScreenshot",
        # The reference page shows the screenshot's parameters once, and here only the link's own.
        "x-parameters-of": "screenshot",
        "summary": "A signed screenshot link: the image, captured on first fetch",
        "description": "No key is sent: the link names its key by prefix and carries an HMAC "
        "signature of its canonical form (docs/screenshots.md, Signed links). The image is "
        "captured on the first fetch and the stored capture served after while it has an "
        "hour left; the capture is billed once to the signing key (as a screenshot), the stored "
        "capture served again is free. A wrong or "
        "missing signature, a changed parameter or target, an expired link or a revoked key: "
        "403 forbidden.",
        "parameters": _PATH_PARAMS + SIGNED_SCREENSHOT_PARAMS.openapi(),
        "responses": {
            "200": {
                "description": "The image (or PDF) itself.",
                "headers": {
                    **headers,
                    "X-Screenshot-Cached": {
                        "description": "true when the stored capture was served.",
                        "schema": {"type": "string", "enum": ["true", "false"]},
                    },
                },
                "content": _IMAGE,
            },
            **errors,
        },
    }
    secret = {
        "operationId": "signingSecret",
        "summary": "The signing secret of the presented key, for signed links",
        "description": "The same secret every time for the same key; revoking the key "
        "refuses its links. Free.",
        "security": security,
        "parameters": KEY_ONLY.openapi(),
        "responses": {
            "200": {
                "description": "The key's prefix and signing secret.",
                "headers": headers,
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "required": ["key_id", "signing_secret"],
                            "properties": {
                                "key_id": {"type": "string"},
                                "signing_secret": {
                                    "type": "string",
                                    "description": "64 hex digits; the HMAC key of signatures.",
                                },
                            },
                        }
                    }
                },
            },
            **errors,
        },
    }
    return {
        "/api/1.1/screenshot/signed/{key_id}/{encoded_url}": {"get": link},
        "/api/1.1/signing-secret": {"get": secret},
    }
