"""Screenshot images in an S3-compatible object store: the :class:`ImageStorage` that several
Pagecast hosts share.

Objects are named ``<s3_prefix><token>.<ext>`` and carry their image content type. Links are
still Pagecast's own (``/screenshots/<token>.<ext>``): the link handler checks the row, answers
404 or 410 as for files, and otherwise redirects to a presigned GET URL of the object whose
lifetime ends no later than the link does.

Every call blocks and is bounded: botocore's connect and read timeouts, and a small number of
attempts. Whatever the object store or the network does wrong becomes an
:class:`~store.screenshots.ImageStorageError` with a message safe to show; the details go to the
log (never the credentials).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from store.images import CONTENT_TYPES, IMAGE_THREADS, UNAVAILABLE, ImageStorageError, safe_name
from store.screenshots import ScreenshotSettings

log = logging.getLogger(__name__)

# DeleteObjects takes at most this many keys per call.
_DELETE_BATCH = 1000
# Error codes that mean "no such object" rather than a failure.
_MISSING = {"NoSuchKey", "404", "NotFound"}


class ObjectStorage:
    """Images as objects in one bucket of an S3-compatible store.

    Building one loads botocore's service model (a fraction of a second): do it in a thread.
    The clients are thread-safe, so the default thread pool may call every method at once.
    """

    def __init__(self, settings: ScreenshotSettings) -> None:
        if not settings.s3_bucket:
            raise ValueError("an object storage needs a bucket")
        self.bucket = settings.s3_bucket
        self.prefix = settings.s3_prefix
        self.redirect = settings.s3_redirect
        self.link_seconds = settings.s3_link_seconds
        config = Config(
            connect_timeout=settings.s3_connect_timeout,
            read_timeout=settings.s3_read_timeout,
            retries={"total_max_attempts": settings.s3_max_attempts, "mode": "standard"},
            max_pool_connections=IMAGE_THREADS,
            signature_version="s3v4",
            s3={"addressing_style": settings.s3_addressing_style},
            # Checksums only where S3 requires them: several S3-compatible stores reject the
            # newer default trailing checksums.
            request_checksum_calculation="when_required",
            response_checksum_validation="when_required",
        )
        # Empty strings mean "not configured": boto3's default chain then finds credentials
        # and the region.
        session = boto3.session.Session(
            aws_access_key_id=settings.s3_access_key_id or None,
            aws_secret_access_key=settings.s3_secret_access_key or None,
            region_name=settings.s3_region or None,
        )
        self._client = session.client(
            "s3", endpoint_url=settings.s3_endpoint_url or None, config=config
        )
        public = settings.s3_public_endpoint_url
        self._signer = (
            session.client("s3", endpoint_url=public, config=config) if public else self._client
        )
        self._where = f"bucket {self.bucket!r} at {settings.s3_endpoint_url or 'AWS S3'}"
        # Each attempt may spend a connect and a read timeout; the rest is margin for backoff
        # and for reading a large body.
        self.call_timeout = (
            settings.s3_max_attempts * (settings.s3_connect_timeout + settings.s3_read_timeout)
            + 5.0
        )
        self.direct_origin = self._origin_of_links() if self.redirect else None

    def _origin_of_links(self) -> str | None:
        """Where presigned URLs point (signing is local: no request is made)."""
        try:
            sample = self._signer.generate_presigned_url(
                "get_object", Params={"Bucket": self.bucket, "Key": self.key("x.png")}
            )
        except (BotoCoreError, ClientError) as exc:
            log.warning("cannot sign a sample image URL: %s", exc)
            return None
        parts = urlsplit(sample)
        return f"{parts.scheme}://{parts.netloc}"

    def key(self, name: str) -> str:
        """The object key of the image ``name``."""
        return f"{self.prefix}{safe_name(name)}"

    def write(self, name: str, data: bytes) -> None:
        extension = name.rsplit(".", 1)[-1]
        self._call(
            "write",
            self._client.put_object,
            Bucket=self.bucket,
            Key=self.key(name),
            Body=data,
            ContentType=CONTENT_TYPES.get(extension, "application/octet-stream"),
        )

    def read(self, name: str) -> bytes | None:
        try:
            answer = self._client.get_object(Bucket=self.bucket, Key=self.key(name))
            return bytes(answer["Body"].read())
        except ClientError as exc:
            if _code(exc) in _MISSING:
                return None
            raise self._failed("read", exc) from exc
        except BotoCoreError as exc:
            raise self._failed("read", exc) from exc

    def size(self, name: str) -> int | None:
        try:
            answer = self._client.head_object(Bucket=self.bucket, Key=self.key(name))
            return int(answer["ContentLength"])
        except ClientError as exc:
            if _code(exc) in _MISSING:
                return None
            raise self._failed("read", exc) from exc
        except BotoCoreError as exc:
            raise self._failed("read", exc) from exc

    def delete(self, names: Sequence[str]) -> None:
        keys = [self.key(name) for name in names]
        for start in range(0, len(keys), _DELETE_BATCH):
            batch = keys[start : start + _DELETE_BATCH]
            answer = self._call(
                "delete",
                self._client.delete_objects,
                Bucket=self.bucket,
                Delete={"Objects": [{"Key": key} for key in batch], "Quiet": True},
            )
            errors = [
                error for error in answer.get("Errors", []) if error.get("Code") not in _MISSING
            ]
            if errors:
                log.error(
                    "object store %s kept %d of %d image(s) it was asked to delete, first: %s",
                    self._where,
                    len(errors),
                    len(batch),
                    errors[0].get("Code", "?"),
                )
                raise ImageStorageError(UNAVAILABLE)

    def link(self, name: str, seconds: int, method: str = "GET") -> str | None:
        if not self.redirect:
            return None
        lifetime = max(1, min(seconds, self.link_seconds))
        # A presigned URL is signed for one method: a HEAD gets a URL that answers HEAD.
        operation = "head_object" if method == "HEAD" else "get_object"
        url: str = self._call(
            "sign",
            self._signer.generate_presigned_url,
            operation,
            Params={"Bucket": self.bucket, "Key": self.key(name)},
            ExpiresIn=lifetime,
            HttpMethod="HEAD" if method == "HEAD" else "GET",
        )
        return url

    def check(self) -> None:
        """Raise :class:`ImageStorageError` unless the bucket answers (for a check at start)."""
        self._call("reach the bucket", self._client.head_bucket, Bucket=self.bucket)

    def _call(self, action: str, method: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except (BotoCoreError, ClientError) as exc:
            raise self._failed(action, exc) from exc

    def _failed(self, action: str, exc: Exception) -> ImageStorageError:
        # botocore's messages name the operation, the error code and the endpoint; they never
        # carry credentials.
        log.error("object store %s: %s failed: %s", self._where, action, exc)
        return ImageStorageError(UNAVAILABLE)


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))
