"""Test forward proxies standing for the proxy tiers: small Tornado apps on 127.0.0.1 that check
their credentials, count what passes through them, and tell the origin which tier they are."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

import tornado.web
from tornado.httpclient import HTTPRequest
from tornado.simple_httpclient import SimpleAsyncHTTPClient

from tests.origin import Origin, serve

TIER_HEADER = "X-Test-Tier"


@dataclass
class ProxyStats:
    """What one test proxy saw."""

    name: str
    user: str = "user"
    password: str = "secret"
    requests: list[str] = field(default_factory=list)
    refused: int = 0


class ForwardProxy(tornado.web.RequestHandler):
    """An HTTP forward proxy for plain-http targets (absolute-form request URIs)."""

    def initialize(self, stats: ProxyStats) -> None:
        self.stats = stats

    async def get(self) -> None:
        expected = base64.b64encode(f"{self.stats.user}:{self.stats.password}".encode()).decode()
        if self.request.headers.get("Proxy-Authorization", "") != f"Basic {expected}":
            self.stats.refused += 1
            self.set_status(407)
            self.set_header("Proxy-Authenticate", 'Basic realm="test"')
            self.finish("proxy authentication required")
            return
        self.stats.requests.append(self.request.uri or "")
        headers = {
            name: value
            for name, value in self.request.headers.get_all()
            if name.lower() not in ("proxy-authorization", "proxy-connection", "connection", "host")
        }
        headers[TIER_HEADER] = self.stats.name
        client = SimpleAsyncHTTPClient(force_instance=True)
        try:
            response = await client.fetch(
                HTTPRequest(self.request.uri or "", headers=headers, follow_redirects=False,
                            request_timeout=10, decompress_response=False),
                raise_error=False,
            )  # fmt: skip
        finally:
            client.close()
        self.set_status(response.code, response.reason)
        for name, value in response.headers.get_all():
            if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.add_header(name, value)
        self.finish(response.body or b"")


def start_proxy(name: str) -> tuple[Origin, ProxyStats]:
    """A test proxy for tier ``name`` on the current IOLoop; its URL is ``proxy_url(...)``."""
    stats = ProxyStats(name)
    app = tornado.web.Application([(r".*", ForwardProxy, {"stats": stats})])
    return serve(app), stats


def proxy_url(origin: Origin, stats: ProxyStats) -> str:
    host = origin.base_url.split("://", 1)[1]
    return f"http://{stats.user}:{stats.password}@{host}"
