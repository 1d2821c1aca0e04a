"""The composition root's parts and use cases: built once by the server, handed to every handler
through ``initialize`` (the handlers see them as :class:`handlers.context.UseCases`)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from app.config import Settings
from app.providers import load_providers
from browser.egress.guard import EgressGuard, EgressLimits
from browser.farm import Farm
from browser.farm.lanes import Egress
from browser.fetch.client import Fetcher
from handlers.errors import MarkdownPageErrors
from handlers.screenshot_requests import ScreenshotAnswers
from handlers.settings import ServerSettings
from services.accounts import AccountService
from services.embeds import EmbedResolver, EmbedService
from services.embeds.frames import FrameService
from services.fetch_policy import PageFetcher
from services.health import HealthService
from services.jobs.crawl import CrawlDiscovery
from services.jobs.runner import JobRunner
from services.jobs.service import JobService
from services.markdown import MarkdownService
from services.markdown.answers import AnswerCache
from services.pool import ConverterPool
from services.screenshots import ScreenshotService
from services.screenshots.deferred import DeferredCaptures
from services.screenshots.signed import SignedLinks
from services.screenshots.with_markdown import OneLoadService
from services.site_map import SiteMapper
from services.webhook_outbox import WebhookOutbox
from services.webhooks import WebhookSender
from store.db import local_folders
from store.frames import FrameStore
from store.images import ImageFiles, ImageStorage, ImageStorageError
from store.objects import ObjectStorage
from store.screenshots import ScreenshotStore
from store.store import Store

log = logging.getLogger(__name__)


@dataclass
class Services:
    """Built once by the server; handlers reach the outside world only through these."""

    settings: Settings
    store: Store
    fetcher: Fetcher
    pages: PageFetcher
    pool: ConverterPool
    farm: Farm
    screenshots: ScreenshotStore
    frames: FrameStore
    embeds: EmbedResolver
    egress: list[EgressGuard] = field(default_factory=list)
    jobs: JobService | None = None
    runner: JobRunner | None = None
    webhook_outbox: WebhookOutbox | None = None
    answers: AnswerCache | None = None
    """Kept Markdown answers (memory in front of the store)."""
    deferred_captures: DeferredCaptures | None = None
    job_pool: ConverterPool | None = None
    warming: asyncio.Future[None] | None = None
    """The conversion workers' start, when :func:`open_services` did not wait for it."""
    foreground: int = 0
    last_foreground: float = 0.0
    in_flight: int = 0
    draining: bool = False
    _idle: asyncio.Event = field(default_factory=asyncio.Event)
    _account_service: AccountService | None = None
    _frame_service: FrameService | None = None
    _webhook_sender: WebhookSender | None = None
    _health_service: HealthService | None = None

    @property
    def server(self) -> ServerSettings:
        return self.settings.server

    @property
    def account_service(self) -> AccountService:
        """Keys, plans, rate limits, quotas and charging; built once, as it holds the rate
        limit's buckets and the key lookups' lines."""
        if self._account_service is None:
            settings = self.settings
            self._account_service = AccountService(
                self.store,
                settings.plans,
                settings.credits,
                org_labels=lambda: settings.server.metrics_org_labels,
            )
        return self._account_service

    @property
    def frame_service(self) -> FrameService:
        """The frames use case; built once, as it owns the card pages' memory cache."""
        if self._frame_service is None:
            self._frame_service = FrameService(
                self.frames,
                self.embeds,
                frame_host=lambda: self.settings.server.public_frame_host(),  # noqa: PLW0108 (read per call)
                badge=self.account_service.plan_badge,
                cache_bytes=lambda: self.settings.oembed.frame_page_cache_bytes,
            )
        return self._frame_service

    @property
    def markdown_service(self) -> MarkdownService:
        """The Markdown use case over the current parts (a light object, made per request)."""
        return MarkdownService(
            self.fetcher,
            self.pages,
            self.farm,
            self.pool,
            credits=self.settings.credits,
            limits=self.settings.convert,
            answers=self.answers,
        )

    @property
    def embed_service(self) -> EmbedService:
        """The oEmbed use case over the resolver and the frames (made per request)."""
        return EmbedService(self.embeds, self.frame_service, self.settings.credits)

    @property
    def health_service(self) -> HealthService:
        """Readiness over the store, the farm and the host; built once, as it remembers a check
        that outlived its time."""
        if self._health_service is None:
            settings = self.settings
            self._health_service = HealthService(
                self.store,
                self.farm,
                lambda: self.draining,
                lambda: settings.readiness,
                local_folders(settings.store, settings.screenshots.backend == "filesystem"),
            )
        return self._health_service

    @property
    def webhook_sender(self) -> WebhookSender:
        """The webhook sender; built once, as it bounds the deliveries of the whole process and
        keeps those running in the background until they end."""
        if self._webhook_sender is None:
            self._webhook_sender = WebhookSender(self.fetcher, self.settings.webhooks)
        return self._webhook_sender

    @property
    def map_service(self) -> SiteMapper:
        """The site map use case over the current parts (a light object, made per request)."""
        return SiteMapper(self.fetcher, self.pool, self.settings.map, self.settings.credits)

    @property
    def signed_links(self) -> SignedLinks:
        """Signing secrets and the check of signed screenshot links (a light object)."""
        return SignedLinks(self.store)

    @property
    def screenshot_service(self) -> ScreenshotService:
        """The screenshot use case over the current parts (a light object, made per request)."""
        parts = (self.fetcher, self.farm, self.pages.proxies, self.screenshots)
        return ScreenshotService(
            *parts,
            self.settings.credits,
            max_navigation_ms=self.settings.farm.max_navigation_timeout * 1000,
        )

    @property
    def one_load_service(self) -> OneLoadService:
        """A screenshot and the page's Markdown from one load (a light object, made per
        request)."""
        return OneLoadService(self.screenshot_service, self.markdown_service, self.settings.credits)

    def request_started(self, *, foreground: bool = True) -> None:
        """Count a request in flight; a foreground one (not about jobs) makes the job workers
        yield for a while."""
        self.in_flight += 1
        self._idle.clear()
        if foreground:
            self.foreground += 1
            self.last_foreground = time.monotonic()

    def request_finished(self, *, foreground: bool = True) -> None:
        self.in_flight -= 1
        if self.in_flight == 0:
            self._idle.set()
        if foreground:
            self.foreground -= 1
            self.last_foreground = time.monotonic()

    def serving(self) -> bool:
        """Whether foreground requests are in flight or were within ``jobs.yield_seconds``."""
        window = self.settings.jobs.yield_seconds
        return self.foreground > 0 or time.monotonic() - self.last_foreground < window

    async def wait_idle(self, seconds: float) -> bool:
        """Wait until no request is in flight; False when ``seconds`` ran out first."""
        if self.in_flight == 0:
            return True
        try:
            await asyncio.wait_for(self._idle.wait(), seconds)
        except TimeoutError:
            return False
        return True


