"""Admission by plan: how many pages a new job may have, given what the organization's active
jobs already hold and what its month has left.

A job is admitted for at most the pages that fit in every bound of the plan
(:class:`~services.accounts.plans.PlanSettings`):

- ``max_active_jobs``: queued or running jobs at once; one more is refused;
- ``max_queued_pages``: pages the active jobs have left to do, in all (a crawl counts up to its
  ``max_pages``); a job gets what is left of it;
- ``monthly_credits``: each page left to do holds its price (the job's ``page_price``) in
  reserve; a job gets the pages the credits neither used nor reserved can pay for. A page that
  ends gives its reserve back: charged when done, free when it failed;
- ``monthly_failed_pages``: once the month's failed job pages reach it, no job is admitted.

The decision is made in the store's transaction that creates the job (:func:`store.jobs.
create_job`), with the organization's row locked (SQLite: the write transaction holds the
file's lock), so that two submissions, in one process or in several on one database, cannot
both take the last job, pages or credits. The month's use is read from the database just
before, not from the store's cache: what other processes charged counts once they stored it
(their usage is written every ``store.usage_flush_seconds``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from services.accounts.plans import PlanSettings
from services.accounts.service import seconds_to_next_month
from services.failure import ServiceError
from store.job_types import OrgLoad


class AdmissionFailure(enum.Enum):
    """Why a job is not admitted at all."""

    TOO_MANY_JOBS = "too_many_jobs"
    QUEUE_FULL = "queue_full"
    NO_CREDITS = "no_credits"
    FAILURE_LIMIT = "failure_limit"


class AdmissionError(ServiceError):
    """A job refused by its plan's bounds; ``message`` is safe to show."""


RETRY_SECONDS = 60
"""Retry-After of a job refused for the jobs or pages its organization has active: about when
a page or two will have ended."""


@dataclass(frozen=True)
class Month:
    """What the organization's month has used: credits, and failed job pages."""

    credits: int
    failed_pages: int


@dataclass
class Admission:
    """One job's admission: the plan's bounds, the month's use and the job's price per page;
    :meth:`__call__` is given the organization's load by the store and answers the pages the job
    may have (``wanted`` at most), or raises :class:`AdmissionError`. ``admitted`` keeps the
    answer, and ``bound`` the bound that cut the job, if one did."""

    plan: PlanSettings
    month: Month
    page_price: int
    wanted: int
    admitted: int = 0
    bound: str | None = None

    def __call__(self, load: OrgLoad) -> int:
        plan = self.plan
        if plan.monthly_failed_pages and self.month.failed_pages >= plan.monthly_failed_pages:
            raise AdmissionError(
                AdmissionFailure.FAILURE_LIMIT,
                f"the plan's {plan.monthly_failed_pages} failed job pages this month are used "
                "up; no job is admitted until the month ends",
                retry_after=seconds_to_next_month(),
            )
        if load.jobs >= plan.max_active_jobs:
            raise AdmissionError(
                AdmissionFailure.TOO_MANY_JOBS,
                f"the plan allows {plan.max_active_jobs} active jobs at once; wait for one to "
                "end or cancel one",
                retry_after=RETRY_SECONDS,
            )
        bounds = {"max_queued_pages": plan.max_queued_pages - load.pages}
        if plan.monthly_credits > 0:
            left = plan.monthly_credits - self.month.credits - load.credits
            bounds["monthly_credits"] = left // self.page_price if self.page_price > 0 else left
        name, room = min(bounds.items(), key=lambda item: item[1])
        if room <= 0:
            if name == "max_queued_pages":
                raise AdmissionError(
                    AdmissionFailure.QUEUE_FULL,
                    f"no room for another job: the plan's {plan.max_queued_pages} pages are "
                    "taken by the active jobs",
                    retry_after=RETRY_SECONDS,
                )
            raise AdmissionError(
                AdmissionFailure.NO_CREDITS,
                f"no credits left for another job: the plan's {plan.monthly_credits} monthly "
                "credits are used or reserved by the active jobs",
                retry_after=RETRY_SECONDS if load.jobs else seconds_to_next_month(),
            )
        self.admitted = min(self.wanted, room)
        self.bound = name if room < self.wanted else None
        return self.admitted
