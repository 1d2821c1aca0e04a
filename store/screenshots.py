"""Screenshot images and their rows: the settings that choose an image backend
(:mod:`store.images`), and the :class:`ScreenshotStore` service.

A capture is stored under a 128-bit random token; its link works until ``expires_at`` (24 hours
after creation) and answers "gone" afterwards. The janitor deletes expired images, then their
rows. An identical request (same organization and request hash) reuses a capture whose link still
has enough time left. Image bytes live behind :class:`ImageStorage`: files under
``data_dir/screenshots`` (:class:`ImageFiles`, the embedded default) or objects in an
S3-compatible bucket (:class:`store.objects.ObjectStorage`, for several hosts).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any, ClassVar, TypeVar
from urllib.parse import urlsplit

import peewee

from settings.fields import setting
from store.images import (
    CONTENT_TYPES,
    IMAGE_THREADS,
    UNAVAILABLE,
    ImageStorage,
    ImageStorageError,
)
from store.models import Screenshot, as_utc, utc_now
from store.periodic import repeat
from store.store import Store

log = logging.getLogger(__name__)

LINK_LIFETIME = timedelta(hours=24)
_JANITOR_BATCH = 500
T = TypeVar("T")


@dataclass
class ScreenshotSettings:
    """Screenshot images: where their bytes live and how long expired ones linger. The filesystem
    suits one host; several hosts behind a load balancer share an S3-compatible bucket."""

    SECTION: ClassVar[str] = "screenshots"

    backend: str = setting(
        "filesystem",
        "filesystem: files under the store's data_dir/screenshots. s3: objects in an "
        "S3-compatible bucket (AWS S3, MinIO, Ceph, R2...) that every host can reach.",
        choices=("filesystem", "s3"),
    )
    janitor_interval: float = setting(
        600.0, "Seconds between janitor rounds that delete expired images and their rows.", min=1
    )
    s3_endpoint_url: str = setting(
        "",
        "URL of the object store's S3 API, for example http://10.0.0.5:9000. Empty: AWS S3 in "
        "s3_region. Operator configuration, reached as given (the target-URL guard is for "
        "pages, not for this).",
    )
    s3_public_endpoint_url: str = setting(
        "",
        "URL clients reach the object store at, used to sign the short-lived image URLs that "
        "links redirect to. Empty: s3_endpoint_url.",
    )
    s3_region: str = setting(
        "", "Region of the bucket. Empty: boto3's default (AWS_DEFAULT_REGION, AWS config)."
    )
    s3_bucket: str = setting(
        "", "Bucket of the images; required with backend = s3. Pagecast does not create it."
    )
    s3_prefix: str = setting("screenshots/", "Prefix of the image object keys in the bucket.")
    s3_access_key_id: str = setting(
        "",
        "Access key id. Empty (with s3_secret_access_key empty too): boto3's default credential "
        "chain (AWS_* environment variables, AWS config files, an instance or pod role).",
    )
    s3_secret_access_key: str = setting(
        "",
        "Secret access key paired with s3_access_key_id; never logged. Prefer the environment "
        "variable PAGECAST_SCREENSHOTS_S3_SECRET_ACCESS_KEY to writing it here.",
        secret=True,
    )
    s3_addressing_style: str = setting(
        "auto",
        "path: ENDPOINT/BUCKET/KEY (what most self-hosted stores expect); virtual: "
        "BUCKET.ENDPOINT/KEY; auto: boto3 chooses.",
        choices=("auto", "path", "virtual"),
    )
    s3_connect_timeout: float = setting(
        3.0, "Seconds to connect to the object store.", min=0.1, max=60
    )
    s3_read_timeout: float = setting(
        10.0, "Seconds to wait for each answer of the object store.", min=0.1, max=300
    )
    s3_max_attempts: int = setting(
        2, "Attempts of each object store call, the first included.", min=1, max=5
    )
    s3_redirect: bool = setting(
        True,
        "true: an image link answers 302 to a short-lived presigned URL of the object; false: "
        "Pagecast reads the object and serves the bytes itself (for buckets clients cannot "
        "reach).",
    )
    s3_link_seconds: int = setting(
        3600,
        "Longest lifetime of a presigned URL; it never outlives the link's 24 hours either.",
        min=1,
        max=86400,
    )

    def problems(self) -> list[str]:
        """What is missing or inconsistent across fields (empty when usable)."""
        found = []
        if self.backend == "s3" and not self.s3_bucket:
            found.append("screenshots.s3_bucket: required when backend is s3")
        for name in ("s3_endpoint_url", "s3_public_endpoint_url"):
            value = getattr(self, name)
            try:
                parts = urlsplit(value)
                usable = parts.scheme in ("http", "https") and bool(parts.hostname)
            except ValueError:
                usable = False
            if value and (not usable or "@" in value):
                found.append(
                    f"screenshots.{name}: an http(s)://host[:port] URL without credentials"
                )
        if bool(self.s3_access_key_id) != bool(self.s3_secret_access_key):
            found.append(
                "screenshots.s3_access_key_id and s3_secret_access_key: set both or neither"
            )
        return found


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
    """Record a capture whose image is already written under ``token``."""
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
    """Delete the rows of ``tokens`` (their images are gone already)."""
    if not tokens:
        return 0
    return int(Screenshot.delete().where(Screenshot.token.in_(tokens)).execute(db))


class ScreenshotStore:
    """The screenshot service of the store: rows through the store's threads, image bytes in an
    :class:`ImageStorage` through threads of its own (so a slow object store cannot take the
    threads other work needs), and the janitor that deletes what has expired."""

    def __init__(
        self,
        store: Store,
        files: ImageStorage,
        janitor_interval: float = 600.0,
        threads: int = IMAGE_THREADS,
    ) -> None:
        self.store = store
        self.files = files
        self.janitor_interval = janitor_interval
        self._janitor: asyncio.Task[None] | None = None
        self._threads = ThreadPoolExecutor(threads, thread_name_prefix="images")

    async def _storage(self, action: str, work: Callable[..., T], *args: Any) -> T:
        """Run one blocking storage call in the image threads, with the request's context (its
        log lines keep the request id) and bounded by the storage's ``call_timeout``."""
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()
        future = loop.run_in_executor(self._threads, partial(context.run, work, *args))
        try:
            return await asyncio.wait_for(future, self.files.call_timeout)
        except TimeoutError:
            log.error(
                "screenshot image %s took longer than %.0f s", action, self.files.call_timeout
            )
            raise ImageStorageError(UNAVAILABLE) from None

    async def save(self, image: bytes, **fields: Any) -> ScreenshotRecord:
        """Write the image, then its row; a row never points at a missing image.

        :raises StoreUnavailable: the database or (as :class:`ImageStorageError`) the image
            storage failed.
        """
        token = new_token()
        name = f"{token}.{fields['extension']}"
        await self._storage("write", self.files.write, name, image)
        try:
            return await self.store.run(
                partial(save, token=token, size=len(image), **fields),
                "screenshot write",
                write=True,
            )
        except BaseException:
            with contextlib.suppress(ImageStorageError):
                await self._storage("delete", self.files.delete, [name])
            raise

    async def reusable(
        self, org_id: int, request_hash: str, min_left: timedelta
    ) -> ScreenshotRecord | None:
        work = partial(reusable, org_id=org_id, request_hash=request_hash, min_left=min_left)
        return await self.store.run(work, "screenshot lookup")

    async def find(self, token: str) -> ScreenshotRecord | None:
        return await self.store.run(partial(find, token=token), "screenshot lookup")

    async def read(self, record: ScreenshotRecord) -> bytes | None:
        """The image bytes; None when they are gone. Raises :class:`ImageStorageError`."""
        return await self._storage("read", self.files.read, record.filename)

    async def size(self, record: ScreenshotRecord) -> int | None:
        """How many bytes the image has, without reading them; None when it is gone. Raises
        :class:`ImageStorageError`."""
        return await self._storage("read", self.files.size, record.filename)

    async def link(self, record: ScreenshotRecord, seconds: int, method: str = "GET") -> str | None:
        """A direct URL of the image valid for at most ``seconds`` (the caller passes what is
        left of the link's life) with the HTTP ``method`` (GET or HEAD), or None when the image
        is to be served from here. Raises :class:`ImageStorageError`."""
        return await self._storage("link", self.files.link, record.filename, seconds, method)

    async def sweep(self, now: datetime | None = None) -> int:
        """Delete expired images, then their rows, a batch at a time; the number of captures
        removed. When the images cannot be deleted the rows stay for the next round."""
        removed = 0
        while True:
            batch = await self.store.run(partial(expired, now=now), "screenshot janitor")
            if not batch:
                return removed
            names = [record.filename for record in batch]
            await self._storage("delete", self.files.delete, names)
            tokens = [record.token for record in batch]
            removed += await self.store.run(
                partial(forget, tokens=tokens), "screenshot janitor", write=True
            )

    def start(self) -> None:
        """Run the janitor every ``janitor_interval`` seconds on the current loop."""
        self._janitor = asyncio.ensure_future(
            repeat(self.janitor_interval, self._janitor_round, "screenshot janitor")
        )

    async def close(self) -> None:
        if self._janitor is not None:
            self._janitor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._janitor
            self._janitor = None
        # Calls still running end by their own timeouts; nothing waits for them here.
        self._threads.shutdown(wait=False, cancel_futures=True)

    async def _janitor_round(self) -> None:
        removed = await self.sweep()
        if removed:
            log.info("janitor removed %d expired screenshot(s)", removed)
