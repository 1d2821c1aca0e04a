"""Plans: what an organization's keys may use (proxy tiers, the frame badge) and how much (rate,
burst, monthly credits). Declared under ``[plans.NAME]`` in ``config.toml``; ``free`` and ``pro``
exist by default."""

from __future__ import annotations

from dataclasses import dataclass

from settings.fields import setting


@dataclass
class PlanSettings:
    """A plan: what its keys may use and how fast."""

    badge: bool = setting(True, "Show the Pagecast badge on hosted frames.")
    premium: bool = setting(False, "May use the premium proxy tier.")
    superior: bool = setting(False, "May use the superior proxy tier.")
    requests_per_second: float = setting(
        5.0, "Sustained requests per second per key (token bucket rate).", min=0.01
    )
    burst: int = setting(10, "Requests a key may send at once (token bucket size).", min=1)
    monthly_credits: int = setting(
        10_000,
        "Credits per UTC calendar month; requests beyond it are answered 429 quota_exceeded "
        "until the month ends. 0 means unlimited.",
        min=0,
    )
    max_active_jobs: int = setting(
        5,
        "Batch and crawl jobs an organization may have queued or running at once; another is "
        "answered 429 too_many_jobs.",
        min=1,
    )
    max_queued_pages: int = setting(
        5_000,
        "Pages an organization's active jobs may have left to do, in all (a crawl counts its "
        "max_pages); a job is admitted for at most what is left of it.",
        min=1,
    )
    max_kept_jobs: int = setting(
        1_000,
        "Jobs an organization keeps, active and ended: a new job makes room by deleting its "
        "oldest ended ones, before their retention ends.",
        min=1,
    )
    monthly_failed_pages: int = setting(
        1_000,
        "Job pages that may fail per UTC calendar month (a failed page costs no credit); "
        "beyond it the organization's jobs stop as failure_limit and new ones are answered 429. "
        "0 means unlimited.",
        min=0,
    )

    def problems(self, label: str) -> list[str]:
        """What is wrong between this plan's settings (``label``: its section's name)."""
        if self.max_kept_jobs < self.max_active_jobs:
            return [
                f"{label}.max_kept_jobs ({self.max_kept_jobs}) is below max_active_jobs "
                f"({self.max_active_jobs}): room for a new job is made only from ended jobs, so "
                "the active ones would outgrow what is kept"
            ]
        return []

    def proxy_tiers(self) -> frozenset[str]:
        """The proxy tiers keys of this plan may use (standard is in every plan)."""
        tiers = {"standard"}
        if self.premium:
            tiers.add("premium")
        if self.superior:
            tiers.add("superior")
        return frozenset(tiers)


DEFAULT_PLANS: dict[str, PlanSettings] = {
    "free": PlanSettings(),
    "pro": PlanSettings(
        badge=False,
        premium=True,
        superior=True,
        requests_per_second=50.0,
        burst=100,
        monthly_credits=1_000_000,
        max_active_jobs=50,
        max_queued_pages=200_000,
        max_kept_jobs=10_000,
        monthly_failed_pages=100_000,
    ),
}
