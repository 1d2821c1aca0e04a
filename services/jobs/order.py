"""Which job a free worker serves next, and when a large job's page waits.

- *Small jobs first*: a job with at most ``small_job_pages`` pages left goes before larger
  ones; then the organization with the fewest pages in flight here, then the job with the
  fewest, then the job served longest ago. A short batch is not held behind other
  organizations' long ones, whatever share of the workers they hold.
- *Small jobs start at once*: while larger jobs' pages hold every worker, a small job's page
  may start beyond ``workers``, up to ``small_job_workers`` more (the runner's claim loop), and
  it converts in the single-page requests' workers, not behind the large jobs' conversions.
- *Large jobs yield*: while a small job has pages left, the large jobs together hold at most
  ``busy_workers`` pages at once, started at most every ``busy_interval`` (as while the process
  serves single-page requests), so that the small job's pages do not share the host's CPU with
  every worker's page of the large ones. With no small job, large jobs use every worker.

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
    ) -> list[ActiveJob]:
        """``active`` in the order a free worker tries them (``orgs`` and ``jobs``: pages in
        flight here by organization and by job)."""
        if len(self._turns) > 2 * len(active) + 100:  # the turns of ended jobs go
            ids = {job.id for job in active}
            self._turns = {id_: turn for id_, turn in self._turns.items() if id_ in ids}
        return sorted(
            active,
            key=lambda job: (
                not self.small(job),
                orgs[job.org],
                jobs[job.id],
                self._turns.get(job.id, -1),
            ),
        )

    def may_start(
        self,
        job: ActiveJob,
        active: Sequence[ActiveJob],
        jobs: collections.Counter[str],
        now: float,
    ) -> bool:
        """Whether a page of ``job`` may start now: a small job's always; a large job's unless
        small jobs have pages left and the large ones already hold their share or started one
        within ``busy_interval``."""
        if self.small(job) or not any(self.small(other) for other in active):
            return True
        large = sum(jobs[other.id] for other in active if not self.small(other))
        if large >= self.settings.busy_workers:
            return False
        self.held_until = self._large_started + self.settings.busy_interval
        return now >= self.held_until

    def started(self, job: ActiveJob, now: float) -> None:
        """A page of ``job`` was claimed at ``now``."""
        self._turns[job.id] = next(self._turn)
        if not self.small(job):
            self._large_started = now
