"""Prometheus metrics of the HTTP layer, declared once. Labels name endpoints, statuses and
organizations; never URLs or keys."""

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
