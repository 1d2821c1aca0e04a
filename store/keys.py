"""API keys: issue, hash, list, revoke and look up.

A key is ``pc_`` followed by 32 URL-safe random characters (24 bytes). Only its sha256 is stored;
operators see the prefix (``pc_`` and the first 8 random characters), which is unique. The
functions here run on an open connection of the calling thread (see :func:`store.db.run_unit`).
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
import threading
from dataclasses import dataclass
from datetime import datetime
from enum import Enum

import peewee
from cachetools import TTLCache

from store.db import write_transaction
from store.models import ApiKey, Organization, as_utc, utc_now

log = logging.getLogger(__name__)

KEY_PREFIX = "pc_"
PREFIX_CHARS = 8
_KEY_PATTERN = re.compile(r"pc_[A-Za-z0-9_-]{32}")
# What a client presents as a key is refused without a lookup when it is longer than this (an
# issued key has 35 characters; the margin leaves room for a longer format one day)...
MAX_KEY_LENGTH = 256
# ... or when it holds whitespace or a control character anywhere: such a key is never issued,
# and trimming it would accept what a client did not mean to send.
_SPACE_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f-\x9f]")
# Each attempt collides with probability (keys issued) / 64**8: three is plenty.
_ISSUE_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class IssuedKey:
    """A newly issued key: ``key`` is shown once and never stored."""

    key: str
    prefix: str
    org: str
    plan: str


@dataclass(frozen=True, slots=True)
class KeyInfo:
    """Who an authenticated key belongs to."""

    prefix: str
    org: str
    org_id: int
    plan: str


@dataclass(frozen=True, slots=True)
class KeyRow:
    """One key as operators list it; times are aware UTC datetimes."""

    prefix: str
    org: str
    plan: str
    created_at: datetime
    revoked_at: datetime | None


def new_key() -> str:
    """A fresh random key."""
    return KEY_PREFIX + secrets.token_urlsafe(24)


def key_prefix(key: str) -> str:
    """The short display prefix of ``key``."""
    return key[: len(KEY_PREFIX) + PREFIX_CHARS]


def hash_key(key: str) -> str:
    """The stored form of ``key``: its sha256 as hex."""
    return hashlib.sha256(key.encode()).hexdigest()


class KeyFlaw(Enum):
    """Why a presented key is refused before any lookup (its value says so in words)."""

    TOO_LONG = f"is longer than any API key (at most {MAX_KEY_LENGTH} characters)"
    NOT_ASCII = "must be ASCII"
    SPACE_OR_CONTROL = "must not contain spaces or control characters"


def key_flaw(key: str) -> KeyFlaw | None:
    """What is wrong with a presented ``key`` whatever its owner, or None when it may be looked
    up. The length is checked first, so an over-long value is not scanned."""
    if len(key) > MAX_KEY_LENGTH:
        return KeyFlaw.TOO_LONG
    if not key.isascii():  # keys are issued in ASCII; a header's other bytes read as Latin-1
        return KeyFlaw.NOT_ASCII
    if _SPACE_OR_CONTROL.search(key):
        return KeyFlaw.SPACE_OR_CONTROL
    return None


def is_well_formed(key: str) -> bool:
    """True when ``key`` has the shape of an issued key (checked before any lookup)."""
    return _KEY_PATTERN.fullmatch(key) is not None


def _clean(value: str, what: str, max_length: int) -> str:
    value = value.strip()
    if not value:
        raise ValueError(f"{what} must not be empty")
    if len(value) > max_length:
        raise ValueError(f"{what} must be at most {max_length} characters")
    return value


def create_key(db: peewee.Database, org: str, plan: str) -> IssuedKey:
    """Issue a key for ``org``, creating the organization or setting its plan to ``plan``.

    :raises ValueError: for an empty or overlong organization or plan name.
    """
    org = _clean(org, "organization", 100)
    plan = _clean(plan, "plan", 50)
    with write_transaction(db):
        Organization.insert(name=org, plan=plan).on_conflict(
            conflict_target=[Organization.name], update={Organization.plan: plan}
        ).execute(db)
        org_id = Organization.select(Organization.id).where(Organization.name == org).scalar(db)
        for attempt in range(1, _ISSUE_ATTEMPTS + 1):
            key = new_key()
            try:
                with db.atomic():
                    ApiKey.insert(
                        key_hash=hash_key(key), prefix=key_prefix(key), org=org_id
                    ).execute(db)
            except peewee.IntegrityError:
                if attempt == _ISSUE_ATTEMPTS:
                    raise
                log.info("key prefix %s already taken, drawing another key", key_prefix(key))
                continue
            break
    log.info("issued key %s for organization %s (plan %s)", key_prefix(key), org, plan)
    return IssuedKey(key=key, prefix=key_prefix(key), org=org, plan=plan)


def list_keys(db: peewee.Database) -> list[KeyRow]:
    """Every key, revoked ones included, oldest first."""
    query = (
        ApiKey.select(
            ApiKey.prefix,
            Organization.name,
            Organization.plan,
            ApiKey.created_at,
            ApiKey.revoked_at,
        )
        .join(Organization)
        .order_by(ApiKey.created_at, ApiKey.id)
        .tuples()
    )
    return [
        KeyRow(
            prefix=prefix,
            org=org,
            plan=plan,
            created_at=as_utc(created_at),
            revoked_at=as_utc(revoked_at) if revoked_at is not None else None,
        )
        for prefix, org, plan, created_at, revoked_at in query.execute(db)
    ]


def revoke_key(db: peewee.Database, prefix: str) -> bool:
    """Revoke the active key with ``prefix``; False when there is none."""
    with write_transaction(db):
        changed = (
            ApiKey.update(revoked_at=utc_now())
            .where(ApiKey.prefix == prefix.strip(), ApiKey.revoked_at.is_null())
            .execute(db)
        )
    if changed:
        log.info("revoked key %s", prefix)
    return bool(changed)


def find_key(db: peewee.Database, key: str) -> KeyInfo | None:
    """The owner of an active ``key``; None for an unknown or revoked one."""
    row = (
        ApiKey.select(ApiKey.prefix, Organization.name, Organization.id, Organization.plan)
        .join(Organization)
        .where(ApiKey.key_hash == hash_key(key), ApiKey.revoked_at.is_null())
        .tuples()
        .first(db)
    )
    if row is None:
        return None
    prefix, org, org_id, plan = row
    return KeyInfo(prefix=prefix, org=org, org_id=org_id, plan=plan)


def find_key_by_prefix(db: peewee.Database, prefix: str) -> KeyInfo | None:
    """The owner of the active key whose prefix is ``prefix`` (a signed link names its key so);
    None for an unknown or revoked one."""
    row = (
        ApiKey.select(ApiKey.prefix, Organization.name, Organization.id, Organization.plan)
        .join(Organization)
        .where(ApiKey.prefix == prefix, ApiKey.revoked_at.is_null())
        .tuples()
        .first(db)
    )
    if row is None:
        return None
    found, org, org_id, plan = row
    return KeyInfo(prefix=found, org=org, org_id=org_id, plan=plan)


def prefix_digest(prefix: str) -> str:
    """What :class:`AuthCache` remembers a key looked up by its prefix under (never a key's
    hash: those are hex, this is not)."""
    return f"prefix:{prefix}"


# Bound on remembered keys; a flood of distinct bad keys cannot grow memory past it.
_CACHE_ENTRIES = 10_000


@dataclass(slots=True)
class _Cached:
    info: KeyInfo | None


class AuthCache:
    """Keys looked up recently, by hash: hits for ``hit_seconds``, misses for ``miss_seconds``.

    Known keys and unknown keys are kept apart, at most ``max_entries`` known and half as many
    unknown, the least recently used going first in each: a flood of distinct unknown keys never
    pushes the known keys out (they would cost a lookup again). Safe from any thread."""

    def __init__(
        self, hit_seconds: float, miss_seconds: float, max_entries: int = _CACHE_ENTRIES
    ) -> None:
        self.hit_seconds = hit_seconds
        self.miss_seconds = miss_seconds
        self.max_entries = max_entries
        self._hits: TTLCache[str, KeyInfo] = TTLCache(max(1, max_entries), max(hit_seconds, 0.0))
        self._misses: TTLCache[str, None] = TTLCache(
            max(1, max_entries // 2), max(miss_seconds, 0.0)
        )
        self._lock = threading.Lock()

    def get(self, digest: str) -> _Cached | None:
        with self._lock:
            info = self._hits.get(digest)
            if info is not None:
                return _Cached(info)
            return _Cached(None) if digest in self._misses else None

    def put(self, digest: str, info: KeyInfo | None) -> None:
        with self._lock:
            self._hits.pop(digest, None)
            self._misses.pop(digest, None)
            if info is not None and self.hit_seconds > 0:
                self._hits[digest] = info
            elif info is None and self.miss_seconds > 0:
                self._misses[digest] = None

    def forget(self, digest: str) -> None:
        with self._lock:
            self._hits.pop(digest, None)
            self._misses.pop(digest, None)

    def forget_prefix(self, prefix: str) -> None:
        with self._lock:
            for digest in [d for d, info in self._hits.items() if info.prefix == prefix]:
                del self._hits[digest]
