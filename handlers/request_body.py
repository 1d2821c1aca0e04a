"""Request bodies read as they arrive, never past :data:`MAX_BODY_BYTES`.

The endpoints that take a body (the jobs', the map's, a frame's refresh) stream it: Tornado
runs ``prepare`` once the request head is read and hands the body over in pieces. A body that
announces more than the limit (``Content-Length``) is refused in the endpoint's error shape
(413, with ``X-Request-Id``) before any of it is read; a chunked body is refused as soon as
what arrived passes the limit. The rest of a refused body is read and dropped, never kept, and
the connection is closed once the answer is written (the only way not to read all of it).
Endpoints without a body keep the server's own cap (:data:`MAX_BODY_BYTES` too), past which
Tornado breaks the request off with a bare 400.
"""

from __future__ import annotations

from handlers.base import BaseHandler
from handlers.errors import ApiError

MAX_BODY_BYTES = 2200 * 1024
"""The largest request body read: a batch of 1,000 URLs of up to 2,048 characters fits."""
DROPPED_BYTES = 1 << 40
"""What the connection may still read (and drop) of a refused body before the answer to it is
written and the connection closed: nothing is kept of it, so this only keeps Tornado from
breaking the request off before it is answered."""


def too_large() -> ApiError:
    return ApiError(
        "body_too_large", f"the request body is larger than {MAX_BODY_BYTES} bytes, the limit"
    )


class BoundedBody(BaseHandler):
    """A handler whose request body arrives in pieces, bounded; mix in before the endpoint's
    base class (``class MapHandler(BoundedBody, ApiHandler)``)."""

    _stream_request_body = True  # what tornado.web.stream_request_body sets

    _received: bytearray | None = None

    async def prepare(self) -> None:
        self._received = bytearray()
        connection = self.request.connection
        set_limit = getattr(connection, "set_max_body_size", None)
        if set_limit is not None:
            set_limit(DROPPED_BYTES)
        announced = self.request.headers.get("Content-Length", "").split(",")[0].strip()
        if announced.isdigit() and int(announced) > MAX_BODY_BYTES:
            raise too_large()
        await super().prepare()

    def data_received(self, chunk: bytes) -> None:
        received = self._received
        if self._finished or received is None:
            return  # answered already (refused): what follows is dropped
        if len(received) + len(chunk) > MAX_BODY_BYTES:
            self._received = None
            error = too_large()
            self.send_error(error.status, exc_info=(type(error), error, None))
            return
        received += chunk

    def request_body(self) -> bytes:
        return bytes(self._received or b"")
