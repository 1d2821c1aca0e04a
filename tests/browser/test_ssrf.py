"""The SSRF guard: what may be fetched, through the real fetcher where a connection is involved."""

from __future__ import annotations

import asyncio
import gc
import ipaddress
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pycurl
import pytest
import tornado.web

import browser.fetch.hop
from browser.deny import DenyList, deny_problems, parse_network, parse_ports
from browser.fetch.client import Fetcher, FetchError, FetchSettings
from browser.fetch.hop import Hop
from browser.resolver import ResolutionError, Resolver, static_resolver, system_resolver
from browser.ssrf import (
    AddressPolicy,
    Refusal,
    Target,
    URLRefusedError,
    embedded_ipv4,
    normalise_url,
    refusal_reason,
)
from tests.origin import Origin, serve


class HitHandler(tornado.web.RequestHandler):
    """Counts requests, so a test can prove no connection reached the origin."""

    def initialize(self, hits: list[str]) -> None:
        self.hits = hits

    def get(self) -> None:
        self.hits.append(self.request.path)
        self.finish("<p>reached</p>")


class RedirectHandler(tornado.web.RequestHandler):
    def get(self) -> None:
        self.redirect(self.get_argument("to"))


@pytest.fixture
def hits() -> list[str]:
    return []


@pytest.fixture
def origin(io_loop: Any, hits: list[str]) -> Iterator[Origin]:
    app = tornado.web.Application(
        [(r"/hit", HitHandler, {"hits": hits}), (r"/redirect", RedirectHandler)]
    )
    site = serve(app)
    yield site
    io_loop.run_sync(site.close)


FetcherFactory = Callable[..., Fetcher]


@pytest.fixture
def make_fetcher(io_loop: Any) -> Iterator[FetcherFactory]:
    fetchers: list[Fetcher] = []

    def make(allow_hosts: list[str] | None = None, resolver: Resolver | None = None) -> Fetcher:
        settings = FetchSettings(allow_hosts=["127.0.0.1"] if allow_hosts is None else allow_hosts)
        fetcher = Fetcher(settings, resolver or static_resolver({}))
        fetchers.append(fetcher)
        return fetcher

    yield make
    for fetcher in fetchers:
        fetcher.close()


# -- refusals through the fetcher ---------------------------------------------------------------

REFUSED = [
    # (url, allow_hosts); {port} is the origin's port
    ("http://127.0.0.1:{port}/hit", []),
    ("http://[::1]:{port}/hit", ["127.0.0.1"]),
    ("http://10.1.2.3/", []),
    ("http://172.16.0.1/", []),
    ("http://172.31.255.254/", []),
    ("http://192.168.1.1/", []),
    ("http://169.254.10.20/", []),
    ("http://169.254.169.254/latest/meta-data/", ["169.254.169.254"]),
    ("http://[fd00:ec2::254]/", ["fd00:ec2::254"]),
    ("http://100.100.100.200/", ["100.100.100.200"]),
    ("http://metadata.test/", ["metadata.test"]),  # a listed name resolving to 169.254.169.254
    ("http://[::ffff:127.0.0.1]:{port}/hit", ["127.0.0.1"]),
    ("http://[::ffff:169.254.169.254]/", ["::ffff:169.254.169.254"]),
    ("http://[64:ff9b::7f00:1]:{port}/hit", []),
    ("http://[2002:7f00:1::1]/", []),
    ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", []),  # Teredo, client 127.0.0.1
    ("http://[fe80::1]/", []),
    ("http://[fc00::1]/", []),
    ("http://0.0.0.0:{port}/hit", ["127.0.0.1"]),
    ("http://224.0.0.1/", []),
    ("http://2130706433:{port}/hit", ["127.0.0.1"]),
    ("http://0177.0.0.1:{port}/hit", ["127.0.0.1"]),
    ("http://0x7f.1:{port}/hit", ["127.0.0.1"]),
    ("http://127.1:{port}/hit", ["127.0.0.1"]),
    ("http://0x7f000001:{port}/hit", ["127.0.0.1"]),
    ("http://public-looking.example:{port}/hit", []),  # resolves to 127.0.0.1
    ("http://mixed.example:{port}/hit", []),  # one public and one loopback address
    ("http://localhost:{port}/hit", ["127.0.0.1"]),
]

