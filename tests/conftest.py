"""Shared fixtures: a fresh Postgres database per test run, store URLs for both backends, and small
Tornado origin sites on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import peewee
import psycopg2
import pytest
import tornado.web
from tornado.ioloop import IOLoop

from app.config import Settings
from app.services import Services, egress_lanes, egress_limits, start_jobs, stop_jobs
from app.web import make_api_app
from browser.egress.guard import EgressGuard
from browser.farm import Farm
from browser.fetch.client import Fetcher
from browser.ssrf import AddressPolicy
from convert.embed.providers import ProviderRegistry
from services.accounts.plans import PlanSettings
from services.embeds import EmbedResolver
from services.embeds.provider_files import builtin_providers
from services.fetch_policy import PageFetcher
from services.markdown.answers import AnswerCache
from services.pool import ConverterPool, ConvertSettings
from store.db import close_database, open_database
from store.frames import FrameStore
from store.images import ImageFiles
from store.screenshots import ScreenshotStore
from store.store import Store
from tests.origin import Origin, serve
from tests.spa_site import spa_app

PG_ADMIN_DSN = os.environ.get(
    "PAGECAST_TEST_PG_ADMIN", "postgresql://postgres@127.0.0.1:5432/postgres"
)


def pg_admin(statement: str) -> None:
    """Run one statement as the Postgres administrator (outside a transaction)."""
    admin = psycopg2.connect(PG_ADMIN_DSN, connect_timeout=5)
    admin.autocommit = True
    try:
        with admin.cursor() as cur:
            cur.execute(statement)
    finally:
        admin.close()


@contextlib.contextmanager
def fresh_database(prefix: str) -> Iterator[tuple[str, str]]:
    """A Postgres database created empty on the local server: its name and URL. Dropped at the
    end, with whatever connections are left."""
    name = f"{prefix}_{secrets.token_hex(4)}"
    pg_admin(f'CREATE DATABASE "{name}"')
    try:
        yield name, f"{PG_ADMIN_DSN.rsplit('/', 1)[0]}/{name}"
    finally:
        pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def io_loop() -> Iterator[IOLoop]:
    """A new IOLoop for each test, current while it runs and closed after it (pytest-tornado's
    fixture of the same name, which this one replaces, without the event loop it leaks).

    A new IOLoop asks asyncio for the current event loop, to restore it when it is closed. The
    first time in a process none has been set, so asyncio's policy makes one for the main thread
    that nobody closes; when a later test replaces it (``asyncio.run`` clears the current loop
    when it ends) it is collected unclosed during whatever test runs then, which fails that test
    with an unraisable "unclosed event loop". With the current loop cleared first, asyncio answers
    that there is none instead of making one."""
    asyncio.set_event_loop(None)
    loop = IOLoop()
    try:
        yield loop
    finally:
        loop.close(all_fds=True)


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A database created for this test run on the local Postgres server, dropped at the end."""
    with fresh_database("pagecast_test") as (_, url):
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each store test runs once on a SQLite file and once on a fresh Postgres schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'pagecast.db'}"
    url: str = request.getfixturevalue("pg_url")
    _reset_postgres(url)
    return url


def _reset_postgres(url: str) -> None:
    """Drop every table so each test starts from an empty database."""
    conn = psycopg2.connect(url, connect_timeout=5)
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
    conn.close()


@pytest.fixture(scope="session")
def pool() -> Iterator[ConverterPool]:
    """One conversion worker for the whole run (worker processes outlive IOLoops)."""
    pool = ConverterPool(ConvertSettings(workers=1))
    yield pool
    pool.close()


def make_settings(tmp_path: Path) -> Settings:
    """Settings for tests: a SQLite store in ``tmp_path``, loopback origins allowed."""
    settings = Settings()
    settings.fetch.allow_hosts = ["127.0.0.1"]
    settings.fetch.total_timeout = 5.0
    settings.store.data_dir = str(tmp_path)
    settings.store.auth_cache_seconds = 0
    settings.plans["tiny"] = PlanSettings(requests_per_second=0.01, burst=2)
    settings.plans["metered"] = PlanSettings(requests_per_second=100, burst=100, monthly_credits=3)
    return settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Test settings; a module overrides this fixture to configure more (proxies, limits)."""
    return make_settings(tmp_path)


@pytest.fixture
def farm(io_loop: Any, settings: Settings, request: pytest.FixtureRequest) -> Iterator[Farm]:
    """A started farm for the tests marked chromium, an unstarted one for the others."""
    if request.node.get_closest_marker("chromium") is None:
        yield Farm(settings.farm)
        return
    with running_farm(io_loop, settings) as started:
        yield started


@contextmanager
def running_farm(io_loop: Any, settings: Settings) -> Iterator[Farm]:
    """A started farm whose pages leave through the egress guard, as in the server (modules that
    need Chromium override the ``farm`` fixture with it)."""
    policy = AddressPolicy(settings.fetch.allow_hosts, deny=settings.fetch.deny_list())
    guard = EgressGuard(policy, limits=egress_limits(settings))
    io_loop.run_sync(guard.start)
    farm = Farm(settings.farm, egress_urls=egress_lanes({"direct": guard}, settings))
    io_loop.run_sync(farm.start, timeout=60)
    try:
        yield farm
    finally:
        io_loop.run_sync(farm.close, timeout=60)
        io_loop.run_sync(guard.close)


@pytest.fixture
def services(
    io_loop: Any, settings: Settings, pool: ConverterPool, farm: Farm, tmp_path: Path
) -> Iterator[Services]:
    """The services of a Pagecast process, on the test's IOLoop."""
    store = Store(settings.store, cache=settings.cache)
    store.open()
    fetcher = Fetcher(settings.fetch)
    pages = PageFetcher(fetcher, settings.proxies, store, request_deadline=10.0)
    screenshots = ScreenshotStore(store, ImageFiles(tmp_path / "screenshots"))
    frames = FrameStore(store)
    embeds = EmbedResolver(
        settings.oembed,
        ProviderRegistry(builtin_providers()),
        fetcher=fetcher,
        pages=pages,
        pool=pool,
        farm=farm,
    )
    services = Services(settings, store, fetcher, pages, pool, farm, screenshots, frames, embeds)
    answers = services.answers = AnswerCache(store, lambda: store.cache_settings)
    yield services
    io_loop.run_sync(pages.drain)
    io_loop.run_sync(answers.drain)
    services.fetcher.close()
    io_loop.run_sync(store.close)


def serve_with_jobs(io_loop: Any, services: Services) -> Iterator[tornado.web.Application]:
    """The API application over ``services`` with the job runner and the webhook outbox
    running, stopped at the end: a test module's ``app`` fixture yields from it."""

    async def start() -> None:
        start_jobs(services)

    io_loop.run_sync(start)
    yield make_api_app(services)
    io_loop.run_sync(lambda: stop_jobs(services, 1.0))


@pytest.fixture
def key(services: Services) -> str:
    return services.store.create_key("acme", "free").key


@contextmanager
def raw_database(url: str, tmp_path: Path) -> Iterator[peewee.Database]:
    """A separate connection to the test database, for looking under the store."""
    db = open_database(url, str(tmp_path / "data"))
    db.connect()
    try:
        yield db
    finally:
        close_database(db)


@pytest.fixture
def spa_site(io_loop: Any) -> Iterator[Origin]:
    """The site of pages that build themselves after ``load`` (``tests/spa_site.py``)."""
    origin = serve(spa_app())
    yield origin
    io_loop.run_sync(origin.close)
