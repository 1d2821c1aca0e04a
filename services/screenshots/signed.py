"""Signed screenshot links: a URL an organization mints on its own, without a round trip and
without handing out its API key, that renders a screenshot with fixed parameters the first time it
is fetched and serves the stored capture after.

Each key has a signing secret: HMAC-SHA256 of the installation's link secret (made once, kept in
the database) and the key's prefix, as 64 hex digits. Pagecast keeps no copy of it: it is derived
again for every link. The key's holder reads it with ``GET /api/1.1/signing-secret`` (or the
operator with ``server.py keys signing-secret PREFIX``). A link names its key by prefix and
carries ``signature``: the hex HMAC-SHA256, keyed with the signing secret's 64 characters, of the
link's canonical form (:func:`canonical`). Revoking the key refuses its links at once (within
``auth_cache_seconds`` on other hosts); a new key has a new prefix, hence a new secret.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import re
import time
from collections.abc import Mapping, Sequence
from urllib.parse import quote

from services.failure import ServiceError
from store.installation import LINK_SECRET
from store.keys import KeyInfo
from store.store import Store

SIGNATURE = "signature"
"""The query parameter that carries the signature (the only one the canonical form leaves out)."""
EXPIRES = "expires"
"""The optional query parameter: the link's last second, in Unix seconds."""
_HEX_SIGNATURE = re.compile(r"[0-9a-f]{64}")
_PREFIX = re.compile(r"pc_[A-Za-z0-9_-]{8}")
_SECONDS = re.compile(r"[0-9]{1,12}")


class SignedLinkFailure(enum.Enum):
    """Why a signed link is refused (its message is the same whatever was wrong with it)."""

    REFUSED = "signed_link_refused"


class SignedLinkError(ServiceError):
    """A signed link that does not stand: a wrong or missing signature, a changed parameter or
    target, an expired link, an unknown or revoked key."""


def refused(message: str = "this signed link is not valid") -> SignedLinkError:
    """The refusal of a link, in words that help nobody forge one."""
    return SignedLinkError(SignedLinkFailure.REFUSED, message)


def canonical(key_id: str, url: str, query: Mapping[str, Sequence[str]]) -> bytes:
    """What a link's signature is computed over: every query parameter but ``signature`` as
    sent (repeated ones with each of their values), with ``key_id`` and ``url`` (the target as
    decoded from the path) added as two more parameters; the pairs sorted by name then value
    (by code point), each name and value UTF-8 and percent-encoded but for ``A-Z a-z 0-9 - . _
    ~``, joined as ``name=value`` with ``&``. It is ``urlencode(sorted(pairs), quote_via=quote)``
    in Python."""
    pairs = [(name, value) for name, values in query.items() for value in values]
    pairs = [pair for pair in pairs if pair[0] != SIGNATURE]
    pairs += [("key_id", key_id), ("url", url)]
    encoded = (f"{quote(name, safe='')}={quote(value, safe='')}" for name, value in sorted(pairs))
    return "&".join(encoded).encode("ascii")


def key_secret(link_secret: str, key_id: str) -> str:
    """The signing secret of the key whose prefix is ``key_id``."""
    return hmac.new(link_secret.encode(), key_id.encode(), hashlib.sha256).hexdigest()


def signature(secret: str, key_id: str, url: str, query: Mapping[str, Sequence[str]]) -> str:
    """The signature of a link to ``url`` with ``query`` signed with ``secret``."""
    return hmac.new(secret.encode(), canonical(key_id, url, query), hashlib.sha256).hexdigest()


class SignedLinks:
    """Signing secrets and the check of a signed link, over the store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def secret(self, key_id: str) -> str:
        """The signing secret of the key whose prefix is ``key_id``."""
        return key_secret(await self.store.installation_secret(LINK_SECRET), key_id)

    async def check(
        self,
        key_id: str,
        url: str,
        query: Mapping[str, Sequence[str]],
        now: float | None = None,
    ) -> KeyInfo:
        """The key that signed the link, when the link stands (:class:`SignedLinkError` when
        not). The signature is checked before anything is looked up, so a forged link costs no
        database work."""
        sent = query.get(SIGNATURE, [])
        if len(sent) != 1 or not _HEX_SIGNATURE.fullmatch(sent[0]) or not _PREFIX.fullmatch(key_id):
            raise refused()
        expected = signature(await self.secret(key_id), key_id, url, query)
        if not hmac.compare_digest(expected, sent[0]):
            raise refused()
        expires = query.get(EXPIRES, [])
        if expires:
            if len(expires) != 1 or not _SECONDS.fullmatch(expires[0]):
                raise refused()
            if int(expires[0]) < (time.time() if now is None else now):
                raise refused("this signed link has expired")
        owner = await self.store.key_by_prefix(key_id)
        if owner is None:
            raise refused()
        return owner
