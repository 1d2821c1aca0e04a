"""One plain-HTTP exchange through the egress guard, under the fetcher's limits.

The guard relays a browser's plain ``http://`` request to its origin, then the origin's single
response back, and closes: a client connection never carries a second request, so every request
passes the SSRF check. While relaying it reads the response the way the fetcher would and refuses
what the fetcher refuses:

- a response head larger than the head limit (answered 502 before anything reaches the browser);
- stacked content codings (``Content-Encoding: gzip, gzip``): one coding at most;
- a body that announces, or turns out to be, larger than the response limit once decoded;
- a redirect to a scheme other than http and https (gopher:, file:, ...);
- a body whose decoded size outgrows its received size by more than the decompression ratio
  (a decompression bomb): gzip and deflate are decoded on the fly, only to be counted.

A limit crossed before the head was relayed is answered ``502``; one crossed mid-body aborts both
connections (a reset), so the browser sees a failed load rather than a silently cut page.
HTTPS passes the guard as an opaque tunnel: there only the byte count per tunnel is enforced
(:attr:`EgressLimits.max_tunnel_bytes`), and the browser farm watches the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

__all__ = ["EgressLimits", "LimitExceededError", "ResponseHead", "relay_body", "relay_response"]

Feed = Callable[[bytes], None]
"""Sees each piece of a body's payload as it passes (it may raise to stop the relay)."""

_CHUNK: Final = 64 * 1024
RATIO_FLOOR: Final = 1024 * 1024
"""Decoded bytes below which the decompression ratio is not judged (small pages compress well)."""
MEASURED_CODINGS: Final = frozenset({"gzip", "x-gzip", "deflate"})
"""Content codings the guard decodes to count; the browser is only offered these over plain
HTTP (``Accept-Encoding`` is rewritten), so an origin rarely sends another."""
ACCEPT_ENCODING: Final = "gzip, deflate"
_NO_BODY_STATUSES: Final = frozenset({204, 304})
# Response headers that describe the guard's connection, not the resource: replaced or dropped.
_HOP_BY_HOP: Final = frozenset(
    {"connection", "keep-alive", "proxy-connection", "proxy-authenticate", "trailer", "upgrade"}
)


@dataclass(frozen=True)
class EgressLimits:
    """What one response, and one tunnel, may bring in through the guard."""

    max_response_bytes: int = 10 * 1024 * 1024
    """Largest body of one plain-HTTP response, counted after decoding."""
    max_ratio: int = 100
    """Largest ratio of decoded to received body bytes (judged past 1 MiB decoded)."""
    max_head_bytes: int = 64 * 1024
    """Largest response head (status line and headers)."""
    max_tunnel_bytes: int = 64 * 1024 * 1024
    """Most bytes from the origin through one CONNECT tunnel or upgraded connection."""


class LimitExceededError(Exception):
    """A response broke one of the :class:`EgressLimits`; ``message`` says which."""

    def __init__(self, message: str, *, started: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.started = started
        """Whether part of the response had already been relayed (then only a reset is left)."""


@dataclass(frozen=True)
class ResponseHead:
    """A parsed response head."""

    version: str
    status: int
    reason: str
    headers: list[tuple[str, str]]

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
        lines += [f"{k}: {v}" for k, v in self.headers if k.lower() not in _HOP_BY_HOP]
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
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise LimitExceededError("the target sent a malformed response")
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise LimitExceededError("the target sent a malformed response header")
        headers.append((name, value.strip(" \t")))
    return ResponseHead(parts[0], int(parts[1]), parts[2] if len(parts) > 2 else "", headers)


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
            out = decoder.decompress(pending, _CHUNK)
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
            f"the target stacked content encodings ({', '.join(codings)}); one is allowed"
        )
    if 300 <= head.status < 400:
        location = head.get("location").strip()
        scheme = urlsplit(location).scheme.lower() if location else ""
        if scheme and scheme not in ("http", "https"):
            raise LimitExceededError(
                f"the target redirected to a {scheme[:20]}: address; only http and https are "
                "followed"
            )
    length = head.get("content-length").split(",")[0].strip()
    if length.isdigit() and not codings and int(length) > limits.max_response_bytes:
        raise LimitExceededError(
            f"the target's response is larger than {limits.max_response_bytes} bytes"
        )