async def open_image_storage(settings: Settings) -> ImageStorage:
    """The screenshot image storage the settings choose. For an object store, the bucket is
    checked once: a failure is logged loudly but does not stop the start (screenshots answer
    503 until the bucket answers)."""
    if settings.screenshots.backend != "s3":
        return ImageFiles(Path(settings.store.data_dir) / "screenshots")
    loop = asyncio.get_running_loop()
    storage = await loop.run_in_executor(None, ObjectStorage, settings.screenshots)
    try:
        await loop.run_in_executor(None, storage.check)
    except ImageStorageError:
        log.error("the screenshot bucket cannot be reached yet; screenshots will fail until it is")
    else:
        log.info("screenshots are stored in bucket %s", storage.bucket)
    return storage


def egress_limits(settings: Settings) -> EgressLimits:
    """The browser's traffic keeps the fetcher's limits (and the farm's per-tunnel cap)."""
    return EgressLimits(
        max_response_bytes=settings.fetch.max_body_bytes,
        max_ratio=settings.fetch.max_decompression_ratio,
        max_head_bytes=settings.fetch.max_header_bytes,
        max_tunnel_bytes=settings.farm.max_tunnel_mb * 2**20,
    )


def egress_lanes(guards: Mapping[str, EgressGuard], settings: Settings) -> dict[str, Egress]:
    """Each route's guard, opening one lane per browser context (a byte budget per page)."""
    budget = settings.farm.max_page_mb * 2**20
    return {name: functools.partial(guard.open_lane, budget) for name, guard in guards.items()}


