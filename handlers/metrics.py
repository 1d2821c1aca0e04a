"""Prometheus metrics of the HTTP layer, declared once: requests by endpoint and status, their
duration, and those in flight. Labels name endpoints and statuses, never URLs or keys (the
services' metrics, credits among them, are in :mod:`services.metrics`)."""

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
IN_FLIGHT = Gauge("pagecast_requests_in_flight", "Requests being answered now.")
