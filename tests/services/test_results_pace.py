"""Reading job results is paced per organization: a burst of ``results_max_bytes``, then
``results_bytes_per_second``; another organization's reading is not slowed."""

from __future__ import annotations

import time
from typing import cast

import pytest

from services.accounts import AccountService
from services.jobs.service import JobService
from services.jobs.settings import JobSettings
from store.store import Store


@pytest.mark.gen_test(timeout=10)
async def test_an_organization_reading_past_its_pace_waits_and_another_does_not() -> None:
    settings = JobSettings(results_max_bytes=100_000, results_bytes_per_second=200_000)
    jobs = JobService(cast(Store, None), settings, lambda: None, cast(AccountService, None))
    started = time.monotonic()
    await jobs.pace("reader", 100_000)  # the burst
    assert time.monotonic() - started < 0.05
    await jobs.pace("reader", 100_000)  # 100 kB past it at 200 kB/s: half a second
    assert 0.4 < time.monotonic() - started < 1.0
    other = time.monotonic()
    await jobs.pace("another", 100_000)
    assert time.monotonic() - other < 0.05
