"""Hostile clients against real listeners (made by ``make_server``, as ``server.py`` makes them):
a flood of unknown keys never locks a valid key out of its own address, presented keys are taken
as sent (never trimmed), an over-long key and an over-long request head are answered rather than
dropped, and the metrics name organizations only when configured and ask for their token when one
is set."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient, HTTPResponse
from tornado.testing import bind_unused_port

import store.store
from app.config import Settings
from app.services import Services
from app.web import make_api_app, make_frame_app, make_metrics_app, make_server
from services.accounts.service import BAD_KEY_BURST
from services.metrics import HIDDEN_ORG
from store import keys
from store.keys import MAX_KEY_LENGTH
from tests.conftest import make_settings
from tests.origin import Origin, serve

ARTICLE = "<html><head><title>Notes</title></head><body><h1>Notes</h1><p>Words.</p></body></html>"


class ArticleHandler(tornado.web.RequestHandler):
    def get(self) -> None:
        self.finish(ARTICLE)


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Keys cached as in production, and a miss remembered long enough that "while it is cached"
    never depends on how fast this machine is."""
    monkeypatch.setattr(store.store, "MISS_CACHE_SECONDS", 60.0)
    settings = make_settings(tmp_path)
    settings.store.auth_cache_seconds = 60.0
    return settings


def listen(app: tornado.web.Application) -> Origin:
    """``app`` on 127.0.0.1 at a free port, behind the server ``server.py`` would give it."""
    sock, port = bind_unused_port()
    server = make_server(app, xheaders=False)
    server.add_sockets([sock])
    return Origin(server, port)


@pytest.fixture
def api(io_loop: Any, services: Services) -> Iterator[Origin]:
    origin = listen(make_api_app(services))
    yield origin
    io_loop.run_sync(origin.close)


@pytest.fixture
def frames(io_loop: Any, services: Services) -> Iterator[Origin]:
    origin = listen(make_frame_app(services))
    yield origin
    io_loop.run_sync(origin.close)


@pytest.fixture
def site(io_loop: Any) -> Iterator[Origin]:
    origin = serve(tornado.web.Application([(r"/article", ArticleHandler)]))
    yield origin
    io_loop.run_sync(origin.close)


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The keys looked up in the database, in order (the real lookup still runs)."""
    seen: list[str] = []
    real = keys.find_key

    def counted(db: Any, key: str) -> Any:
        seen.append(key)
        return real(db, key)

    monkeypatch.setattr(keys, "find_key", counted)
    return seen


async def get(url: str, **kwargs: Any) -> HTTPResponse:
    client = AsyncHTTPClient()
    return await client.fetch(url, raise_error=False, request_timeout=30, **kwargs)


def frame_list(frames: Origin, app_id: str) -> str:
    return frames.url(f"/api/v1/frames?app_id={quote(app_id, safe='')}")


def markdown(api: Origin, target: str, app_id: str | None = None) -> str:
    query = "" if app_id is None else f"?app_id={quote(app_id, safe='')}"
    return api.url(f"/api/3.0/markdown/{quote(target, safe='')}{query}")


def oembed_error(response: HTTPResponse, status: int, code: str) -> str:
    """The oEmbed-shaped error's message, after checking the shape."""
    assert response.code == status, response.body
    body = json.loads(response.body)
    assert body["success"] is False and body["error"]["code"] == code
    return str(body["error"]["message"])


def markdown_error(response: HTTPResponse, status: int, code: int) -> str:
    """The Markdown-shaped error's message, after checking the shape."""
    assert response.code == status, response.body
    body = json.loads(response.body)
    assert set(body) == {"error", "request_id"} and body["error"]["code"] == code
    return str(body["error"]["message"])


# -- the unknown-key brake -----------------------------------------------------------------------


