"""Which captures of one organization on one browser are loading their page now, so that
background work that can wait (a warm page's reset) does not take the two cores from the
organization's next navigation. An organization's resets wait for its own navigations only:
another's page may wait seconds for a slow server."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


class LoadGate:
    """Counts the navigations under way; :meth:`quiet` waits, within a bound, for none."""

    def __init__(self) -> None:
        self._loading = 0
        self._quiet = asyncio.Event()
        self._quiet.set()

    @property
    def loading(self) -> int:
        return self._loading

    @contextlib.asynccontextmanager
    async def navigation(self) -> AsyncIterator[None]:
        """Hold the gate while a page navigates."""
        self._loading += 1
        self._quiet.clear()
        try:
            yield
        finally:
            self._loading -= 1
            if self._loading == 0:
                self._quiet.set()

    async def quiet(self, limit: float) -> bool:
        """Wait until no page is navigating, at most ``limit`` seconds; whether none is."""
        if self._loading == 0:
            return True
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(limit):
                await self._quiet.wait()
        return self._loading == 0
