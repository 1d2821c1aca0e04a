"""The fetcher's Prometheus metrics: fetches by outcome and their duration. No label carries a
URL or an organization; every outcome's series exists from the start."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

from browser.fetch.types import FetchError

FETCHES = Counter(
    "pagecast_fetches", "Target page fetches, by outcome (ok or the error kind).", ["outcome"]
)
FETCH_DURATION = Histogram(
    "pagecast_fetch_duration_seconds",
    "Time one fetch took, redirects included.",
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60),
)
for _outcome in ("ok", *FetchError):
    FETCHES.labels(_outcome)
