"""Screenshot images: the files under ``data_dir/screenshots`` and their rows.

A capture is stored under a 128-bit random token; its link works until ``expires_at`` (24 hours
after creation) and answers "gone" afterwards. The janitor deletes expired files and rows. An
identical request (same organization and request hash) reuses a capture whose link still has
enough time left.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import peewee

from store.models import Screenshot, as_utc, utc_now
from store.store import Store, StoreUnavailable

log = logging.getLogger(__name__)

LINK_LIFETIME = timedelta(hours=24)
CONTENT_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}
_JANITOR_BATCH = 500


@dataclass(frozen=True)
class ScreenshotRecord:
    """What the API needs of a stored capture."""

    token: str
    extension: str
    content_type: str
    width: int
    height: int
    host: str
    response_code: int | None
    created_at: datetime
    expires_at: datetime

    @property
    def filename(self) -> str:
        return f"{self.token}.{self.extension}"


class ImageFiles:
    """Image bytes on the local filesystem, one file per capture. Writes are atomic (a file
    appears whole or not at all)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)

    def write(self, name: str, data: bytes) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        temporary = self.folder / f".{name}.{secrets.token_hex(4)}.tmp"
        temporary.write_bytes(data)
        os.replace(temporary, self.folder / name)

    def read(self, name: str) -> bytes | None:
        try:
            return (self.folder / _safe(name)).read_bytes()
        except FileNotFoundError:
            return None

    def delete(self, name: str) -> None:
        (self.folder / _safe(name)).unlink(missing_ok=True)


def _safe(name: str) -> str:
    if "/" in name or "\\" in name or name.startswith("."):
        raise ValueError("not a screenshot file name")
    return name


def _stored(moment: datetime | None) -> datetime:
    """A time as the tables keep it: naive UTC (now when None)."""
    return utc_now() if moment is None else as_utc(moment).replace(tzinfo=None)


def new_token() -> str:
    """128 random bits, URL-safe."""
    return secrets.token_hex(16)


def _record(row: Screenshot) -> ScreenshotRecord:
    return ScreenshotRecord(
        token=row.token,
        extension=row.extension,
        content_type=row.content_type,
        width=row.width,
        height=row.height,
        host=row.host,
        response_code=row.response_code,
        created_at=as_utc(row.created_at),
        expires_at=as_utc(row.expires_at),
    )


def save(
    db: peewee.Database,
    *,
    org_id: int,
    request_hash: str,
    extension: str,
    width: int,
    height: int,
    size: int,
    host: str,
    response_code: int | None,
    token: str,
    now: datetime | None = None,
) -> ScreenshotRecord:
    """Record a capture whose file is already written under ``token``."""
    created = _stored(now)
    fields = {
        "token": token,
        "org": org_id,
        "request_hash": request_hash,
        "extension": extension,
        "content_type": CONTENT_TYPES[extension],
        "width": width,
        "height": height,
        "size": size,
        "host": host[:255],
        "response_code": response_code,
        "created_at": created,
        "expires_at": created + LINK_LIFETIME,
    }
    Screenshot.insert(fields).execute(db)
    return _record(Screenshot(**fields))


def reusable(
    db: peewee.Database,
    org_id: int,
    request_hash: str,
    min_left: timedelta,
    now: datetime | None = None,
) -> ScreenshotRecord | None:
    """The newest capture of this request whose link has at least ``min_left`` to live."""
    limit = _stored(now) + min_left
    row = (
        Screenshot.select()
        .where(
            (Screenshot.org == org_id)
            & (Screenshot.request_hash == request_hash)
            & (Screenshot.expires_at >= limit)
        )
        .order_by(Screenshot.expires_at.desc())
        .first(db)
    )
    return _record(row) if row else None


def find(db: peewee.Database, token: str) -> ScreenshotRecord | None:
    """The capture behind a link token, expired or not."""
    row = Screenshot.select().where(Screenshot.token == token).first(db)
    return _record(row) if row else None


def expired(db: peewee.Database, now: datetime | None = None) -> list[ScreenshotRecord]:
    """A batch of captures whose links have expired (oldest first)."""
    rows = (
        Screenshot.select()
        .where(Screenshot.expires_at < _stored(now))
        .order_by(Screenshot.expires_at)
        .limit(_JANITOR_BATCH)
        .execute(db)
    )
    return [_record(row) for row in rows]


def forget(db: peewee.Database, tokens: list[str]) -> int:
    """Delete the rows of ``tokens`` (their files are gone already)."""
    if not tokens:
        return 0
    return int(Screenshot.delete().where(Screenshot.token.in_(tokens)).execute(db))


class ScreenshotStore:
    """The screenshot service of the store: rows through the store's threads, files on disk,
    and the janitor that deletes what has expired."""

    def __init__(self, store: Store, files: ImageFiles, janitor_interval: float = 600.0) -> None:
        self.store = store
        self.files = files
        self.janitor_interval = janitor_interval
        self._janitor: asyncio.Task[None] | None = None

    async def save(self, image: bytes, **fields: Any) -> ScreenshotRecord:
        """Write the image file, then its row; a row never points at a missing file."""
        token = new_token()
        name = f"{token}.{fields['extension']}"
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self.files.write, name, image)
        try:
            return await self.store.run(
                partial(save, token=token, size=len(image), **fields),
                "screenshot write",
                write=True,
            )
        except BaseException:
            await loop.run_in_executor(None, self.files.delete, name)
            raise

    async def reusable(
        self, org_id: int, request_hash: str, min_left: timedelta
    ) -> ScreenshotRecord | None:
        work = partial(reusable, org_id=org_id, request_hash=request_hash, min_left=min_left)
        return await self.store.run(work, "screenshot lookup")

    async def find(self, token: str) -> ScreenshotRecord | None:
        return await self.store.run(partial(find, token=token), "screenshot lookup")

    async def read(self, record: ScreenshotRecord) -> bytes | None:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, self.files.read, record.filename)

    async def sweep(self, now: datetime | None = None) -> int:
        """Delete expired files and rows, a batch at a time; the number of captures removed."""
        removed = 0
        loop = asyncio.get_running_loop()
        while True:
            batch = await self.store.run(partial(expired, now=now), "screenshot janitor")
            if not batch:
                return removed
            for record in batch:
                await loop.run_in_executor(None, self.files.delete, record.filename)
            tokens = [record.token for record in batch]
            removed += await self.store.run(
                partial(forget, tokens=tokens), "screenshot janitor", write=True
            )

    def start(self) -> None:
        """Run the janitor every ``janitor_interval`` seconds on the current loop."""
        self._janitor = asyncio.ensure_future(self._sweep_forever())

    async def close(self) -> None:
        if self._janitor is not None:
            self._janitor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._janitor
            self._janitor = None

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.janitor_interval)
            try:
                removed = await self.sweep()
            except StoreUnavailable:
                continue  # logged by the store; the next round tries again
            if removed:
                log.info("janitor removed %d expired screenshot(s)", removed)
