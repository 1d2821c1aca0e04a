"""What a request costs, and charging it: one price table for every endpoint.

A request is billed a base by endpoint and version, plus add-ons for what it used: the proxy
tier that fetched the page (nothing for a direct fetch or a cached page), a browser render that
is billed as such, and the prompt-injection scan. A version with a flat price ignores the
add-ons. :func:`charge` records what an organization was answered and for how many credits
(failed requests cost nothing, but count as requests); the account service calls it for every
request and every page of a job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Protocol

from services.metrics import CREDITS, org_label
from settings.fields import setting


@dataclass
class CreditSettings:
    """Credits billed per request: a base per endpoint plus add-ons for what a request used.
    Failed requests cost nothing."""

    SECTION: ClassVar[str] = "credits"
    markdown: int = setting(1, "Base credits of a Markdown request.", min=0)
    screenshot: int = setting(1, "Base credits of a screenshot.", min=0)
    oembed_v3: int = setting(1, "Base credits of an oEmbed 3.0 request.", min=0)
    oembed_v1: int = setting(10, "Flat credits of an oEmbed 1.1 request, whatever it used.", min=0)
    map: int = setting(
        1, "Flat credits of a site map (POST /api/3.0/map), whatever it fetched.", min=0
    )
    standard_proxy: int = setting(1, "Add-on when the standard proxy tier fetched the page.", min=0)
    premium_proxy: int = setting(5, "Add-on when the premium proxy tier fetched the page.", min=0)
    superior_proxy: int = setting(
        10, "Add-on when the superior proxy tier fetched the page.", min=0
    )
    full_render: int = setting(5, "Add-on for a billed browser render (full_render).", min=0)
    ai_sanitize: int = setting(1, "Add-on for the prompt-injection scan (ai_sanitize).", min=0)


@dataclass(frozen=True)
class Price:
    """One row of the price table: the setting that holds the base, and whether add-ons count."""

    base: str
    add_ons: bool = True


PRICES: dict[tuple[str, str], Price] = {
    ("markdown", "3.0"): Price("markdown"),
    ("screenshot", "1.1"): Price("screenshot"),
    ("oembed", "3.0"): Price("oembed_v3"),
    ("oembed", "1.1"): Price("oembed_v1", add_ons=False),
    ("map", "3.0"): Price("map", add_ons=False),
}
"""(endpoint, version) -> its price."""
PROXY_ADD_ONS = {
    "standard": "standard_proxy",
    "premium": "premium_proxy",
    "superior": "superior_proxy",
}
"""The tier that fetched a page -> the setting of its add-on (a direct fetch has none)."""


@dataclass(frozen=True)
class Usage:
    """What one answered request used."""

    endpoint: str
    version: str
    fetched_through: str | None = None
    """The tier that fetched the page for this request; None when nothing was fetched (a cached
    page, a reused capture, an answer from memory)."""
    render: bool = False
    """A browser render billed as such (Markdown's full_render, an oEmbed page rendered)."""
    ai_sanitize: bool = False


def price(credits: CreditSettings, usage: Usage) -> int:
    """The credits ``usage`` costs under ``credits``."""
    row = PRICES[(usage.endpoint, usage.version)]
    total: int = getattr(credits, row.base)
    if not row.add_ons:
        return total
    if usage.fetched_through in PROXY_ADD_ONS:
        total += getattr(credits, PROXY_ADD_ONS[usage.fetched_through])
    if usage.render:
        total += credits.full_render
    if usage.ai_sanitize:
        total += credits.ai_sanitize
    return total


class UsageLedger(Protocol):
    """Where usage is counted (the store)."""

    def record_usage(self, org: str, endpoint: str, credits: int) -> None: ...


def charge(ledger: UsageLedger, org: str, endpoint: str, credits: int, *, name_org: bool) -> None:
    """Record that ``org`` was answered by ``endpoint`` for ``credits`` (0 for a failed request:
    it counts as a request, costs nothing), and count the credits in ``pagecast_credits_total``
    (``name_org``: whether its org label names the organization)."""
    ledger.record_usage(org, endpoint, credits)
    if credits:
        CREDITS.labels(endpoint, org_label(org, name_org)).inc(credits)
