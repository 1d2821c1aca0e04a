"""An SSRF battery through Pagecast's HTTP API: the Markdown, oEmbed and screenshot endpoints are
pointed, directly and indirectly, at "forbidden" servers that count every request they receive.

The forbidden servers listen on 127.0.0.2, 127.0.0.3 and [::1] (when those can be bound) and on a
port of 127.0.0.1 reached only through the name ``localhost``; the test settings allow only the
address 127.0.0.1. Every case must end in a clean error in the endpoint's shape, or in a 200 that
did not use the forbidden content, and no forbidden server may see a single request.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import tornado.web
import tornado.websocket
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.httpserver import HTTPServer

from app.config import Settings
from app.services import Services
from app.web import make_api_app
from browser.resolver import Resolver, static_resolver, system_resolver
from convert.embed.providers import Endpoint, Provider, ProviderRegistry
from tests.conftest import make_settings
from tests.handlers.test_api import markdown_url
from tests.origin import Origin, serve

MARKER = "FORBIDDEN-CONTENT-7f000002"
"""What every forbidden server answers: it must never show up in a response."""

ALL_HITS: list[str] = []
"""Every request any forbidden server received during this module's tests."""

# Refusal codes of the Markdown endpoint: invalid_url, fetch_not_allowed, and (for a name that
# does not resolve at all) the DNS failure.
INVALID_URL, NOT_ALLOWED, DNS = -2204, -3006, -3000
REFUSED = {INVALID_URL, NOT_ALLOWED}

# Names the test resolver answers for; anything else goes to the system resolver.
PRIVATE_NAMES = {
    "loop.test": ["127.0.0.2"],
    "loop3.test": ["127.0.0.3"],
    "v6loop.test": ["::1"],
    "mapped.test": ["::ffff:127.0.0.2"],
    "internal.test": ["10.0.0.5"],
    "mixed.test": ["93.184.216.34", "127.0.0.2"],
    "metadata.test": ["169.254.169.254"],
    "allowed-metadata.test": ["169.254.169.254"],
    "cgnat.test": ["100.64.0.1"],
    "ula.test": ["fd00::1"],
}


def test_resolver() -> Resolver:
    """The test names from a table, every other name from the system."""
    table = static_resolver(PRIVATE_NAMES)
    system = system_resolver(2.0)

    async def resolve(host: str, port: int) -> list[str]:
        if host in PRIVATE_NAMES:
            return await table(host, port)
        return await system(host, port)

    return resolve


test_resolver.__test__ = False  # type: ignore[attr-defined]


@dataclass
class Forbidden:
    """The forbidden servers: ports by name, and the requests they received."""

    ports: dict[str, int]
    hits: list[str] = field(default_factory=list)

    def fill(self, template: str) -> str:
        return template.format(**self.ports)


class Trap(tornado.web.RequestHandler):
    def initialize(self, hits: list[str], name: str) -> None:
        self.hits = hits
        self.name = name

    def _record(self) -> None:
        entry = f"{self.name} {self.request.method} {self.request.path}"
        self.hits.append(entry)
        ALL_HITS.append(entry)
        self.set_header("Content-Type", "text/html")
        self.finish(
            f"<html><head><title>{MARKER}</title></head><body><p>{MARKER}</p>"
            f'{{"type":"rich","version":"1.0","html":"{MARKER}"}}</body></html>'
        )

    def get(self, *_: str) -> None:
        self._record()

    def post(self, *_: str) -> None:
        self._record()

    def head(self, *_: str) -> None:
        self._record()


class TrapSocket(tornado.websocket.WebSocketHandler):
    def initialize(self, hits: list[str], name: str) -> None:
        self.hits = hits
        self.name = name

    def check_origin(self, origin: str) -> bool:
        return True

    def open(self, *_: str) -> None:
        self.hits.append(f"{self.name} websocket")
        ALL_HITS.append(f"{self.name} websocket")


def _bind(host: str, family: int = socket.AF_INET) -> tuple[socket.socket, int] | None:
    try:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, 0))
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        return None
    return sock, sock.getsockname()[1]


