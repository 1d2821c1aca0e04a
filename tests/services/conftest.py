"""What the services' tests share: a webhook receiver on 127.0.0.1 that records what it is sent
and answers as planned per path (``/slow`` takes 2 s)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import tornado.web

from tests.origin import Origin, serve


@dataclass
class Received:
    """What the receiver saw, per path."""

    calls: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)
    plans: dict[str, list[int]] = field(default_factory=dict)
    """Statuses to answer on a path, in turn (the last one repeats); 200 when none."""

    def on(self, path: str) -> list[tuple[dict[str, str], bytes]]:
        return [(headers, body) for where, headers, body in self.calls if where == path]


class _Receiver(tornado.web.RequestHandler):
    def initialize(self, received: Received) -> None:
        self.received = received

    async def post(self, path: str) -> None:
        self.received.calls.append((path, dict(self.request.headers), self.request.body))
        if path == "slow":
            await asyncio.sleep(2)
        plan = self.received.plans.get(path, [200])
        status = plan.pop(0) if len(plan) > 1 else plan[0]
        if status in (301, 302):
            self.redirect("/elsewhere", status=status)
            return
        self.set_status(status)
        self.finish("ok")


@pytest.fixture
def received() -> Received:
    return Received()


@pytest.fixture
def receiver(io_loop: Any, received: Received) -> Iterator[Origin]:
    origin = serve(tornado.web.Application([(r"/(.*)", _Receiver, {"received": received})]))
    yield origin
    io_loop.run_sync(origin.close)
