"""The fetcher against a real origin on 127.0.0.1: charsets, redirects, limits and error kinds."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import tornado.web
from prometheus_client import REGISTRY
from tornado.iostream import IOStream
from tornado.tcpserver import TCPServer
from tornado.testing import bind_unused_port

from browser.fetch.charset import decode_text
from browser.fetch.client import Fetcher, FetchError, FetchSettings
from browser.resolver import Resolver, static_resolver
from tests.origin import Origin, closed_port, serve

FRENCH = (
    "<html><body><p>Voilà déjà l\u2019été : les élèves révisent leurs leçons, et « ça » prend du "
    "temps. Où est passé le café ? Très bien, à bientôt. Le garçon a reçu une lettre écrite à "
    "la main — “merci” dit-il.</p></body></html>"
)
JAPANESE = (
    "<html><body><p>これは日本語で書かれたテスト用のページです。文字コードはシフトJISで、"
    "宣言はありません。東京都の天気は晴れです。</p></body></html>"
)
RUSSIAN = "Привет, мир! Это тестовая страница на русском языке."


class BytesHandler(tornado.web.RequestHandler):
    """Answers fixed bytes with a fixed Content-Type (None: no Content-Type at all)."""

    def initialize(self, body: bytes, content_type: str | None, status: int = 200) -> None:
        self.body, self.content_type, self.status = body, content_type, status

    def get(self) -> None:
        self.set_status(self.status)
        if self.content_type is None:
            self.clear_header("Content-Type")
        else:
            self.set_header("Content-Type", self.content_type)
        self.finish(self.body)


class StatusHandler(tornado.web.RequestHandler):
    def get(self, status: str) -> None:
        self.set_status(int(status))
        self.finish("<p>go away</p>")


class RedirectHandler(tornado.web.RequestHandler):
    def initialize(self, location: str, delay: float = 0.0) -> None:
        self.location, self.delay = location, delay

    async def get(self, *args: str) -> None:
        if self.delay:
            await asyncio.sleep(self.delay)
        self.redirect(self.location.format(*args), status=302)


class ChainHandler(tornado.web.RequestHandler):
    """/chain/3 redirects to /chain/2 ... /chain/0 redirects to the UTF-8 page."""

    def get(self, hops: str) -> None:
        left = int(hops)
        self.redirect(f"/chain/{left - 1}" if left else "/utf8")


class SlowHandler(tornado.web.RequestHandler):
    async def get(self) -> None:
        await asyncio.sleep(3)
        self.finish("late")


class StreamHandler(tornado.web.RequestHandler):
    """A chunked body without Content-Length, so only the running byte count can stop it."""

    async def get(self) -> None:
        self.set_header("Content-Type", "text/html")
        for _ in range(8):
            self.write(b"x" * 1024)
            await self.flush()


class DeclaredHugeHandler(tornado.web.RequestHandler):
    """Declares a body far over any cap, then sends nothing until the client hangs up."""

    def initialize(self) -> None:
        self.gone = asyncio.Event()

    def on_connection_close(self) -> None:
        self.gone.set()

    async def get(self) -> None:
        self.set_header("Content-Type", "text/html")
        self.set_header("Content-Length", "50000000")
        await self.flush()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.gone.wait(), 3)


class EchoHandler(tornado.web.RequestHandler):
    def get(self) -> None:
        self.finish(dict(self.request.headers))


class GzipHandler(tornado.web.RequestHandler):
    def initialize(self, body: bytes) -> None:
        self.body = body

    def get(self) -> None:
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Content-Encoding", "gzip")
        self.finish(gzip.compress(self.body))


def _page(body: bytes, content_type: str | None, status: int = 200) -> Any:
    return BytesHandler, {"body": body, "content_type": content_type, "status": status}


def make_app() -> tornado.web.Application:
    return tornado.web.Application(
        [
            (r"/utf8", *_page("<p>Grüße ✓</p>".encode(), "text/html; charset=utf-8")),
            (r"/latin1", *_page("<p>café</p>".encode("latin-1"), "text/html; charset=ISO-8859-1")),
            (
                r"/meta",
                *_page(
                    f'<html><head><meta charset="windows-1251"></head><p>{RUSSIAN}</p>'.encode(
                        "cp1251"
                    ),
                    "text/html",
                ),
            ),
            (
                r"/http-equiv",
                *_page(
                    (
                        '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'
                        + JAPANESE
                    ).encode("shift_jis"),
                    "text/html",
                ),
            ),
            (r"/bom", *_page(b"\xef\xbb\xbf<p>na\xc3\xafve</p>", "text/html")),
            (r"/cp1252", *_page(FRENCH.encode("cp1252"), "text/html")),
            (r"/sjis", *_page(JAPANESE.encode("shift_jis"), "text/html")),
            (r"/bogus-charset", *_page("<p>Grüße</p>".encode(), "text/html; charset=x-no-such")),
            (r"/no-type", *_page(b"<!DOCTYPE html><title>t</title><p>hi</p>", None)),
            (r"/json", *_page(b'{"title": "caf\xc3\xa9"}', "application/json")),
            (r"/image", *_page(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "image/png")),
            (r"/status/404", *_page(b"<p>not here</p>", "text/html", 404)),
            (r"/status/(\d+)", StatusHandler),
            (r"/chain/(\d+)", ChainHandler),
            (r"/loop", RedirectHandler, {"location": "/loop"}),
            (r"/dir/relative", RedirectHandler, {"location": "../utf8"}),
            (r"/slow-loop", RedirectHandler, {"location": "/slow-loop", "delay": 0.4}),
            (r"/slow", SlowHandler),
            (r"/big", *_page(b"x" * 10_000, "text/html")),
            (r"/stream", StreamHandler),
            (r"/gzip", GzipHandler, {"body": "<p>squeezed ✓</p>".encode()}),
            (r"/gzip-bomb", GzipHandler, {"body": b"a" * 200_000}),
            (r"/declared-huge", DeclaredHugeHandler),
            (r"/echo", EchoHandler),
        ]
    )


@pytest.fixture
def origin(io_loop: Any) -> Iterator[Origin]:
    site = serve(make_app())
    yield site
    io_loop.run_sync(site.close)


FetcherFactory = Callable[..., Fetcher]


@pytest.fixture
def make_fetcher(io_loop: Any) -> Iterator[FetcherFactory]:
    fetchers: list[Fetcher] = []

    def make(resolver: Resolver | None = None, **overrides: Any) -> Fetcher:
        settings = FetchSettings(**{"allow_hosts": ["127.0.0.1"], **overrides})
        fetcher = Fetcher(settings, resolver)
        fetchers.append(fetcher)
        return fetcher

    yield make
    for fetcher in fetchers:
        fetcher.close()


# -- success and charsets -----------------------------------------------------------------------


@pytest.mark.gen_test
async def test_utf8_page(origin: Origin, make_fetcher: FetcherFactory) -> None:
    result = await make_fetcher().fetch(origin.url("/utf8"))
    assert result.ok and result.error is None and result.message == ""
    assert result.status == 200
    assert result.content_type == "text/html"
    assert result.headers["content-type"] == "text/html; charset=utf-8"
    assert result.charset == "utf-8"
    assert result.text == "<p>Grüße ✓</p>"
    assert result.body == "<p>Grüße ✓</p>".encode()
    assert result.is_html
    assert result.url == result.final_url == origin.url("/utf8")
    assert result.redirects == []
    assert 0 < result.elapsed < 5


@pytest.mark.gen_test
@pytest.mark.parametrize(
    ("path", "expected", "charset"),
    [
        ("/latin1", "café", "cp1252"),
        ("/meta", RUSSIAN, "cp1251"),
        ("/http-equiv", "東京都の天気は晴れです", "cp932"),
        ("/bom", "<p>naïve</p>", "utf-8"),
        ("/cp1252", "l\u2019été : les élèves", "cp1252"),
        ("/cp1252", "“merci”", "cp1252"),
        ("/sjis", "これは日本語で書かれた", "cp932"),
        ("/bogus-charset", "Grüße", "utf-8"),
    ],
)
async def test_charsets(
    origin: Origin, make_fetcher: FetcherFactory, path: str, expected: str, charset: str
) -> None:
    result = await make_fetcher().fetch(origin.url(path))
    assert result.ok
    assert result.text is not None
    assert expected in result.text
    assert not result.text.startswith("\ufeff")
    assert "\ufffd" not in result.text
    assert result.charset == charset


def test_decode_text_order() -> None:
    # A byte order mark beats the header; the header beats <meta>; unsafe labels are skipped.
    assert decode_text(b"\xef\xbb\xbfcaf\xc3\xa9", "iso-8859-1") == ("café", "utf-8")
    assert decode_text(b'<meta charset="utf-8">caf\xe9', "latin1") == (
        '<meta charset="utf-8">café',
        "cp1252",
    )
    assert decode_text(b"+AGEAYgBj-", "utf-7") == ("+AGEAYgBj-", "utf-8")
    assert decode_text(b"abc", "base64") == ("abc", "utf-8")
    assert decode_text(b'<meta charset="utf-16"><p>x</p>')[1] == "utf-8"
    assert decode_text(b"\xff\xfeh\x00i\x00") == ("hi", "utf-16-le")
    text, codec = decode_text(b"caf\xe9 \xff\xfe broken", "utf-8")
    assert codec == "utf-8" and text.startswith("caf\ufffd")


@pytest.mark.gen_test
async def test_gzip_body_is_decoded(origin: Origin, make_fetcher: FetcherFactory) -> None:
    result = await make_fetcher().fetch(origin.url("/gzip"))
    assert result.ok
    assert result.headers["content-encoding"] == "gzip"
    assert result.body == "<p>squeezed ✓</p>".encode()
    assert result.text == "<p>squeezed ✓</p>"


@pytest.mark.gen_test
async def test_non_html_content(origin: Origin, make_fetcher: FetcherFactory) -> None:
    fetcher = make_fetcher()
    data = await fetcher.fetch(origin.url("/json"))
    assert data.ok and not data.is_html
    assert data.content_type == "application/json"
    assert data.text is not None and json.loads(data.text) == {"title": "café"}
    image = await fetcher.fetch(origin.url("/image"))
    assert image.ok and not image.is_html
    assert image.content_type == "image/png"
    assert image.text is None and image.body.startswith(b"\x89PNG")


@pytest.mark.gen_test
async def test_missing_content_type_is_sniffed(
    origin: Origin, make_fetcher: FetcherFactory
) -> None:
    result = await make_fetcher().fetch(origin.url("/no-type"))
    assert result.ok
    assert "content-type" not in result.headers
    assert result.content_type == ""
    assert result.is_html
    assert result.text == "<!DOCTYPE html><title>t</title><p>hi</p>"


@pytest.mark.gen_test
async def test_request_headers(origin: Origin, make_fetcher: FetcherFactory) -> None:
    fetcher = make_fetcher(user_agent="PagecastTest/1.0")
    result = await fetcher.fetch(
        origin.url("/echo"), accept_lang="de-DE,de;q=0.9", headers={"X-Extra": "yes"}
    )
    assert result.ok and result.text is not None
    sent = json.loads(result.text)
    assert sent["User-Agent"] == "PagecastTest/1.0"
    assert sent["Accept-Language"] == "de-DE,de;q=0.9"
    assert sent["X-Extra"] == "yes"
    assert "gzip" in sent["Accept-Encoding"]
    assert sent["Accept"].startswith("text/html")
    with pytest.raises(ValueError, match="line break"):
        await fetcher.fetch(origin.url("/echo"), headers={"X-Evil": "a\r\nHost: elsewhere"})


# -- redirects ----------------------------------------------------------------------------------


@pytest.mark.gen_test
async def test_redirect_chain_within_limit(origin: Origin, make_fetcher: FetcherFactory) -> None:
    result = await make_fetcher(max_redirects=4).fetch(origin.url("/chain/3"))
    assert result.ok and result.status == 200
    assert result.redirects == [
        origin.url("/chain/2"),
        origin.url("/chain/1"),
        origin.url("/chain/0"),
        origin.url("/utf8"),
    ]
    assert result.final_url == origin.url("/utf8")
    assert result.url == origin.url("/chain/3")
    assert result.text == "<p>Grüße ✓</p>"


@pytest.mark.gen_test
async def test_redirect_chain_over_limit(origin: Origin, make_fetcher: FetcherFactory) -> None:
    result = await make_fetcher(max_redirects=3).fetch(origin.url("/chain/3"))
    assert result.error is FetchError.too_many_redirects
    assert len(result.redirects) == 3


@pytest.mark.gen_test
async def test_redirect_loop(origin: Origin, make_fetcher: FetcherFactory) -> None:
    result = await make_fetcher(max_redirects=5).fetch(origin.url("/loop"))
    assert result.error is FetchError.too_many_redirects
    assert not result.ok
    assert result.redirects == [origin.url("/loop")] * 5
    assert result.message == "more than 5 redirects"


@pytest.mark.gen_test
async def test_relative_redirect(origin: Origin, make_fetcher: FetcherFactory) -> None:
    result = await make_fetcher().fetch(origin.url("/dir/relative"))
    assert result.ok
    assert result.redirects == [origin.url("/utf8")]
    assert result.final_url == origin.url("/utf8")


# -- limits -------------------------------------------------------------------------------------


@pytest.mark.gen_test
@pytest.mark.parametrize("path", ["/big", "/stream", "/gzip-bomb"])
async def test_body_over_cap(origin: Origin, make_fetcher: FetcherFactory, path: str) -> None:
    fetcher = make_fetcher(max_body_bytes=4096)
    result = await fetcher.fetch(origin.url(path))
    assert result.error is FetchError.too_large
    assert result.body == b""
    assert "4096 bytes" in result.message
    # The same page fits under a larger cap, so the cap (not the page) made the difference.
    roomy = await make_fetcher(max_body_bytes=1024 * 1024).fetch(origin.url(path))
    assert roomy.ok and len(roomy.body) > 4096


@pytest.mark.gen_test
async def test_declared_length_over_cap_fails_before_the_body(
    origin: Origin, make_fetcher: FetcherFactory
) -> None:
    # No body byte ever arrives: only the declared Content-Length can end this fetch early.
    result = await make_fetcher(max_body_bytes=4096, total_timeout=2.0).fetch(
        origin.url("/declared-huge")
    )
    assert result.error is FetchError.too_large
    assert result.elapsed < 1


@pytest.mark.gen_test
async def test_slow_page_times_out(origin: Origin, make_fetcher: FetcherFactory) -> None:
    result = await make_fetcher(total_timeout=1.0).fetch(origin.url("/slow"))
    assert result.error is FetchError.timeout
    assert 0.9 < result.elapsed < 2.5


@pytest.mark.gen_test
async def test_deadline_spans_redirects(origin: Origin, make_fetcher: FetcherFactory) -> None:
    # Every hop answers in 0.4 s, well within the limit on its own; the hops together do not.
    result = await make_fetcher(total_timeout=1.0, max_redirects=20).fetch(origin.url("/slow-loop"))
    assert result.error is FetchError.timeout
    assert 1 <= len(result.redirects) <= 3
    assert result.elapsed < 2


# -- error kinds --------------------------------------------------------------------------------


@pytest.mark.gen_test
async def test_not_found_keeps_body(origin: Origin, make_fetcher: FetcherFactory) -> None:
    result = await make_fetcher().fetch(origin.url("/status/404"))
    assert result.error is FetchError.http_status
    assert not result.ok
    assert result.status == 404
    assert result.body == b"<p>not here</p>"
    assert result.text == "<p>not here</p>"
    assert result.message == "the target answered 404"


@pytest.mark.gen_test
@pytest.mark.parametrize("status", [401, 403, 407, 429, 451])
async def test_blocked_statuses(origin: Origin, make_fetcher: FetcherFactory, status: int) -> None:
    result = await make_fetcher().fetch(origin.url(f"/status/{status}"))
    assert result.error is FetchError.blocked
    assert result.status == status
    assert result.text == "<p>go away</p>"


@pytest.mark.gen_test
async def test_server_error_is_http_status(origin: Origin, make_fetcher: FetcherFactory) -> None:
    result = await make_fetcher().fetch(origin.url("/status/503"))
    assert result.error is FetchError.http_status
    assert result.status == 503


@pytest.mark.gen_test
async def test_connection_refused(make_fetcher: FetcherFactory) -> None:
    result = await make_fetcher().fetch(f"http://127.0.0.1:{closed_port()}/")
    assert result.error is FetchError.connect
    assert result.status is None
    assert result.message == "could not connect to the target"


@pytest.mark.gen_test
async def test_unresolvable_name(make_fetcher: FetcherFactory) -> None:
    fetcher = make_fetcher(static_resolver({}))
    result = await fetcher.fetch("http://nonexistent.invalid/")
    assert result.error is FetchError.dns
    assert result.message == "the target host could not be resolved"


@pytest.mark.gen_test
async def test_resolver_returning_nothing(make_fetcher: FetcherFactory) -> None:
    fetcher = make_fetcher(static_resolver({"empty.example": []}))
    result = await fetcher.fetch("http://empty.example/")
    assert result.error is FetchError.dns


class PlainTextServer(TCPServer):
    """Answers the first bytes of every connection with plain HTTP, whatever they were."""

    async def handle_stream(self, stream: IOStream, address: Any) -> None:
        await stream.read_bytes(65536, partial=True)
        await stream.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<p>plain</p>")
        stream.close()


@pytest.mark.gen_test
async def test_tls_failure(make_fetcher: FetcherFactory) -> None:
    sock, port = bind_unused_port()
    server = PlainTextServer()
    server.add_sockets([sock])
    try:
        fetcher = make_fetcher()
        plain = await fetcher.fetch(f"http://127.0.0.1:{port}/")
        assert plain.ok and plain.text == "<p>plain</p>"
        # The same server cannot complete a TLS handshake.
        result = await fetcher.fetch(f"https://127.0.0.1:{port}/")
        assert result.error is FetchError.tls
        assert result.message == "the TLS connection to the target failed"
    finally:
        server.stop()


@pytest.mark.gen_test
async def test_invalid_url(make_fetcher: FetcherFactory) -> None:
    result = await make_fetcher().fetch("not a url")
    assert result.error is FetchError.invalid_url
    assert result.status is None


@pytest.mark.gen_test
async def test_metrics_count_outcomes(origin: Origin, make_fetcher: FetcherFactory) -> None:
    def count(outcome: str) -> float:
        return REGISTRY.get_sample_value("pagecast_fetches_total", {"outcome": outcome}) or 0.0

    def observed() -> float:
        return REGISTRY.get_sample_value("pagecast_fetch_duration_seconds_count") or 0.0

    ok, not_found, durations = count("ok"), count("http_status"), observed()
    fetcher = make_fetcher()
    await fetcher.fetch(origin.url("/utf8"))
    await fetcher.fetch(origin.url("/status/404"))
    assert count("ok") == ok + 1
    assert count("http_status") == not_found + 1
    assert observed() == durations + 2