RESOLVER = static_resolver(
    {
        "public-looking.example": ["127.0.0.1"],
        "mixed.example": ["93.184.216.34", "127.0.0.1"],
        "metadata.test": ["169.254.169.254"],
        "localhost": ["127.0.0.1", "::1"],
    }
)


@pytest.mark.gen_test
@pytest.mark.parametrize(("url", "allow_hosts"), REFUSED)
async def test_refused_addresses(
    origin: Origin,
    hits: list[str],
    make_fetcher: FetcherFactory,
    url: str,
    allow_hosts: list[str],
) -> None:
    fetcher = make_fetcher(allow_hosts, RESOLVER)
    result = await fetcher.fetch(url.format(port=origin.port))
    assert result.error is FetchError.address_not_allowed, result.message
    assert result.status is None
    assert "Pagecast does not fetch" in result.message
    assert hits == []


@pytest.mark.gen_test
@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://127.0.0.1/",
        "gopher://127.0.0.1:70/_GET",
        "javascript:alert(1)",
        "data:text/html,<p>hi</p>",
        "dict://127.0.0.1:11211/stats",
        "http:///no-host",
        "//127.0.0.1/hit",
        "http://user:secret@127.0.0.1/hit",
        "http://127.0.0.1\\@169.254.169.254/",
        "http://exa mple.com/",
        "http://example.com\n/",
        "http://[::1/",
        "http://256.0.0.1/",
        "http://0189.0.0.1/",
        "http://127.0.0.1:99999/",
    ],
)
async def test_invalid_urls(make_fetcher: FetcherFactory, url: str) -> None:
    result = await make_fetcher(["127.0.0.1", "169.254.169.254"]).fetch(url)
    assert result.error is FetchError.invalid_url, result.message
    assert result.status is None


@pytest.mark.gen_test
@pytest.mark.parametrize(
    ("location", "error"),
    [
        ("http://[::1]:{port}/hit", FetchError.address_not_allowed),
        ("http://2130706433:{port}/hit", FetchError.address_not_allowed),
        ("http://localhost:{port}/hit", FetchError.address_not_allowed),
        ("http://169.254.169.254/latest/meta-data/", FetchError.address_not_allowed),
        ("http://public-looking.example:{port}/hit", FetchError.address_not_allowed),
        ("file:///etc/passwd", FetchError.invalid_url),
        ("gopher://127.0.0.1:{port}/hit", FetchError.invalid_url),
    ],
)
async def test_redirect_to_refused_host(
    origin: Origin,
    hits: list[str],
    make_fetcher: FetcherFactory,
    location: str,
    error: FetchError,
) -> None:
    fetcher = make_fetcher(["127.0.0.1"], RESOLVER)
    target = location.format(port=origin.port)
    result = await fetcher.fetch(origin.url("/redirect?to=" + target.replace("&", "%26")))
    assert result.error is error, result.message
    assert result.redirects == [target]
    assert result.final_url == target
    assert result.status is None and result.body == b""
    assert hits == []


# -- allowed hosts ------------------------------------------------------------------------------


@pytest.mark.gen_test
async def test_allowed_host_and_port(
    origin: Origin, hits: list[str], make_fetcher: FetcherFactory
) -> None:
    exact = make_fetcher([f"127.0.0.1:{origin.port}"])
    result = await exact.fetch(origin.url("/hit"))
    assert result.ok and result.text == "<p>reached</p>"
    assert hits == ["/hit"]
    other_port = make_fetcher([f"127.0.0.1:{origin.port + 1}"])
    refused = await other_port.fetch(origin.url("/hit"))
    assert refused.error is FetchError.address_not_allowed
    assert hits == ["/hit"]


@pytest.mark.gen_test
async def test_allowed_redirect_within_allowed_hosts(
    origin: Origin, hits: list[str], make_fetcher: FetcherFactory
) -> None:
    fetcher = make_fetcher(
        ["127.0.0.1", "local.test"], static_resolver({"local.test": ["127.0.0.1"]})
    )
    result = await fetcher.fetch(origin.url(f"/redirect?to=http://local.test:{origin.port}/hit"))
    assert result.ok
    assert result.redirects == [f"http://local.test:{origin.port}/hit"]
    assert hits == ["/hit"]


