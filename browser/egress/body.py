"""Relaying one HTTP/1.1 message body through the egress guard, byte for byte, by its framing
(chunked, Content-Length, or up to the close), with every byte counted.

Two callbacks watch a body as it passes: ``wire(size)`` sees every byte read from the sender,
framing included (chunk-size lines, extensions, trailers), so no part of a message escapes the
byte budgets; ``feed(data)`` sees the payload alone, for the decoded-size and ratio meter. Either
may raise to stop the relay. Each write is drained before the next read, so a slow reader holds
back the sender instead of growing a buffer in the guard.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Final

from browser.egress.limits import LimitExceededError

__all__ = ["Feed", "Wire", "content_length", "relay_body", "relay_rechunked"]

Feed = Callable[[bytes], None]
"""Sees each piece of a body's payload as it passes."""
Wire = Callable[[int], None]
"""Counts every byte read from the sender, framing included."""

CHUNK: Final = 64 * 1024
MAX_CHUNK_LINE: Final = 4096
"""Longest chunk-size line (size and extensions) accepted."""
MAX_TRAILER_BYTES: Final = 64 * 1024
"""Most bytes of trailer fields after the last chunk."""
_DECIMAL = re.compile(r"[0-9]{1,19}")
_HEX = re.compile(rb"[0-9A-Fa-f]{1,15}")


def content_length(headers: list[tuple[str, str]]) -> int | None:
    """The message's Content-Length, None when absent or not a plain decimal number."""
    value = next((v for k, v in headers if k.lower() == "content-length"), "")
    first = value.split(",")[0].strip()
    return int(first) if _DECIMAL.fullmatch(first) else None


def _noop(_size: int) -> None:
    return None


async def relay_body(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    headers: list[tuple[str, str]],
    feed: Feed | None = None,
    wire: Wire | None = None,
    *,
    until_close: bool = True,
) -> None:
    """Relay one message body framed by ``headers`` (chunked, Content-Length, or up to the close
    when ``until_close``)."""
    count = wire or _noop
    encoding = ", ".join(v for k, v in headers if k.lower() == "transfer-encoding").lower()
    length = content_length(headers)
    if "chunked" in encoding:
        await _relay_chunked(reader, writer, feed, count)
    elif length is not None:
        await _relay_exactly(reader, writer, length, feed, count)
    elif until_close:
        while data := await reader.read(CHUNK):
            count(len(data))
            if feed is not None:
                feed(data)
            writer.write(data)
            await writer.drain()


async def relay_rechunked(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, feed: Feed, wire: Wire
) -> None:
    """Relay a body that ends with the connection as chunked framing: cut short, it then fails in
    the browser (incomplete chunked encoding) instead of passing for a complete page."""
    while data := await reader.read(CHUNK):
        wire(len(data))
        feed(data)
        writer.write(b"%x\r\n%b\r\n" % (len(data), data))
        await writer.drain()
    writer.write(b"0\r\n\r\n")
    await writer.drain()


async def _relay_exactly(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    size: int,
    feed: Feed | None,
    wire: Wire,
) -> None:
    left = size
    while left > 0:
        data = await reader.read(min(left, CHUNK))
        if not data:
            raise asyncio.IncompleteReadError(b"", left)
        left -= len(data)
        wire(len(data))
        if feed is not None:
            feed(data)
        writer.write(data)
        await writer.drain()


async def _line(reader: asyncio.StreamReader, wire: Wire, limit: int) -> bytes:
    line = await reader.readuntil(b"\r\n")
    wire(len(line))
    if len(line) > limit:
        raise LimitExceededError("the target sent an over-long line in its chunked framing")
    return line


async def _relay_chunked(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, feed: Feed | None, wire: Wire
) -> None:
    while True:
        line = await _line(reader, wire, MAX_CHUNK_LINE)
        writer.write(line)
        size_text = line.split(b";", 1)[0].strip()
        if not _HEX.fullmatch(size_text):
            raise LimitExceededError("the target sent malformed chunked framing")
        size = int(size_text, 16)
        if size == 0:
            # Trailer fields, then the blank line that ends the message.
            trailers = 0
            while (trailer := await _line(reader, wire, MAX_TRAILER_BYTES)) != b"\r\n":
                trailers += len(trailer)
                if trailers > MAX_TRAILER_BYTES:
                    raise LimitExceededError("the target sent too many trailer fields")
                writer.write(trailer)
                await writer.drain()
            writer.write(b"\r\n")
            await writer.drain()
            return
        await _relay_exactly(reader, writer, size, feed, wire)
        end = await reader.readexactly(2)
        wire(2)
        writer.write(end)
        await writer.drain()
