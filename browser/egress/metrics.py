"""The egress guard's Prometheus metrics: the browser's requests by outcome. No label carries a
URL or an organization; every outcome's series exists from the start."""

from __future__ import annotations

from typing import Final

from prometheus_client import Counter

EGRESS_REQUESTS = Counter(
    "pagecast_egress_requests",
    "Requests of the headless browser through the egress guard, by outcome "
    "(allowed, refused by the SSRF policy, failed, limited: a response over the byte limits).",
    ["outcome"],
)
OUTCOMES: Final = ("allowed", "refused", "failed", "limited")
for _outcome in OUTCOMES:
    EGRESS_REQUESTS.labels(_outcome)
