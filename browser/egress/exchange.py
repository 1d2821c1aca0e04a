"""One plain-HTTP exchange through the egress guard, under the fetcher's limits.

The guard relays a browser's plain ``http://`` request to its origin, then the origin's single
response back, and closes: a client connection never carries a second request, so every request
passes the SSRF check. While relaying it reads the response the way the fetcher would and refuses
what the fetcher refuses:

- a response head larger than the head limit (answered 502 before anything reaches the browser);
- stacked content codings (``Content-Encoding: gzip, gzip``): one coding at most, and only one
  the guard can measure (gzip or deflate: the browser is offered nothing else);
- a body that announces, or turns out to be, larger than the response limit once decoded;
- a redirect to a scheme other than http and https (gopher:, file:, ...);
- a body whose decoded size outgrows its received size by more than the decompression ratio
  (a decompression bomb): gzip and deflate are decoded on the fly, only to be counted.

Every byte from the origin (heads, chunk framing and trailers too) counts against the caller's
budget, and the guard's own verdict headers are stripped from what the origin says. A limit
crossed before the head was relayed is answered ``502``; one crossed mid-body aborts both
connections (a reset), so the browser sees a failed load rather than a silently cut page.
HTTPS passes the guard as an opaque tunnel: there only the byte count per tunnel is enforced
(:attr:`EgressLimits.max_tunnel_bytes`), and the browser farm watches the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import zlib
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from browser.egress.body import CHUNK, Wire, content_length, relay_body, relay_rechunked
from browser.egress.limits import (
    EGRESS_HEADER,
    EGRESS_REASON_HEADER,
    MAX_INTERIM,
    MEASURED_CODINGS,
    RATIO_FLOOR,
    EgressLimits,
    LimitExceededError,
)

__all__ = ["ResponseHead", "check_head", "read_head", "relay_response"]

SCHEME_SHOWN: Final = 20
"""Characters of a refused redirect's scheme named in the error."""
_NO_BODY_STATUSES: Final = frozenset({204, 304})
# Response headers that describe the guard's connection, not the resource (or claim to be the
# guard's own): replaced or dropped.
_DROPPED: Final = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "proxy-authenticate",
        "trailer",
        "upgrade",
        EGRESS_HEADER.lower(),
        EGRESS_REASON_HEADER.lower(),
    }
)
_STATUS = re.compile(r"[1-5][0-9][0-9]")


@dataclass(frozen=True)
class ResponseHead:
    """A parsed response head."""

    version: str
    status: int
    reason: str
    headers: list[tuple[str, str]]
    size: int = field(default=0, compare=False)
    """Bytes the head took on the wire."""

    def get(self, name: str) -> str:
        """All values of header ``name``, joined with commas ("" when absent)."""
        return ", ".join(value for key, value in self.headers if key.lower() == name)

    def codings(self) -> list[str]:
        """The content codings applied to the body, in order, ``identity`` left out."""
        return [
            token.strip().lower()
            for token in self.get("content-encoding").split(",")
            if token.strip() and token.strip().lower() != "identity"
        ]

    def close_delimited(self) -> bool:
        """Whether the body ends only when the connection closes (no length, not chunked)."""
        chunked = "chunked" in self.get("transfer-encoding").lower()
        return not chunked and not self.get("content-length").strip()

    def rechunked(self) -> ResponseHead:
        """This head for a body the guard re-frames as chunked: a body cut short then fails in
        the browser (incomplete chunked encoding) instead of passing for a complete page."""
        headers = [(k, v) for k, v in self.headers if k.lower() != "transfer-encoding"]
        headers.append(("Transfer-Encoding", "chunked"))
        return ResponseHead("HTTP/1.1", self.status, self.reason, headers)

    def encode(self) -> bytes:
        """The head for the browser: hop-by-hop headers dropped, ``Connection: close`` added."""
        lines = [f"{self.version} {self.status} {self.reason}".rstrip()]
        lines += [f"{k}: {v}" for k, v in self.headers if k.lower() not in _DROPPED]
        if self.status == 101:
            lines += ["Connection: Upgrade", f"Upgrade: {self.get('upgrade')}"]
        else:
            lines.append("Connection: close")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def read_head(reader: asyncio.StreamReader, limits: EgressLimits) -> ResponseHead | None:
    """The next response head from the origin; None when it closed without one."""
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        raise LimitExceededError(
            f"the target's response headers are over {limits.max_head_bytes} bytes"
        ) from None
    except asyncio.IncompleteReadError:
        return None
    if len(raw) > limits.max_head_bytes:
        raise LimitExceededError(
            f"the target's response headers are over {limits.max_head_bytes} bytes"
        )
    lines = raw[:-4].decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not _STATUS.fullmatch(parts[1]):
        raise LimitExceededError("the target sent a malformed response")
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise LimitExceededError("the target sent a malformed response header")
        headers.append((name, value.strip(" \t")))
    reason = parts[2] if len(parts) > 2 else ""
    return ResponseHead(parts[0], int(parts[1]), reason, headers, len(raw))


