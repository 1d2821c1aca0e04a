"""Which failed fetches are worth another attempt, and how a bot wall is recognised.

Worth a retry (perhaps through a better proxy): DNS and connection failures, timeouts, a broken
response, 403, 407, 429, 5xx, and challenge pages of the common bot-protection services even when
they answer 200. Never: 404 and the other 4xx that will not change, refused addresses, bad URLs,
oversized pages. A timeout after the target had the request (it stalled or let the body drip)
is worth another attempt through another tier only: the same route would wait as long again.
"""

from __future__ import annotations

import re

from browser.fetch.client import FetchError, FetchResult

RETRY_STATUSES = frozenset({403, 407, 429})
# A broken or malformed response may come through another route (a proxy tier) intact.
_RETRY_ERRORS = frozenset(
    {
        FetchError.dns,
        FetchError.connect,
        FetchError.timeout,
        FetchError.tls,
        FetchError.invalid_response,
    }
)

# Markers of challenge and block pages, matched in the first 16 KiB of the page.
_WALL = re.compile(
    r"cf-browser-verification|cf_chl_opt|challenge-platform|<title>\s*just a moment\.\.\.|"
    r"attention required! \| cloudflare|_incapsula_resource|incapsula incident id|"
    r"px-captcha|perimeterx|captcha-delivery\.com|geo\.captcha-delivery|datadome|"
    r"access denied</h1>.*reference #|errors\.edgesuite\.net|"
    r"sucuri website firewall|awswaf|aws-waf-token|/cdn-cgi/challenge|"
    r"please enable js and disable any ad blocker|are you a robot|verify you are human",
    re.IGNORECASE | re.DOTALL,
)
_WALL_HEADERS = ("cf-mitigated", "x-datadome", "x-amzn-waf-action")
_SCAN_CHARS = 16 * 1024
# A real page with a marker in passing is long; challenge pages are small.
_WALL_MAX_CHARS = 64 * 1024


def is_bot_wall(result: FetchResult) -> bool:
    """Whether the answer is a challenge or block page rather than the page itself."""
    if any(name in result.headers for name in _WALL_HEADERS):
        return True
    text = result.text or ""
    if not text or len(text) > _WALL_MAX_CHARS:
        return False
    return bool(_WALL.search(text[:_SCAN_CHARS]))


def retryable(result: FetchResult) -> bool:
    """Whether another attempt could succeed where this one failed."""
    if result.error in _RETRY_ERRORS:
        return True
    status = result.status or 0
    if result.error in (FetchError.blocked, FetchError.http_status):
        return status in RETRY_STATUSES or status >= 500
    if result.error is None:
        return is_bot_wall(result)
    return False


def retryable_on_same_tier(result: FetchResult) -> bool:
    """Whether another attempt through the same tier could succeed: not after a slow answer."""
    return retryable(result) and not result.slow