async def relay_response(
    origin: asyncio.StreamReader,
    client: asyncio.StreamWriter,
    limits: EgressLimits,
    method: str,
    progress: Callable[[int], None] | None = None,
) -> ResponseHead | None:
    """Relay the origin's response (interim 1xx answers first) to the browser; returns the final
    head (status 101: the caller relays the upgraded connection), None if the origin sent none.

    Raises :class:`LimitExceededError`; ``started`` tells whether bytes already reached the client.
    ``progress(size)`` is called whenever body bytes arrive (the caller's idle clock and byte
    budget; it may raise :class:`LimitExceededError`).
    """
    while True:
        head = await read_head(origin, limits)
        if head is None:
            return None
        check_head(head, limits)
        if not 100 <= head.status < 200 or head.status == 101:
            break
        client.write(head.encode())
    if head.status == 101 or method.upper() == "HEAD" or head.status in _NO_BODY_STATUSES:
        client.write(head.encode())
        await client.drain()
        return head
    rechunk = head.close_delimited()
    client.write((head.rechunked() if rechunk else head).encode())
    codings = head.codings()
    meter = _Meter(limits, codings[0] if codings else None)

    def feed(data: bytes) -> None:
        if progress is not None:
            progress(len(data))
        meter.feed(data)

    try:
        if rechunk:
            while data := await origin.read(_CHUNK):
                feed(data)
                client.write(b"%x\r\n%b\r\n" % (len(data), data))
                await client.drain()
            client.write(b"0\r\n\r\n")
            await client.drain()
        else:
            await relay_body(origin, client, head.headers, feed)
    except LimitExceededError as exc:
        exc.started = True
        raise
    return head


async def relay_body(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    headers: list[tuple[str, str]],
    feed: Feed | None = None,
    *,
    until_close: bool = True,
) -> None:
    """Relay one message body framed by ``headers`` (chunked, Content-Length, or up to the close
    when ``until_close``), byte for byte; ``feed`` sees the payload (chunk framing removed)."""
    encoding = ", ".join(v for k, v in headers if k.lower() == "transfer-encoding").lower()
    length = next((v for k, v in headers if k.lower() == "content-length"), "").split(",")[0]
    if "chunked" in encoding:
        await _relay_chunked(reader, writer, feed)
    elif length.strip().isdigit():
        await _relay_exactly(reader, writer, int(length.strip()), feed)
    elif until_close:
        while data := await reader.read(_CHUNK):
            if feed is not None:
                feed(data)
            writer.write(data)
            await writer.drain()


async def _relay_exactly(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, size: int, feed: Feed | None
) -> None:
    left = size
    while left > 0:
        data = await reader.read(min(left, _CHUNK))
        if not data:
            raise asyncio.IncompleteReadError(b"", left)
        left -= len(data)
        if feed is not None:
            feed(data)
        writer.write(data)
        await writer.drain()


async def _relay_chunked(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, feed: Feed | None
) -> None:
    while True:
        line = await reader.readuntil(b"\r\n")
        writer.write(line)
        size_text = line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise LimitExceededError("the target sent malformed chunked framing") from None
        if size == 0:
            # Trailer fields, then the blank line that ends the message.
            while (trailer := await reader.readuntil(b"\r\n")) != b"\r\n":
                writer.write(trailer)
            writer.write(b"\r\n")
            await writer.drain()
            return
        await _relay_exactly(reader, writer, size, feed)
        writer.write(await reader.readexactly(2))