@pytest.fixture
def forbidden(io_loop: Any) -> Iterator[Forbidden]:
    """Trap servers on 127.0.0.2 (always), 127.0.0.3 and [::1] (if bindable), and one on a
    127.0.0.1 port that only the name ``localhost`` leads to."""
    hits: list[str] = []
    servers: list[HTTPServer] = []
    ports: dict[str, int] = {}
    for name, host, family in (
        ("p2", "127.0.0.2", socket.AF_INET),
        ("p3", "127.0.0.3", socket.AF_INET),
        ("p6", "::1", socket.AF_INET6),
        ("pl", "127.0.0.1", socket.AF_INET),
    ):
        # Not tornado's bind_unused_port: its first parameter is reuse_port, not the address.
        bound = _bind(host, family)
        if bound is None:
            assert name != "p2", "127.0.0.2 must be bindable for this battery"
            continue
        sock, port = bound
        app = tornado.web.Application(
            [
                (r"/ws.*", TrapSocket, {"hits": hits, "name": name}),
                (r"/(.*)", Trap, {"hits": hits, "name": name}),
            ]
        )
        server = HTTPServer(app)
        server.add_sockets([sock])
        servers.append(server)
        ports[name] = port
    # Unbound servers fall back to 127.0.0.2's port: still refused, still counted there.
    for name in ("p3", "p6", "pl"):
        ports.setdefault(name, ports["p2"])
    trap = Forbidden(ports, hits)
    yield trap
    for server in servers:
        server.stop()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.fetch.allow_hosts = ["127.0.0.1", "allowed-metadata.test"]
    settings.farm.warm_contexts = 0
    settings.oembed.provider_timeout = 1.0
    for plan in settings.plans.values():
        plan.requests_per_second, plan.burst = 1000.0, 1000
    return settings


@pytest.fixture
def key(services: Services) -> str:
    return services.store.create_key("battery", "pro").key


def hostile_page(trap: Forbidden, navigate: bool) -> str:
    """An allowed page whose subresources all point at the forbidden servers; with ``navigate``
    it also tries to leave for them (meta refresh, form submission)."""
    a = f"127.0.0.2:{trap.ports['p2']}"
    b = f"127.0.0.3:{trap.ports['p3']}"
    c = f"[::1]:{trap.ports['p6']}"
    refresh = f'<meta http-equiv="refresh" content="0;url=http://{a}/refresh">' if navigate else ""
    submit = "try { document.getElementById('f').submit(); } catch (e) {}" if navigate else ""
    return f"""<!doctype html><html><head><title>Hostile harbour page</title>
<link rel="stylesheet" href="http://{a}/style.css">
<link rel="alternate" type="application/json+oembed" href="http://{a}/oembed.json">
{refresh}
<meta property="og:title" content="Hostile harbour page">
<meta property="og:image" content="http://{a}/og.png">
<script src="http://{a}/script.js"></script></head>
<body style="background:url(http://{b}/bg.png)"><main><h1>Hostile harbour page</h1>
<p>The harbour master keeps a log of every vessel that enters and leaves the port, written by
hand in a ledger that has been kept in the same office for more than a century of tides.</p>
<img src="http://{a}/img.png"><img src="http://{c}/img6.png">
<iframe src="http://{a}/frame"></iframe><iframe src="http://{b}/frame3"></iframe>
<object data="http://{a}/object"></object><video src="http://{a}/video"></video>
<form id="f" action="http://{a}/form" method="post"></form>
<script>
fetch('http://{a}/fetch').catch(() => {{}});
fetch('http://{c}/fetch6').catch(() => {{}});
const x = new XMLHttpRequest(); x.open('GET', 'http://{a}/xhr');
x.onerror = () => {{}}; x.send();
try {{ new WebSocket('ws://{a}/ws'); }} catch (e) {{}}
try {{ new WebSocket('ws://{c}/ws6'); }} catch (e) {{}}
navigator.sendBeacon && navigator.sendBeacon('http://{a}/beacon', 'x');
new Image().src = 'http://localhost:{trap.ports["pl"]}/localhost-img';
{submit}
</script></main></body></html>"""


