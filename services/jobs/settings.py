"""The jobs section: how many pages a process works on, each organization's and each host's
share, leases, and how long results stay."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from settings.fields import setting


@dataclass
class JobSettings:
    """Batch and crawl jobs: the pages are worked on in the background by every Pagecast process
    on the database, each page once."""

    SECTION: ClassVar[str] = "jobs"

    workers: int = setting(
        4,
        "Job pages one process works on at once, over every job (0: this process works on "
        "none; it still accepts and answers jobs).",
        min=0,
        max=256,
    )
    org_workers: int = setting(
        4,
        "Most of those one organization's jobs hold at once; free workers go to the "
        "organization with the fewest first.",
        min=1,
        max=256,
    )
    small_job_pages: int = setting(
        20,
        "Jobs with at most this many pages left go before larger ones when a worker frees "
        "(then the organization with the fewest pages in flight), and while one has pages "
        "left, and yield_seconds after, the larger ones work as when the process serves "
        "requests (busy_workers, busy_interval): a short batch is not held behind long ones "
        "(0: no precedence).",
        min=0,
    )
    small_job_workers: int = setting(
        2,
        "Pages of small jobs one process may start beyond workers while larger jobs' pages "
        "hold every worker: a short batch starts at once, not after one of theirs ends.",
        min=0,
        max=256,
    )
    conversion_workers: int = setting(
        1,
        "Conversion worker processes of job pages, apart from the single-page requests' "
        "(convert.workers) and at a lower CPU priority.",
        min=1,
        max=64,
    )
    busy_workers: int = setting(
        1,
        "Job pages one process works on at once while it serves other requests (within "
        "yield_seconds of one), and large jobs' pages while a small job has pages left: "
        "single-page requests and small jobs come first.",
        min=1,
        max=256,
    )
    busy_interval: float = setting(
        0.1,
        "Seconds between the starts of two job pages in one process while it serves other "
        "requests, and of two large jobs' pages while a small job has pages left (0: no "
        "pause).",
        min=0.0,
        max=60.0,
    )
    yield_seconds: float = setting(
        1.0,
        "How long after a request the job workers stay at busy_workers, and the large jobs' "
        "pages after a small job's last one (small_job_pages).",
        min=0.0,
        max=60.0,
    )
    host_concurrency: int = setting(
        2, "Job pages of one host one process fetches at once.", min=1, max=64
    )
    host_delay: float = setting(
        0.0,
        "Seconds between the starts of two job fetches from one host in one process; a "
        "crawl's robots.txt Crawl-delay raises it for that crawl.",
        min=0.0,
        max=60.0,
    )
    max_crawl_delay: float = setting(
        10.0, "Largest robots.txt Crawl-delay honoured, in seconds.", min=0.0, max=600.0
    )
    lease_seconds: float = setting(
        60.0,
        "How long a claimed page stays a process's own without renewal: the pages of a process "
        "that died are taken over after this.",
        min=2.0,
        max=3600.0,
    )
    poll_interval: float = setting(
        1.0, "Seconds an idle process waits before looking for job pages again.", min=0.05
    )
    retention_hours: float = setting(
        24.0,
        "Hours a finished job and its results stay readable; then the sweep deletes them.",
        min=0.0,
    )
    sweep_interval: float = setting(600.0, "Seconds between two sweeps of expired jobs.", min=1.0)
    max_attempts: int = setting(
        3, "Times a page may be taken over from a process that died before it fails.", min=1
    )
    max_crawl_pages: int = setting(
        10_000, "Most pages one crawl may ask for (its max_pages).", min=1, max=1_000_000
    )
    results_max_bytes: int = setting(
        8_000_000,
        "About the most bytes of results one answer of GET /api/3.0/jobs/{id} holds (at least "
        "one result, however large): the cursor reads on.",
        min=1_000,
    )
    results_bytes_per_second: int = setting(
        20_000_000,
        "Bytes of job results one organization reads per second from one process, over all its "
        "answers at once (a burst of results_max_bytes first): reading is paced beyond it, so "
        "that one organization's readers do not take the process from the others.",
        min=100_000,
    )
    event_result_bytes: int = setting(
        256_000,
        "Largest result (bytes of JSON) a page's webhook event carries whole; a larger one "
        "is sent as its URL, metadata or error and a result_url to read it from.",
        min=0,
    )
    shutdown_timeout: float = setting(
        10.0,
        "Seconds the pages in flight may take to finish at shutdown; the rest go back to the "
        "queue for another process or the next start.",
        min=0.0,
        max=600.0,
    )

    @property
    def retention_seconds(self) -> float:
        return self.retention_hours * 3600
