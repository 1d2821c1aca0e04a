"""The conversion worker pool: busy answers, per-worker timeouts, and recovery from dead workers."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from services.pool import ConversionTimeoutError, ConverterPool, ConvertSettings, PoolBusyError
from tests.pool_jobs import allocate, niceness, pid, sleep_then, spin


@pytest.mark.gen_test(timeout=30)
async def test_a_worker_killed_while_idle_is_replaced() -> None:
    pool = ConverterPool(ConvertSettings(workers=1))
    try:
        first = await pool.run(pid)
        os.kill(first, signal.SIGKILL)
        await asyncio.sleep(0.2)
        second = await pool.run(pid)
        assert second != first
        assert await pool.run(sleep_then, 0, "ok") == "ok"
    finally:
        pool.close()


@pytest.mark.gen_test(timeout=30)
async def test_a_worker_cannot_take_more_memory_than_its_limit() -> None:
    pool = ConverterPool(ConvertSettings(workers=1, worker_memory_mb=768))
    try:
        assert await pool.run(allocate, 64) == 64
        with pytest.raises(MemoryError):
            await pool.run(allocate, 2048)
        assert await pool.run(allocate, 64) == 64  # the same worker goes on
    finally:
        pool.close()


@pytest.mark.gen_test(timeout=30)
async def test_no_free_worker_within_queue_timeout_is_busy() -> None:
    pool = ConverterPool(ConvertSettings(workers=1, queue_timeout=0.3))
    try:
        await pool.warm_up()
        slow = asyncio.ensure_future(pool.run(sleep_then, 1.5, "slow"))
        await asyncio.sleep(0.05)
        with pytest.raises(PoolBusyError):
            await pool.run(sleep_then, 0, "queued")
        assert await slow == "slow"
        assert await pool.run(sleep_then, 0, "after") == "after"
    finally:
        pool.close()


@pytest.mark.gen_test(timeout=30)
async def test_timeout_stops_only_its_own_worker() -> None:
    pool = ConverterPool(ConvertSettings(workers=2, timeout=30, wall_factor=1.5))
    try:
        await pool.warm_up()
        pool.settings.timeout = 1.0
        steady = asyncio.ensure_future(pool.run(sleep_then, 0.8, "steady"))
        started = time.monotonic()
        with pytest.raises(ConversionTimeoutError):
            await pool.run(sleep_then, 30, "stuck")
        assert time.monotonic() - started < 5
        assert await steady == "steady"  # the other worker's job was not disturbed
        pool.settings.timeout = 30
        assert await pool.run(sleep_then, 0, "again") == "again"
    finally:
        pool.close()


def test_close_kills_a_stuck_conversion_after_the_grace() -> None:
    async def scenario(pool: ConverterPool) -> asyncio.Future[str]:
        await pool.warm_up()
        return asyncio.ensure_future(pool.run(sleep_then, 60, "never"))

    loop = asyncio.new_event_loop()
    pool = ConverterPool(ConvertSettings(workers=1))
    try:
        stuck = loop.run_until_complete(scenario(pool))
        loop.run_until_complete(asyncio.sleep(0.2))
        started = time.monotonic()
        pool.close(grace=0.5)
        assert time.monotonic() - started < 5
        stuck.cancel()
        loop.run_until_complete(asyncio.gather(stuck, return_exceptions=True))
    finally:
        loop.close()


@pytest.mark.gen_test(timeout=30)
async def test_another_organization_is_not_queued_behind_one_with_many_large_pages() -> None:
    # Two workers; one organization sends six 1 s conversions. Another organization that
    # converted recently finds a worker held back for it: its conversion starts at once, not
    # after the first one's queue.
    pool = ConverterPool(ConvertSettings(workers=2, queue_timeout=20))
    try:
        await pool.warm_up()
        await pool.run(sleep_then, 0, "hello", owner="victim")
        hog = [asyncio.ensure_future(pool.run(sleep_then, 1.0, n, owner="hog")) for n in range(6)]
        await asyncio.sleep(0.1)
        started = time.monotonic()
        assert await pool.run(sleep_then, 0, "mine", owner="victim") == "mine"
        assert time.monotonic() - started < 0.5
        hogged = time.monotonic()
        assert await asyncio.gather(*hog) == list(range(6))
        assert time.monotonic() - hogged > 4.5  # one worker at a time while shared
    finally:
        pool.close()


@pytest.mark.gen_test(timeout=30)
async def test_one_organization_alone_uses_every_worker() -> None:
    pool = ConverterPool(ConvertSettings(workers=2))
    try:
        await pool.warm_up()
        started = time.monotonic()
        done = await asyncio.gather(*(pool.run(sleep_then, 1.0, n, owner="solo") for n in range(2)))
        assert done == [0, 1] and time.monotonic() - started < 1.8
    finally:
        pool.close()


@pytest.mark.gen_test(timeout=30)
async def test_large_work_runs_in_the_background_pool_at_its_lower_priority() -> None:
    settings = ConvertSettings(workers=1, background_bytes=1_000)
    pool = ConverterPool(settings)
    lower = ConverterPool(settings, workers=1, niceness=10)
    pool.background = lower
    try:
        own = await pool.run(niceness)
        assert await pool.run(niceness, "x" * 999, size=999) == own
        assert await pool.run(niceness, "x" * 1_000, size=1_000) == min(own + 10, 19)
        settings.background_bytes = 0  # none there
        assert await pool.run(niceness, "x" * 5_000, size=5_000) == own
    finally:
        pool.close()
        lower.close()


@pytest.mark.gen_test(timeout=30)
async def test_a_background_pool_gives_its_conversions_longer() -> None:
    settings = ConvertSettings(workers=1, timeout=30, wall_factor=1.0)  # the clock alone
    pool = ConverterPool(settings)
    lower = ConverterPool(settings, workers=1, niceness=10, time_factor=3.0)
    try:
        await pool.run(sleep_then, 0, "warm")  # process start-up, however busy the host
        await lower.run(sleep_then, 0, "warm")
        settings.timeout = 0.5
        assert await lower.run(sleep_then, 0.8, "done") == "done"
        with pytest.raises(ConversionTimeoutError) as stopped:
            await pool.run(sleep_then, 0.8, "late")
        assert stopped.value.seconds == 0.5
    finally:
        pool.close()
        lower.close()


@pytest.mark.gen_test(timeout=30)
async def test_workers_too_slow_to_start_are_logged_not_fatal(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pool = ConverterPool(ConvertSettings(workers=2, timeout=0.001))
    try:
        await pool.warm_up()  # a host too busy to start a process in a millisecond
        assert "conversion workers were not ready" in caplog.text
        pool.settings.timeout = 30
        assert await pool.run(sleep_then, 0, "later") == "later"
    finally:
        pool.close()


@pytest.mark.gen_test(timeout=30)
async def test_time_waiting_for_the_processor_does_not_count() -> None:
    # A worker that sleeps uses no CPU time, like one a busy host keeps waiting: it finishes
    # past its timeout by the clock, within wall_factor times it.
    pool = ConverterPool(ConvertSettings(workers=1, timeout=30, wall_factor=4.0))
    try:
        await pool.run(sleep_then, 0, "warm")
        pool.settings.timeout = 0.5
        assert await pool.run(sleep_then, 1.0, "done") == "done"
    finally:
        pool.close()


@pytest.mark.gen_test(timeout=30)
async def test_a_conversion_is_stopped_at_its_cpu_time_or_the_clocks_cap() -> None:
    pool = ConverterPool(ConvertSettings(workers=1, timeout=30, wall_factor=20.0))
    try:
        await pool.run(sleep_then, 0, "warm")
        pool.settings.timeout = 0.5
        with pytest.raises(ConversionTimeoutError):
            await pool.run(spin, 60, "never")  # its own CPU time runs out, long before the cap
        pool.settings.timeout, pool.settings.wall_factor = 0.3, 2.0
        started = time.monotonic()
        with pytest.raises(ConversionTimeoutError):
            await pool.run(sleep_then, 60, "never")  # no CPU time used: the clock's cap
        assert 0.5 <= time.monotonic() - started < 10
        pool.settings.timeout = 30
        assert await pool.run(spin, 0.1, "again") == "again"
    finally:
        pool.close()
