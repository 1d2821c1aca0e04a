"""The job runner's periodic work beside the pages: its leases renewed, the database's active
jobs counted for the metrics, and the retention sweep."""

from __future__ import annotations

import logging
from collections.abc import Collection
from functools import partial

from services.jobs import observe
from store import job_views
from store import jobs as job_rows
from store.store import Store

log = logging.getLogger(__name__)


async def renew(store: Store, owner: str, page_ids: Collection[int], lease_seconds: float) -> None:
    """Extend ``owner``'s leases on the pages it works on, ``page_ids``."""
    if page_ids:
        work = partial(
            job_rows.renew_leases, owner=owner, page_ids=list(page_ids), lease_seconds=lease_seconds
        )
        await store.run(work, "lease renewal", write=True)


async def count(store: Store) -> None:
    """Read the database's active jobs and queued pages into the metrics."""
    observe.counted(await store.run(job_views.active_counts, "job counts"))


async def sweep(store: Store) -> int:
    """Delete the jobs whose retention ended, with their pages, a batch at a time; return how
    many."""
    deleted = 0
    while True:
        swept = await store.run(job_views.sweep, "job sweep", write=True)
        deleted += swept
        if swept == 0:
            break
    if deleted:
        log.info("jobs: swept %d expired job(s)", deleted)
    return deleted