async def open_services(
    settings: Settings, own_endpoints: list[tuple[str, int]], *, wait_for_workers: bool = True
) -> Services:
    """Open the store, the fetchers, the worker pool, the egress guards and the farm. The
    conversion workers start while the rest opens; without ``wait_for_workers`` (a one-shot
    command's single request) they go on starting after the return, beside the first fetch, and
    a request that is refused never waits for them."""
    loop = asyncio.get_running_loop()
    store = Store(settings.store, cache=settings.cache)
    await loop.run_in_executor(None, store.open)
    store.start()
    # Before the farm and the workers: a storage that cannot even be built stops the start
    # while there is little to close.
    images = await open_image_storage(settings)
    fetcher = Fetcher(settings.fetch, own_endpoints=own_endpoints)
    pages = PageFetcher(
        fetcher, settings.proxies, store, request_deadline=settings.fetch.request_deadline
    )
    pool = ConverterPool(settings.convert)
    warming = asyncio.ensure_future(pool.warm_up())
    limits = egress_limits(settings)
    guards = {"direct": EgressGuard(fetcher.policy, fetcher.resolver, limits=limits)}
    standard = pages.proxies.route("standard", None)
    if standard is not None and standard.url.startswith("http://"):
        guards["standard"] = EgressGuard(
            fetcher.policy, fetcher.resolver, upstream=standard, limits=limits
        )
    for guard in guards.values():
        await guard.start()
    farm = Farm(settings.farm, egress_urls=egress_lanes(guards, settings))
    await farm.start()
    screenshots = ScreenshotStore(
        store, images, janitor_interval=settings.screenshots.janitor_interval
    )
    screenshots.start()
    registry = await loop.run_in_executor(None, load_providers, settings)
    embeds = EmbedResolver(
        settings.oembed, registry, fetcher=fetcher, pages=pages, pool=pool, farm=farm
    )
    services = Services(
        settings,
        store,
        fetcher,
        pages,
        pool,
        farm,
        screenshots,
        FrameStore(store),
        embeds,
    )
    services.egress = list(guards.values())
    services.answers = AnswerCache(store, lambda: store.cache_settings)
    if wait_for_workers:
        await warming
    else:
        services.warming = warming
    start_jobs(services)
    return services


JOB_NICENESS = 10
"""How much lower the CPU priority of job conversions is than the single-page requests'."""
JOB_TIME_FACTOR = 2.0
"""How much longer than ``convert.timeout`` a conversion may take in those workers: at their
lower priority it waits for the processor on a busy host."""


def start_jobs(services: Services) -> None:
    """The jobs service and this process's runner, started on the running loop. Job pages go
    through the Markdown service, convert in a pool of their own at a lower CPU priority (where
    the requests' largest pages convert too), and a failed page is told in the Markdown error
    shape (the API's table, given here); the runner works on fewer pages while the process
    serves other requests."""
    settings = services.settings
    pool = ConverterPool(
        settings.convert,
        workers=settings.jobs.conversion_workers,
        niceness=JOB_NICENESS,
        time_factor=JOB_TIME_FACTOR,
    )
    services.job_pool = pool
    services.pool.background = pool  # large pages convert at the job pages' priority
    markdown = MarkdownService(
        services.fetcher,
        services.pages,
        services.farm,
        pool,
        credits=settings.credits,
        limits=settings.convert,
    )
    sender = services.webhook_sender
    outbox = services.webhook_outbox = WebhookOutbox(services.store, sender, settings.webhooks)

    small = MarkdownService(  # a small job's pages convert in the requests' workers
        services.fetcher,
        services.pages,
        services.farm,
        services.pool,
        credits=settings.credits,
        limits=settings.convert,
    )
    runner = JobRunner(
        services.store,
        lambda of_small_job: small if of_small_job else markdown,
        MarkdownPageErrors(),
        settings.jobs,
        accounts=services.account_service,
        discovery=CrawlDiscovery(services.fetcher, pool),
        busy=services.serving,
        events=outbox,
    )
    services.runner = runner
    services.jobs = JobService(
        services.store,
        settings.jobs,
        runner.wake,
        services.account_service,
        events=outbox,
        webhook_check=sender.refusal,
    )
    services.deferred_captures = DeferredCaptures(
        services.store,
        screenshots=lambda: services.screenshot_service,
        outbox=outbox,
        webhook_check=sender.refusal,
        charge=services.account_service.charge,
        answers=ScreenshotAnswers(lambda: settings.server.public_base_url()),  # noqa: PLW0108 (read per call)
        settings=settings.async_captures,
    )
    runner.start()
    outbox.start()


async def stop_jobs(services: Services, grace: float = 5.0) -> None:
    """Stop what :func:`start_jobs` started: the runner, then the webhook outbox's sender loop
    (the events it did not send stay in the store)."""
    if services.job_pool is not None and services.pool.background is services.job_pool:
        services.pool.background = None
    if services.runner is not None:
        await services.runner.close()
    if services.deferred_captures is not None:
        await services.deferred_captures.close()
    if services.webhook_outbox is not None:
        await services.webhook_outbox.close(grace)


async def close_services(services: Services) -> None:
    """Close everything :func:`open_services` opened, each step bounded."""
    loop = asyncio.get_running_loop()
    grace = 5.0
    if services.warming is not None and not services.warming.done():
        # Workers still starting hold no one's work: they are stopped at once.
        services.warming.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await services.warming
        grace = 0.0
    await stop_jobs(services)
    if services.job_pool is not None:
        await loop.run_in_executor(None, services.job_pool.close, 5.0)
    await services.screenshots.close()
    await services.farm.close()
    for guard in services.egress:
        await guard.close()
    await services.pages.drain(5.0)
    if services.answers is not None:
        await services.answers.drain(5.0)
    services.fetcher.close()
    await services.store.close()
    await loop.run_in_executor(None, services.pool.close, grace)
