"""The browser's side of the egress guard: reading and checking a request head, rewriting it for
the origin, and the guard's own short answers (marked with ``X-Pagecast-Egress`` so the farm can
tell them from a target's)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from browser.egress.limits import ACCEPT_ENCODING, EGRESS_HEADER, EGRESS_REASON_HEADER
from browser.ssrf import Target

MAX_HEAD_BYTES: Final = 64 * 1024
"""The largest request head (request line and headers) the guard reads; larger ones get 431."""

CHUNK = 64 * 1024
_LINGER_SECONDS = 1.0
_CLOSE_GRACE_SECONDS = 1.0

# Hop-by-hop headers (RFC 9110 7.6.1) that never travel past the guard. Transfer-Encoding stays:
# the body is relayed byte for byte, so its framing must reach the origin unchanged.
_HOP_BY_HOP = frozenset({"connection", "keep-alive", "te", "trailer", "upgrade"})
# Never dropped on a client's say-so in Connection: they frame the request or name the origin.
_END_TO_END = frozenset({"content-length", "transfer-encoding", "host"})
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
AUTHORITY = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[^\s/?#@\[\]\\:]+):([0-9]{1,5})$")
_REASONS = {
    400: "Bad Request",
    403: "Forbidden",
    431: "Request Header Fields Too Large",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


class ReplyError(Exception):
    """Ends a client connection with a short text answer instead of relaying it."""

    def __init__(self, status: int, message: str, outcome: str = "failed") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.outcome = outcome


@dataclass(frozen=True)
class RequestHead:
    method: str
    target: str
    version: str
    headers: list[tuple[str, str]]


Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


# -- the request head ---------------------------------------------------------------------------


async def read_head(reader: asyncio.StreamReader) -> bytes | None:
    """The request head up to and including the blank line; None when the client went away.

    Callers bound the wait with ``asyncio.timeout``.
    """
    try:
        return await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        raise ReplyError(431, f"the request head is over {MAX_HEAD_BYTES} bytes") from None
    except (asyncio.IncompleteReadError, OSError):
        return None


def parse_head(raw: bytes) -> RequestHead:
    lines = raw[:-4].decode("latin-1").split("\r\n")
    if any("\r" in line or "\n" in line or "\0" in line for line in lines):
        raise ReplyError(400, "malformed request head")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not _TOKEN.match(parts[0]) or parts[2] not in ("HTTP/1.1", "HTTP/1.0"):
        raise ReplyError(400, "malformed request line")
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not _TOKEN.match(name):
            raise ReplyError(400, "malformed header line")
        headers.append((name, value.strip(" \t")))
    return RequestHead(parts[0], parts[1], parts[2], headers)


def check_url(request_target: str) -> str:
    """The URL to check for an absolute-form request target (ws is checked as http)."""
    scheme, sep, rest = request_target.partition("://")
    if not sep:
        raise ReplyError(400, "not a proxy request: the request target must be an absolute URL")
    scheme = scheme.lower()
    if scheme in ("http", "ws"):
        return "http://" + rest
    if scheme in ("https", "wss"):
        raise ReplyError(400, "send https and wss through CONNECT")
    raise ReplyError(403, "only http, https, ws and wss are allowed", "refused")


def _origin_form(request_target: str) -> str:
    rest = request_target.partition("://")[2].partition("#")[0]
    for index, char in enumerate(rest):
        if char in "/?":
            path = rest[index:]
            return path if char == "/" else "/" + path
    return "/"


def origin_head(request: RequestHead, target: Target) -> bytes:
    """The request head for the origin: origin-form, Host from the URL, hop-by-hop dropped."""
    tokens: set[str] = set()
    for name, value in request.headers:
        if name.lower() in ("connection", "proxy-connection"):
            tokens.update(token.strip().lower() for token in value.split(","))
    upgrade = next(
        (value for name, value in request.headers if name.lower() == "upgrade"), ""
    ).strip()
    websocket = "upgrade" in tokens and upgrade.lower() == "websocket"
    lines = [
        f"{request.method} {_origin_form(request.target)} {request.version}",
        f"Host: {urlsplit(target.url).netloc}",
    ]
    for name, value in request.headers:
        lower = name.lower()
        if (
            lower in _HOP_BY_HOP
            or lower.startswith("proxy-")
            or lower in ("host", "accept-encoding")
            or (lower in tokens and lower not in _END_TO_END)
        ):
            continue
        lines.append(f"{name}: {value}")
    # Only codings the guard can decode to count: the fetcher's limits hold for the browser too.
    lines.append(f"Accept-Encoding: {ACCEPT_ENCODING}")
    if websocket:
        lines += ["Connection: Upgrade", f"Upgrade: {upgrade}"]
    else:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


# -- answers and closing ------------------------------------------------------------------------


_VERDICTS = {403: "refused", 502: "unreachable"}
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


async def answer(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, reply: ReplyError
) -> None:
    body = f"Pagecast egress guard: {reply.message}\n".encode()
    verdict = "limited" if reply.outcome == "limited" else _VERDICTS.get(reply.status, "failed")
    shown = _CONTROL.sub(" ", reply.message)
    reason = f"{EGRESS_REASON_HEADER}: {shown}\r\n" if verdict == "limited" else ""
    head = (
        f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Error')}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        f"{EGRESS_HEADER}: {verdict}\r\n"
        + reason
        + f"Content-Length: {len(body)}\r\n"
        + ("Retry-After: 1\r\n" if reply.status == 503 else "")
        + "Connection: close\r\n\r\n"
    )
    writer.write(head.encode("latin-1") + body)
    # Half-close, then read and discard what the client still sends for a moment: closing with
    # unread bytes resets the connection, and the client could lose the answer.
    with contextlib.suppress(OSError, TimeoutError):
        async with asyncio.timeout(_LINGER_SECONDS):
            await writer.drain()
            if writer.can_write_eof():
                writer.write_eof()
            while await reader.read(CHUNK):
                continue  # discarded: only the reading matters


async def shut(writer: asyncio.StreamWriter) -> None:
    """Close a connection and wait until its socket is closed; abort if it will not flush."""
    writer.close()
    try:
        async with asyncio.timeout(_CLOSE_GRACE_SECONDS):
            await writer.wait_closed()
        return
    except OSError:
        return
    except TimeoutError:
        writer.transport.abort()
    with contextlib.suppress(OSError, TimeoutError):
        async with asyncio.timeout(_CLOSE_GRACE_SECONDS):
            await writer.wait_closed()
