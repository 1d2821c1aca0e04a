"""The jobs use case the endpoints call: submit a batch or a crawl (their rules checked first),
read a job's progress and results, cancel it. The pages themselves are worked on by
:mod:`services.jobs.runner`."""

from __future__ import annotations

import asyncio
import enum
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from convert.crawl.scope import PatternError, check_patterns
from convert.crawl.urls import CrawlURLError
from services.accounts import Account, AccountService
from services.accounts.billing import Usage
from services.failure import ServiceError
from services.jobs import observe
from services.jobs.admission import Admission, Month
from services.jobs.crawl import crawl_options, new_page
from services.jobs.settings import JobSettings
from services.jobs.work import FAILED_PAGES, JobEvents, end_writer
from services.markdown import MarkdownOptions, check_options
from services.target_guard import unsafe_url_refusal
from store import job_stops, job_views
from store import jobs as job_rows
from store.job_types import NewPage
from store.job_views import JobView, PageView, WebhookOutcomes
from store.store import Store

READERS_KEPT = 10_000
"""Organizations whose reading pace is remembered (the longest idle are forgotten: full)."""
READ_BYTES = 1_000_000
"""Stored results read from the store at once while a results page is written (a larger result
is read alone)."""

__all__ = [
    "JobView",
    "PageView",
    "WebhookOutcomes",
]  # what reading a job answers, with the names defined below


class JobFailure(enum.Enum):
    """Why a job is refused, or cannot be read."""

    EMPTY_BATCH = "empty_batch"
    INVALID_URL = "invalid_url"
    """A page or start URL that is not http or https."""
    INVALID_OPTION = "invalid_option"
    """A crawl's limits or patterns out of bounds."""
    WEBHOOK_REFUSED = "webhook_refused"
    """A webhook the SSRF guard refuses."""
    NOT_FOUND = "not_found"


class JobError(ServiceError):
    """A job request refused; ``message`` is safe to show."""


@dataclass(frozen=True)
class Webhook:
    """Where a job's events go and the secret they are signed with (None: one is made)."""

    url: str | None = None
    secret: str | None = None


@dataclass(frozen=True)
class CrawlSpec:
    """A crawl's start page and bounds, as its body gives them."""

    url: str
    max_pages: int
    max_depth: int
    subdomains: bool = False
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class Submitted:
    """A job accepted: its id, how many pages it queued, the webhook secret made for it (None
    when the client gave one, or there is no webhook), and, when the plan's bounds admitted
    fewer pages than asked, how many (a batch's first URLs; a crawl's max_pages) and the bound
    that cut it."""

    id: str
    queued: int
    made_secret: str | None = field(default=None)
    admitted: int | None = None
    bound: str | None = None