@pytest.mark.gen_test(timeout=90)
async def test_bad_keys_never_lock_a_valid_key_out_of_its_address(
    services: Services, frames: Origin
) -> None:
    """Behind a reverse proxy every client has the proxy's address: one client's made-up keys
    must not refuse another's valid key. Bad keys come in bursts of ten at once, far faster than
    the brake's one a second, and a valid key (query or header) follows each burst."""
    key = services.store.create_key("acme", "pro").key
    made_up = [keys.new_key() for _ in range(3)]
    bad_statuses: list[int] = []
    throttled: HTTPResponse | None = None
    for burst in range(8):
        # A fresh key each time, one of a few repeated (cached misses) and a malformed one.
        bad = [[keys.new_key(), made_up[i % 3], "pc_nope"][i % 3] for i in range(10)]
        answers = await asyncio.gather(*(get(frame_list(frames, app_id)) for app_id in bad))
        bad_statuses += [answer.code for answer in answers]
        throttled = throttled or next((a for a in answers if a.code == 429), None)
        valid = await get(frame_list(frames, key))
        assert valid.code == 200, (burst, valid.body)
        by_header = await get(frames.url("/api/v1/frames"), headers={"api-key": key})
        assert by_header.code == 200, (burst, by_header.body)

    assert set(bad_statuses) == {401, 429}
    # The burst is answered 401; what comes faster than one a second after it, 429.
    assert bad_statuses[:BAD_KEY_BURST] == [401] * BAD_KEY_BURST
    assert bad_statuses.count(429) >= 20
    assert throttled is not None
    assert "unknown keys" in oembed_error(throttled, 429, "rate_limited")
    assert int(throttled.headers["Retry-After"]) >= 1


@pytest.mark.gen_test(timeout=30)
async def test_a_known_bad_key_costs_no_lookup_while_cached(
    services: Services, frames: Origin, lookups: list[str]
) -> None:
    bad = keys.new_key()
    for _ in range(5):
        oembed_error(await get(frame_list(frames, bad)), 401, "unauthorized")
    assert lookups == [bad]

    # Keys that cannot be issued keys are never looked up at all.
    for app_id in ("pc_nope", "x" * (MAX_KEY_LENGTH + 1), f" {bad}"):
        assert (await get(frame_list(frames, app_id))).code in (400, 401)
    assert lookups == [bad]

    key = services.store.create_key("acme", "pro").key
    for _ in range(3):
        assert (await get(frame_list(frames, key))).code == 200
    assert lookups == [bad, key]


# -- keys taken as sent --------------------------------------------------------------------------


def _mangled(key: str) -> list[str]:
    return [f" {key}", f"{key} ", f"{key}\t", f"\t{key}", f"{key}\x00", f"{key}\r\n", f"\x01{key}"]


@pytest.mark.gen_test(timeout=60)
async def test_keys_with_spaces_or_control_characters_are_refused_not_trimmed(
    services: Services, api: Origin, frames: Origin, site: Origin, lookups: list[str]
) -> None:
    key = services.store.create_key("acme", "pro").key
    for app_id in [*_mangled(key), key[:10] + " " + key[10:]]:
        message = oembed_error(await get(frame_list(frames, app_id)), 401, "unauthorized")
        assert message == "app_id must not contain spaces or control characters"
        message = markdown_error(await get(markdown(api, site.url("/article"), app_id)), 401, -1000)
        assert message == "app_id must not contain spaces or control characters"
    # A tab inside the header's value reaches the handler (spaces around it are not part of an
    # HTTP header's value; other control characters are refused by Tornado's parser with 400).
    response = await get(frames.url("/api/v1/frames"), headers={"api-key": f"{key}\tx"})
    assert "the api-key header must not" in oembed_error(response, 401, "unauthorized")
    assert lookups == []
    # The key as issued works on both listeners.
    assert (await get(frame_list(frames, key))).code == 200
    assert (await get(markdown(api, site.url("/article"), key))).code == 200


