"""The fetcher's vocabulary: its settings, the kinds of failure, and the result value."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar

from browser.deny import DenyList, deny_problems
from browser.fetch.charset import (
    HTML_TYPES,
    SNIFFED_TYPES,
    declared_charset,
    looks_binary,
    looks_like_html,
)
from settings.fields import setting


@dataclass
class FetchSettings:
    """Fetching target pages: limits, identity and the SSRF guard."""

    SECTION: ClassVar[str] = "fetch"

    allow_hosts: list[str] = setting(
        [],
        "Hosts (name or address, optionally host:port) the SSRF guard lets through even when they "
        "resolve to loopback or private addresses. Empty in production; tests use it to reach "
        "127.0.0.1. Cloud metadata addresses stay refused for every host.",
    )
    deny_networks: list[str] = setting(
        [],
        "Address ranges (CIDR, such as 10.20.0.0/16 or 2001:db8::/32, or single addresses) no "
        "outbound request may reach, beside the built-in SSRF rules: target pages and their "
        "redirects, what the browser's pages load, webhooks and oEmbed providers. Refused for "
        "every host, allow_hosts included, with the same error as other refused targets.",
    )
    deny_ports: list[str] = setting(
        [],
        "Ports (22) and port ranges (6000-6063) no outbound request may reach, on any host, "
        "allow_hosts included; refused like deny_networks.",
    )
    connect_timeout: float = setting(
        5.0,
        "Seconds to wait for name resolution and for the TCP and TLS connection of each hop.",
        min=0.1,
        max=60,
    )
    total_timeout: float = setting(
        20.0,
        "Seconds one fetch may take in all, redirects and queueing for a free slot included.",
        min=1,
        max=300,
    )
    max_body_bytes: int = setting(
        10 * 1024 * 1024,
        "Largest response body accepted, counted after decompression; a larger one fails the "
        "fetch as too_large.",
        min=1024,
    )
    max_decompression_ratio: int = setting(
        100,
        "Largest ratio of decoded to received body bytes, checked once the decoded body passes "
        "1 MiB; a response that expands more (a decompression bomb) fails the fetch as too_large.",
        min=2,
    )
    max_header_bytes: int = setting(
        64 * 1024,
        "Largest total size of a response's header lines; larger headers fail the fetch as "
        "invalid_response.",
        min=1024,
    )
    low_speed_limit: int = setting(
        100,
        "Bytes per second under which a transfer counts as stalled; 0 turns the check off.",
        min=0,
    )
    low_speed_time: int = setting(
        10,
        "Seconds a transfer may stay under low_speed_limit before the fetch fails as a timeout.",
        min=1,
        max=300,
    )
    max_redirects: int = setting(
        5, "Redirects followed per fetch; each hop passes the SSRF guard again.", min=0, max=20
    )
    request_deadline: float = setting(
        45.0,
        "Seconds all attempts of one request may take together, retries through proxy tiers "
        "included; each attempt also keeps to total_timeout.",
        min=1,
        max=600,
    )
    max_concurrent: int = setting(
        64,
        "Fetches in flight at once in this process; further fetches wait for a slot (within "
        "total_timeout).",
        min=1,
    )
    user_agent: str = setting(
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/131.0.0.0 Safari/537.36",
        "User-Agent header sent to target sites.",
    )

    def problems(self) -> list[str]:
        """The deny list's entries that cannot be read."""
        return deny_problems(self.deny_networks, self.deny_ports)

    def deny_list(self) -> DenyList:
        """The operator's deny list (:mod:`browser.deny`) of these settings."""
        return DenyList.parse(self.deny_networks, self.deny_ports)


class FetchError(StrEnum):
    """Why a fetch failed. The values are stable strings, used in metrics and API mappings."""

    invalid_url = "invalid_url"
    dns = "dns"
    connect = "connect"
    timeout = "timeout"
    blocked = "blocked"
    tls = "tls"
    too_many_redirects = "too_many_redirects"
    address_not_allowed = "address_not_allowed"
    too_large = "too_large"
    http_status = "http_status"
    invalid_response = "invalid_response"  # the target sent an invalid or oversized response


@dataclass
class FetchResult:
    """The outcome of one fetch. ``error`` is None on success; the body is kept for HTTP errors.

    ``headers`` are the final response's headers, names lowercased, repeated headers joined with
    ", ". ``content_type`` is the lowercased media type without parameters ("" when absent).
    ``text`` is the decoded body for textual content (HTML, XML, JSON, text/*), else None.
    ``redirects`` lists every URL redirected to, in order; ``final_url`` is the last URL
    requested. ``message`` is short and safe to show to API clients. ``slow`` marks a timeout
    after the target had the request (a stalled or dripping answer): trying the same route again
    would only wait as long again.
    """

    url: str
    final_url: str
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = ""
    charset: str | None = None
    body: bytes = b""
    text: str | None = None
    redirects: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    error: FetchError | None = None
    message: str = ""
    slow: bool = False

    @property
    def ok(self) -> bool:
        """Whether the fetch succeeded (a final response with a status below 400)."""
        return self.error is None

    @property
    def is_html(self) -> bool:
        """Whether the body is HTML: by content type unless the body is plainly binary, or
        sniffed when the type is missing."""
        if self.content_type in HTML_TYPES:
            declared = declared_charset(self.headers.get("content-type", ""))
            return not looks_binary(self.body, declared)
        return self.content_type in SNIFFED_TYPES and looks_like_html(self.body)


def fail(result: FetchResult, error: FetchError, message: str) -> FetchResult:
    result.error = error
    result.message = message
    return result