# -- pinning and the connect-time guard ---------------------------------------------------------


@pytest.mark.gen_test
async def test_connection_is_pinned_to_checked_address(
    origin: Origin, hits: list[str], make_fetcher: FetcherFactory
) -> None:
    # pinned.test exists only in the injected resolver; curl reaches it through the pin alone.
    fetcher = make_fetcher(["pinned.test"], static_resolver({"pinned.test": ["127.0.0.1"]}))
    result = await fetcher.fetch(f"http://pinned.test:{origin.port}/hit")
    assert result.ok, result.message
    assert hits == ["/hit"]


@pytest.mark.gen_test
async def test_dns_rebinding_is_refused_at_connect(
    origin: Origin,
    hits: list[str],
    make_fetcher: FetcherFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The check sees a public address; curl is then handed loopback instead, as a rebinding DNS
    # server or a stale cache entry would do. The socket guard must refuse it.
    fetcher = make_fetcher([], static_resolver({"rebind.example": ["93.184.216.34"]}))

    def rebound(target: Target) -> list[str]:
        return [f"+{target.host}:{target.port}:127.0.0.1"]

    monkeypatch.setattr(browser.fetch.hop, "pin_entries", rebound)
    result = await fetcher.fetch(f"http://rebind.example:{origin.port}/hit")
    assert result.error is FetchError.address_not_allowed
    assert "not checked" in result.message
    assert hits == []


def test_socket_guard_opens_only_checked_addresses() -> None:
    target = Target("http://a.example/", "http", "a.example", 80, ("127.0.0.1", "::1"), False)
    hop = Hop(target, 1024)
    checked = hop.open_socket(0, (socket.AF_INET, socket.SOCK_STREAM, 6, ("127.0.0.1", 80)))
    assert isinstance(checked, socket.socket)
    assert hop.refused is None
    other = hop.open_socket(0, (socket.AF_INET, socket.SOCK_STREAM, 6, ("127.0.0.2", 80)))
    assert other == pycurl.SOCKET_BAD
    assert hop.refused == "127.0.0.2"
    hop.close()
    assert checked.fileno() == -1


# -- the policy itself --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("93.184.216.34", None),
        ("2606:4700::6810:85e5", None),
        ("::ffff:93.184.216.34", None),
        ("64:ff9b::5db8:d822", None),
        ("127.0.0.1", "a loopback address"),
        ("::1", "a loopback address"),
        ("10.0.0.1", "a private or reserved address"),
        ("100.64.0.1", "a private or reserved address"),
        ("192.0.0.8", "a private or reserved address"),
        ("198.18.0.1", "a private or reserved address"),
        ("240.0.0.1", "a private or reserved address"),
        ("169.254.169.254", "a cloud metadata address"),
        ("168.63.129.16", "a cloud metadata address"),
        ("192.0.0.192", "a cloud metadata address"),
        ("::ffff:10.0.0.1", "a private or reserved address"),
        ("2002:a00:1::", "a private or reserved address"),
        ("64:ff9b::a9fe:a9fe", "a cloud metadata address"),
        ("64:ff9b:1::1", "a private or reserved address"),
        ("255.255.255.255", "a private or reserved address"),
        ("ff02::1", "a multicast address"),
        ("::", "an unspecified address"),
    ],
)
def test_refusal_reason(address: str, reason: str | None) -> None:
    assert refusal_reason(ipaddress.ip_address(address)) == reason


def test_listed_hosts_may_be_private_but_never_metadata() -> None:
    assert refusal_reason(ipaddress.ip_address("127.0.0.1"), allow_private=True) is None
    assert refusal_reason(ipaddress.ip_address("10.0.0.1"), allow_private=True) is None
    metadata = ipaddress.ip_address("169.254.169.254")
    assert refusal_reason(metadata, allow_private=True) == "a cloud metadata address"
    mapped = ipaddress.ip_address("::ffff:169.254.169.254")
    assert refusal_reason(mapped, allow_private=True) == "a cloud metadata address"


