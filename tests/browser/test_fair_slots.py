"""Fair slots: a free slot goes to the waiting owner holding the fewest, one owner never holds
more than its share, a cancelled waiter takes nothing, and capacity is used when only one owner
asks."""

from __future__ import annotations

import asyncio

import pytest

from browser.fair import FairSlots


async def hold(slots: FairSlots, owner: str, release: asyncio.Event, log: list[str]) -> None:
    async with slots.slot(owner):
        log.append(owner)
        await release.wait()


@pytest.mark.gen_test(timeout=10)
async def test_one_owner_holds_at_most_its_share_and_another_gets_the_rest() -> None:
    slots = FairSlots(capacity=4, per_owner=2)
    release, log = asyncio.Event(), []
    hog = [asyncio.create_task(hold(slots, "hog", release, log)) for _ in range(10)]
    await asyncio.sleep(0)
    assert slots.held("hog") == 2 and slots.waiting("hog") == 8
    victim = [asyncio.create_task(hold(slots, "victim", release, log)) for _ in range(2)]
    await asyncio.sleep(0)
    assert slots.held("victim") == 2  # at once, however long the hog's queue
    release.set()
    await asyncio.gather(*hog, *victim)
    assert log.count("hog") == 10 and slots.in_use == 0


@pytest.mark.gen_test(timeout=10)
async def test_a_freed_slot_goes_to_the_owner_holding_the_fewest() -> None:
    slots = FairSlots(capacity=2, per_owner=2)
    first, log = asyncio.Event(), []
    a = [asyncio.create_task(hold(slots, "a", first, log)) for _ in range(4)]
    await asyncio.sleep(0)
    assert slots.held("a") == 2
    second = asyncio.Event()
    b = asyncio.create_task(hold(slots, "b", second, log))
    await asyncio.sleep(0)
    assert slots.held("b") == 0 and slots.waiting() == 3
    first.set()  # a's two end: one slot to b (holding none), one to a's next
    await asyncio.sleep(0.01)
    assert slots.held("b") == 1 and log[2:4].count("b") == 1
    second.set()
    await asyncio.gather(*a, b)
    assert slots.in_use == 0 and slots.waiting() == 0


@pytest.mark.gen_test(timeout=10)
async def test_a_cancelled_waiter_takes_no_slot() -> None:
    slots = FairSlots(capacity=1, per_owner=1)
    release, log = asyncio.Event(), []
    holder = asyncio.create_task(hold(slots, "a", release, log))
    await asyncio.sleep(0)
    waiter = asyncio.create_task(hold(slots, "b", release, log))
    await asyncio.sleep(0)
    waiter.cancel()
    release.set()
    await holder
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert slots.in_use == 0 and slots.waiting() == 0 and log == ["a"]
    async with asyncio.timeout(1):
        async with slots.slot("c"):
            assert slots.held("c") == 1


@pytest.mark.gen_test(timeout=10)
async def test_reserved_slots_go_to_owners_holding_none() -> None:
    slots = FairSlots(capacity=8, per_owner=4, reserve=2)
    release, log = asyncio.Event(), []
    hogs = [asyncio.create_task(hold(slots, name, release, log)) for name in "ab" for _ in range(4)]
    await asyncio.sleep(0)
    assert slots.in_use == 6  # two owners that hold slots take at most 8 - 2 together
    newcomers = [asyncio.create_task(hold(slots, name, release, log)) for name in "cd"]
    await asyncio.sleep(0)
    assert slots.held("c") == slots.held("d") == 1 and slots.in_use == 8
    release.set()
    await asyncio.gather(*hogs, *newcomers)
    assert slots.in_use == 0 and slots.waiting() == 0


@pytest.mark.gen_test(timeout=10)
async def test_a_kept_slot_is_no_longer_its_owners() -> None:
    outstanding = {"e": 2}  # e has two requests under way (its caller's own queue)
    slots = FairSlots(capacity=4, per_owner=2, reserve=1, asking=lambda o: outstanding.get(o, 1))
    release, log = asyncio.Event(), []
    hogs = [asyncio.create_task(hold(slots, name, release, log)) for name in "ab" for _ in range(3)]
    await asyncio.sleep(0)
    assert slots.in_use == 3
    await slots.acquire("c")
    slots.keep("c")  # c's use ended; its slot stays taken for the work left over
    assert slots.held("c") == 0 and slots.kept == 1 and slots.in_use == 4
    await slots.acquire("c")  # c holds none: at once, beside the kept slot, before a and b
    newcomer = asyncio.create_task(slots.acquire("d"))
    await asyncio.sleep(0)
    assert slots.in_use == 5 and not newcomer.done()  # the reserve's one slot beyond, no more
    newcomer.cancel()
    await asyncio.gather(newcomer, return_exceptions=True)
    slots.release("c")
    # An owner holding none but with two requests under way (a busy one between two uses) does
    # not take the room beyond the capacity; asking for one, it would.
    busy = asyncio.create_task(slots.acquire("e"))
    await asyncio.sleep(0)
    assert slots.held("e") == 0 and slots.in_use == 4
    busy.cancel()
    await asyncio.gather(busy, return_exceptions=True)
    slots.release_kept()
    await asyncio.sleep(0)
    assert slots.kept == 0 and slots.in_use == 3 and slots.waiting() == 3
    release.set()
    await asyncio.gather(*hogs)
    assert slots.in_use == 0 and slots.waiting() == 0
