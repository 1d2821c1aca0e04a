"""The shared services handed to every handler through ``initialize``."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from browser.fetch import Fetcher
from browser.pages import PageFetcher
from convert.pool import ConverterPool
from handlers.config import Settings
from handlers.ratelimit import RateLimiter
from store.store import Store


@dataclass
class Services:
    """Built once by the server; handlers reach the outside world only through these."""

    settings: Settings
    store: Store
    fetcher: Fetcher
    pages: PageFetcher
    pool: ConverterPool
    limiter: RateLimiter
    in_flight: int = 0
    draining: bool = False
    _idle: asyncio.Event = field(default_factory=asyncio.Event)

    def request_started(self) -> None:
        self.in_flight += 1
        self._idle.clear()

    def request_finished(self) -> None:
        self.in_flight -= 1
        if self.in_flight == 0:
            self._idle.set()

    async def wait_idle(self, seconds: float) -> bool:
        """Wait until no request is in flight; False when ``seconds`` ran out first."""
        if self.in_flight == 0:
            return True
        try:
            await asyncio.wait_for(self._idle.wait(), seconds)
        except TimeoutError:
            return False
        return True
