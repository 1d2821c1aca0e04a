"""The farm's work beside the captures, against real Chromium: making contexts ahead of time,
closing and resetting pages after their captures answered, and ending that work at shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest

from browser.egress import guard as egress
from browser.egress.guard import EgressGuard
from browser.farm import CaptureOptions, Farm
from browser.farm import browser as farm_browser
from browser.farm.types import ContextKey
from browser.ssrf import AddressPolicy
from tests.browser.test_farm import (
    SiteState,
    eventually,
    farm_settings,
    start_site,
    stop_site,
)
from tests.origin import Origin

pytestmark = pytest.mark.chromium

LANE_BYTES = 64 * 2**20


@pytest.fixture
def site(io_loop: Any) -> Iterator[tuple[Origin, SiteState]]:
    origin, state = io_loop.run_sync(start_site)
    yield origin, state
    io_loop.run_sync(lambda: stop_site(origin, state))


@pytest.mark.gen_test(timeout=60)
async def test_a_new_context_is_made_within_one_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its egress lane, the context and its init script share CONTEXT_TIMEOUT: a lane slow to
    open leaves the browser only what is left of it."""
    monkeypatch.setattr(farm_browser, "CONTEXT_TIMEOUT", 2.0)
    guard = EgressGuard(AddressPolicy(["127.0.0.1"]))
    await guard.start()
    stopped: list[int] = []

    async def slow_lane() -> egress.Lane:
        await asyncio.sleep(1.2)
        os.kill(stopped[0], signal.SIGSTOP)  # and then the browser stops answering
        return await guard.open_lane(LANE_BYTES)

    farm = Farm(
        farm_settings(warm_contexts=0, health_interval=600), egress_urls={"direct": slow_lane}
    )
    await farm.start()
    browser = farm._supervisor.current
    assert browser is not None and browser.pid is not None
    stopped.append(browser.pid)
    loop = asyncio.get_running_loop()
    try:
        started = loop.time()
        with pytest.raises(TimeoutError):
            await browser.new_context(ContextKey("md", False))
        assert loop.time() - started < 2.6  # not 1.2 s for the lane and 2 s more for the rest
        assert guard.lanes == 0
    finally:
        os.kill(browser.pid, signal.SIGCONT)
        await farm.close()
        await guard.close()


def farm_tasks() -> list[asyncio.Task[Any]]:
    """The farm's own tasks not done yet (their coroutines run in its modules)."""
    pending = []
    for task in asyncio.all_tasks():
        code = getattr(task.get_coro(), "cr_code", None)
        if not task.done() and code is not None and "/browser/farm/" in code.co_filename:
            pending.append(task)
    return pending


def resume(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGCONT)


@pytest.mark.gen_test(timeout=90)
async def test_background_closes_take_turns_and_end_with_the_farm(
    site: tuple[Origin, SiteState],
) -> None:
    """At most background_pages closes run at once, the others wait their turn; closing the
    farm cancels those left and leaves nothing pending."""
    origin, _state = site
    guard = EgressGuard(AddressPolicy(["127.0.0.1"]))
    await guard.start()
    settings = farm_settings(warm_contexts=0, health_interval=600, org_idle=1.0, background_pages=1)
    opener = functools.partial(guard.open_lane, LANE_BYTES)
    farm = Farm(settings, egress_urls={"direct": opener})
    await farm.start()
    browser = farm._supervisor.current
    assert browser is not None and browser.pid is not None
    orgs = ("acme", "globex", "initech")
    try:
        for _ in range(2):  # the second capture of each organization keeps its page
            await asyncio.gather(
                *(farm.capture(origin.url("/box"), CaptureOptions(org=org)) for org in orgs)
            )
        await eventually(lambda: browser.pages.idle_count == 3 and guard.lanes == 3)
        # A stopped browser leaves each close hanging for CONTEXT_CLOSE_TIMEOUT (2 s); the
        # three pages expire together after org_idle.
        os.kill(browser.pid, signal.SIGSTOP)
        await eventually(lambda: browser.pages.idle_count == 0)
        assert farm.health()["background_pages"] == 3
        await asyncio.sleep(3.0)
        assert browser.chores.running == 1
        assert guard.lanes == 2  # one close timed out, one runs, one waits its turn
        assert farm.health()["background_pages"] == 2
        await farm.close()
        assert farm_tasks() == []
        assert guard.lanes == 0
    finally:
        resume(browser.pid)
        await farm.close()
        await guard.close()


@pytest.mark.gen_test(timeout=60)
async def test_a_page_being_closed_keeps_its_capture_slot(
    site: tuple[Origin, SiteState],
) -> None:
    """The capture answers at once, but its page, closed in the background, keeps the page slot
    until it is closed: the next capture waits in the queue meanwhile."""
    origin, _state = site
    farm = Farm(farm_settings(warm_contexts=0, health_interval=600, max_pages=1))
    await farm.start()
    pid = farm.health()["browser_pid"]
    assert isinstance(pid, int)
    try:
        assert (await farm.capture(origin.url("/box"), CaptureOptions())).status == 200
        os.kill(pid, signal.SIGSTOP)  # its close now hangs for CONTEXT_CLOSE_TIMEOUT (2 s)
        loop = asyncio.get_running_loop()
        stopped = loop.time()
        second = asyncio.ensure_future(farm.capture(origin.url("/box"), CaptureOptions()))
        await eventually(lambda: farm.health()["queue_length"] == 1, seconds=1.0)
        await eventually(lambda: farm.health()["queue_length"] == 0, seconds=5.0)
        assert loop.time() - stopped > 1.5  # the slot came free when the close gave up
        resume(pid)
        assert (await asyncio.wait_for(second, 20)).status == 200
    finally:
        resume(pid)
        await farm.close()


@pytest.mark.gen_test(timeout=90)
async def test_warm_contexts_are_made_up_beside_back_to_back_captures(
    site: tuple[Origin, SiteState],
) -> None:
    """Each capture that takes a warm context has it made up beside it while fewer than
    fill_below pages render, so the next capture, arriving at once, finds one too. Made up only
    while no page renders (warm_fill_share 0), the pool stays empty under such load: the next
    capture always starts before the filler."""
    origin, _state = site
    taken = {}
    for share in (0.5, 0.0):
        farm = Farm(farm_settings(health_interval=600, warm_contexts=1, warm_fill_share=share))
        await farm.start()
        browser = farm._supervisor.current
        assert browser is not None
        try:
            await eventually(lambda b=browser: not b.filling and b.idle("md") == 2, seconds=20)
            for _ in range(6):  # a new context each (no organization), one after another
                assert (await farm.capture(origin.url("/box"), CaptureOptions())).status == 200
            taken[share] = browser.prewarmed
            await eventually(lambda f=farm: not f.health()["filling"], seconds=10)
        finally:
            await farm.close()
    assert taken[0.5] >= 5
    assert taken[0.0] == 1  # the one made while the browser was idle