@pytest.fixture
def origin(io_loop: Any, forbidden: Forbidden) -> Iterator[Origin]:
    """The allowed site on 127.0.0.1: redirects, chains, a hostile page, discovery pages, and a
    page of provider-matched video."""
    a = f"http://127.0.0.2:{forbidden.ports['p2']}"

    class Page(tornado.web.RequestHandler):
        def get(self, path: str) -> None:
            if path == "to":
                status = int(self.get_query_argument("s", "302"))
                self.redirect(self.get_query_argument("u"), status=status)
            elif path.startswith("chain/"):
                left = int(path.split("/")[1])
                target = self.get_query_argument("u")
                if left <= 0:
                    self.redirect(target)
                else:
                    self.redirect(f"/chain/{left - 1}?u={quote(target, safe='')}")
            elif path in ("hostile", "hostile-nav"):
                self.finish(hostile_page(forbidden, navigate=path == "hostile-nav"))
            elif path == "discover-json":
                self.finish(
                    '<html><head><link rel="alternate" type="application/json+oembed" '
                    f'href="{a}/oembed.json?x=1"><title>Discovery</title></head></html>'
                )
            elif path == "discover-xml":
                self.finish(
                    '<html><head><link rel="alternate" type="text/xml+oembed" '
                    f'href="{a}/oembed.xml"><title>Discovery</title></head></html>'
                )
            elif path == "discover-header":
                self.set_header(
                    "Link",
                    f'<{a}/oembed-header.json>; rel="alternate"; type="application/json+oembed"',
                )
                self.finish("<html><head><title>Header discovery</title></head></html>")
            elif path == "discover-redirect":
                to = quote(f"{a}/oembed-via-redirect.json", safe="")
                self.finish(
                    '<html><head><link rel="alternate" type="application/json+oembed" '
                    f'href="/to?u={to}"><title>Discovery</title></head></html>'
                )
            elif path.startswith("video/"):
                self.finish(
                    '<html><head><meta property="og:title" content="Quay video">'
                    '<meta property="og:site_name" content="Quay News"></head></html>'
                )
            elif path == "provider-redirect":
                self.redirect(f"{a}/provider-via-redirect")
            else:
                self.set_status(404)
                self.finish("<html><body>missing</body></html>")

    site = serve(tornado.web.Application([(r"/(.*)", Page)]))
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def app(services: Services, forbidden: Forbidden, origin: Origin) -> tornado.web.Application:
    """The API with the test resolver and a provider registry whose endpoints are forbidden."""
    services.fetcher.resolver = test_resolver()
    a = f"http://127.0.0.2:{forbidden.ports['p2']}"
    services.embeds.registry = ProviderRegistry(
        [
            Provider(
                name="TrapTube",
                url=a,
                endpoints=(
                    Endpoint(
                        url=f"{a}/provider",
                        schemes=(origin.url("/video/direct/*"),),
                        discovery=False,
                        formats=("json",),
                    ),
                ),
            ),
            Provider(
                name="SpelledTube",
                url=a,
                endpoints=(
                    Endpoint(
                        url=f"http://2130706434:{forbidden.ports['p2']}/provider",
                        schemes=(origin.url("/video/spelled/*"),),
                        discovery=False,
                        formats=("json",),
                    ),
                ),
            ),
            Provider(
                name="RedirectTube",
                url=origin.base_url,
                endpoints=(
                    Endpoint(
                        url=origin.url("/provider-redirect"),
                        schemes=(origin.url("/video/redirect/*"),),
                        discovery=False,
                        formats=("json",),
                    ),
                ),
            ),
        ]
    )
    return make_api_app(services)


async def markdown(
    http_client: AsyncHTTPClient, base_url: str, target: str, key: str, **params: str
) -> HTTPResponse:
    return await http_client.fetch(
        markdown_url(base_url, target, app_id=key, **params),
        raise_error=False,
        request_timeout=60,
    )


def assert_clean_markdown_error(response: HTTPResponse, codes: set[int]) -> None:
    """A Markdown-endpoint error body, one of ``codes``, billed nothing, leaking nothing."""
    text = response.body.decode()
    assert MARKER not in text
    assert 400 <= response.code < 500, text
    body = json.loads(text)
    assert set(body) == {"error", "request_id"}
    assert body["error"]["code"] in codes, body
    assert response.headers["X-BILLING-REQUESTS"] == "0"
    assert "Traceback" not in text


async def settle(trap: Forbidden) -> None:
    """Give a stray connection a moment to arrive before counting."""
    await asyncio.sleep(0.05)
    assert trap.hits == []


