"""Prometheus metrics of the use cases, declared once: credits billed (by endpoint and
organization, named only when ``server.metrics_org_labels`` is on), requests refused by the rate
limit (by endpoint), and webhook deliveries. Never a URL or a key in a label. The HTTP layer's
metrics are in :mod:`handlers.metrics`, the browser's in ``browser/*/metrics.py``."""

from __future__ import annotations

from prometheus_client import Counter

CREDITS = Counter(
    "pagecast_credits_total",
    "Credits billed, by endpoint and organization (org is - for every organization unless "
    "server.metrics_org_labels is on).",
    ["endpoint", "org"],
)
RATE_LIMITED = Counter(
    "pagecast_rate_limited_total", "Requests refused by the per-key rate limit.", ["endpoint"]
)

WEBHOOK_DELIVERIES = Counter(
    "pagecast_webhook_deliveries",
    "Webhook events, by outcome: delivered, given up (failed), or dropped (too many pending).",
    ["outcome"],
)
WEBHOOK_ATTEMPTS = Counter("pagecast_webhook_attempts", "Webhook POSTs sent, retries included.")
for _outcome in ("delivered", "failed", "dropped"):
    WEBHOOK_DELIVERIES.labels(_outcome)

# The org label's value for everyone when organizations are not to be named in metrics.
HIDDEN_ORG = "-"


def org_label(org: str, named: bool) -> str:
    """The org label of ``org``'s samples: its name, or :data:`HIDDEN_ORG` when ``named`` is off
    (the label set stays the same either way)."""
    return org if named else HIDDEN_ORG