@pytest.mark.gen_test(timeout=30)
async def test_a_key_with_non_ascii_characters_is_told_so(
    services: Services, api: Origin, frames: Origin, site: Origin, lookups: list[str]
) -> None:
    key = services.store.create_key("acme", "pro").key
    for header in (f"{key}é".encode(), f"{key}€".encode(), f"{key}é".encode("latin-1")):
        request = b"GET /api/v1/frames HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        request += b"api-key: " + header + b"\r\n\r\n"
        status, _, body = answer_of(await raw_exchange(frames, request))
        assert status == 401, body
        assert body["error"]["message"] == "the api-key header must be ASCII", body
    message = markdown_error(await get(markdown(api, site.url("/article"), key + "ü")), 401, -1000)
    assert message == "app_id must be ASCII"
    assert lookups == []


@pytest.mark.gen_test(timeout=30)
async def test_an_over_long_key_is_refused_without_a_lookup(
    services: Services, api: Origin, frames: Origin, lookups: list[str]
) -> None:
    long_key = "pc_" + "a" * MAX_KEY_LENGTH
    message = oembed_error(await get(frame_list(frames, long_key)), 400, "invalid_request")
    assert message == f"app_id is longer than any API key (at most {MAX_KEY_LENGTH} characters)"
    response = await get(frames.url("/api/v1/frames"), headers={"api-key": long_key})
    assert "the api-key header is longer" in oembed_error(response, 400, "invalid_request")
    message = markdown_error(await get(markdown(api, "http://127.0.0.1/", long_key)), 400, -2203)
    assert "longer than any API key" in message
    assert long_key not in message
    # One character shorter is merely unknown.
    oembed_error(await get(frame_list(frames, long_key[:MAX_KEY_LENGTH])), 401, "unauthorized")
    assert lookups == []


# -- over-long request heads and bodies ----------------------------------------------------------


async def raw_exchange(origin: Origin, request: bytes) -> bytes:
    """Send ``request`` on a new connection and read until the server closes it. What the server
    answered before breaking the connection off is returned, possibly nothing."""
    reader, writer = await asyncio.open_connection(origin.host, origin.port)
    received = b""
    try:
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):  # the break-off itself
            writer.write(request)
            await asyncio.wait_for(writer.drain(), 20)
            while chunk := await asyncio.wait_for(reader.read(65536), 20):
                received += chunk
    finally:
        writer.close()
    return received


def head(path: str, *headers: str) -> bytes:
    lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close", *headers, "", ""]
    return "\r\n".join(lines).encode()


@pytest.mark.gen_test(timeout=60)
async def test_a_100_kb_app_id_is_answered_in_the_endpoints_shape(
    services: Services, api: Origin, frames: Origin
) -> None:
    huge = "k" * 100_000
    path = "/api/3.0/markdown/" + quote("http://127.0.0.1/", safe="") + f"?app_id={huge}"
    answer = await raw_exchange(api, head(path))
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line == b"HTTP/1.1 400 Bad Request", answer[:300]
    body = json.loads(rest.partition(b"\r\n\r\n")[2])
    assert body["error"]["code"] == -2203 and "longer than any API key" in body["error"]["message"]

    answer = await raw_exchange(frames, head("/api/v1/frames", f"api-key: {huge}"))
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:300]
    assert b'"invalid_request"' in answer


@pytest.mark.gen_test(timeout=60)
async def test_a_1_mb_request_line_does_not_hurt_the_server(
    services: Services, api: Origin
) -> None:
    answer = await raw_exchange(api, head("/healthz?app_id=" + "k" * 1_000_000))
    # Beyond the head Tornado reads the connection is dropped; if anything came back, it says
    # the request was refused.
    assert answer == b"" or answer.split(b" ")[1] in (b"400", b"431"), answer[:300]
    # The server goes on answering, on new connections and in parallel.
    answers = await asyncio.gather(*(get(api.url("/healthz")) for _ in range(5)))
    assert [answer.code for answer in answers] == [200] * 5


def answer_of(raw: bytes) -> tuple[int, dict[str, str], dict[str, Any]]:
    """The status, headers (lowercased names) and JSON body of one raw HTTP answer."""
    head_text, _, rest = raw.partition(b"\r\n\r\n")
    status_line, *lines = head_text.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", len(rest)))
    return int(status_line.split(" ")[1]), headers, json.loads(rest[:length])


