"""Every route of every listener answers errors as JSON in its documented shape, with the request
id and a zero credits header: a wrong method, a missing key, an unknown path."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient
from tornado.httpserver import HTTPServer
from tornado.routing import PathMatches
from tornado.testing import bind_unused_port

from app.services import Services
from app.web import make_api_app, make_frame_app, make_metrics_app
from handlers.base import ApiHandler
from handlers.errors import KINDS, ApiError, render


def check_shape(shape: str, body: dict[str, Any], request_id: str) -> None:
    if shape == "markdown":
        assert set(body) == {"error", "request_id"}
        assert set(body["error"]) == {"code", "message"}
        assert isinstance(body["error"]["code"], int)
    else:
        assert body["success"] is False
        assert set(body["error"]) == {"code", "message", "stage", "details"}
        assert isinstance(body["error"]["code"], str)
        stages = {"validation", "fetch", "fallback", "conversion", "capture", "internal"}
        assert body["error"]["stage"] in stages
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert body["request_id"] == request_id


SAMPLES = (
    "http%3A%2F%2F127.0.0.1%3A1%2F",
    "0" * 32,
    "0" * 16,
    "3.0",
    "png",
    "x",
    "pc_00000000",
)


def _sample(group: re.Match[str]) -> str:
    """A value the capture group accepts: a target URL, a token, an extension..."""
    return next(value for value in SAMPLES if re.fullmatch(group.group(1), value))


def routes(app: tornado.web.Application) -> list[tuple[str, type[tornado.web.RequestHandler]]]:
    """A concrete path for every route: each capture group filled with a sample value."""
    found = []
    for rule in app.default_router.rules[0].target.rules:
        assert isinstance(rule.matcher, PathMatches)
        pattern = rule.matcher.regex.pattern.rstrip("$")
        path = re.sub(r"\(([^)]*)\)", _sample, pattern).replace("\\", "")
        found.append((path, rule.target))
    return found


@pytest.mark.gen_test(timeout=30)
async def test_every_route_answers_errors_in_its_shape(services: Services) -> None:
    client = AsyncHTTPClient()
    checked = 0
    for make in (make_api_app, make_frame_app, make_metrics_app):
        app = make(services)
        sock, port = bind_unused_port()
        server = HTTPServer(app)
        server.add_sockets([sock])
        try:
            for path, handler in routes(app):
                shape = handler.error_shape  # type: ignore[attr-defined]
                url = f"http://127.0.0.1:{port}{path}"
                requests = [("PATCH", 405)]
                if issubclass(handler, ApiHandler):
                    # The handler's own method: an unsupported one is 405 before the key check.
                    own = "GET" if handler.get is not tornado.web.RequestHandler.get else "POST"
                    # A signed link presents no key: without its signature it is forbidden.
                    signed = handler.authenticate is not ApiHandler.authenticate
                    requests.append((own, 403 if signed else 401))
                for method, status in requests:
                    body = b"" if method in ("PATCH", "POST") else None
                    response = await client.fetch(url, method=method, body=body, raise_error=False)
                    assert response.code == status, (path, method, response.body)
                    assert response.headers["Content-Type"].startswith("application/json")
                    assert response.headers["X-BILLING-REQUESTS"] == "0"
                    check_shape(shape, json.loads(response.body), response.headers["X-Request-Id"])
                    checked += 1
            unknown = f"http://127.0.0.1:{port}/no/such/route"
            response = await client.fetch(unknown, raise_error=False)
            assert response.code == 404
            check_shape("oembed", json.loads(response.body), response.headers["X-Request-Id"])
        finally:
            server.stop()
    assert checked >= 6


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_renders_in_both_shapes(kind: str) -> None:
    error = ApiError(kind)
    check_shape("markdown", render("markdown", error, "rid"), "rid")
    check_shape("oembed", render("oembed", error, "rid"), "rid")
    assert 400 <= error.status <= 599


def test_markdown_codes_are_unique_and_match_the_spec() -> None:
    codes = [kind.markdown_code for kind in KINDS.values()]
    assert len(codes) == len(set(codes))
    spec = {
        "invalid_format": (400, -2200),
        "invalid_max_chars": (400, -2201),
        "invalid_parameter": (400, -2203),
        "invalid_url": (400, -2204),
        "unauthorized": (401, -1000),
        "forbidden": (403, -1001),
        "rate_limited": (429, -1002),
        "fetch_dns": (400, -3000),
        "fetch_connect": (400, -3001),
        "fetch_timeout": (400, -3002),
        "fetch_blocked": (400, -3003),
        "fetch_tls": (400, -3004),
        "fetch_redirects": (400, -3005),
        "fetch_not_allowed": (400, -3006),
        "fetch_too_large": (400, -3007),
        "no_html": (404, -4000),
        "conversion_failed": (500, -4002),
    }
    for kind, (status, code) in spec.items():
        assert (KINDS[kind].status, KINDS[kind].markdown_code) == (status, code), kind


def test_unknown_kind_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown error kind"):
        ApiError("no_such_kind")
