"""The three Tornado applications: the API, the frame host and the metrics listener, each with its
route list, JSON 404s, and request timing recorded once in ``log_function``; and the HTTP server
that carries each of them."""

from __future__ import annotations

import logging
from typing import Any

import tornado.web
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest
from tornado.httpserver import HTTPServer

from app.services import Services
from handlers import (
    docs,
    frames,
    health,
    jobs,
    llms,
    markdown,
    metrics,
    oembed,
    playground,
    screenshot,
    screenshot_requests,
    signed_links,
    site_map,
    static,
)
from handlers.auth import bearer_matches
from handlers.base import BaseHandler, NotFoundHandler
from handlers.context import UseCases
from handlers.errors import ApiError
from handlers.openapi import document as openapi
from handlers.request_body import MAX_BODY_BYTES

access_log = logging.getLogger("pagecast.access")

# The request head (start line and headers) Tornado reads before it gives up and closes the
# connection without an answer. Four times its 64 KB default, so an over-long app_id (100 KB, say)
# still reaches the handler and is refused in the endpoint's shape; a longer head is dropped.
MAX_HEADER_BYTES = 256 * 1024
# Only the JSON bodies of POST endpoints are read, as they arrive and bounded
# (handlers.request_body answers a larger one 413). To the other endpoints a client announcing
# more is answered 400 by Tornado before the body is read (its default would buffer 100 MB).


def log_request(handler: tornado.web.RequestHandler) -> None:
    """One access line and the request metrics, for every request (never the query string)."""
    status = handler.get_status()
    endpoint = getattr(handler, "endpoint", "other")
    duration = handler.request.request_time()
    metrics.REQUESTS.labels(endpoint, str(status)).inc()
    metrics.LATENCY.labels(endpoint).observe(duration)
    key_info = getattr(handler, "key_info", None)
    level = logging.INFO if status < 500 else logging.ERROR
    fields = {
        "method": handler.request.method or "",
        "path": handler.request.path[:300],
        "status": status,
        "endpoint": endpoint,
        "org": key_info.org if key_info else "-",
        "credits": getattr(handler, "billed", 0),
        "error": getattr(handler, "error_kind", None) or "-",
        "duration_ms": round(duration * 1000, 1),
        **getattr(handler, "log_fields", {}),
    }
    extras = " ".join(
        f"{name}={value}" for name, value in getattr(handler, "log_fields", {}).items()
    )
    access_log.log(
        level,
        "%s %s %d endpoint=%s org=%s credits=%s error=%s %.1fms%s",
        fields["method"],
        fields["path"],
        status,
        endpoint,
        fields["org"],
        fields["credits"],
        fields["error"],
        duration * 1000,
        f" {extras}" if extras else "",
        extra={"access": fields},
    )


def use_cases(services: Services) -> UseCases:
    """What the handlers are given: the root's services, as the use cases they call (mypy holds
    ``Services`` to the handlers' protocol here)."""
    return services


def _settings(services: Services) -> dict[str, Any]:
    return {
        "default_handler_class": NotFoundHandler,
        "default_handler_args": {"services": use_cases(services)},
        "log_function": log_request,
        "compress_response": False,
        "serve_traceback": False,
    }


def _routes(services: Services, *modules: Any) -> list[Any]:
    return [
        (path, handler, {"services": use_cases(services)})
        for module in modules
        for path, handler in module.ROUTES
    ]


def make_api_app(services: Services) -> tornado.web.Application:
    """The API listener: endpoints, health, OpenAPI, its reference page, ``/llms.txt`` and the
    playground."""
    routes = [
        *_routes(
            services,
            markdown,
            jobs,
            oembed,
            signed_links,
            screenshot_requests,  # before the screenshot endpoint, whose path would take it
            screenshot,
            site_map,
            health,
            openapi,
            docs,
            llms,
            playground,
        ),
        (r"/robots\.txt", static.RobotsHandler, {"services": use_cases(services)}),
    ]
    return tornado.web.Application(routes, **_settings(services))


def make_frame_app(services: Services) -> tornado.web.Application:
    """The frame host: a separate origin for hosted frame pages and the frame management API."""
    return tornado.web.Application(_routes(services, frames, health), **_settings(services))


class MetricsHandler(BaseHandler):
    """Prometheus text exposition of the process's registry; with ``server.metrics_token`` set,
    only to a request that sends it as a bearer token."""

    endpoint = "metrics"
    counts_in_flight = False

    async def get(self) -> None:
        token = self.services.server.metrics_token
        if token and not bearer_matches(self.request, token):
            raise ApiError(
                "unauthorized",
                "the metrics listener asks for its token: Authorization: Bearer TOKEN",
                headers={"WWW-Authenticate": 'Bearer realm="pagecast-metrics"'},
            )
        self.set_header("Content-Type", CONTENT_TYPE_LATEST)
        self.finish(generate_latest(REGISTRY))


def make_metrics_app(services: Services) -> tornado.web.Application:
    """The metrics listener, for Prometheus scraping, and the health checks, ``/readyz`` with its
    details (the operator's listener)."""
    routes: list[tuple[str, type[BaseHandler], dict[str, Any]]] = [
        (r"/metrics", MetricsHandler, {"services": use_cases(services)}),
        (r"/healthz", health.HealthHandler, {"services": use_cases(services)}),
        (r"/readyz", health.ReadyHandler, {"services": use_cases(services), "operator": True}),
    ]
    return tornado.web.Application(routes, **_settings(services))


def make_server(app: tornado.web.Application, *, xheaders: bool) -> HTTPServer:
    """The HTTP server of one listener, with Pagecast's limits on what a client may send."""
    return HTTPServer(
        app, xheaders=xheaders, max_header_size=MAX_HEADER_BYTES, max_body_size=MAX_BODY_BYTES
    )
