"""The browser farm's settings: its size, queues, memory limits, warm pages and readiness waits
(the ``[farm]`` section)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from settings.fields import setting


@dataclass
class FarmSettings:
    """The Chromium farm that renders screenshots and pages (Markdown full_render, oEmbed)."""

    SECTION: ClassVar[str] = "farm"

    executable_path: str = setting(
        "/usr/bin/chromium",
        "Chromium executable to launch; empty uses the browser Playwright installed.",
    )
    max_pages: int = setting(
        4,
        "Pages rendering at once, across all presets; a page closed or reset after its capture "
        "(in the background, after the answer) keeps its capture's slot until that is done.",
        min=1,
        max=64,
    )
    queue_size: int = setting(
        32,
        "Requests that may wait for a free page (the farm's queue), and, apart from those, "
        "requests of one organization that may wait for its share of the pages (each "
        "organization's own queue, see org_share); a request whose queue is full is answered "
        "503 busy at once.",
        min=0,
        max=10_000,
    )
    queue_timeout: float = setting(
        10.0,
        "Seconds a request may wait for a page slot before it is answered 503 busy.",
        min=0.01,
        max=600,
    )
    warm_contexts: int = setting(
        1,
        "Fresh browser contexts kept ready per preset and color scheme (4 presets x light/dark) "
        "for captures that get no warm page of their organization; those taken are made up in "
        "the background while few pages render (see warm_fill_share); 0 makes every one on "
        "demand.",
        min=0,
        max=16,
    )
    warm_fill_share: float = setting(
        0.5,
        "Warm contexts taken are made up (one at a time) while fewer pages than this share of "
        "max_pages render on the browser, at least while none does: a context made beside "
        "captures takes the browser's time from them. 0 makes them up only while no page "
        "renders, 1 whenever a page slot is free.",
        min=0,
        max=1,
    )
    background_pages: int = setting(
        2,
        "Pages closed or reset at once in the background once their captures have answered; "
        "the others wait their turn, each keeping its capture's slot of max_pages meanwhile, so "
        "that pages cannot be given back faster than they are cleared away.",
        min=1,
        max=64,
    )
    recycle_after: int = setting(
        500,
        "Contexts one browser serves before it is recycled: a new browser takes new work and the "
        "old one closes once its pages finish.",
        min=1,
    )
    rss_ceiling_mb: int = setting(
        2816,
        "Resident memory (MiB) of the browser's process tree, shared pages counted once, above "
        "which it is recycled the same way; checked with each health probe. max_pages pages at "
        "page_memory_mb each, warm_pages idle pages at 64 MiB each, plus the browser's own "
        "512 MiB, must fit under it.",
        min=64,
    )
    page_memory_mb: int = setting(
        512,
        "Resident memory (MiB) one page's renderer may use while it runs: a watchdog kills a "
        "renderer over it at once and its request fails (502). Script's heap (V8) is limited to "
        "half of it.",
        min=64,
        max=16_384,
    )
    org_share: float = setting(
        0.5,
        "Share of max_pages one organization may hold at once (at least one page); its other "
        "requests wait in a queue of its own, so one organization's slow pages cannot starve "
        "the others.",
        min=0.01,
        max=1.0,
    )
    reserved_pages: int = setting(
        1,
        "Pages kept for organizations holding none: organizations already capturing take at "
        "most max_pages minus these together, so a newcomer's capture starts at once however "
        "many others keep the farm busy (0: none kept). An organization with no capture under "
        "way may also start one while pages are still being reset or closed, up to these "
        "beyond max_pages.",
        min=0,
    )
    max_page_mb: int = setting(
        128,
        "MiB one page may bring in through the egress guard, all its responses and tunnels "
        "together; past it the page's connections are cut and new ones refused.",
        min=1,
        max=65_536,
    )
    max_tunnel_mb: int = setting(
        64,
        "MiB one HTTPS connection of a page may bring in through the egress guard before it is "
        "closed (plain HTTP responses keep the fetch limits: max_body_bytes decoded, "
        "max_decompression_ratio, one content encoding).",
        min=1,
        max=4096,
    )
    health_interval: float = setting(
        15.0,
        "Seconds between health probes (a blank page opened with a timeout); a failed probe "
        "restarts the browser.",
        min=0.2,
        max=3600,
    )
    launch_timeout: float = setting(
        30.0,
        "Seconds Chromium may take to start before the launch counts as failed.",
        min=1,
        max=300,
    )
    capture_margin: float = setting(
        5.0,
        "Seconds added to a request's navigationTimeout (and capture_delay) for the whole "
        "capture's deadline: waits, scrolling and the screenshot itself.",
        min=0.5,
        max=120,
    )

    page_reuse: int = setting(
        50,
        "Captures one page serves, for one organization, before it is retired (and a fresh one "
        "opened in the background for the organization's next capture, within "
        "warm_pages_per_org and warm_pages); between two captures it is reset to a clean "
        "state. 1 gives every capture a fresh context.",
        min=1,
        max=10_000,
    )
    page_max_age: float = setting(
        300.0, "Seconds after which a reused page is retired.", min=1, max=86_400
    )
    reset_http_cache: bool = setting(
        False,
        "Empty a reused page's HTTP cache between two captures of its organization as well. "
        "Off, an organization's captures share their cached scripts, styles and images (what "
        "the sites allow to be cached), as one browser's tabs do; cookies, storage and the rest "
        "are reset either way, and no organization ever shares a page, or a cache, with another.",
    )
    warm_pages_per_org: int = setting(
        4,
        "Idle pages kept for one organization (per browser), ready for its next capture. As "
        "many as max_pages lets an organization that captures at full concurrency find a page "
        "for each capture instead of having one closed and another opened.",
        min=0,
        max=64,
    )
    warm_pages: int = setting(
        4,
        "Idle pages kept in all, across organizations; the least recently used go first.",
        min=0,
        max=256,
    )
    org_idle: float = setting(
        60.0,
        "Seconds without a capture after which an organization's idle pages are closed.",
        min=1,
        max=86_400,
    )
    max_navigation_timeout: float = setting(
        60.0,
        "Most seconds a request may ask a page to take to load (the screenshot endpoint's "
        "navigationTimeout, 1 to 60 s): a request asking more is given this much, and told so "
        "in X-Pagecast-Warnings. The default is the parameter's own maximum.",
        min=1,
        max=60,
    )
    ready_timeout: float = setting(
        5.0,
        "Most seconds a render waits after the page's load for it to be ready (the network "
        "quiet, the DOM settled, a blank page's pending work done), within the request's own "
        "navigation budget; then what is there is captured. 0 turns the wait off.",
        min=0,
        max=60,
    )
    ready_quiet: float = setting(
        0.25,
        "Seconds without a request in flight and without a significant DOM change that make a "
        "scripted page ready.",
        min=0.01,
        max=10,
    )
    ready_long_request: float = setting(
        1.5,
        "Seconds after which a request still in flight is taken for long polling or streaming "
        "and no longer waited for (event streams, WebSockets and media never are).",
        min=0.1,
        max=60,
    )
    ready_timer_horizon: float = setting(
        3.0,
        "A page that shows nothing yet (or only a line such as 'Loading...') is waited for "
        "while one of its timers due within this many seconds is pending.",
        min=0,
        max=60,
    )
    ready_blank_grace: float = setting(
        1.0,
        "Seconds a blank page must stay quiet, with nothing pending, before it is taken as "
        "blank and captured.",
        min=0,
        max=30,
    )

    def problems(self) -> list[str]:
        """What is wrong between settings (each field is already within its own bounds)."""
        idle = self.warm_pages * IDLE_PAGE_MB
        needed = self.max_pages * self.page_memory_mb + idle + BROWSER_BASE_MB
        if needed > self.rss_ceiling_mb:
            return [
                f"farm: {self.max_pages} pages at page_memory_mb={self.page_memory_mb}, "
                f"{self.warm_pages} idle warm pages ({idle} MiB) and the browser's "
                f"{BROWSER_BASE_MB} MiB need {needed} MiB, over rss_ceiling_mb="
                f"{self.rss_ceiling_mb}: lower max_pages, page_memory_mb or warm_pages, or raise "
                "the ceiling"
            ]
        return []

    def fill_below(self) -> int:
        """Pages rendering on a browser below which its warm contexts are made up."""
        return max(1, math.ceil(self.max_pages * self.warm_fill_share))

    def org_slots(self) -> int:
        """Pages one organization may hold at once."""
        return max(1, min(self.max_pages, int(self.max_pages * self.org_share)))


BROWSER_BASE_MB = 512
IDLE_PAGE_MB = 64
"""Memory an idle warm page's renderer holds on a blank document (measured 40-70 MiB)."""
"""Memory a browser needs beside its pages (browser, GPU and network processes): the part of
rss_ceiling_mb that is not a page's share."""