class _Meter:
    """Counts a body's received and decoded bytes and stops it at the limits."""

    def __init__(self, limits: EgressLimits, coding: str | None) -> None:
        self.limits = limits
        self.received = 0
        self.decoded = 0
        self._decoder: zlib._Decompress | None = None
        self._raw_fallback = False
        if coding in ("gzip", "x-gzip"):
            self._decoder = zlib.decompressobj(zlib.MAX_WBITS | 32)
        elif coding == "deflate":
            self._decoder = zlib.decompressobj()
            self._raw_fallback = True  # "deflate" is often sent raw, without the zlib wrapper
        self._coded = coding is not None

    def feed(self, data: bytes) -> None:
        self.received += len(data)
        if self._decoder is None:
            # Identity, or a coding the guard cannot decode: the bytes received are all it knows.
            self._count(len(data))
            return
        try:
            self._inflate(data)
        except zlib.error:
            if self._raw_fallback and self.decoded == 0:
                self._decoder = zlib.decompressobj(-zlib.MAX_WBITS)
                self._raw_fallback = False
                self.feed_again(data)
                return
            self._decoder = None  # not what it claims: the browser will fail to decode it

    def feed_again(self, data: bytes) -> None:
        with contextlib.suppress(zlib.error):
            self._inflate(data)

    def _inflate(self, data: bytes) -> None:
        decoder = self._decoder
        assert decoder is not None
        pending = data
        while pending and not decoder.eof:
            # Bounded output per step: a bomb is counted, never held.
            out = decoder.decompress(pending, CHUNK)
            pending = decoder.unconsumed_tail
            self._count(len(out))
            if not out:
                break

    def _count(self, size: int) -> None:
        self.decoded += size
        limits = self.limits
        if self.decoded > limits.max_response_bytes:
            raise LimitExceededError(
                f"the target's response is larger than {limits.max_response_bytes} bytes",
                started=True,
            )
        if (
            self._coded
            and self.decoded > RATIO_FLOOR
            and self.decoded > limits.max_ratio * self.received
        ):
            raise LimitExceededError(
                f"the target's response expands more than {limits.max_ratio}:1 when decoded",
                started=True,
            )


def check_head(head: ResponseHead, limits: EgressLimits) -> None:
    """Refuse, before relaying anything, a response the limits already rule out."""
    codings = head.codings()
    if len(codings) > 1:
        raise LimitExceededError(
            f"the target stacked content encodings ({', '.join(codings)[:100]}); one is allowed"
        )
    if codings and codings[0] not in MEASURED_CODINGS:
        raise LimitExceededError(
            f"the target used a content encoding it was not offered ({codings[0][:40]})"
        )
    if 300 <= head.status < 400:
        location = head.get("location").strip()
        scheme = urlsplit(location).scheme.lower() if location else ""
        if scheme and scheme not in ("http", "https"):
            raise LimitExceededError(
                f"the target redirected to a {scheme[:SCHEME_SHOWN]}: address; only http and "
                "https are "
                "followed"
            )
    length = content_length(head.headers)
    if length is None and head.get("content-length").strip():
        raise LimitExceededError("the target sent a malformed Content-Length")
    if length is not None and not codings and length > limits.max_response_bytes:
        raise LimitExceededError(
            f"the target's response is larger than {limits.max_response_bytes} bytes"
        )


async def relay_response(
    origin: asyncio.StreamReader,
    client: asyncio.StreamWriter,
    limits: EgressLimits,
    method: str,
    wire: Wire | None = None,
) -> ResponseHead | None:
    """Relay the origin's response (interim 1xx answers first) to the browser; returns the final
    head (status 101: the caller relays the upgraded connection), None if the origin sent none.

    Raises :class:`LimitExceededError`; ``started`` tells whether bytes already reached the client.
    ``wire(size)`` counts every byte read from the origin, heads and framing included (the
    caller's idle clock and byte budget; it may raise :class:`LimitExceededError`).
    """
    # Framing counts too (chunk extensions, trailers): at most twice the body limit on the wire.
    wire_limit = 2 * limits.max_response_bytes + limits.max_head_bytes
    received = [0]

    def count(size: int) -> None:
        received[0] += size
        if received[0] > wire_limit:
            raise LimitExceededError(
                f"the target's response is larger than {limits.max_response_bytes} bytes",
                started=True,
            )
        if wire is not None:
            wire(size)

    interim = 0
    while True:
        head = await read_head(origin, limits)
        if head is None:
            return None
        count(head.size)
        check_head(head, limits)
        if not 100 <= head.status < 200 or head.status == 101:
            break
        interim += 1
        if interim > MAX_INTERIM:
            raise LimitExceededError("the target sent too many interim answers", started=True)
        client.write(head.encode())
        await client.drain()
    if head.status == 101 or method.upper() == "HEAD" or head.status in _NO_BODY_STATUSES:
        client.write(head.encode())
        await client.drain()
        return head
    rechunk = head.close_delimited()
    client.write((head.rechunked() if rechunk else head).encode())
    codings = head.codings()
    meter = _Meter(limits, codings[0] if codings else None)
    try:
        if rechunk:
            await relay_rechunked(origin, client, meter.feed, count)
        else:
            await relay_body(origin, client, head.headers, meter.feed, count)
    except LimitExceededError as exc:
        exc.started = True
        raise
    return head