# --- Markdown endpoint, target given directly --------------------------------------------------

DIRECT = [
    ("plain", "http://127.0.0.2:{p2}/", REFUSED),
    ("plain-https", "https://127.0.0.2:{p2}/", REFUSED),
    ("path-query", "http://127.0.0.2:{p2}/admin?x=1#frag", REFUSED),
    ("other-loopback", "http://127.0.0.3:{p3}/", REFUSED),
    ("loopback-top", "http://127.255.255.254:{p2}/", REFUSED),
    ("trailing-dot", "http://127.0.0.2.:{p2}/", REFUSED),
    ("decimal", "http://2130706434:{p2}/", REFUSED),
    ("hex", "http://0x7f000002:{p2}/", REFUSED),
    ("hex-dotted", "http://0x7f.0x0.0x0.0x2:{p2}/", REFUSED),
    ("octal", "http://0177.0.0.2:{p2}/", REFUSED),
    ("octal-long", "http://0177.0000.0000.0002:{p2}/", REFUSED),
    ("short", "http://127.2:{p2}/", REFUSED),
    ("short-three", "http://127.0.2:{p2}/", REFUSED),
    ("mixed-spelling", "http://0x7f.0.0.02:{p2}/", REFUSED),
    ("v4-mapped", "http://[::ffff:127.0.0.2]:{p2}/", REFUSED),
    ("v4-mapped-hex", "http://[::ffff:7f00:2]:{p2}/", REFUSED),
    ("v4-compatible", "http://[::127.0.0.2]:{p2}/", REFUSED),
    ("nat64", "http://[64:ff9b::7f00:2]:{p2}/", REFUSED),
    ("sixtofour", "http://[2002:7f00:2::1]:{p2}/", REFUSED),
    ("v6-loopback", "http://[::1]:{p6}/", REFUSED),
    ("v6-loopback-long", "http://[0:0:0:0:0:0:0:1]:{p6}/", REFUSED),
    ("v6-unspecified", "http://[::]:{p6}/", REFUSED),
    ("unspecified", "http://0.0.0.0:{p2}/", REFUSED),
    ("zero", "http://0:{p2}/", REFUSED),
    ("localhost", "http://localhost:{pl}/", REFUSED | {DNS}),
    ("localhost-dot", "http://localhost.:{pl}/", REFUSED | {DNS}),
    ("localhost-upper", "http://LOCALHOST:{pl}/", REFUSED | {DNS}),
    ("metadata", "http://169.254.169.254/latest/meta-data/", REFUSED),
    ("metadata-decimal", "http://2852039166/latest/meta-data/", REFUSED),
    ("metadata-mapped", "http://[::ffff:169.254.169.254]/", REFUSED),
    ("metadata-aws-v6", "http://[fd00:ec2::254]/", REFUSED),
    ("alibaba-metadata", "http://100.100.100.200/", REFUSED),
    ("ula", "http://[fd00::1]:{p2}/", REFUSED),
    ("link-local-v6", "http://[fe80::1]:{p2}/", REFUSED),
    ("site-local-v6", "http://[fec0::1]:{p2}/", REFUSED),
    ("multicast-v6", "http://[ff02::1]:{p2}/", REFUSED),
    ("cgnat", "http://100.64.0.1:{p2}/", REFUSED),
    ("private-192", "http://192.168.0.1:{p2}/", REFUSED),
    ("private-10", "http://10.0.0.1:{p2}/", REFUSED),
    ("private-172", "http://172.16.0.1:{p2}/", REFUSED),
    ("benchmark", "http://198.18.0.1:{p2}/", REFUSED),
    ("test-net", "http://192.0.2.1:{p2}/", REFUSED),
    ("multicast", "http://224.0.0.1:{p2}/", REFUSED),
    ("broadcast", "http://255.255.255.255:{p2}/", REFUSED),
    ("reserved", "http://240.0.0.1:{p2}/", REFUSED),
    ("user", "http://user@127.0.0.2:{p2}/", REFUSED),
    ("user-allowed-host", "http://127.0.0.1:{pl}@127.0.0.2:{p2}/", REFUSED),
    ("user-password", "http://u:p@127.0.0.1:{pl}/", REFUSED),
    ("backslash", "http://127.0.0.1:{pl}\\@127.0.0.2:{p2}/", REFUSED),
    ("file", "file:///etc/passwd", REFUSED),
    ("file-host", "file://127.0.0.2/etc/passwd", REFUSED),
    ("ftp", "ftp://127.0.0.2:{p2}/", REFUSED),
    ("gopher", "gopher://127.0.0.2:{p2}/_GET%20/", REFUSED),
    ("dict", "dict://127.0.0.2:{p2}/info", REFUSED),
    ("data", "data:text/html,<h1>x</h1>", REFUSED),
    ("javascript", "javascript:fetch('http://127.0.0.2:{p2}/')", REFUSED),
    ("ws", "ws://127.0.0.2:{p2}/ws", REFUSED),
    ("no-scheme", "//127.0.0.2:{p2}/", REFUSED),
    ("name-loopback", "http://loop.test:{p2}/", REFUSED),
    ("name-loopback-3", "http://loop3.test:{p3}/", REFUSED),
    ("name-v6-loopback", "http://v6loop.test:{p6}/", REFUSED),
    ("name-mapped", "http://mapped.test:{p2}/", REFUSED),
    ("name-private", "http://internal.test:{p2}/", REFUSED),
    ("name-mixed", "http://mixed.test:{p2}/", REFUSED),
    ("name-metadata", "http://metadata.test/", REFUSED),
    ("name-metadata-listed", "http://allowed-metadata.test/", REFUSED),
    ("name-cgnat", "http://cgnat.test:{p2}/", REFUSED),
    ("name-ula", "http://ula.test:{p2}/", REFUSED),
]


