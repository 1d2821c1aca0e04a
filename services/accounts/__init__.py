"""Accounts: who is asking and what it may spend.

- :mod:`~services.accounts.service`: :class:`AccountService`, a presented key's owner and plan,
  its rate limit and monthly quota, and the credits a request is charged;
- :mod:`~services.accounts.billing`: the one price table (endpoint, version, proxy tier, render,
  scan) and the ``[credits]`` settings;
- :mod:`~services.accounts.plans`: the ``[plans.NAME]`` settings;
- :mod:`~services.accounts.ratelimit`: per-key token buckets;
- :mod:`~services.accounts.lookup_gate`: one key lookup at a time per client address.
"""

from services.accounts.billing import CreditSettings, Usage, price
from services.accounts.plans import DEFAULT_PLANS, PlanSettings
from services.accounts.service import (
    Account,
    AccountError,
    AccountFailure,
    AccountService,
    Quota,
    RateLimit,
)
from store.store import KeyInfo

__all__ = [
    "DEFAULT_PLANS",
    "Account",
    "AccountError",
    "AccountFailure",
    "AccountService",
    "CreditSettings",
    "KeyInfo",
    "PlanSettings",
    "Quota",
    "RateLimit",
    "Usage",
    "price",
]
