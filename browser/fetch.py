"""The fetcher: one target page over HTTP(S), behind the SSRF guard, within limits, decoded.

:class:`Fetcher` follows redirects itself so that every hop is approved by the
:class:`~browser.ssrf.AddressPolicy`. Each hop's connection is pinned to the addresses that were
checked: curl's RESOLVE list maps the host to exactly those addresses, and an OPENSOCKETFUNCTION
refuses to open a socket to any other address, so DNS rebinding between check and connect cannot
reach an internal service. Upstream failures come back as a :class:`FetchResult` whose ``error``
is a :class:`FetchError`; exceptions are left for bugs and invalid arguments.

Every limit ends a fetch with its own error and without waiting out the deadline: a body over the
cap or a decompression bomb (too_large), a stalled transfer (timeout), oversized headers and broken
or malformed responses (invalid_response).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import socket
import ssl
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar
from urllib.parse import urljoin

import pycurl
from prometheus_client import Counter, Histogram
from tornado.curl_httpclient import CurlAsyncHTTPClient, CurlError
from tornado.httpclient import HTTPRequest
from tornado.httputil import HTTPHeaders, HTTPInputError

from browser.charset import (
    HTML_TYPES,
    SNIFFED_TYPES,
    declared_charset,
    decode_text,
    is_textual,
    looks_binary,
    looks_like_html,
)
from browser.proxies import ProxyRoute
from browser.ssrf import (
    AddressPolicy,
    ResolutionError,
    Resolver,
    Target,
    URLRefusedError,
    system_resolver,
)
from store.settings import setting

log = logging.getLogger(__name__)


@dataclass
class FetchSettings:
    """Fetching target pages: limits, identity and the SSRF guard."""

    SECTION: ClassVar[str] = "fetch"

    allow_hosts: list[str] = setting(
        [],
        "Hosts (name or address, optionally host:port) the SSRF guard lets through even when they "
        "resolve to loopback or private addresses. Empty in production; tests use it to reach "
        "127.0.0.1. Cloud metadata addresses stay refused for every host.",
    )
    connect_timeout: float = setting(
        5.0,
        "Seconds to wait for name resolution and for the TCP and TLS connection of each hop.",
        min=0.1,
        max=60,
    )
    total_timeout: float = setting(
        20.0,
        "Seconds one fetch may take in all, redirects and queueing for a free slot included.",
        min=1,
        max=300,
    )
    max_body_bytes: int = setting(
        10 * 1024 * 1024,
        "Largest response body accepted, counted after decompression; a larger one fails the "
        "fetch as too_large.",
        min=1024,
    )
    max_decompression_ratio: int = setting(
        100,
        "Largest ratio of decoded to received body bytes, checked once the decoded body passes "
        "1 MiB; a response that expands more (a decompression bomb) fails the fetch as too_large.",
        min=2,
    )
    max_header_bytes: int = setting(
        64 * 1024,
        "Largest total size of a response's header lines; larger headers fail the fetch as "
        "invalid_response.",
        min=1024,
    )
    low_speed_limit: int = setting(
        100,
        "Bytes per second under which a transfer counts as stalled; 0 turns the check off.",
        min=0,
    )
    low_speed_time: int = setting(
        10,
        "Seconds a transfer may stay under low_speed_limit before the fetch fails as a timeout.",
        min=1,
        max=300,
    )
    max_redirects: int = setting(
        5, "Redirects followed per fetch; each hop passes the SSRF guard again.", min=0, max=20
    )
    request_deadline: float = setting(
        45.0,
        "Seconds all attempts of one request may take together, retries through proxy tiers "
        "included; each attempt also keeps to total_timeout.",
        min=1,
        max=600,
    )
    max_concurrent: int = setting(
        64,
        "Fetches in flight at once in this process; further fetches wait for a slot (within "
        "total_timeout).",
        min=1,
    )
    user_agent: str = setting(
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/131.0.0.0 Safari/537.36",
        "User-Agent header sent to target sites.",
    )


class FetchError(StrEnum):
    """Why a fetch failed. The values are stable strings, used in metrics and API mappings."""

    invalid_url = "invalid_url"
    dns = "dns"
    connect = "connect"
    timeout = "timeout"
    blocked = "blocked"
    tls = "tls"
    too_many_redirects = "too_many_redirects"
    address_not_allowed = "address_not_allowed"
    too_large = "too_large"
    http_status = "http_status"
    invalid_response = "invalid_response"  # the target sent an invalid or oversized response


FETCHES = Counter(
    "pagecast_fetches", "Target page fetches, by outcome (ok or the error kind).", ["outcome"]
)
FETCH_DURATION = Histogram(
    "pagecast_fetch_duration_seconds",
    "Time one fetch took, redirects included.",
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60),
)
for _outcome in ("ok", *FetchError):
    FETCHES.labels(_outcome)

BLOCKED_STATUSES = frozenset({401, 403, 407, 429, 451})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
_DEFAULT_ACCEPT_LANGUAGE = "en-US,en;q=0.9"

# Decoded bodies smaller than this are never counted as decompression bombs.
_RATIO_FLOOR = 1024 * 1024

_BROKE_OFF = (FetchError.invalid_response, "the connection to the target broke off mid-response")
_MALFORMED = (FetchError.invalid_response, "the target sent a malformed response")
# libcurl error numbers, some missing from pycurl's constants: 1 UNSUPPORTED_PROTOCOL (only
# http and https URLs get this far, so it means an HTTP/0.9 or unknown-version reply),
# 8 WEIRD_SERVER_REPLY, 16 HTTP2, 18 PARTIAL_FILE (body shorter than its Content-Length),
# 52 GOT_NOTHING, 55 SEND_ERROR, 56 RECV_ERROR (reset mid-body, broken chunked framing),
# 61 BAD_CONTENT_ENCODING, 92 HTTP2_STREAM, 100 TOO_LARGE (a header line over libcurl's own
# limit); the TLS family from 35 SSL_CONNECT_ERROR to 101 ECH_REQUIRED.
_CURL_ERRORS: dict[int, tuple[FetchError, str]] = {
    **dict.fromkeys(
        (35, 53, 54, 58, 59, 64, 66, 77, 80, 82, 83, 90, 91, 98, 101),
        (FetchError.tls, "the TLS connection to the target failed"),
    ),
    **dict.fromkeys((18, 56), _BROKE_OFF),
    **dict.fromkeys((1, 8, 16, 61, 92), _MALFORMED),
    55: (FetchError.connect, "the connection to the target broke off"),
    100: (FetchError.invalid_response, "the target sent an oversized header"),
    pycurl.E_PEER_FAILED_VERIFICATION: (FetchError.tls, "the target's TLS certificate was refused"),
    pycurl.E_URL_MALFORMAT: (FetchError.invalid_url, "the URL is malformed"),
    pycurl.E_COULDNT_RESOLVE_HOST: (FetchError.dns, "the target host could not be resolved"),
    pycurl.E_COULDNT_CONNECT: (FetchError.connect, "could not connect to the target"),
    pycurl.E_OPERATION_TIMEDOUT: (FetchError.timeout, "the target did not answer in time"),
    pycurl.E_TOO_MANY_REDIRECTS: (FetchError.too_many_redirects, "too many redirects"),
    pycurl.E_GOT_NOTHING: (
        FetchError.invalid_response,
        "the target closed the connection unanswered",
    ),
}


@dataclass
class FetchResult:
    """The outcome of one fetch. ``error`` is None on success; the body is kept for HTTP errors.

    ``headers`` are the final response's headers, names lowercased, repeated headers joined with
    ", ". ``content_type`` is the lowercased media type without parameters ("" when absent).
    ``text`` is the decoded body for textual content (HTML, XML, JSON, text/*), else None.
    ``redirects`` lists every URL redirected to, in order; ``final_url`` is the last URL
    requested. ``message`` is short and safe to show to API clients.
    """

    url: str
    final_url: str
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = ""
    charset: str | None = None
    body: bytes = b""
    text: str | None = None
    redirects: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    error: FetchError | None = None
    message: str = ""

    @property
    def ok(self) -> bool:
        """Whether the fetch succeeded (a final response with a status below 400)."""
        return self.error is None

    @property
    def is_html(self) -> bool:
        """Whether the body is HTML: by content type unless the body is plainly binary, or
        sniffed when the type is missing."""
        if self.content_type in HTML_TYPES:
            declared = declared_charset(self.headers.get("content-type", ""))
            return not looks_binary(self.body, declared)
        return self.content_type in SNIFFED_TYPES and looks_like_html(self.body)


def _fail(result: FetchResult, error: FetchError, message: str) -> FetchResult:
    result.error = error
    result.message = message
    return result


class _Hop:
    """One request's state, shared with curl's callbacks: the pinned addresses, the headers and
    the body, and which limit (if any) ended the transfer.

    ``settings`` supplies the limits other than ``max_body`` (defaults when None).
    """

    def __init__(
        self,
        target: Target,
        max_body: int,
        proxy: ProxyRoute | None = None,
        proxy_addresses: Sequence[str] = (),
        *,
        settings: FetchSettings | None = None,
    ) -> None:
        self.target = target
        self.proxy = proxy
        self.proxy_addresses = list(proxy_addresses)
        # Through a proxy, curl connects to the proxy only; the operator configured it.
        addresses = [*target.addresses, *proxy_addresses]
        self.allowed = frozenset(ipaddress.ip_address(address) for address in addresses)
        self.max_body = max_body
        limits = settings or FetchSettings()
        self.max_ratio = limits.max_decompression_ratio
        self.max_header_bytes = limits.max_header_bytes
        self.low_speed = (limits.low_speed_limit, limits.low_speed_time)
        self.headers = HTTPHeaders()
        self.header_bytes = 0
        self.chunks: list[bytes] = []
        self.size = 0
        self.received = 0  # body bytes as they came off the wire, before decompression
        self.sent = False  # the request reached the target, so the connection was up
        self.too_large = False
        self.bomb = False
        self.headers_too_large = False
        self.refused: str | None = None
        self._sockets: list[socket.socket] = []

    def prepare(self, curl: pycurl.Curl) -> None:
        """Tornado's prepare_curl_callback. Tornado resets and reuses curl handles, so every
        request sets its own callbacks and pins here."""
        curl.setopt(pycurl.WRITEFUNCTION, self.write)
        # Parsed here rather than by Tornado so that oversized headers can stop the transfer;
        # pycurl cannot read back Tornado's callback to wrap it.
        curl.setopt(pycurl.HEADERFUNCTION, self.header)
        # The debug feed is the one place libcurl reports body bytes before decoding them, each
        # read as it happens; the progress callback's dlnow counts the same bytes but only
        # between batches of reads, after a small bomb has already expanded to many megabytes.
        curl.setopt(pycurl.VERBOSE, 1)
        curl.setopt(pycurl.DEBUGFUNCTION, self.debug)
        curl.setopt(pycurl.LOW_SPEED_LIMIT, self.low_speed[0])
        curl.setopt(pycurl.LOW_SPEED_TIME, self.low_speed[1] if self.low_speed[0] else 0)
        curl.setopt(pycurl.OPENSOCKETFUNCTION, self.open_socket)
        pins = pin_entries(self.target)
        if self.proxy is not None and self.proxy_addresses:
            pins += _pin(self.proxy.host, self.proxy.port, self.proxy_addresses)
        curl.setopt(pycurl.RESOLVE, pins)
        curl.setopt(pycurl.MAXFILESIZE_LARGE, self.max_body)
        curl.setopt(pycurl.ENCODING, "")  # every encoding libcurl decodes (gzip, deflate, br...)
        # A configured proxy tier, or none at all: a proxy from the environment would dodge the pin.
        curl.setopt(pycurl.PROXY, self.proxy.url if self.proxy else "")

    def write(self, chunk: bytes) -> int | None:
        """Collect the decoded body; answering 0 makes curl abort with a write error."""
        size = self.size + len(chunk)
        if size > self.max_body:
            self.too_large = True
            return 0
        if size > _RATIO_FLOOR and size > self.max_ratio * self.received:
            self.bomb = True
            return 0
        self.chunks.append(chunk)
        self.size = size
        return None

    def header(self, line: bytes) -> int | None:
        """Collect one header line as Tornado would; answering 0 aborts oversized headers."""
        self.header_bytes += len(line)
        if self.header_bytes > self.max_header_bytes:
            self.headers_too_large = True
            return 0
        text = line.decode("latin-1").rstrip()
        if text.startswith("HTTP/"):
            # A new status line: an interim (1xx) or proxy CONNECT response came before.
            self.headers.clear()
        elif text:
            # Browsers skip header lines they cannot parse, and so does the fetch.
            with contextlib.suppress(HTTPInputError):
                self.headers.parse_line(text)
        return None

    def debug(self, kind: int, data: bytes) -> None:
        """libcurl's debug feed: count body bytes as received and note the request going out
        (a proxy's CONNECT is still part of connecting)."""
        if kind == pycurl.INFOTYPE_DATA_IN:
            self.received += len(data)
        elif kind == pycurl.INFOTYPE_HEADER_OUT and not data.startswith(b"CONNECT "):
            self.sent = True

    def open_socket(self, purpose: int, address: Any) -> socket.socket | int:
        """Open the socket only for an address the policy checked for this hop."""
        family, socktype, protocol, sockaddr = address
        try:
            peer = ipaddress.ip_address(sockaddr[0])
        except (ValueError, TypeError, IndexError):
            peer = None
        if family not in (socket.AF_INET, socket.AF_INET6) or peer not in self.allowed:
            self.refused = str(peer)
            log.warning(
                "refused a connection to %s:%s: %s was not among its checked addresses",
                self.target.host,
                self.target.port,
                peer,
            )
            return pycurl.SOCKET_BAD
        sock = socket.socket(family, socktype, protocol)
        # pycurl hands curl a duplicate of the descriptor; this one is closed after the request.
        self._sockets.append(sock)
        return sock

    def body(self) -> bytes:
        return b"".join(self.chunks)

    def close(self) -> None:
        for sock in self._sockets:
            sock.close()
        self._sockets.clear()


def pin_entries(target: Target) -> list[str]:
    """curl RESOLVE entries sending ``target.host`` to its checked addresses only.

    The ``+`` marks the entries as expiring with curl's DNS cache, which the handles of one
    client share; address literals need no entry.
    """
    if target.is_ip_literal:
        return []
    return _pin(target.host, target.port, target.addresses)


def _pin(host: str, port: int, addresses: Sequence[str]) -> list[str]:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        joined = ",".join(f"[{a}]" if ":" in a else a for a in addresses)
        return [f"+{host}:{port}:{joined}"]
    return []


class Fetcher:
    """Fetches target pages with Tornado's curl client; create it on the running IOLoop.

    ``resolver`` replaces the system resolver (tests map names to addresses with it).
    """

    def __init__(self, settings: FetchSettings, resolver: Resolver | None = None) -> None:
        self.settings = settings
        self.policy = AddressPolicy(settings.allow_hosts)
        self.resolver = resolver or system_resolver(settings.connect_timeout)
        self._client = CurlAsyncHTTPClient(force_instance=True, max_clients=settings.max_concurrent)
        # Waiting here rather than in the client's queue keeps queued fetches inside their deadline.
        self._slots = asyncio.Semaphore(settings.max_concurrent)
        cafile = ssl.get_default_verify_paths().cafile
        self._ca_certs = cafile if cafile and os.path.exists(cafile) else None

    def close(self) -> None:
        """Close the HTTP client; fetches still running fail."""
        self._client.close()

    async def fetch(
        self,
        url: str,
        *,
        accept_lang: str | None = None,
        headers: Mapping[str, str] | None = None,
        proxy: ProxyRoute | None = None,
        deadline: float | None = None,
    ) -> FetchResult:
        """Fetch ``url`` with a GET, following up to ``max_redirects`` redirects.

        ``headers`` are added to (and override) the defaults. ``proxy`` sends every hop through
        that proxy (the target is still checked here; the proxy resolves it again). ``deadline``
        (a ``time.monotonic()`` value) can shorten ``total_timeout``. Raises ValueError for
        header names or values with line breaks; every upstream failure is in the result.
        """
        started = time.monotonic()
        request_headers = self._headers(accept_lang, headers)
        limit = started + self.settings.total_timeout
        if deadline is not None:
            limit = min(limit, deadline)
        result = await self._follow(url, request_headers, limit, proxy)
        result.elapsed = time.monotonic() - started
        outcome = result.error.value if result.error else "ok"
        FETCHES.labels(outcome).inc()
        FETCH_DURATION.observe(result.elapsed)
        if result.error is None:
            log.debug("fetched %s: %s in %.3fs", result.final_url, result.status, result.elapsed)
        else:
            log.info(
                "fetch of %s failed: %s (%s) after %.3fs",
                result.final_url,
                outcome,
                result.message,
                result.elapsed,
            )
        return result

    def _headers(self, accept_lang: str | None, extra: Mapping[str, str] | None) -> HTTPHeaders:
        headers = HTTPHeaders(
            {"Accept": _ACCEPT, "Accept-Language": accept_lang or _DEFAULT_ACCEPT_LANGUAGE}
        )
        for name, value in (extra or {}).items():
            headers[name] = value
        for name, value in headers.get_all():
            if any(char in name + value for char in "\r\n\0"):
                raise ValueError(f"header {name!r} contains a line break or NUL")
        return headers

    async def _follow(
        self, url: str, headers: HTTPHeaders, deadline: float, proxy: ProxyRoute | None
    ) -> FetchResult:
        result = FetchResult(url=url, final_url=url)
        current = url
        while True:
            result.final_url = current
            if time.monotonic() >= deadline:
                return _fail(result, FetchError.timeout, "the target did not answer in time")
            try:
                async with asyncio.timeout(deadline - time.monotonic()):
                    target = await self.policy.check(current, self.resolver)
                    proxy_addresses = await self._proxy_addresses(proxy)
            except URLRefusedError as exc:
                return _fail(result, FetchError(exc.kind.value), exc.message)
            except ResolutionError as exc:
                where = "proxy" if exc.args and exc.args[0] == "proxy" else "target host"
                return _fail(result, FetchError.dns, f"the {where} could not be resolved")
            except TimeoutError:
                return _fail(result, FetchError.timeout, "the target did not answer in time")
            result.final_url = target.url
            hop = _Hop(
                target,
                self.settings.max_body_bytes,
                proxy,
                proxy_addresses,
                settings=self.settings,
            )
            await self._request(hop, headers, deadline, result)
            location = result.headers.get("location")
            if result.error or result.status not in REDIRECT_STATUSES or not location:
                return result
            if len(result.redirects) >= self.settings.max_redirects:
                return _fail(
                    result,
                    FetchError.too_many_redirects,
                    f"more than {self.settings.max_redirects} redirects",
                )
            current = urljoin(target.url, _location(location))
            result.redirects.append(current)
            # The result describes the last hop only.
            result.status, result.headers, result.body = None, {}, b""
            result.content_type, result.charset, result.text = "", None, None

    async def _proxy_addresses(self, proxy: ProxyRoute | None) -> list[str]:
        """The proxy's addresses, so the socket guard lets curl reach it."""
        if proxy is None:
            return []
        try:
            return [str(ipaddress.ip_address(proxy.host))]
        except ValueError:
            pass
        try:
            addresses = await self.resolver(proxy.host, proxy.port)
        except (OSError, ResolutionError) as exc:
            raise ResolutionError("proxy") from exc
        if not addresses:
            raise ResolutionError("proxy")
        return addresses

    async def _request(
        self, hop: _Hop, headers: HTTPHeaders, deadline: float, result: FetchResult
    ) -> None:
        """One hop: fill ``result`` with the response or the failure."""
        target = hop.target
        try:
            async with asyncio.timeout(deadline - time.monotonic()):
                await self._slots.acquire()
        except TimeoutError:
            _fail(result, FetchError.timeout, "the target did not answer in time")
            return
        try:
            remaining = max(deadline - time.monotonic(), 0.001)
            hop_deadline = time.monotonic() + remaining
            request = HTTPRequest(
                target.url,
                headers=headers,
                follow_redirects=False,
                connect_timeout=min(self.settings.connect_timeout, remaining),
                request_timeout=remaining,
                user_agent=self.settings.user_agent,
                validate_cert=True,
                ca_certs=self._ca_certs,
                prepare_curl_callback=hop.prepare,
            )
            # raise_error=False answers HTTP error statuses; transport failures still raise.
            response = await self._client.fetch(request, raise_error=False)
        except CurlError as exc:
            # With time to spare, a timeout after the request went out was the low-speed check.
            stalled = hop.sent and time.monotonic() < hop_deadline - 0.1
            _fail(result, *self._curl_failure(exc.errno, hop, stalled=stalled))
            return
        finally:
            self._slots.release()
            hop.close()
        result.status = response.code
        result.headers = {
            name.lower(): ", ".join(hop.headers.get_list(name)) for name in hop.headers
        }
        result.body = hop.body()
        content_type = result.headers.get("content-type", "")
        result.content_type = content_type.partition(";")[0].strip().lower()
        declared = declared_charset(content_type)
        if result.body and is_textual(result.content_type, result.body, declared):
            loop = asyncio.get_running_loop()
            result.text, result.charset = await loop.run_in_executor(
                None, decode_text, result.body, declared
            )
        if response.code in BLOCKED_STATUSES:
            _fail(result, FetchError.blocked, f"the target refused the request ({response.code})")
        elif response.code >= 400:
            _fail(result, FetchError.http_status, f"the target answered {response.code}")

    def _curl_failure(
        self, errno: int, hop: _Hop, *, stalled: bool = False
    ) -> tuple[FetchError, str]:
        if hop.refused is not None and errno == pycurl.E_COULDNT_CONNECT:
            return (
                FetchError.address_not_allowed,
                f"{hop.target.host} led to an address that was not checked; refused",
            )
        if errno == pycurl.E_FILESIZE_EXCEEDED or (hop.too_large and errno == pycurl.E_WRITE_ERROR):
            return (
                FetchError.too_large,
                f"the target's response is larger than {self.settings.max_body_bytes} bytes",
            )
        if hop.bomb and errno == pycurl.E_WRITE_ERROR:
            return (
                FetchError.too_large,
                "the target's response expands too much when decompressed: the compression "
                f"ratio was too high (over {self.settings.max_decompression_ratio}:1)",
            )
        if hop.headers_too_large and errno == pycurl.E_WRITE_ERROR:
            return (
                FetchError.invalid_response,
                "the target's response headers are larger than "
                f"{self.settings.max_header_bytes} bytes",
            )
        if stalled and errno == pycurl.E_OPERATION_TIMEDOUT:
            return (
                FetchError.timeout,
                f"the target sent data too slowly (under {self.settings.low_speed_limit} "
                f"bytes/s for {self.settings.low_speed_time} s)",
            )
        return _CURL_ERRORS.get(errno, (FetchError.connect, "the request to the target failed"))


def _location(value: str) -> str:
    """A Location header as text: Tornado reads headers as Latin-1, servers mostly send UTF-8."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return value