@pytest.mark.gen_test(timeout=60)
async def test_a_large_body_is_refused_before_it_is_read(
    services: Services, api: Origin, frames: Origin
) -> None:
    key = services.store.create_key("acme", "pro").key
    request = head(
        f"/api/v1/frames/0123456789abcdef/refresh?app_id={key}", "Content-Length: 100000000"
    ).replace(b"GET ", b"POST ", 1)
    status, headers, body = answer_of(await raw_exchange(frames, request))  # 100 MB never follow
    assert status == 413 and headers.get("x-request-id"), headers
    assert body["success"] is False and body["error"]["code"] == "payload_too_large"

    for path in ("/api/3.0/batch", "/api/3.0/crawl", "/api/3.0/map"):
        request = head(
            f"{path}?app_id={key}", "Content-Type: application/json", "Content-Length: 3000000"
        ).replace(b"GET ", b"POST ", 1)
        status, headers, body = answer_of(await raw_exchange(api, request))
        assert status == 413, (path, body)
        assert body["request_id"] == headers["x-request-id"] and headers["x-billing-requests"]
        assert body["error"]["code"] == -2205 and "2252800 bytes" in body["error"]["message"]


@pytest.mark.gen_test(timeout=60)
async def test_a_chunked_body_past_the_limit_is_refused_as_it_arrives(
    services: Services, api: Origin
) -> None:
    key = services.store.create_key("acme", "pro").key
    request = head(
        f"/api/3.0/batch?app_id={key}",
        "Content-Type: application/json",
        "Transfer-Encoding: chunked",
    ).replace(b"GET ", b"POST ", 1)
    piece = b'{"urls": ["' + b"a" * 600_000
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for _ in range(4)) + b"0\r\n\r\n"
    status, headers, body = answer_of(await raw_exchange(api, request + chunks))
    assert status == 413 and body["request_id"] == headers["x-request-id"], body
    assert body["error"]["code"] == -2205

    # A body within the limit, chunked, is read whole (and found to lack a field).
    small = json.dumps({"limit": 5}).encode()
    request = head(
        f"/api/3.0/map?app_id={key}",
        "Content-Type: application/json",
        "Transfer-Encoding: chunked",
    ).replace(b"GET ", b"POST ", 1)
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(small), small)
    status, headers, body = answer_of(await raw_exchange(api, request + chunked))
    assert status == 400 and "url is required" in body["error"]["message"], body


# -- organizations in the metrics ----------------------------------------------------------------


async def _billed_markdown_and_metrics(
    services: Services, site: Origin, org: str
) -> tuple[str, Callable[[str], float]]:
    """Bill one Markdown request of ``org`` and read the metrics listener: the exposition and a
    reader of pagecast_credits_total{endpoint="markdown", org=...}."""
    api = listen(make_api_app(services))
    metrics = listen(make_metrics_app(services))
    try:
        key = services.store.create_key(org, "pro").key
        response = await get(markdown(api, site.url("/article"), key))
        assert response.code == 200 and response.headers["X-BILLING-REQUESTS"] == "1"
        exposition = (await get(metrics.url("/metrics"))).body.decode()
    finally:
        await api.close()
        await metrics.close()

    def credits(label: str) -> float:
        prefix = f'pagecast_credits_total{{endpoint="markdown",org="{label}"}} '
        lines = [line for line in exposition.splitlines() if line.startswith(prefix)]
        return float(lines[0].removeprefix(prefix)) if lines else 0.0

    return exposition, credits


@pytest.mark.gen_test(timeout=60)
async def test_metrics_leave_organizations_unnamed_by_default(
    services: Services, site: Origin
) -> None:
    assert services.settings.server.metrics_org_labels is False
    _, before = await _billed_markdown_and_metrics(services, site, "hidden-org-a")
    exposition, after = await _billed_markdown_and_metrics(services, site, "hidden-org-b")
    # Both organizations' credits add up in the one series the label keeps.
    assert after(HIDDEN_ORG) == before(HIDDEN_ORG) + 1
    assert "hidden-org" not in exposition