def test_embedded_ipv4() -> None:
    def embedded(address: str) -> list[str]:
        return [str(inner) for inner in embedded_ipv4(ipaddress.IPv6Address(address))]

    assert embedded("::ffff:127.0.0.1") == ["127.0.0.1"]
    assert embedded("2002:7f00:1::") == ["127.0.0.1"]
    assert embedded("64:ff9b::7f00:1") == ["127.0.0.1"]
    assert embedded("2001:0:4136:e378:8000:63bf:80ff:fffe") == ["65.54.227.120", "127.0.0.1"]
    assert embedded("2606:4700::1") == []
    assert embedded("::1") == []


def test_allow_host_entries() -> None:
    policy = AddressPolicy(["Example.COM", "127.0.0.1:8080", "[::1]:9000", "::1", "bücher.test"])
    assert policy.is_listed("example.com", 80)
    assert policy.is_listed("example.com", 443)
    assert policy.is_listed("127.0.0.1", 8080)
    assert not policy.is_listed("127.0.0.1", 8081)
    assert policy.is_listed("::1", 1234)
    assert policy.is_listed("xn--bcher-kva.test", 80)
    assert not policy.is_listed("sub.example.com", 80)
    with pytest.raises(ValueError, match="allow_hosts"):
        AddressPolicy(["127.0.0.1:http"])


def test_normalise_url() -> None:
    url, scheme, host, port, literal = normalise_url("HTTPS://Bücher.Example./a b/ü?q=ä ö#frag")
    assert url == "https://xn--bcher-kva.example/a%20b/%C3%BC?q=%C3%A4%20%C3%B6"
    assert (scheme, host, port, literal) == ("https", "xn--bcher-kva.example", 443, None)
    url, _, host, port, literal = normalise_url("http://[::1]:8080")
    assert (url, host, port, str(literal)) == ("http://[::1]:8080/", "::1", 8080, "::1")
    with pytest.raises(URLRefusedError) as refused:
        normalise_url("http://0x7f000001/")
    assert refused.value.kind is Refusal.address_not_allowed


@pytest.mark.gen_test
async def test_policy_check_returns_checked_addresses() -> None:
    policy = AddressPolicy()
    resolver = static_resolver({"dual.example": ["93.184.216.34", "2606:2800:220:1::1"]})
    target = await policy.check("http://dual.example/page", resolver)
    assert target.addresses == ("93.184.216.34", "2606:2800:220:1::1")
    assert (target.host, target.port, target.scheme, target.listed) == (
        "dual.example",
        80,
        "http",
        False,
    )
    assert browser.fetch.hop.pin_entries(target) == [
        "+dual.example:80:93.184.216.34,[2606:2800:220:1::1]"
    ]
    with pytest.raises(ResolutionError):
        await policy.check("http://missing.example/", resolver)


@pytest.mark.gen_test
async def test_the_deny_list_refuses_ranges_and_ports_for_every_host() -> None:
    deny = DenyList.parse(["104.16.0.0/16", "2606:4700::/32", "8.8.8.8"], ["25", "8000-8099"])
    policy = AddressPolicy(["127.0.0.1", "104.16.9.9"], deny=deny)
    resolver = static_resolver(
        {"dual.example": ["93.184.216.34", "104.16.1.7"], "six.example": ["2606:4700::5"]}
    )
    refused_urls = [
        "http://dual.example/",  # one of its addresses is denied
        "http://six.example/",
        "http://104.16.9.9/",  # allow-listed, and denied all the same
        "http://8.8.8.8/",
        "http://[::ffff:104.16.1.7]/",  # the mapped spelling of a denied address
        "http://93.184.216.34:25/",  # a denied port on a public address
        "http://127.0.0.1:8042/",  # a denied port on an allow-listed host
        "https://93.184.216.34:8099/",
    ]
    for url in refused_urls:
        with pytest.raises(URLRefusedError) as refused:
            await policy.check(url, resolver)
        assert refused.value.kind is Refusal.address_not_allowed, url
        assert "deny list" in refused.value.message, url
    for url in ("http://93.184.216.34:8100/", "http://127.0.0.1:7999/", "https://8.8.4.4/"):
        assert (await policy.check(url, resolver)).url.startswith(url[:10])
    # The built-in rules still come first and keep their own words.
    with pytest.raises(URLRefusedError) as refused:
        await policy.check("http://169.254.169.254/", resolver)
    assert "metadata" in refused.value.message


