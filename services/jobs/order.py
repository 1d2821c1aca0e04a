"""Which job a free worker serves next, and when a large job's page waits.

- *Small jobs first*: a job with at most ``small_job_pages`` pages left goes before larger
  ones; then the organization with the fewest pages in flight here, then the job with the
  fewest, then the job served longest ago. A short batch is not held behind other
  organizations' long ones, whatever share of the workers they hold.
- *Small jobs start at once*: while larger jobs' pages hold every worker, a small job's page
  may start beyond ``workers``, up to ``small_job_workers`` more (the runner's claim loop), and
  it converts in the single-page requests' workers, not behind the large jobs' conversions.
- *Large jobs yield*: while a small job has pages left, and for ``yield_seconds`` after one
  had (as after a single-page request), the large jobs together hold at most ``busy_workers``
  pages at once, started at most every ``busy_interval``, so that the small job's pages do not
  share the host's CPU with every worker's page of the large ones: a client that sends one short
  batch after another, each once the last one's events arrived, does not find every worker
  taken by the large jobs at each start. With no small job for that long, large jobs use every
  worker.

An organization that splits a long job into small ones is bounded by its plan's active jobs and
shares the workers with the others by its pages in flight, as before.
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Sequence

from services.jobs.settings import JobSettings
from store.job_types import ActiveJob


class JobOrder:
    """The runner's choice of job; one per runner, on its event loop."""

    def __init__(self, settings: JobSettings) -> None:
        self.settings = settings
        self._turns: dict[str, int] = {}
        self._turn = itertools.count()
        self._large_started = 0.0
        self._small_seen = float("-inf")
        """When a small job last had pages left (monotonic)."""
        self.held_until = 0.0
        """When a large job held back for ``busy_interval`` may start a page (monotonic)."""

    def small(self, job: ActiveJob) -> bool:
        """Whether ``job`` is small: precedence is on and it has few pages left."""
        return self.settings.small_job_pages > 0 and job.pages_left <= self.settings.small_job_pages

    def order(
        self,
        active: Sequence[ActiveJob],
        orgs: collections.Counter[str],
        jobs: collections.Counter[str],
        now: float,
        full: bool = False,
    ) -> list[ActiveJob]:
        """The jobs of ``active`` that may start a page now, in the order a free worker tries
        them (``orgs`` and ``jobs``: pages in flight here by organization and by job; ``full``:
        every worker is taken, so only small jobs may start one). A large job waits while small
        jobs have pages left, or had within ``yield_seconds``, and the large ones already hold
        their share or started a page within ``busy_interval``."""
        if len(self._turns) > 2 * len(active) + 100:  # the turns of ended jobs go
            ids = {job.id for job in active}
            self._turns = {id_: turn for id_, turn in self._turns.items() if id_ in ids}
        small = [job for job in active if self.small(job)]
        large = [job for job in active if not self.small(job)]
        if small:
            self._small_seen = now
        yielding = bool(small) or now - self._small_seen < self.settings.yield_seconds
        if full:
            large = []
        elif yielding and large:
            self.held_until = self._large_started + self.settings.busy_interval
            in_flight = sum(jobs[job.id] for job in large)
            if in_flight >= self.settings.busy_workers or now < self.held_until:
                large = []

        def fairest(job: ActiveJob) -> tuple[int, int, int]:
            return orgs[job.org], jobs[job.id], self._turns.get(job.id, -1)

        return sorted(small, key=fairest) + sorted(large, key=fairest)

    def started(self, job: ActiveJob, now: float) -> None:
        """A page of ``job`` was claimed at ``now``."""
        self._turns[job.id] = next(self._turn)
        if not self.small(job):
            self._large_started = now
