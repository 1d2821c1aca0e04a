"""One hop of a fetch, as curl sees it: the callbacks that pin the connection to checked
addresses, collect headers and body within their limits, and explain why a transfer stopped."""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import socket
from collections.abc import Sequence
from typing import Any

import pycurl
from tornado.httputil import HTTPHeaders, HTTPInputError

from browser.fetch.types import FetchError, FetchSettings
from browser.proxies import ProxyRoute
from browser.ssrf import Target

log = logging.getLogger(__name__)
SOCKET_BAD: int = pycurl.SOCKET_BAD
"""What an open-socket callback returns to refuse the connection."""

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


class Hop:
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
        limits = self.limits = settings or FetchSettings()
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
            return SOCKET_BAD
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

    def failure(self, errno: int, *, stalled: bool = False) -> tuple[FetchError, str]:
        """What a curl error means for this hop, given which limit (if any) stopped it."""
        hop = self
        if hop.refused is not None and errno == pycurl.E_COULDNT_CONNECT:
            return (
                FetchError.address_not_allowed,
                f"{hop.target.host} led to an address that was not checked; refused",
            )
        if errno == pycurl.E_FILESIZE_EXCEEDED or (hop.too_large and errno == pycurl.E_WRITE_ERROR):
            return (
                FetchError.too_large,
                f"the target's response is larger than {self.limits.max_body_bytes} bytes",
            )
        if hop.bomb and errno == pycurl.E_WRITE_ERROR:
            return (
                FetchError.too_large,
                "the target's response expands too much when decompressed: the compression "
                f"ratio was too high (over {self.limits.max_decompression_ratio}:1)",
            )
        if hop.headers_too_large and errno == pycurl.E_WRITE_ERROR:
            return (
                FetchError.invalid_response,
                "the target's response headers are larger than "
                f"{self.limits.max_header_bytes} bytes",
            )
        if stalled and errno == pycurl.E_OPERATION_TIMEDOUT:
            return (
                FetchError.timeout,
                f"the target sent data too slowly (under {self.limits.low_speed_limit} "
                f"bytes/s for {self.limits.low_speed_time} s)",
            )
        return _CURL_ERRORS.get(errno, (FetchError.connect, "the request to the target failed"))


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
