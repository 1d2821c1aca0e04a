"""Prometheus metrics of the HTTP layer, declared once. Labels name endpoints, statuses and
organizations (unless ``server.metrics_org_labels`` is off); never URLs or keys."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

REQUESTS = Counter(
    "pagecast_requests_total",
    "HTTP requests answered, by endpoint and status.",
    ["endpoint", "status"],
)
LATENCY = Histogram(
    "pagecast_request_duration_seconds",
    "Time to answer a request, by endpoint.",
    ["endpoint"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60),
)
CREDITS = Counter(
    "pagecast_credits_total", "Credits billed, by endpoint and organization.", ["endpoint", "org"]
)
IN_FLIGHT = Gauge("pagecast_requests_in_flight", "Requests being answered now.")
RATE_LIMITED = Counter(
    "pagecast_rate_limited_total", "Requests refused by the per-key rate limit.", ["endpoint"]
)

# The org label's value for everyone when organizations are not to be named in metrics.
HIDDEN_ORG = "-"


def org_label(org: str, named: bool) -> str:
    """The org label of ``org``'s samples: its name, or :data:`HIDDEN_ORG` when ``named`` is off
    (the label set stays the same either way)."""
    return org if named else HIDDEN_ORG
