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

from dataclasses import dataclass

import tornado.web
from tornado.httpserver import HTTPServer
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
