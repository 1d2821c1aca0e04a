"""Slots shared fairly between owners (organizations): a semaphore whose free slot goes to the
waiting owner holding the fewest, and of which one owner may hold at most a share. The farm's
pages are shared so (:mod:`browser.farm.admission`), and so are, above this layer, the
conversion workers and the webhook deliveries.

- ``capacity`` slots in all; an owner may hold at most ``per_owner`` of them at once, so that
  one owner alone (a hanging webhook receiver, say) never takes every slot before another
  arrives;
- a slot that frees goes to the waiting owner with the fewest held (then the one waiting
  longest), not to whoever asked first: an owner with a long queue does not delay another's
  first request;
- ``reserve`` slots are kept for owners holding none: while two or more owners hold slots,
  they take at most ``capacity - reserve`` together, so one that arrives while others keep
  every slot busy (hanging receivers, slow pages) starts at once. An owner alone is not held
  back: it may use up to ``per_owner`` slots.
- a slot can be *kept* after its owner's use for work that outlives it (a page being cleared
  away after its capture answered: :meth:`FairSlots.keep`, then :meth:`FairSlots.release_kept`).
  A kept slot counts against the capacity but no longer against its owner, so an owner whose
  last use ended is one holding none again; asking for one slot (no other request of its own
  outstanding: ``asking``), it may start beside the kept slots, up to ``reserve`` slots beyond
  the capacity while that many are kept. Otherwise a newcomer's next request would wait for its
  own previous page to be cleared away, which it does not when alone (it takes another slot
  then). Slots in use, kept ones excepted, never pass the capacity.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
from collections.abc import AsyncIterator, Callable


class FairSlots:
    """See the module docstring. Use on one event loop."""

    def __init__(
        self,
        capacity: int,
        per_owner: int,
        reserve: int = 0,
        asking: Callable[[str], int] | None = None,
    ) -> None:
        self.capacity = capacity
        self._asking = asking
        """How many requests an owner has outstanding, where the caller knows more than the
        requests waiting here (its own queues): by default, those waiting here."""
        self.per_owner = max(1, min(per_owner, capacity))
        self.reserve = max(0, min(reserve, capacity - 1))
        self._held: collections.Counter[str] = collections.Counter()
        self._kept = 0
        self._waiting: dict[str, collections.deque[tuple[int, asyncio.Future[None]]]] = {}
        self._order = itertools.count()

    def set_share(self, per_owner: int) -> None:
        """Change what one owner may hold; a larger share hands free slots out at once."""
        self.per_owner = max(1, min(per_owner, self.capacity))
        self._grant()

    @property
    def in_use(self) -> int:
        """Slots held now, kept ones included."""
        return sum(self._held.values()) + self._kept

    @property
    def kept(self) -> int:
        """Slots kept after their owners' use (:meth:`keep`)."""
        return self._kept

    def held(self, owner: str) -> int:
        """Slots ``owner`` holds now."""
        return self._held[owner]

    def waiting(self, owner: str | None = None) -> int:
        """Requests waiting for a slot: ``owner``'s, or everyone's."""
        if owner is not None:
            return len(self._waiting.get(owner, ()))
        return sum(len(queue) for queue in self._waiting.values())

    def free_for(self, owner: str) -> bool:
        """Whether ``owner`` would get a slot at once."""
        return not self._waiting and self._may_take(owner)

    @contextlib.asynccontextmanager
    async def slot(self, owner: str) -> AsyncIterator[None]:
        """Hold one of ``owner``'s slots for the block (cancellable while waiting; wrap it in
        ``asyncio.timeout`` to bound the wait)."""
        await self.acquire(owner)
        try:
            yield
        finally:
            self.release(owner)

    async def acquire(self, owner: str) -> None:
        """Wait for a slot for ``owner``."""
        if self.free_for(owner):
            self._held[owner] += 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (next(self._order), future)
        self._waiting.setdefault(owner, collections.deque()).append(entry)
        self._grant()
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release(owner)  # granted as it was cancelled: give the slot on
            else:
                self._forget(owner, entry)
            raise

    def release(self, owner: str) -> None:
        """Give back one of ``owner``'s slots; it goes to the fairest waiter."""
        self._held[owner] -= 1
        if self._held[owner] <= 0:
            del self._held[owner]
        self._grant()

    def keep(self, owner: str) -> None:
        """Keep one of ``owner``'s slots for work that outlives its use: no longer ``owner``'s,
        still taken until :meth:`release_kept`."""
        self._held[owner] -= 1
        if self._held[owner] <= 0:
            del self._held[owner]
        self._kept += 1
        self._grant()

    def release_kept(self) -> None:
        """Give back a slot kept by :meth:`keep`; it goes to the fairest waiter."""
        self._kept = max(self._kept - 1, 0)
        self._grant()

    def _may_take(self, owner: str) -> bool:
        held = self._held[owner]
        if held == 0:
            if self.in_use < self.capacity:
                return True
            # Beside kept slots, up to ``reserve`` of them, for an owner asking for one slot:
            # a newcomer never waits for work left over from its last use, while a busy owner
            # between two uses (its other requests waiting) does not take that room.
            asking = self._asking(owner) if self._asking else len(self._waiting.get(owner, ()))
            return asking <= 1 and self.in_use < self.capacity + min(self._kept, self.reserve)
        alone = len(self._held) == 1  # the only owner holding slots: nothing is kept back
        room = self.capacity if alone else self.capacity - self.reserve
        return held < self.per_owner and self.in_use < room

    def _grant(self) -> None:
        """Hand free slots to waiters: the owner holding the fewest first, then the oldest."""
        while self.in_use < self.capacity + min(self._kept, self.reserve):
            ready = [
                (self._held[owner], queue[0][0], owner)
                for owner, queue in self._waiting.items()
                if queue and self._may_take(owner)
            ]
            if not ready:
                return
            _, _, owner = min(ready)
            _, future = self._waiting[owner].popleft()
            if not self._waiting[owner]:
                del self._waiting[owner]
            if future.done():  # its waiter was cancelled and has not run yet
                continue
            self._held[owner] += 1
            future.set_result(None)

    def _forget(self, owner: str, entry: tuple[int, asyncio.Future[None]]) -> None:
        queue = self._waiting.get(owner)
        if queue is not None and entry in queue:
            queue.remove(entry)
            if not queue:
                del self._waiting[owner]
