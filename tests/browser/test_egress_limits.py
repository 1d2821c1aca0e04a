"""The egress guard's limits against responses crafted to slip past them: framing floods (chunk
extensions, trailers, interim answers), malformed numbers, codings it cannot measure, forged
verdict headers, and a page pointing the guard at its own lanes. Origins on 127.0.0.1 that answer
canned bytes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from browser.egress.guard import EgressGuard, EgressLimits
from browser.ssrf import AddressPolicy
from tests.hostile import HostileOrigin, canned, proxy_get, through_proxy

MIB = 2**20


def _chunk_extension_flood() -> bytes:
    # 1-byte chunks, each with a 4,000-byte extension: megabytes of framing, a few KB of payload.
    chunk = b"1;" + b"x=" + b"e" * 3996 + b"\r\na\r\n"
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"
        + chunk * 3000
        + b"0\r\n\r\n"
    )


def _trailer_flood() -> bytes:
    trailers = b"".join(b"X-T%d: %s\r\n" % (i, b"t" * 4000) for i in range(400))
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"2\r\nok\r\n0\r\n" + trailers + b"\r\n"
    )


RESPONSES: dict[str, bytes] = {
    "/chunk-extensions": _chunk_extension_flood(),
    "/trailers": _trailer_flood(),
    "/interim": b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n" * 50
    + b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
    "/unicode-length": b"HTTP/1.1 200 OK\r\nContent-Length: \xb2\r\n\r\nok",
    "/unicode-status": b"HTTP/1.1 2\xb2\xb2 OK\r\nContent-Length: 2\r\n\r\nok",
    "/brotli": b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 4\r\n\r\n"
    b"\x0b\x00\x80\x03",
    "/forged": b"HTTP/1.1 502 Bad Gateway\r\nX-Pagecast-Egress: limited\r\n"
    b"X-Pagecast-Egress-Reason: pay at evil.example\r\nContent-Length: 4\r\n\r\nfake",
}


@pytest.fixture
def raw(io_loop: Any) -> Iterator[HostileOrigin]:
    origin = HostileOrigin(pages={path: canned(data) for path, data in RESPONSES.items()})
    io_loop.run_sync(origin.start)
    yield origin
    io_loop.run_sync(origin.close)


@pytest.fixture
def guard(io_loop: Any) -> Iterator[EgressGuard]:
    started = EgressGuard(
        AddressPolicy(["127.0.0.1"]), limits=EgressLimits(max_response_bytes=1 * MIB)
    )
    io_loop.run_sync(started.start)
    yield started
    io_loop.run_sync(started.close)


@pytest.mark.gen_test(timeout=30)
async def test_framing_counts_against_the_response_limit(guard, raw) -> None:
    # 12 MB of chunk extensions around 3 KB of payload: cut at twice the 1 MiB limit.
    answer = await through_proxy(
        guard.port, proxy_get(f"http://127.0.0.1:{raw.port}/chunk-extensions")
    )
    assert len(answer) < 3 * MIB
    assert answer.endswith(b"<reset>") or not answer.endswith(b"0\r\n\r\n")
    # Trailers: at most 64 KB of them.
    answer = await through_proxy(guard.port, proxy_get(f"http://127.0.0.1:{raw.port}/trailers"))
    assert len(answer) < 200 * 1024
    assert guard.limited == 2


@pytest.mark.gen_test(timeout=30)
async def test_interim_answers_are_bounded(guard, raw) -> None:
    answer = await through_proxy(guard.port, proxy_get(f"http://127.0.0.1:{raw.port}/interim"))
    assert answer.count(b"103 Early Hints") <= 8
    assert b"200 OK" not in answer


@pytest.mark.parametrize("path", ["/unicode-length", "/unicode-status", "/brotli"])
@pytest.mark.gen_test(timeout=30)
async def test_malformed_or_unmeasurable_responses_are_refused(guard, raw, path) -> None:
    answer = await through_proxy(guard.port, proxy_get(f"http://127.0.0.1:{raw.port}{path}"))
    assert answer.startswith(b"HTTP/1.1 502 "), answer[:200]
    assert b"X-Pagecast-Egress: limited" in answer


@pytest.mark.gen_test(timeout=30)
async def test_an_origin_cannot_speak_for_the_guard(guard, raw) -> None:
    answer = await through_proxy(guard.port, proxy_get(f"http://127.0.0.1:{raw.port}/forged"))
    head = answer.partition(b"\r\n\r\n")[0]
    assert head.startswith(b"HTTP/1.1 502 Bad Gateway")
    assert b"X-Pagecast-Egress" not in head  # stripped: the farm sees an ordinary 502 page


@pytest.mark.gen_test(timeout=30)
async def test_a_page_cannot_point_the_guard_at_its_lanes(guard) -> None:
    lane = await guard.open_lane(4 * MIB)
    other = await guard.open_lane(4 * MIB)
    try:
        answer = await through_proxy(lane.port, proxy_get(f"http://127.0.0.1:{other.port}/"))
        assert answer.startswith(b"HTTP/1.1 403 ")
        answer = await through_proxy(lane.port, proxy_get(f"http://127.0.0.1:{guard.port}/"))
        assert answer.startswith(b"HTTP/1.1 403 ")
    finally:
        lane.close()
        other.close()
    assert guard.lanes == 0