@pytest.mark.parametrize(("target", "codes"), [c[1:] for c in DIRECT], ids=[c[0] for c in DIRECT])
@pytest.mark.gen_test(timeout=30)
async def test_markdown_direct_target_is_refused(
    http_client, base_url, forbidden, key, target, codes
) -> None:
    response = await markdown(http_client, base_url, forbidden.fill(target), key)
    assert_clean_markdown_error(response, codes)
    await settle(forbidden)


# --- Markdown endpoint, redirected from the allowed origin -------------------------------------

REDIRECTS = [
    ("302", "/to?s=302&u=", "http://127.0.0.2:{p2}/r302"),
    ("301", "/to?s=301&u=", "http://127.0.0.2:{p2}/r301"),
    ("303", "/to?s=303&u=", "http://127.0.0.2:{p2}/r303"),
    ("307", "/to?s=307&u=", "http://127.0.0.2:{p2}/r307"),
    ("308", "/to?s=308&u=", "http://127.0.0.2:{p2}/r308"),
    ("to-other-loopback", "/to?u=", "http://127.0.0.3:{p3}/r"),
    ("to-v6-loopback", "/to?u=", "http://[::1]:{p6}/r"),
    ("to-decimal", "/to?u=", "http://2130706434:{p2}/r"),
    ("to-short", "/to?u=", "http://127.2:{p2}/r"),
    ("to-mapped", "/to?u=", "http://[::ffff:127.0.0.2]:{p2}/r"),
    ("to-localhost", "/to?u=", "http://localhost:{pl}/r"),
    ("to-name", "/to?u=", "http://loop.test:{p2}/r"),
    ("to-metadata", "/to?u=", "http://169.254.169.254/latest/"),
    ("to-file", "/to?u=", "file:///etc/passwd"),
    ("to-gopher", "/to?u=", "gopher://127.0.0.2:{p2}/_x"),
    ("to-user", "/to?u=", "http://user@127.0.0.2:{p2}/r"),
    ("chain-2", "/chain/2?u=", "http://127.0.0.2:{p2}/chain"),
    ("chain-4", "/chain/4?u=", "http://127.0.0.2:{p2}/chain"),
    ("chain-to-name", "/chain/3?u=", "http://mapped.test:{p2}/chain"),
]


@pytest.mark.parametrize(
    ("path", "target"), [c[1:] for c in REDIRECTS], ids=[c[0] for c in REDIRECTS]
)
@pytest.mark.gen_test(timeout=30)
async def test_markdown_redirect_to_forbidden_is_refused(
    http_client, base_url, forbidden, origin, key, path, target
) -> None:
    start = origin.url(path + quote(forbidden.fill(target), safe=""))
    response = await markdown(http_client, base_url, start, key)
    assert_clean_markdown_error(response, REFUSED | {-3005})
    await settle(forbidden)


