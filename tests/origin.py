"""Small origin sites for tests: a Tornado application served on 127.0.0.1 at a free port.

Use from a fixture that depends on pytest-tornado's ``io_loop``::

    @pytest.fixture
    def site(io_loop):
        origin = serve(tornado.web.Application([(r"/", PageHandler)]))
        yield origin
        io_loop.run_sync(origin.close)

``origin.url("/page")`` is ``http://127.0.0.1:<port>/page``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from dataclasses import dataclass

import tornado.web
from tornado.httpserver import HTTPServer
from tornado.iostream import StreamClosedError
from tornado.testing import bind_unused_port


@dataclass
class Origin:
    """A running test site."""

    server: HTTPServer
    port: int
    host: str = "127.0.0.1"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``, without a trailing slash."""
        return f"http://{self.host}:{self.port}"

    def url(self, path: str = "/") -> str:
        """An absolute URL on this site."""
        return self.base_url + path

    async def close(self) -> None:
        """Stop listening and close every open connection."""
        self.server.stop()
        await self.server.close_all_connections()


def serve(app: tornado.web.Application) -> Origin:
    """Serve ``app`` on 127.0.0.1 at a free port, on the current IOLoop."""
    sock, port = bind_unused_port()
    server = HTTPServer(app)
    server.add_sockets([sock])
    return Origin(server, port)


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (just released, so connections are refused)."""
    sock, port = bind_unused_port()
    sock.close()
    return port


class DripHandler(tornado.web.RequestHandler):
    """Headers at once, then one byte a second, for a minute or until the client hangs up.

    With ``hits``, each request counts as ``drip:<value of label_header>`` (``direct`` without
    it), e.g. to see which proxy tier a fetch came through."""

    def initialize(self, hits: Counter[str] | None = None, label_header: str = "") -> None:
        self.hits = hits
        self.label_header = label_header
        self.gone = asyncio.Event()

    def on_connection_close(self) -> None:
        self.gone.set()

    async def get(self) -> None:
        if self.hits is not None:
            label = (
                self.request.headers.get(self.label_header, "direct")
                if self.label_header
                else "direct"
            )
            self.hits[f"drip:{label}"] += 1
        self.set_header("Content-Type", "text/html")
        with contextlib.suppress(StreamClosedError):
            self.write(b"<p>")
            await self.flush()
            for _ in range(60):
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.gone.wait(), 1)
                if self.gone.is_set():
                    return
                self.write(b"x")
                await self.flush()