class JobService:
    """Jobs over the store; ``wake`` tells this process's runner that work arrived."""

    def __init__(
        self,
        store: Store,
        settings: JobSettings,
        wake: Callable[[], None],
        accounts: AccountService,
        *,
        events: JobEvents | None = None,
        webhook_check: Callable[[str], Awaitable[str | None]] | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.wake = wake
        self.accounts = accounts
        self._reading: dict[str, tuple[float, float]] = {}
        """Each organization's byte bucket for reading results: tokens, and when counted."""
        self.events = events
        self.webhook_check = webhook_check

    async def webhook_refusal(self, url: str) -> str | None:
        """Why ``url`` may not be a job's webhook (the SSRF guard's rules), or None."""
        return await self.webhook_check(url) if self.webhook_check is not None else None

    async def check(self, options: MarkdownOptions, webhook: Webhook) -> None:
        """The rules every job's pages and webhook follow, before anything is stored: the
        Markdown options' (:class:`~services.markdown.MarkdownError`) and the SSRF guard's for
        the webhook (:class:`JobError`)."""
        check_options(options)
        if webhook.url:
            refusal = await self.webhook_refusal(webhook.url)
            if refusal is not None:
                raise JobError(JobFailure.WEBHOOK_REFUSED, f"webhook_url: {refusal}")

    async def submit_batch(
        self,
        account: Account,
        urls: Sequence[str],
        options: MarkdownOptions,
        webhook: Webhook,
    ) -> Submitted:
        """Queue ``urls`` (each once) with one set of Markdown options."""
        if not urls:
            raise JobError(JobFailure.EMPTY_BATCH, "invalid parameters: urls must not be empty")
        pages, wrong, refused, keys = [], [], [], set()
        for index, url in enumerate(urls):
            try:
                page = new_page(url)
            except CrawlURLError:
                wrong.append(index)
                continue
            if unsafe_url_refusal(page.url) is not None:
                refused.append(index)
                continue
            if page.key not in keys:  # the same page twice is one page, admitted and paid once
                keys.add(page.key)
                pages.append(page)
        if wrong:
            shown = ", ".join(str(index) for index in wrong[:10])
            raise JobError(
                JobFailure.INVALID_URL, f"urls: items {shown} are not http or https URLs"
            )
        if refused:
            shown = ", ".join(str(index) for index in refused[:10])
            raise JobError(
                JobFailure.INVALID_URL,
                f"urls: items {shown} are on ports browsers refuse to load; "
                "Pagecast does not fetch them",
            )
        stored = {"markdown": options.stored(), "max_pages": len(pages)}
        return await self.submit(
            account, "batch", options=stored, pages=pages, webhook=webhook, price=options
        )

    async def submit_crawl(
        self,
        account: Account,
        crawl: CrawlSpec,
        options: MarkdownOptions,
        webhook: Webhook,
    ) -> Submitted:
        """Queue a crawl from ``crawl.url``, breadth first, within its scope and robots.txt."""
        limit = self.settings.max_crawl_pages
        if crawl.max_pages > limit:
            raise JobError(
                JobFailure.INVALID_OPTION, f"invalid parameters: max_pages must be at most {limit}"
            )
        try:
            check_patterns([*crawl.include, *crawl.exclude])
            start = new_page(crawl.url)
        except PatternError as exc:
            raise JobError(JobFailure.INVALID_OPTION, f"invalid parameters: {exc}") from exc
        except CrawlURLError as exc:
            raise JobError(
                JobFailure.INVALID_URL, "url: the start page must be an http or https URL"
            ) from exc
        refused = unsafe_url_refusal(start.url)
        if refused is not None:
            raise JobError(JobFailure.INVALID_URL, f"url: {refused}")
        stored = crawl_options(
            start.url,
            max_pages=crawl.max_pages,
            max_depth=crawl.max_depth,
            subdomains=crawl.subdomains,
            include=list(crawl.include),
            exclude=list(crawl.exclude),
            markdown=options.stored(),
        )
        return await self.submit(
            account, "crawl", options=stored, pages=[start], webhook=webhook, price=options
        )

    async def submit(
        self,
        account: Account,
        kind: str,
        *,
        options: dict[str, Any],
        pages: Sequence[NewPage],
        webhook: Webhook,
        price: MarkdownOptions,
    ) -> Submitted:
        """Store the job with its first pages, admitted by the plan's bounds
        (:mod:`services.jobs.admission`; :class:`~services.jobs.admission.AdmissionError` when
        there is no room at all), and wake the runner."""
        page_price = self.page_price(price)
        wanted = int(options.get("max_pages", len(pages)))
        admission = Admission(account.plan, await self.month(account), page_price, wanted)
        made = secrets.token_hex(32) if webhook.url and not webhook.secret else None
        job_id = job_rows.new_job_id()
        work = partial(
            job_rows.create_job,
            job_id=job_id,
            org_id=account.org_id,
            plan=account.key.plan,
            kind=kind,
            options={**options, "page_price": page_price},
            pages=pages,
            webhook_url=webhook.url,
            webhook_secret=webhook.secret or made,
            admit=admission,
            keep_jobs=account.plan.max_kept_jobs,
        )
        queued = await self.store.run(work, "job creation", write=True)
        self.wake()
        cut = admission.bound is not None
        return Submitted(
            job_id,
            queued,
            made,
            admitted=admission.admitted if cut else None,
            bound=admission.bound,
        )

    def page_price(self, options: MarkdownOptions) -> int:
        """The credits one page of a job with ``options`` is reserved: the Markdown price with
        the add-ons the options ask for (a render, the scan, a forced proxy tier)."""
        tier = options.forced_tier
        usage = Usage(
            "markdown",
            "3.0",
            fetched_through=None if tier == "direct" else tier,
            render=options.render_first,
            ai_sanitize=options.ai_sanitize,
        )
        return max(self.accounts.price(usage), 1)

    async def month(self, account: Account) -> Month:
        """What ``account``'s organization used this month: credits and failed job pages, read
        from the database now (what other processes stored lately included)."""
        credits = await self.store.month_credits(account.org, fresh=True)
        failed = await self.store.month_requests(account.org, FAILED_PAGES)
        return Month(credits, failed)

    async def view(self, org_id: int, job_id: str) -> JobView:
        """The job with its progress; :class:`JobError` ``NOT_FOUND`` when ``org_id`` has no
        such job."""
        view: JobView | None = await self.store.run(
            partial(job_views.job_view, job_id=job_id[:64], org_id=org_id), "job read"
        )
        if view is None:
            raise JobError(JobFailure.NOT_FOUND, "no such job")
        return view

    async def results(self, job_id: str, after: int, limit: int) -> AsyncIterator[PageView]:
        """Finished pages numbered after ``after``, at most ``limit`` and about
        ``results_max_bytes`` of stored results (at least one), read a few at a time so that
        memory holds about :data:`READ_BYTES` of them at once."""
        sizes = await self.store.run(
            partial(job_views.result_sizes, job_id=job_id, after=after, limit=limit),
            "job results",
        )
        total = 0
        batch: list[int] = []
        batch_bytes = 0
        for seq, size in sizes:
            if total and total + size > self.settings.results_max_bytes:
                break
            total += size
            if batch and batch_bytes + size > READ_BYTES:
                for page in await self._read(job_id, batch):
                    yield page
                batch, batch_bytes = [], 0
            batch.append(seq)
            batch_bytes += size
        if batch:
            for page in await self._read(job_id, batch):
                yield page

    async def pace(self, org: str, sent: int) -> None:
        """Count ``sent`` bytes of results read by ``org`` and wait when it reads faster than
        ``results_bytes_per_second`` (a byte bucket per organization, in this process)."""
        rate = float(self.settings.results_bytes_per_second)
        burst = float(self.settings.results_max_bytes)
        now = time.monotonic()
        tokens, updated = self._reading.pop(org, (burst, now))
        tokens = min(burst, tokens + (now - updated) * rate) - sent
        self._reading[org] = (tokens, now)  # most recent last: the oldest are forgotten first
        while len(self._reading) > READERS_KEPT:
            del self._reading[next(iter(self._reading))]
        if tokens < 0:
            await asyncio.sleep(-tokens / rate)

    async def _read(self, job_id: str, seqs: list[int]) -> list[PageView]:
        work = partial(job_views.job_results, job_id=job_id, seqs=seqs)
        return await self.store.run(work, "job results")

    async def cancel(self, org_id: int, job_id: str) -> bool:
        """Cancel an active job of ``org_id``: its queued pages are skipped, its webhook told;
        False when it is not active (or not there)."""
        active = await self.store.run(job_rows.active_jobs, "active jobs")
        job = next((item for item in active if item.id == job_id), None)
        work = partial(
            job_stops.stop_job,
            job_id=job_id,
            status="cancelled",
            reason="cancelled",
            org_id=org_id,
            retention_seconds=self.settings.retention_seconds,
            then=end_writer(self.events, job, "cancelled"),
        )
        end = await self.store.run(work, "job cancel", write=True)
        self.wake()
        if end is not None and job is not None:
            observe.ended(job.id, job.kind, job.org, end)
        if end is not None and self.events is not None:
            self.events.wake()
        return end is not None
