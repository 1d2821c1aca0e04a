"""The browser farm's Prometheus metrics: gauges of contexts and queues, counters of browser
replacements, crashes, renderers killed and captures by outcome, and the latency histogram. No
label carries a URL or an organization. Every labelled series is created at import, so dashboards
see zeros rather than gaps."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from browser.farm.types import FarmErrorKind

CONTEXTS = Gauge(
    "pagecast_farm_contexts",
    "Browser contexts by preset and state: busy (a page rendering) or idle (warm, ready).",
    ["preset", "state"],
)
QUEUE = Gauge(
    "pagecast_farm_queue_length",
    "Requests holding their organization's share and waiting for a free page (the farm's queue, "
    "bounded by farm.queue_size).",
)
ORG_QUEUE = Gauge(
    "pagecast_farm_org_queue_length",
    "Requests waiting for their organization's share of the pages, all organizations together "
    "(each organization's own queue is bounded by farm.queue_size).",
)
BACKGROUND = Gauge(
    "pagecast_farm_background_pages",
    "Pages being closed or reset in the background after their captures answered, running or "
    "waiting their turn (at most farm.background_pages run at once).",
)
RESTARTS = Counter(
    "pagecast_farm_restarts_total",
    "Browsers replaced, by reason: crash, unhealthy, recycle (context count) or memory.",
    ["reason"],
)
CRASHES = Counter(
    "pagecast_farm_crashes_total",
    "Unexpected ends of a browser or of a page's renderer.",
    ["process"],
)
CAPTURES = Counter(
    "pagecast_farm_captures_total",
    "Captures and renders by kind and outcome (ok or the error kind).",
    ["kind", "outcome"],
)
CAPTURE_DURATION = Histogram(
    "pagecast_farm_capture_duration_seconds",
    "Time from admission to result of a capture or render, queueing included.",
    ["kind"],
    buckets=(0.25, 0.5, 1, 2, 3, 5, 8, 12, 20, 30, 45, 60, 90),
)
for _kind in ("capture", "render"):
    CAPTURE_DURATION.labels(_kind)
    for _outcome in ("ok", *FarmErrorKind):
        CAPTURES.labels(_kind, _outcome)
for _reason in ("crash", "unhealthy", "recycle", "memory"):
    RESTARTS.labels(_reason)
for _process in ("browser", "page"):
    CRASHES.labels(_process)
RENDERERS_KILLED = Counter(
    "pagecast_farm_renderers_killed_total",
    "Page renderers killed by the watchdog for using more than page_memory_mb.",
)
PAGES = Counter(
    "pagecast_farm_pages_total",
    "Pages lent to captures and renders: reused (an organization's warm page, reset), "
    "replacement (opened in the background when one of the organization's pages retired for "
    "its uses) or new (a fresh context opened for the capture).",
    ["source"],
)
for _source in ("reused", "replacement", "new"):
    PAGES.labels(_source)
WARM_PAGES = Gauge(
    "pagecast_farm_warm_pages",
    "Idle pages kept for organizations' next captures (all organizations together).",
)