@pytest.mark.parametrize("fmt", ["markdown", "json"])
@pytest.mark.gen_test(timeout=30)
async def test_markdown_of_a_hostile_page_fetches_none_of_it(
    http_client, base_url, forbidden, origin, key, fmt
) -> None:
    """Without rendering, links, images, frames and meta refresh on the page are not followed."""
    response = await markdown(
        http_client, base_url, origin.url("/hostile-nav"), key, format=fmt, include_images="true"
    )
    assert response.code == 200, response.body
    assert b"harbour master" in response.body and MARKER.encode() not in response.body
    await settle(forbidden)


# --- oEmbed ------------------------------------------------------------------------------------


async def oembed(
    http_client: AsyncHTTPClient, base_url: str, target: str, key: str
) -> tuple[HTTPResponse, dict[str, Any]]:
    url = f"{base_url}/api/3.0/oembed/{quote(target, safe='')}?app_id={key}"
    response = await http_client.fetch(url, raise_error=False, request_timeout=30)
    return response, json.loads(response.body)


OEMBED = [
    ("discovery-json", "/discover-json"),
    ("discovery-xml", "/discover-xml"),
    ("discovery-link-header", "/discover-header"),
    ("discovery-via-redirect", "/discover-redirect"),
    ("registry-endpoint", "/video/direct/1"),
    ("registry-spelled-endpoint", "/video/spelled/1"),
    ("registry-redirecting-endpoint", "/video/redirect/1"),
    ("hostile-page", "/hostile"),
]


@pytest.mark.parametrize("path", [c[1] for c in OEMBED], ids=[c[0] for c in OEMBED])
@pytest.mark.gen_test(timeout=30)
async def test_oembed_never_calls_a_forbidden_endpoint(
    http_client, base_url, forbidden, origin, key, path
) -> None:
    response, body = await oembed(http_client, base_url, origin.url(path), key)
    assert MARKER not in response.body.decode()
    if response.code == 200:
        assert body["source"] != "discovery" and body["source"] != "native", body
    else:
        assert 400 <= response.code < 500, body
        assert body["success"] is False and body["error"]["code"], body
    await settle(forbidden)


OEMBED_DIRECT = [
    ("plain", "http://127.0.0.2:{p2}/video/1"),
    ("decimal", "http://2130706434:{p2}/"),
    ("mapped", "http://[::ffff:127.0.0.2]:{p2}/"),
    ("name", "http://loop.test:{p2}/"),
    ("metadata", "http://169.254.169.254/"),
    ("file", "file:///etc/passwd"),
]


@pytest.mark.parametrize("target", [c[1] for c in OEMBED_DIRECT], ids=[c[0] for c in OEMBED_DIRECT])
@pytest.mark.gen_test(timeout=30)
async def test_oembed_direct_forbidden_target(
    http_client, base_url, forbidden, key, target
) -> None:
    response, body = await oembed(http_client, base_url, forbidden.fill(target), key)
    assert 400 <= response.code < 500, body
    assert body["success"] is False and set(body["error"]) >= {"code", "message"}
    assert MARKER not in response.body.decode()
    assert response.headers["X-BILLING-REQUESTS"] == "0"
    await settle(forbidden)


# --- Through the browser farm ------------------------------------------------------------------

SUBRESOURCES = [
    "stylesheet",
    "script-src",
    "css-background",
    "img",
    "img-v6",
    "iframe",
    "iframe-other-loopback",
    "object",
    "video",
    "fetch",
    "fetch-v6",
    "xhr",
    "websocket",
    "websocket-v6",
    "beacon",
    "img-localhost",
]
"""What the hostile page loads from the forbidden servers (one page covers them all)."""

