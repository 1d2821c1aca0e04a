"""The gate that lets a warm page's reset wait for the navigations under way."""

from __future__ import annotations

import asyncio
import time

import pytest

from browser.farm.loading import LoadGate


@pytest.mark.gen_test(timeout=10)
async def test_quiet_waits_for_the_navigations_under_way_within_its_bound() -> None:
    gate = LoadGate()
    assert await gate.quiet(1.0)  # none under way: at once

    async def navigate(seconds: float) -> None:
        async with gate.navigation():
            await asyncio.sleep(seconds)

    first = asyncio.ensure_future(navigate(0.2))
    second = asyncio.ensure_future(navigate(0.3))
    await asyncio.sleep(0)
    assert gate.loading == 2
    started = time.monotonic()
    assert await gate.quiet(2.0)
    assert 0.25 <= time.monotonic() - started < 1.0  # until the last one ended
    await asyncio.gather(first, second)
    endless = asyncio.ensure_future(navigate(5.0))
    await asyncio.sleep(0)
    started = time.monotonic()
    assert not await gate.quiet(0.2)  # bounded
    assert time.monotonic() - started < 1.0
    endless.cancel()
    await asyncio.gather(endless, return_exceptions=True)
    assert gate.loading == 0 and await gate.quiet(0.1)
