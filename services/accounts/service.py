"""Who is asking and what it may spend: a presented key's owner, its plan, its rate limit, its
monthly quota, and the credits a request is charged.

Unknown keys from one client address are paid for from a bucket of their own, so that they
cannot crowd the database or a valid key out: a key remembered as known never waits; every
database lookup is paid for in advance from the address's unknown-key bucket (given back when the
key turns out known); once the bucket is empty, the address's lookups wait in its line, one at a
time, for at most :data:`LOOKUP_TURN_SECONDS`. A key found unknown is refused as rate limited
when the bucket is empty, else as unknown: a valid key is delayed by its address's bad keys,
never refused for them.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from services.accounts.billing import CreditSettings, Usage, charge, price
from services.accounts.lookup_gate import AddressGate, NoTurn
from services.accounts.plans import PlanSettings
from services.accounts.ratelimit import RateLimiter
from services.failure import ServiceError
from services.metrics import RATE_LIMITED
from store.keys import key_flaw
from store.store import KeyInfo, Store, StoreUnavailable

log = logging.getLogger(__name__)

BAD_KEY_RATE = 1.0
"""Unknown keys a client address may send a second once its burst is spent."""
BAD_KEY_BURST = 20
"""Unknown keys a client address may send at once. Only keys found unknown keep what they take
from it, so a valid key is never refused for what others sent from its address (behind a
reverse proxy, every client shares one)."""
LOOKUP_TURN_SECONDS = 5.0
"""How long a lookup waits for its address's turn once the bucket is empty."""
LOOKUP_RETRY_AFTER = 1
"""Retry-After (seconds) of a lookup that did not get its turn."""


class AccountFailure(enum.Enum):
    """Why a request is refused before any work (beside :class:`~store.keys.KeyFlaw`)."""

    UNKNOWN_KEY = "unknown_key"
    """The key is unknown or revoked."""
    TOO_MANY_UNKNOWN_KEYS = "too_many_unknown_keys"
    """The client address sent too many unknown keys (or its lookup did not get a turn)."""
    UNKNOWN_PLAN = "unknown_plan"
    """The key's plan is not configured on this server."""
    RATE_LIMITED = "rate_limited"
    QUOTA_EXCEEDED = "quota_exceeded"


class AccountError(ServiceError):
    """A request refused for its key, its plan or its spending; ``message`` is safe to show."""


@dataclass(frozen=True)
class Account:
    """An authenticated key and the plan it is on."""

    key: KeyInfo
    plan: PlanSettings

    @property
    def org(self) -> str:
        return self.key.org

    @property
    def org_id(self) -> int:
        return self.key.org_id

    @property
    def proxy_tiers(self) -> frozenset[str]:
        """The proxy tiers the plan includes."""
        return self.plan.proxy_tiers()


@dataclass(frozen=True)
class RateLimit:
    """A key's token bucket after this request took its token."""

    limit: int
    remaining: int


@dataclass(frozen=True)
class Quota:
    """A plan's monthly credits and those used before this request."""

    limit: int
    used: int

    def left(self, billed: int = 0) -> int:
        """Credits the month leaves once ``billed`` more are charged."""
        return max(self.limit - self.used - billed, 0)


