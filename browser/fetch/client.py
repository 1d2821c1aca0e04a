"""The fetcher: one target page over HTTP(S), behind the SSRF guard, within limits, decoded.

:class:`Fetcher` follows redirects itself so that every hop is approved by the
:class:`~browser.ssrf.AddressPolicy`. Each hop's connection is pinned to the addresses that were
checked: curl's RESOLVE list maps the host to exactly those addresses, and an OPENSOCKETFUNCTION
refuses to open a socket to any other address, so DNS rebinding between check and connect cannot
reach an internal service. Upstream failures come back as a :class:`FetchResult` whose ``error``
is a :class:`FetchError`; exceptions are left for bugs and invalid arguments.

Every limit ends a fetch with its own error and without waiting out the deadline: a body over the
cap or a decompression bomb (too_large), a stalled transfer (timeout), oversized headers and broken
or malformed responses (invalid_response).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import ssl
import time
from collections.abc import Iterable, Mapping
from urllib.parse import urljoin, urlsplit

from tornado.curl_httpclient import CurlAsyncHTTPClient, CurlError
from tornado.httpclient import HTTPRequest
from tornado.httputil import HTTPHeaders

from browser.fetch.charset import declared_charset, decode_text, is_textual
from browser.fetch.hop import Hop
from browser.fetch.metrics import FETCH_DURATION, FETCHES
from browser.fetch.types import FetchError, FetchResult, FetchSettings, fail
from browser.proxies import ProxyRoute
from browser.resolver import ResolutionError, Resolver, system_resolver
from browser.ssrf import AddressPolicy, URLRefusedError

__all__ = ["FetchError", "FetchResult", "FetchSettings", "Fetcher"]

log = logging.getLogger(__name__)


BLOCKED_STATUSES = frozenset({401, 403, 407, 429, 451})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
_DEFAULT_ACCEPT_LANGUAGE = "en-US,en;q=0.9"


class Fetcher:
    """Fetches target pages with Tornado's curl client; create it on the running IOLoop.

    ``resolver`` replaces the system resolver (tests map names to addresses with it).
    """

    def __init__(
        self,
        settings: FetchSettings,
        resolver: Resolver | None = None,
        own_endpoints: Iterable[tuple[str, int]] = (),
    ) -> None:
        self.settings = settings
        self.policy = AddressPolicy(settings.allow_hosts, own_endpoints, settings.deny_list())
        self.resolver = resolver or system_resolver(settings.connect_timeout)
        self._client = CurlAsyncHTTPClient(force_instance=True, max_clients=settings.max_concurrent)
        # Waiting here rather than in the client's queue keeps queued fetches inside their deadline.
        self._slots = asyncio.Semaphore(settings.max_concurrent)
        cafile = ssl.get_default_verify_paths().cafile
        self._ca_certs = cafile if cafile and os.path.exists(cafile) else None

    def close(self) -> None:
        """Close the HTTP client; fetches still running fail."""
        self._client.close()

    async def fetch(
        self,
        url: str,
        *,
        accept_lang: str | None = None,
        headers: Mapping[str, str] | None = None,
        proxy: ProxyRoute | None = None,
        deadline: float | None = None,
    ) -> FetchResult:
        """Fetch ``url`` with a GET, following up to ``max_redirects`` redirects.

        ``headers`` are added to (and override) the defaults. ``proxy`` sends every hop through
        that proxy (the target is still checked here; the proxy resolves it again). ``deadline``
        (a ``time.monotonic()`` value) can shorten ``total_timeout``. Raises ValueError for
        header names or values with line breaks; every upstream failure is in the result.
        """
        return await self._run(url, self._headers(accept_lang, headers), deadline, proxy, None)

    async def post(
        self,
        url: str,
        body: bytes,
        *,
        headers: Mapping[str, str] | None = None,
        deadline: float | None = None,
    ) -> FetchResult:
        """POST ``body`` to ``url`` behind the same guard, pinning and limits as :meth:`fetch`
        (webhooks use it). A redirect is not followed: its 3xx is the answer, and counts as a
        success only to a caller that reads ``status``. ``headers`` are added to (and override)
        the defaults; raises ValueError for header names or values with line breaks. A failure
        is logged without the URL's query and user: a receiver's token may be there."""
        return await self._run(url, self._headers(None, headers), deadline, None, body)

    async def _run(
        self,
        url: str,
        request_headers: HTTPHeaders,
        deadline: float | None,
        proxy: ProxyRoute | None,
        body: bytes | None,
    ) -> FetchResult:
        started = time.monotonic()
        limit = started + self.settings.total_timeout
        if deadline is not None:
            limit = min(limit, deadline)
        result = await self._follow(url, request_headers, limit, proxy, body)
        result.elapsed = time.monotonic() - started
        outcome = result.error.value if result.error else "ok"
        FETCHES.labels(outcome).inc()
        FETCH_DURATION.observe(result.elapsed)
        shown = result.final_url if body is None else _without_secrets(result.final_url)
        if result.error is None:
            log.debug("fetched %s: %s in %.3fs", shown, result.status, result.elapsed)
        else:
            log.info(
                "fetch of %s failed: %s (%s) after %.3fs",
                shown,
                outcome,
                result.message,
                result.elapsed,
            )
        return result

    def _headers(self, accept_lang: str | None, extra: Mapping[str, str] | None) -> HTTPHeaders:
        headers = HTTPHeaders(
            {"Accept": _ACCEPT, "Accept-Language": accept_lang or _DEFAULT_ACCEPT_LANGUAGE}
        )
        for name, value in (extra or {}).items():
            headers[name] = value
        for name, value in headers.get_all():
            if any(char in name + value for char in "\r\n\0"):
                raise ValueError(f"header {name!r} contains a line break or NUL")
        return headers

    async def _follow(
        self,
        url: str,
        headers: HTTPHeaders,
        deadline: float,
        proxy: ProxyRoute | None,
        body: bytes | None = None,
    ) -> FetchResult:
        result = FetchResult(url=url, final_url=url)
        current = url
        while True:
            result.final_url = current
            if time.monotonic() >= deadline:
                return fail(result, FetchError.timeout, "the target did not answer in time")
            try:
                async with asyncio.timeout(deadline - time.monotonic()):
                    target = await self.policy.check(current, self.resolver)
                    proxy_addresses = await self._proxy_addresses(proxy)
            except URLRefusedError as exc:
                return fail(result, FetchError(exc.kind.value), exc.message)
            except ResolutionError as exc:
                where = "proxy" if exc.args and exc.args[0] == "proxy" else "target host"
                return fail(result, FetchError.dns, f"the {where} could not be resolved")
            except TimeoutError:
                return fail(result, FetchError.timeout, "the target did not answer in time")
            result.final_url = target.url
            hop = Hop(
                target,
                self.settings.max_body_bytes,
                proxy,
                proxy_addresses,
                settings=self.settings,
            )
            await self._request(hop, headers, deadline, result, body)
            location = result.headers.get("location")
            if result.error or result.status not in REDIRECT_STATUSES or not location:
                return result
            if body is not None:
                return result  # a POST is not sent on to where a redirect points
            if len(result.redirects) >= self.settings.max_redirects:
                return fail(
                    result,
                    FetchError.too_many_redirects,
                    f"more than {self.settings.max_redirects} redirects",
                )
            current = urljoin(target.url, _location(location))
            result.redirects.append(current)
            # The result describes the last hop only.
            result.status, result.headers, result.body = None, {}, b""
            result.content_type, result.charset, result.text = "", None, None

    async def _proxy_addresses(self, proxy: ProxyRoute | None) -> list[str]:
        """The proxy's addresses, so the socket guard lets curl reach it."""
        if proxy is None:
            return []
        try:
            return [str(ipaddress.ip_address(proxy.host))]
        except ValueError:
            pass
        try:
            addresses = await self.resolver(proxy.host, proxy.port)
        except (OSError, ResolutionError) as exc:
            raise ResolutionError("proxy") from exc
        if not addresses:
            raise ResolutionError("proxy")
        return addresses

    async def _request(
        self,
        hop: Hop,
        headers: HTTPHeaders,
        deadline: float,
        result: FetchResult,
        body: bytes | None = None,
    ) -> None:
        """One hop: fill ``result`` with the response or the failure."""
        target = hop.target
        try:
            async with asyncio.timeout(deadline - time.monotonic()):
                await self._slots.acquire()
        except TimeoutError:
            fail(result, FetchError.timeout, "the target did not answer in time")
            return
        try:
            remaining = max(deadline - time.monotonic(), 0.001)
            hop_deadline = time.monotonic() + remaining
            request = HTTPRequest(
                target.url,
                method="GET" if body is None else "POST",
                body=body,
                headers=headers,
                follow_redirects=False,
                connect_timeout=min(self.settings.connect_timeout, remaining),
                request_timeout=remaining,
                user_agent=self.settings.user_agent,
                validate_cert=True,
                ca_certs=self._ca_certs,
                prepare_curl_callback=hop.prepare,
            )
            # raise_error=False answers HTTP error statuses; transport failures still raise.
            response = await self._client.fetch(request, raise_error=False)
        except CurlError as exc:
            # With time to spare, a timeout after the request went out was the low-speed check.
            stalled = hop.sent and time.monotonic() < hop_deadline - 0.1
            fail(result, *hop.failure(exc.errno, stalled=stalled))
            result.slow = hop.sent and result.error is FetchError.timeout
            return
        finally:
            self._slots.release()
            hop.close()
        result.status = response.code
        result.headers = {
            name.lower(): ", ".join(hop.headers.get_list(name)) for name in hop.headers
        }
        result.body = hop.body()
        content_type = result.headers.get("content-type", "")
        result.content_type = content_type.partition(";")[0].strip().lower()
        declared = declared_charset(content_type)
        if result.body and is_textual(result.content_type, result.body, declared):
            loop = asyncio.get_running_loop()
            result.text, result.charset = await loop.run_in_executor(
                None, decode_text, result.body, declared
            )
        fail_for_status(result, response.code)


def fail_for_status(result: FetchResult, status: int) -> None:
    """Mark ``result`` failed when ``status`` is an error: blocked (401, 403, 407, 429, 451) or
    another error status."""
    if status in BLOCKED_STATUSES:
        fail(result, FetchError.blocked, f"the target refused the request ({status})")
    elif status >= 400:
        fail(result, FetchError.http_status, f"the target answered {status}")


def _location(value: str) -> str:
    """A Location header as text: Tornado reads headers as Latin-1, servers mostly send UTF-8."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return value


def _without_secrets(url: str) -> str:
    """``url`` for a log line without its user, password, query and fragment (a webhook's
    token may be in any of them)."""
    try:
        parts = urlsplit(url)
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return "(malformed URL)"
    return f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path}"