def test_deny_list_entries_are_read_or_reported() -> None:
    assert parse_network("10.1.2.3/8") == ipaddress.ip_network("10.0.0.0/8")
    assert parse_ports(" 6000 - 6063 ") == (6000, 6063)
    assert parse_ports("22") == (22, 22)
    problems = deny_problems(["10.0.0.0/33", "not-a-range", "fd00::/8"], ["0", "90-80", "x", "443"])
    assert len(problems) == 5 and all(
        problem.startswith("fetch: invalid deny_") for problem in problems
    )
    assert not DenyList.parse([], [" "])
    settings = FetchSettings(deny_networks=["300.1.1.1/8"], deny_ports=["65536"])
    assert len(settings.problems()) == 2


@pytest.mark.gen_test
async def test_system_resolver() -> None:
    resolve = system_resolver(timeout=5)
    assert "127.0.0.1" in await resolve("localhost", 80)
    target = await AddressPolicy(["localhost"]).check("http://localhost/", resolve)
    assert "127.0.0.1" in target.addresses


@pytest.mark.gen_test(timeout=30)
async def test_slow_dns_is_bounded_and_kept_to_its_own_threads(monkeypatch) -> None:
    """A DNS server that never answers: lookups time out, a flood of them is refused at once,
    and work on the default thread pool (page decoding) is not held up."""
    real = socket.getaddrinfo
    release = threading.Event()

    def getaddrinfo(host, *args, **kwargs):
        if str(host).endswith(".slow.test"):
            release.wait(10)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    resolve = system_resolver(timeout=0.3)
    try:
        started = time.monotonic()
        outcomes = await asyncio.gather(
            *(resolve(f"h{i}.slow.test", 80) for i in range(80)), return_exceptions=True
        )
        assert all(isinstance(outcome, ResolutionError) for outcome in outcomes)
        refused = [o for o in outcomes if "too many lookups waiting" in str(o)]
        assert len(refused) == 80 - 64
        assert time.monotonic() - started < 3
        loop = asyncio.get_running_loop()
        started = time.monotonic()
        await loop.run_in_executor(None, sum, [1, 2, 3])
        assert time.monotonic() - started < 0.5
    finally:
        release.set()


@pytest.mark.gen_test(timeout=20)
async def test_abandoned_lookups_fail_quietly(monkeypatch) -> None:
    """A lookup that fails after its request gave up (timed out, or the request was cancelled)
    is not reported as an exception nobody retrieved."""
    real = socket.getaddrinfo
    release = threading.Event()

    def getaddrinfo(host, *args, **kwargs):
        if str(host).endswith(".late.test"):
            release.wait(10)  # then fails: the name does not exist
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _, context: reported.append(context))
    resolve = system_resolver(timeout=0.2)
    try:
        with pytest.raises(ResolutionError):
            await resolve("timed-out.late.test", 80)
        task = asyncio.ensure_future(resolve("cancelled.late.test", 80))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        release.set()
        await asyncio.sleep(0.5)  # both lookups now fail in their threads
        del task
        gc.collect()
        await asyncio.sleep(0.05)
        assert reported == []
    finally:
        release.set()
        loop.set_exception_handler(None)


@pytest.mark.gen_test(timeout=20)
async def test_pagecast_never_fetches_itself(origin: Origin, hits: list[str]) -> None:
    """Even with loopback allowed, Pagecast's own listeners are not targets."""
    fetcher = Fetcher(
        FetchSettings(allow_hosts=["127.0.0.1", "localhost"]),
        static_resolver({"localhost": ["127.0.0.1"]}),
        own_endpoints=[("127.0.0.1", origin.port), ("0.0.0.0", 9108)],
    )
    try:
        for url in (
            origin.url("/hit"),
            f"http://localhost:{origin.port}/",
            "http://127.0.0.1:9108/",
        ):
            result = await fetcher.fetch(url)
            assert result.error is FetchError.address_not_allowed, url
            assert "Pagecast itself" in result.message
        assert hits == []
    finally:
        fetcher.close()
    plain = Fetcher(FetchSettings(allow_hosts=["127.0.0.1"]))
    try:
        assert (await plain.fetch(origin.url("/hit"))).ok  # the same origin, not Pagecast's own
    finally:
        plain.close()
