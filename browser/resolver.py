"""Name resolution for the address policy: the system resolver, bounded, and a fixed table."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""Resolves ``(host, port)`` to IP address strings. Raises :class:`ResolutionError` (or
:class:`OSError`) or returns an empty list when the name does not resolve."""


class ResolutionError(Exception):
    """The host name did not resolve (no such name, no addresses, or the resolver timed out)."""


# Lookups run in threads of their own, so a slow DNS server delays only other lookups, never
# the store or decoding; past this many lookups waiting, a new one fails at once.
_RESOLVER_THREADS = 8
_RESOLVER_BACKLOG = 64


def system_resolver(timeout: float = 5.0) -> Resolver:
    """The default resolver: the system's ``getaddrinfo`` in a small thread pool of its own, with
    a timeout and a bounded backlog."""
    executor = ThreadPoolExecutor(_RESOLVER_THREADS, thread_name_prefix="pagecast-dns")
    pending = 0

    def lookup(host: str, port: int) -> list[Any]:
        return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)

    async def resolve(host: str, port: int) -> list[str]:
        nonlocal pending
        if pending >= _RESOLVER_BACKLOG:
            raise ResolutionError(f"resolving {host}: too many lookups waiting")
        pending += 1
        future = asyncio.get_running_loop().run_in_executor(executor, lookup, host, port)
        # A lookup abandoned at the timeout (or by a cancelled request) still holds its thread;
        # count it until it ends, and take its outcome so a late failure is not reported as an
        # exception nobody retrieved.
        future.add_done_callback(_finished)
        try:
            async with asyncio.timeout(timeout):
                infos = await asyncio.shield(future)
        except TimeoutError as exc:
            raise ResolutionError(f"resolving {host} timed out") from exc
        except (OSError, UnicodeError) as exc:
            raise ResolutionError(f"{host} does not resolve") from exc
        return [str(info[4][0]) for info in infos if info[0] in (socket.AF_INET, socket.AF_INET6)]

    def _finished(future: asyncio.Future[Any]) -> None:
        nonlocal pending
        pending -= 1
        if not future.cancelled():
            future.exception()

    return resolve


def static_resolver(mapping: dict[str, list[str]]) -> Resolver:
    """A resolver answering from a fixed table (names missing from it do not resolve)."""

    async def resolve(host: str, port: int) -> list[str]:
        if host not in mapping:
            raise ResolutionError(f"{host} does not resolve")
        return list(mapping[host])

    return resolve
