"""The ``Store`` service: API keys, usage, the page cache and database health for the server and
the CLI.

The server uses the async methods. None of them blocks the IOLoop: database work runs in a pool of
``executor_threads`` threads and every wait is bounded by ``query_timeout``. When the database
fails or is too slow they raise :class:`StoreUnavailable`, whose message is safe to show; the
driver's error stays in the logs and in ``__cause__``. The plain (sync) methods are for the CLI
and tests and block their caller.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from functools import partial
from types import TracebackType
from typing import Any, TypeVar

import peewee

from store import cache as page_cache
from store import keys
from store import results as kept_answers
from store.cache import CachedPage, CacheSettings
from store.db import (
    DATABASE_ERRORS,
    StoreSettings,
    close_database,
    describe_url,
    execute_sql,
    open_database,
    run_unit,
)
from store.installation import installation_secret
from store.keys import AuthCache, IssuedKey, KeyInfo, KeyRow
from store.ledger import UsageLedger
from store.migrations import migrate
from store.periodic import repeat
from store.results import StoredAnswer
from store.strategy import Strategy, get_strategy, put_strategy
from store.threads import Runner, StoreUnavailable, summary
from store.usage import (
    UsageRow,
    query_usage,
)

QUOTA_REFRESH_SECONDS = 30.0
"""How stale a process's view of another process's usage may get, for monthly quotas."""

__all__ = ["IssuedKey", "KeyInfo", "KeyRow", "Store", "StoreUnavailable", "UsageRow"]

log = logging.getLogger(__name__)

T = TypeVar("T")

# A key that was not found is remembered at most this long, so a key issued by the CLI in another
# process works at once (within this time) while floods of bad keys stay cheap.
MISS_CACHE_SECONDS = 1.0
# /readyz must answer quickly even when the database hangs.
PING_SECONDS = 2.0


class Store:
    """Persistence for the server and the CLI; call :meth:`open` before anything else.

    For the CLI, ``with Store(settings) as store:`` opens it and closes it at the end. ``cache``
    configures the page cache (the defaults when None).
    """

    def __init__(self, settings: StoreSettings, *, cache: CacheSettings | None = None) -> None:
        self.settings = settings
        self.cache_settings = cache if cache is not None else CacheSettings()
        self._where = describe_url(settings.database_url, settings.data_dir)
        self._db: peewee.Database | None = None
        self._migrated = False
        self._closed = False
        self._runner = Runner(settings.executor_threads, lambda: self.settings.query_timeout)
        self._cache = AuthCache(
            settings.auth_cache_seconds, min(settings.auth_cache_seconds, MISS_CACHE_SECONDS)
        )
        self.ledger = UsageLedger(self._runner, self._database)
        """The usage counted in memory, its writes and the month's credits."""
        self._secrets: dict[str, str] = {}
        self._jobs: list[asyncio.Task[None]] = []

    # -- lifecycle ---------------------------------------------------------------------------

    def open(self) -> None:
        """Open the database and create or upgrade its schema. Blocks; safe to call twice.

        :raises ValueError: for a ``database_url`` of an unknown kind.
        :raises StoreUnavailable: when the database cannot be reached or migrated.
        """
        if self._closed:
            raise StoreUnavailable("the store is closed")
        if self._db is None:
            self._db = open_database(
                self.settings.database_url,
                self.settings.data_dir,
                connect_timeout=min(self.settings.query_timeout, 5.0),
                query_timeout=self.settings.query_timeout,
                max_connections=self.settings.executor_threads + 2,
            )
        if self._migrated:
            return
        try:
            version = run_unit(self._db, migrate)
        except DATABASE_ERRORS as exc:
            log.error("cannot open the database %s: %s", self._where, summary(exc))
            raise StoreUnavailable(f"the database {self._where} cannot be opened") from exc
        self._migrated = True
        log.info("database %s ready, schema version %d", self._where, version)

    def start(self) -> None:
        """Flush usage every ``usage_flush_seconds`` and evict cached pages every
        ``eviction_interval`` on the running event loop (call from a coroutine)."""
        if not self._jobs:
            flush, evict = self.settings.usage_flush_seconds, self.cache_settings.eviction_interval
            self._jobs = [
                asyncio.get_running_loop().create_task(
                    repeat(flush, self.flush_usage, "usage flush")
                ),
                asyncio.get_running_loop().create_task(repeat(evict, self.cache_evict, "eviction")),
            ]

    async def close(self) -> None:
        """Stop the periodic jobs, flush a last time, close the database and the threads."""
        if self._closed:
            return
        for job in self._jobs:
            job.cancel()
        if self._jobs:
            await asyncio.wait(self._jobs)
        self._jobs = []
        if self._db is not None:
            # A failure is logged where it happens and reported below as lost.
            with contextlib.suppress(StoreUnavailable):
                await self.flush_usage()
        self._closed = True
        try:
            async with asyncio.timeout(self.settings.query_timeout):
                await asyncio.to_thread(self._release)
        except TimeoutError:
            log.warning("database work still running at shutdown; not waiting for it")
        self.ledger.report_lost()

    def close_sync(self) -> None:
        """Blocking :meth:`close` for the CLI and tests; periodic jobs are cancelled unawaited."""
        if self._closed:
            return
        self._closed = True
        for job in self._jobs:
            if not job.get_loop().is_closed():
                job.cancel()
        self._jobs = []
        self._runner.shutdown()
        if self._db is not None:
            self.ledger.flush_sync(self._db)
            close_database(self._db)
        self.ledger.report_lost()

    def __enter__(self) -> Store:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close_sync()

    # -- keys (blocking, for the CLI) --------------------------------------------------------

    def create_key(self, org: str, plan: str) -> IssuedKey:
        """Issue a key for ``org`` (created if missing; its plan set to ``plan``)."""
        issued = self._sync(partial(keys.create_key, org=org, plan=plan), "key creation")
        self._cache.forget(keys.hash_key(issued.key))
        return issued

    def list_keys(self) -> list[KeyRow]:
        """Every key, revoked ones included, oldest first."""
        return self._sync(keys.list_keys, "key listing")

    def revoke_key(self, prefix: str) -> bool:
        """Revoke the active key with ``prefix``; False when there is none.

        This process forgets the key at once; other processes within ``auth_cache_seconds``.
        """
        revoked = self._sync(partial(keys.revoke_key, prefix=prefix), "key revocation")
        self._cache.forget_prefix(prefix.strip())
        return revoked

    def usage(self, org: str | None = None, month: str | None = None) -> list[UsageRow]:
        """Stored usage (not what is still counted in memory), optionally of one organization
        and one month (``YYYY-MM``)."""
        return self._sync(partial(query_usage, org=org, month=month), "usage query")

    # -- the server's calls ------------------------------------------------------------------

    def needs_lookup(self, key: str) -> bool:
        """Whether :meth:`authenticate` would ask the database about ``key``: it has the shape
        of an issued key and is not remembered (as known or as unknown)."""
        return keys.is_well_formed(key) and self._cache.get(keys.hash_key(key)) is None

    async def authenticate(self, key: str) -> KeyInfo | None:
        """Who ``key`` belongs to; None for an unknown, malformed or revoked key."""
        if not keys.is_well_formed(key):
            return None
        digest = keys.hash_key(key)
        cached = self._cache.get(digest)
        if cached is not None:
            return cached.info
        info = await self._run(partial(keys.find_key, key=key), "key lookup")
        self._cache.put(digest, info)
        return info

    async def key_by_prefix(self, prefix: str) -> KeyInfo | None:
        """Who the active key with ``prefix`` belongs to (a signed link names its key so);
        None for an unknown or revoked one. Remembered as :meth:`authenticate` remembers keys,
        and forgotten with them when the key is revoked."""
        digest = keys.prefix_digest(prefix)
        cached = self._cache.get(digest)
        if cached is not None:
            return cached.info
        info = await self._run(partial(keys.find_key_by_prefix, prefix=prefix), "key lookup")
        self._cache.put(digest, info)
        return info

    async def installation_secret(self, name: str) -> str:
        """The installation's secret ``name`` (made on first use, shared by every host on the
        database), read once per process."""
        known = self._secrets.get(name)
        if known is None:
            work = partial(installation_secret, name=name)
            known = self._secrets[name] = await self.run(work, "installation secret", write=True)
        return known

    def installation_secret_sync(self, name: str) -> str:
        """:meth:`installation_secret` for the CLI (blocks)."""
        return self._sync(partial(installation_secret, name=name), "installation secret")

    def record_usage(self, org: str, endpoint: str, credits: int) -> None:
        """Count one request of ``org`` on ``endpoint`` costing ``credits``, in memory."""
        self.ledger.record(org, endpoint, credits)

    async def month_credits(self, org: str, *, fresh: bool = False) -> int:
        """Credits ``org`` used this UTC calendar month (:meth:`UsageLedger.month_credits`)."""
        return await self.ledger.month_credits(org, fresh=fresh)

    async def month_requests(self, org: str, endpoint: str) -> int:
        """Requests ``org`` made on ``endpoint`` this UTC calendar month, stored and counted
        here."""
        return await self.ledger.month_requests(org, endpoint)

    def pending_usage(self) -> int:
        """How many usage rows are counted in memory and not yet written."""
        return len(self.ledger)

    async def flush_usage(self) -> int:
        """Add the usage counted so far to the database (:meth:`UsageLedger.flush`); the
        number of rows written."""
        return await self.ledger.flush()

    async def cache_get(self, key: str, max_age_seconds: float | None = None) -> CachedPage | None:
        """The page cached under ``key`` if at most ``max_age_seconds`` old (None:
        ``default_max_age``); None when missing, older, damaged or caching is disabled."""
        if not self.cache_settings.enabled:
            return None
        work = partial(page_cache.get_page, key=key, max_age_seconds=max_age_seconds)
        return await self._run(partial(work, settings=self.cache_settings), "cache read")

    async def cache_put(self, page: CachedPage) -> bool:
        """Cache ``page`` under ``page.key``, replacing an older copy; False (nothing stored)
        when caching is disabled or the page is too large."""
        if not self.cache_settings.enabled:
            return False
        return await self._run(
            partial(page_cache.put_page, page=page, settings=self.cache_settings),
            "cache write",
            write=True,
        )

    async def answer_get(
        self, key: str, max_age_seconds: float | None = None
    ) -> StoredAnswer | None:
        """The Markdown answer kept under ``key`` if its page is at most ``max_age_seconds``
        old (None: ``default_max_age``); None when missing, older, damaged or not kept."""
        if not kept_answers.usable(self.cache_settings):
            return None
        work = partial(kept_answers.get_answer, key=key, max_age_seconds=max_age_seconds)
        return await self._run(partial(work, settings=self.cache_settings), "answer read")

    async def answer_put(self, answer: StoredAnswer) -> bool:
        """Keep ``answer`` under ``answer.key`` unless a newer page's answer is there; False
        (nothing stored) when answers are not kept or this one is too large."""
        if not kept_answers.usable(self.cache_settings):
            return False
        return await self._run(
            partial(kept_answers.put_answer, answer=answer, settings=self.cache_settings),
            "answer write",
            write=True,
        )

    async def strategy_get(self, domain: str, ttl_seconds: float) -> Strategy | None:
        """The fetch strategy learned for ``domain`` within ``ttl_seconds``, if any."""
        work = partial(get_strategy, domain=domain, ttl_seconds=ttl_seconds)
        return await self._run(work, "strategy read")

    async def strategy_put(self, domain: str, tier: str, *, max_domains: int = 10_000) -> None:
        """Remember what worked for ``domain``, keeping at most ``max_domains`` domains."""
        work = partial(put_strategy, domain=domain, tier=tier, max_domains=max_domains)
        await self._run(work, "strategy write", write=True)

    async def cache_evict(self) -> int:
        """Delete cached pages past ``retention``, then the least recently written until they
        fit in ``max_bytes``; then the same for kept Markdown answers (``result_max_bytes``);
        return the number deleted.

        A large backlog is worked off in several units of work, each within ``query_timeout``.
        """
        deleted = 0
        budget = self.settings.query_timeout / 2
        for what, evict in (
            ("cached page(s)", page_cache.evict),
            ("kept Markdown answer(s)", kept_answers.evict),
        ):
            count = 0
            while True:
                work = partial(evict, settings=self.cache_settings, budget_seconds=budget)
                result = await self._run(work, "cache eviction", write=True)
                count += result.deleted
                if result.complete:
                    break
            if count:
                log.info("evicted %d %s", count, what)
            deleted += count
        return deleted

    async def ping(self) -> bool:
        """True when the database answers ``SELECT 1`` within a couple of seconds."""
        if self._db is None or self._closed:
            return False
        timeout = min(self.settings.query_timeout, PING_SECONDS)
        try:
            await self._run(_select_one, "ping", timeout)
        except StoreUnavailable:
            return False
        return True

    # -- internals ---------------------------------------------------------------------------

    def _database(self) -> peewee.Database:
        if self._closed:
            raise StoreUnavailable("the store is closed")
        if self._db is None:
            raise StoreUnavailable("the store is not open")
        return self._db

    def _sync(self, work: Callable[[peewee.Database], T], what: str) -> T:
        return self._runner.sync(self._database(), work, what)

    async def run(
        self,
        work: Callable[[peewee.Database], T],
        what: str,
        *,
        write: bool = False,
    ) -> T:
        """Run ``work(db)`` in the store's threads within ``query_timeout``; for sibling services
        (screenshots, frames) that keep their own queries. Raises :class:`StoreUnavailable`."""
        return await self._run(work, what, write=write)

    async def _run(
        self,
        work: Callable[[peewee.Database], T],
        what: str,
        seconds: float | None = None,
        *,
        write: bool = False,
    ) -> T:
        return await self._runner.run(self._database(), work, what, seconds, write=write)

    def _release(self) -> None:
        self._runner.shutdown()
        if self._db is not None:
            close_database(self._db)


def _select_one(db: peewee.Database) -> Any:
    return execute_sql(db, "SELECT 1").fetchone()