class AccountService:
    """Keys, plans, rate limits, quotas and charging over the store. ``plans`` is the server's
    plan table and ``org_labels()`` whether metrics may name organizations; both are read per
    call, so that changed settings take effect."""

    def __init__(
        self,
        store: Store,
        plans: Mapping[str, PlanSettings],
        credits: CreditSettings,
        *,
        org_labels: Callable[[], bool] = lambda: False,
    ) -> None:
        self.store = store
        self.plans = plans
        self.credits = credits
        self.org_labels = org_labels
        self.limiter = RateLimiter()
        self.gate = AddressGate()

    # -- who is asking -----------------------------------------------------------------------

    @staticmethod
    def check_presented(key: str, carrier: str) -> None:
        """Refuse a presented ``key`` that no lookup could match (over-long, or holding spaces
        or control characters); ``carrier`` names where it came from, for the message."""
        flaw = key_flaw(key)
        if flaw is not None:
            raise AccountError(flaw, f"{carrier} {flaw.value}")

    def account(self, info: KeyInfo) -> Account:
        """The account of the key ``info`` describes, with its plan; :class:`AccountError` when
        the plan is not configured on this server."""
        plan = self.plans.get(info.plan)
        if plan is None:
            log.error("key %s has unknown plan %r", info.prefix, info.plan)
            raise AccountError(
                AccountFailure.UNKNOWN_PLAN, "the key's plan is not configured on this server"
            )
        return Account(info, plan)

    async def owner(self, key: str, address: str) -> KeyInfo:
        """Who ``key`` sent from client ``address`` belongs to, each lookup paid for from the
        address's unknown-key bucket (see the module's docstring); :class:`AccountError` (or the
        store's ``StoreUnavailable``) when it cannot be had."""
        store, limiter = self.store, self.limiter
        bucket = f"bad-key:{address}"
        paid = False
        try:
            if not store.needs_lookup(key):
                info = await store.authenticate(key)  # remembered, or malformed: no lookup
            elif limiter.take(bucket, BAD_KEY_RATE, BAD_KEY_BURST) is None:
                paid = True
                info = await store.authenticate(key)
            else:
                info = await self._lookup_in_line(key, address)
        except StoreUnavailable:
            if paid:
                limiter.give_back(bucket, BAD_KEY_BURST)
            raise
        if info is not None:
            if paid:
                limiter.give_back(bucket, BAD_KEY_BURST)
            return info
        wait = None if paid else limiter.take(bucket, BAD_KEY_RATE, BAD_KEY_BURST)
        if wait is not None:
            raise AccountError(
                AccountFailure.TOO_MANY_UNKNOWN_KEYS,
                "too many unknown keys from this client",
                retry_after=wait,
            )
        raise AccountError(AccountFailure.UNKNOWN_KEY, "the API key is unknown or revoked")

    async def _lookup_in_line(self, key: str, address: str) -> KeyInfo | None:
        """Look ``key`` up in ``address``'s turn; refused when the turn does not come in time."""
        try:
            async with self.gate.turn(address, LOOKUP_TURN_SECONDS):
                return await self.store.authenticate(key)
        except NoTurn as exc:
            log.info("key lookup from %s refused: %s", address, exc)
            raise AccountError(
                AccountFailure.TOO_MANY_UNKNOWN_KEYS,
                "too many unknown keys from this client; the key could not be checked in time",
                retry_after=LOOKUP_RETRY_AFTER,
            ) from exc

    # -- what it may spend -------------------------------------------------------------------

    def take_token(self, account: Account, endpoint: str) -> tuple[RateLimit, int | None]:
        """Take a token from the key's bucket: its state after, and the whole seconds to wait
        when it was empty (the request is then refused by :meth:`admit`)."""
        plan, prefix = account.plan, account.key.prefix
        wait = self.limiter.take(prefix, plan.requests_per_second, plan.burst)
        remaining = self.limiter.remaining(prefix, plan.requests_per_second, plan.burst)
        if wait is not None:
            RATE_LIMITED.labels(endpoint).inc()
        return RateLimit(plan.burst, remaining), wait

    @staticmethod
    def refuse_rate(wait: int) -> AccountError:
        """The refusal of a request whose key's bucket was empty."""
        return AccountError(
            AccountFailure.RATE_LIMITED,
            f"rate limit exceeded; retry in {wait}s",
            retry_after=wait,
        )

    async def quota(self, account: Account) -> Quota | None:
        """The plan's monthly credits and those used so far; None when the plan has no quota or
        the database cannot answer (the quota is then checked again on a later request)."""
        limit = account.plan.monthly_credits
        if limit <= 0:
            return None
        try:
            used = await self.store.month_credits(account.org)
        except StoreUnavailable:
            log.warning("monthly quota of %s not checked: the database is away", account.org)
            return None
        return Quota(limit, used)

    @staticmethod
    def check_quota(quota: Quota) -> None:
        """Refuse a request once the month's credits are used up."""
        if quota.used >= quota.limit:
            raise AccountError(
                AccountFailure.QUOTA_EXCEEDED,
                f"the plan's {quota.limit} monthly credits are used up ({quota.used} used this "
                "month)",
                retry_after=seconds_to_next_month(),
            )

    def plan_tiers(self, plan: str) -> frozenset[str]:
        """The proxy tiers of the plan named ``plan`` (none for a plan no longer configured)."""
        found = self.plans.get(plan)
        return found.proxy_tiers() if found is not None else frozenset()

    def monthly_credits(self, plan: str) -> int:
        """The monthly credits of the plan named ``plan`` (0: unlimited, or not configured)."""
        found = self.plans.get(plan)
        return found.monthly_credits if found is not None else 0

    def monthly_failed_pages(self, plan: str) -> int:
        """The failed job pages the plan named ``plan`` allows a month (0: unlimited, or not
        configured)."""
        found = self.plans.get(plan)
        return found.monthly_failed_pages if found is not None else 0

    def plan_badge(self, plan: str) -> bool:
        """Whether frames of the plan named ``plan`` show the Pagecast badge (a plan no longer
        configured shows it)."""
        found = self.plans.get(plan)
        return found.badge if found is not None else True

    # -- charging ----------------------------------------------------------------------------

    def price(self, usage: Usage) -> int:
        """The credits ``usage`` costs."""
        return price(self.credits, usage)

    def charge(self, org: str, endpoint: str, credits: int) -> None:
        """Record that ``org`` was answered by ``endpoint`` for ``credits`` (0 for a failed
        request: it counts as a request, costs nothing)."""
        charge(self.store, org, endpoint, credits, name_org=self.org_labels())


def seconds_to_next_month(now: datetime | None = None) -> int:
    """Seconds until the next UTC calendar month starts (when a used-up quota renews)."""
    now = now or datetime.now(UTC)
    following = (now.replace(day=1) + timedelta(days=32)).replace(
        day=1, hour=0, minute=0, second=0, microsecond=0
    )
    return max(int((following - now).total_seconds()), 1)
