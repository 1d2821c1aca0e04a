"""Where the bytes of captured images live: the :class:`ImageStorage` interface and its
filesystem backend (:class:`ImageFiles`, the embedded default); the S3-compatible backend is
:class:`store.objects.ObjectStorage`."""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from store.store import StoreUnavailable

log = logging.getLogger(__name__)

CONTENT_TYPES = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "webp": "image/webp",
    "pdf": "application/pdf",
}
UNAVAILABLE = "the screenshot storage is unavailable"
# Threads for image storage calls; an object store's HTTP connection pool is sized to match.
IMAGE_THREADS = 8


class ImageStorageError(StoreUnavailable):
    """The image storage failed (unreachable, refused, too slow); the message is safe to show.
    A kind of :class:`StoreUnavailable`, so callers answer it the same way: 503, retry later."""


class ImageStorage(Protocol):
    """Where the bytes of captured images live, by file name (``<token>.<ext>``).

    Every method blocks: :class:`ScreenshotStore` runs them in threads. Failures of the backing
    storage raise :class:`ImageStorageError`; a missing image is not a failure.
    """

    def write(self, name: str, data: bytes) -> None:
        """Store ``data`` under ``name``, whole or not at all."""

    def read(self, name: str) -> bytes | None:
        """The bytes stored under ``name``; None when there are none."""

    def size(self, name: str) -> int | None:
        """How many bytes are stored under ``name`` (without reading them); None when there
        are none."""

    def delete(self, names: Sequence[str]) -> None:
        """Remove the images ``names``; names already gone are fine."""

    def link(self, name: str, seconds: int, method: str = "GET") -> str | None:
        """A URL clients may fetch ``name`` from directly for at most ``seconds`` with the HTTP
        ``method`` (GET or HEAD), or None when Pagecast serves the bytes itself."""

    @property
    def direct_origin(self) -> str | None:
        """The origin (``scheme://host[:port]``) of the URLs :meth:`link` returns, for pages
        that show images (a Content-Security-Policy source); None when there are none."""

    @property
    def call_timeout(self) -> float:
        """Seconds one call may take in all, retries included; past it the request is answered
        503 whatever the call is still doing."""


class ImageFiles:
    """Image bytes on the local filesystem, one file per capture (the :class:`ImageStorage` of a
    single host). Writes are atomic (a file appears whole or not at all)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)

    def write(self, name: str, data: bytes) -> None:
        temporary = self.folder / f".{safe_name(name)}.{secrets.token_hex(4)}.tmp"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(data)
            os.replace(temporary, self.folder / name)
        except OSError as exc:
            with contextlib.suppress(OSError):  # the folder itself may be what is broken
                temporary.unlink(missing_ok=True)
            raise _disk_error("write", exc) from exc

    def read(self, name: str) -> bytes | None:
        try:
            return (self.folder / safe_name(name)).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _disk_error("read", exc) from exc

    def size(self, name: str) -> int | None:
        try:
            return (self.folder / safe_name(name)).stat().st_size
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _disk_error("read", exc) from exc

    def delete(self, names: Sequence[str]) -> None:
        for name in names:
            try:
                (self.folder / safe_name(name)).unlink(missing_ok=True)
            except OSError as exc:
                raise _disk_error("delete", exc) from exc

    def link(self, name: str, seconds: int, method: str = "GET") -> str | None:
        return None  # the link handler serves files itself

    direct_origin = None
    # A local disk answers in milliseconds; a minute means it is failing (a hung network mount).
    call_timeout = 60.0


def _disk_error(action: str, exc: OSError) -> ImageStorageError:
    log.error("screenshot image %s failed: %s", action, exc.strerror or type(exc).__name__)
    return ImageStorageError(UNAVAILABLE)


def safe_name(name: str) -> str:
    """``name`` if it can only name an image (no folder, nothing hidden); else ValueError."""
    if "/" in name or "\\" in name or name.startswith("."):
        raise ValueError("not a screenshot file name")
    return name