@pytest.mark.gen_test(timeout=60)
async def test_metrics_name_organizations_when_configured(services: Services, site: Origin) -> None:
    services.settings.server.metrics_org_labels = True
    exposition, credits = await _billed_markdown_and_metrics(services, site, "named-org")
    assert credits("named-org") >= 1
    assert 'org="named-org"' in exposition


@pytest.mark.gen_test(timeout=60)
async def test_the_metrics_token_is_asked_for_when_set(services: Services) -> None:
    metrics = listen(make_metrics_app(services))
    try:
        # No token set: open, as before.
        assert (await get(metrics.url("/metrics"))).code == 200
        token = "s3cret-scrape-token"
        services.settings.server.metrics_token = token
        for headers in (
            {},
            {"Authorization": "Bearer wrong-token"},
            {"Authorization": f"Bearer {token}x"},
            {"Authorization": f"Basic {token}"},
            {"Authorization": token},
            {"X-API-Key": token},
        ):
            refused = await get(metrics.url("/metrics"), headers=headers)
            message = oembed_error(refused, 401, "unauthorized")
            assert "Authorization: Bearer" in message and token not in message
            assert refused.headers["WWW-Authenticate"].startswith("Bearer")
            assert b"pagecast_requests_total" not in refused.body
        answered = await get(metrics.url("/metrics"), headers={"Authorization": f"Bearer {token}"})
        assert answered.code == 200 and b"pagecast_requests_total" in answered.body
        lower = await get(metrics.url("/metrics"), headers={"Authorization": f"bearer {token}"})
        assert lower.code == 200
        # The listener's probes stay open.
        assert (await get(metrics.url("/healthz"))).code == 200
    finally:
        await metrics.close()


def test_a_flood_of_unknown_keys_never_pushes_known_keys_out_of_the_cache() -> None:
    cache = keys.AuthCache(hit_seconds=60, miss_seconds=60, max_entries=10)
    known = {
        f"hit-{n}": keys.KeyInfo(prefix=f"pc_{n:08d}", org="acme", org_id=1, plan="pro")
        for n in range(4)
    }
    for digest, info in known.items():
        cache.put(digest, info)
    for n in range(1000):
        cache.put(f"miss-{n}", None)
    for digest, info in known.items():
        entry = cache.get(digest)
        assert entry is not None and entry.info == info
    # The flood is bounded and its latest keys are still remembered as unknown.
    remembered = [n for n in range(1000) if cache.get(f"miss-{n}") is not None]
    assert 0 < len(remembered) <= 6 and 999 in remembered
    # A known key looked up now makes room by dropping misses.
    cache.put("hit-new", known["hit-0"])
    assert cache.get("hit-new") is not None


@pytest.mark.gen_test(timeout=60)
async def test_readiness_details_are_told_only_on_the_metrics_listener_or_when_configured(
    services: Services, api: Origin, frames: Origin
) -> None:
    details = {"reasons", "resources", "farm"}
    for listener in (api, frames):
        response = await get(listener.url("/readyz"))
        body = json.loads(response.body)
        assert response.code == 503 and body["status"] == "not_ready"  # no farm in this test
        assert body["failed"] == ["farm"] and body["checks"]["database"] is True
        assert not details & set(body), body
        assert response.headers["X-Request-Id"]

    metrics = listen(make_metrics_app(services))
    try:
        response = await get(metrics.url("/readyz"))
        body = json.loads(response.body)
        assert response.code == 503 and details <= set(body), body
        assert "memory" in body["resources"]
        token = "s3cret-scrape-token"
        services.settings.server.metrics_token = token
        response = await get(metrics.url("/readyz"))
        assert response.code == 503 and not details & set(json.loads(response.body))
        response = await get(metrics.url("/readyz"), headers={"Authorization": f"Bearer {token}"})
        assert response.code == 503 and details <= set(json.loads(response.body))
    finally:
        await metrics.close()

    services.settings.server.public_readiness_details = True
    response = await get(api.url("/readyz"))
    assert response.code == 503 and details <= set(json.loads(response.body))