RENDERED_TARGETS = [
    ("redirect", "/to?u=", "http://127.0.0.2:{p2}/rendered"),
    ("redirect-chain", "/chain/2?u=", "http://[::1]:{p6}/rendered"),
]
BROWSER_DIRECT = [
    "http://127.0.0.2:{p2}/direct",
    "http://[::ffff:127.0.0.2]:{p2}/direct",
    "http://2130706434:{p2}/direct",
    "http://loop.test:{p2}/direct",
    "http://localhost:{pl}/direct",
]


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_full_render_and_screenshot_stay_off_forbidden_servers(
    http_client, base_url, forbidden, origin, key
) -> None:
    # The hostile page rendered for Markdown: every subresource blocked, the page still converts.
    response = await markdown(
        http_client, base_url, origin.url("/hostile"), key, full_render="true", format="json"
    )
    assert response.code == 200, response.body
    assert MARKER not in response.body.decode() and "harbour master" in response.body.decode()
    # ...and captured as a screenshot, with a little time for the scripts to run.
    shot = await http_client.fetch(
        f"{base_url}/api/1.1/screenshot/{quote(origin.url('/hostile'), safe='')}"
        f"?app_id={key}&capture_delay=700",
        raise_error=False,
        request_timeout=60,
    )
    assert shot.code == 200, shot.body
    # A page that navigates itself to a forbidden server (meta refresh, form submission) ends on
    # the egress guard's refusal: a 200 or a clean error, never the forbidden content.
    response = await markdown(
        http_client, base_url, origin.url("/hostile-nav"), key, full_render="true"
    )
    assert response.code in (200, 400, 502) and MARKER not in response.body.decode()
    for _, path, target in RENDERED_TARGETS:
        start = origin.url(path + quote(forbidden.fill(target), safe=""))
        response = await markdown(http_client, base_url, start, key, full_render="true")
        assert 400 <= response.code < 600 and MARKER not in response.body.decode(), start
        shot = await http_client.fetch(
            f"{base_url}/api/1.1/screenshot/{quote(start, safe='')}?app_id={key}",
            raise_error=False,
            request_timeout=60,
        )
        assert shot.code in (400, 502), shot.body
        assert json.loads(shot.body)["success"] is False
    for target in BROWSER_DIRECT:
        url = forbidden.fill(target)
        response = await markdown(http_client, base_url, url, key, full_render="true")
        assert_clean_markdown_error(response, REFUSED)
        shot = await http_client.fetch(
            f"{base_url}/api/1.1/screenshot/{quote(url, safe='')}?app_id={key}",
            raise_error=False,
            request_timeout=60,
        )
        body = json.loads(shot.body)
        assert shot.code == 400 and body["error"]["code"] == "invalid_request", body
        assert shot.headers["X-BILLING-REQUESTS"] == "0"
    await asyncio.sleep(0.5)
    assert forbidden.hits == []


CASES = (
    [f"markdown/direct/{c[0]}" for c in DIRECT]
    + [f"markdown/redirect/{c[0]}" for c in REDIRECTS]
    + ["markdown/hostile/markdown", "markdown/hostile/json"]
    + ["render/meta-refresh-and-form-post"]
    + [f"oembed/{c[0]}" for c in OEMBED]
    + [f"oembed/direct/{c[0]}" for c in OEMBED_DIRECT]
    + [f"render/{name}" for name in SUBRESOURCES]
    + [f"screenshot/{name}" for name in SUBRESOURCES]
    + [f"{kind}/{c[0]}" for c in RENDERED_TARGETS for kind in ("render", "screenshot")]
    + [f"{kind}/direct/{t}" for t in BROWSER_DIRECT for kind in ("render", "screenshot")]
)


@pytest.mark.gen_test(timeout=30)
async def test_control_the_traps_do_count(http_client, forbidden) -> None:
    """The traps are listening and counting: a direct request (not through Pagecast) arrives."""
    for name, template in (("p2", "127.0.0.2:{p2}"), ("p6", "[::1]:{p6}")):
        response = await http_client.fetch(f"http://{forbidden.fill(template)}/control")
        assert MARKER in response.body.decode()
        assert forbidden.hits[-1].startswith(name) or forbidden.ports[name] == forbidden.ports["p2"]
    assert len(forbidden.hits) == 2
    for entry in forbidden.hits:  # the control's own hits are not part of the battery's total
        ALL_HITS.remove(entry)


def test_the_battery_is_large_and_distinct() -> None:
    assert len(CASES) >= 60
    assert len(set(CASES)) == len(CASES)


def test_no_request_reached_a_forbidden_server() -> None:
    """Runs last in this module: the total over every case above."""
    assert ALL_HITS == []
