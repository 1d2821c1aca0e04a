"""One key lookup at a time per client address: the line that an address's uncached keys join
once its unknown-key bucket is empty, so a flood of made-up keys costs the database one lookup at
a time while a valid key from the same address still gets its turn.

A line exists only while someone holds or waits for it, and at most ``max_addresses`` exist at
once; a wait is bounded by the caller's ``seconds``. Either limit reached is :class:`NoTurn`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

# Addresses that may have a line at once; each one is a request holding a turn or waiting.
MAX_ADDRESSES = 10_000


class NoTurn(Exception):  # noqa: N818 (a refusal, not a failure of Pagecast)
    """No turn in the address's line: the wait ran out, or too many addresses are waiting."""


@dataclass(slots=True)
class _Line:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class AddressGate:
    """Per-address single flight, first come first served."""

    def __init__(self, max_addresses: int = MAX_ADDRESSES) -> None:
        self.max_addresses = max_addresses
        self._lines: dict[str, _Line] = {}

    def __len__(self) -> int:
        """Addresses with someone holding or waiting for a turn."""
        return len(self._lines)

    def users(self, address: str) -> int:
        """Requests of ``address`` holding or waiting for its turn."""
        line = self._lines.get(address)
        return line.users if line is not None else 0

    @contextlib.asynccontextmanager
    async def turn(self, address: str, seconds: float) -> AsyncIterator[None]:
        """Hold ``address``'s one turn for the body of the ``async with``, after the requests
        that came first. :raises NoTurn: when it does not come within ``seconds``, or at once
        when ``max_addresses`` other addresses are in line."""
        line = self._lines.get(address)
        if line is None:
            if len(self._lines) >= self.max_addresses:
                raise NoTurn("too many client addresses are waiting for a key lookup")
            line = self._lines[address] = _Line()
        line.users += 1
        try:
            try:
                async with asyncio.timeout(seconds):
                    await line.lock.acquire()
            except TimeoutError as exc:
                raise NoTurn(f"no key lookup turn within {seconds:g} s") from exc
            try:
                yield
            finally:
                line.lock.release()
        finally:
            line.users -= 1
            if line.users == 0:
                del self._lines[address]
