"""The handler base classes: request ids, JSON errors in the endpoint's shape, the key, rate limit
and quota checked through the account service, parameter parsing, and the credits header. Every
route derives from these."""

from __future__ import annotations

import contextvars
import json
import logging
import re
import time
import uuid
from asyncio import Future
from typing import Any, cast

import tornado.web

from handlers import metrics
from handlers.auth import presented_key
from handlers.context import UseCases
from handlers.errors import PAGE_CAUSED, ApiError, Shape, from_exception, from_status, render
from handlers.json_text import dumps, with_warnings
from handlers.params.json_body import read_json_body
from handlers.params.param import ParamProblem
from handlers.params.table import P, ParamTable
from handlers.target_url import decode_target, mend_slashes, unencoded, with_query
from handlers.warnings import WARNINGS_HEADER, hint, shown, unknown_words, warnings_header
from services import timing
from services.accounts import Account, KeyInfo, Quota
from services.failure import ServiceError, StoreUnavailable

log = logging.getLogger(__name__)

# Error kinds that mean Pagecast itself went wrong: logged with their traceback.
OWN_FAILURES = frozenset(
    {"internal", "capture_failed", "conversion_failed", "frame_generation_failed"}
)

REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
_CLIENT_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")


class RequestIdFilter(logging.Filter):
    """Adds ``request_id`` to every log record (``-`` outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        return True


class BaseHandler(tornado.web.RequestHandler):
    """JSON everywhere: every response has a request id and a credits header, every error a body."""

    error_shape: Shape = "oembed"
    endpoint: str = "other"
    # Health and metrics probes are not work: they neither count as in flight nor hold up shutdown.
    counts_in_flight: bool = True
    # Requests about background work (submitting and reading jobs): the job workers do not make
    # way for them as they do for other requests.
    background: bool = False
    # Whether answers carry Server-Timing: the phases the work below recorded, and the total.
    server_timing: bool = False

    def initialize(self, services: UseCases) -> None:
        self.services = services
        self.billed = 0
        self.key_info: KeyInfo | None = None
        """Who the request's key belongs to, once known (the access line and charging say it)."""
        self.account: Account | None = None
        self.error_kind: str | None = None
        # What the access line reports beside the basics: the proxy tier, whether a browser
        # rendered, the oEmbed tier... set by the handlers that know.
        self.log_fields: dict[str, str] = {}
        self.started = time.monotonic()
        self.timings = timing.Timings()
        self.warnings: list[str] = []
        """What the client should know about its request (unknown parameters, replaced values):
        the X-Pagecast-Warnings header, and a ``warnings`` list in a JSON answer."""
        self.kept_headers: dict[str, str] = {}
        """Headers every answer carries, errors included (the rate limit's)."""
        self._quota: Quota | None = None
        """The plan's monthly credits and those used before this request, once checked."""

    @property
    def request_id(self) -> str:
        """The client's X-Request-Id when it is a sane token, else a new random id."""
        if not hasattr(self, "_request_id"):
            sent = self.request.headers.get("X-Request-Id", "")
            self._request_id = sent if _CLIENT_REQUEST_ID.fullmatch(sent) else uuid.uuid4().hex
        return self._request_id

    def set_default_headers(self) -> None:
        # Also runs when send_error() clears the headers, so errors keep both headers.
        self.set_header("X-Request-Id", self.request_id)
        self.set_header("X-BILLING-REQUESTS", str(getattr(self, "billed", 0)))
        self.set_header("Cache-Control", "no-store")
        # Set again after send_error() cleared the headers, so errors carry them too.
        if getattr(self, "warnings", None):
            self.set_header(WARNINGS_HEADER, warnings_header(self.warnings))
        for name, value in getattr(self, "kept_headers", {}).items():
            self.set_header(name, value)
        self._credits_header()

    def warn(self, message: str) -> None:
        """Tell the client something about its request (X-Pagecast-Warnings; ``warnings`` in a
        JSON answer)."""
        self.warnings.append(message)
        self.set_header(WARNINGS_HEADER, warnings_header(self.warnings))

    def keep_header(self, name: str, value: str) -> None:
        """A header this answer carries whatever happens next, errors included."""
        self.kept_headers[name] = value
        self.set_header(name, value)

    def _credits_header(self) -> None:
        """X-Credits-Remaining: what the month leaves once this request is billed (plans with a
        monthly quota)."""
        quota = getattr(self, "_quota", None)
        if quota is not None:
            self.set_header("X-Credits-Remaining", str(quota.left(getattr(self, "billed", 0))))

    def compute_etag(self) -> None:
        # Answers are computed per request and marked no-store; an ETag would only cost a hash.
        return None

    async def prepare(self) -> None:
        REQUEST_ID.set(self.request_id)
        if self.server_timing:
            timing.begin(self.timings)
        method = (self.request.method or "GET").lower()
        if getattr(type(self), method, None) is getattr(tornado.web.RequestHandler, method, None):
            # Before authentication: a wrong method is wrong whoever sends it.
            raise ApiError("method_not_allowed", f"{self.request.method} is not allowed here")
        if self.counts_in_flight:
            metrics.IN_FLIGHT.inc()
            self.services.request_started(foreground=not self.background)
            self._counted = True

    def on_finish(self) -> None:
        if getattr(self, "_counted", False):
            metrics.IN_FLIGHT.dec()
            self.services.request_finished(foreground=not self.background)
            self._counted = False
        if self.key_info is not None:
            self.services.account_service.charge(self.key_info.org, self.endpoint, self.billed)

    def finish(self, chunk: str | bytes | dict[str, Any] | None = None) -> Future[None]:
        # The one place Server-Timing is written: every answer ends here, errors included.
        if self.server_timing:
            self.set_header("Server-Timing", self.timings.header(timing.since(self.started)))
        return super().finish(chunk)

    def write_json(self, body: Any, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(dumps(body))

    def request_body(self) -> bytes:
        """The request's body (:class:`~handlers.request_body.BoundedBody` reads it bounded)."""
        return self.request.body

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None, None))[1]
        known = from_exception(exc)
        if known is not None:
            error = known
        elif isinstance(exc, tornado.web.HTTPError):
            error = from_status(exc.status_code)
        else:
            error = from_status(status_code)
        self.error_kind = error.kind
        self.billed = 0
        self.set_header("X-BILLING-REQUESTS", "0")
        if error.retry_after is not None:
            self.set_header("Retry-After", str(error.retry_after))
        for name, value in error.headers.items():
            self.set_header(name, value)
        self.set_status(error.status)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(
            json.dumps(render(self.error_shape, error, self.request_id), ensure_ascii=False)
        )

    def log_exception(self, typ: Any, value: Any, tb: Any) -> None:
        # Client errors and the outside world's failures (an unreachable target, a busy farm, a
        # store that is down) are answered and named by the access line; a traceback is kept
        # only for Pagecast's own failures.
        if isinstance(value, StoreUnavailable) or isinstance(value.__cause__, StoreUnavailable):
            return  # the store logged what failed, once
        known = from_exception(value)
        if known is not None and known.kind not in OWN_FAILURES:
            return
        if isinstance(value, ServiceError) and value.failure in PAGE_CAUSED:
            return  # the target page's doing, logged as a warning where it happened
        if isinstance(value, tornado.web.HTTPError) and value.status_code < 500:
            return
        # Not Tornado's own line: it would print the whole URI, keys in the query included.
        log.error(
            "unexpected failure answering %s %s",
            self.request.method,
            self.request.path[:300],
            exc_info=(typ, value, tb),
        )


class ApiHandler(BaseHandler):
    """An endpoint with a key, a rate limit, a parameter table and credits."""

    params: ParamTable[Any]
    uses_quota: bool = True
    """Whether the plan's monthly credits gate this endpoint (free endpoints say no)."""
    target_prefix: re.Pattern[str] | None = None
    """What precedes the target URL in the path of an endpoint that takes one there."""
    _kept_for_target: frozenset[str] = frozenset()
    """Query parameters that belong to a target URL sent unencoded in the path."""

    async def prepare(self) -> None:
        await super().prepare()
        accounts = self.services.account_service
        self.key_info = await self.authenticate()
        self.account = account = accounts.account(self.key_info)
        rate, wait = accounts.take_token(account, self.endpoint)
        self.keep_header("X-RateLimit-Limit", str(rate.limit))
        self.keep_header("X-RateLimit-Remaining", str(rate.remaining))
        if wait is not None:
            raise accounts.refuse_rate(wait)
        if self.uses_quota:
            quota = await accounts.quota(account)
            if quota is not None:
                self._quota = quota
                self._credits_header()
                accounts.check_quota(quota)

    async def authenticate(self) -> KeyInfo:
        """Whose key the request presents (the account service refuses an unknown one)."""
        accounts = self.services.account_service
        key, carrier = presented_key(self.request)
        accounts.check_presented(key, carrier)
        return await accounts.owner(key, self.request.remote_ip or "-")

    @property
    def caller(self) -> Account:
        """The account the request's key belongs to (after :meth:`prepare`)."""
        assert self.account is not None
        return self.account

    def parse_params(self, model: type[P]) -> P:
        """The query read into the endpoint's parameter class ``model``; every problem is
        reported in one error."""
        values, problems = self.read_params(model)
        if problems:
            raise params_error(problems)
        return values

    def read_params(self, model: type[P]) -> tuple[P, list[ParamProblem]]:
        """The query read into ``model`` with the endpoint's table, and every problem; the
        caller decides what to raise."""
        if self.params.model is not model:
            raise TypeError(f"{type(self).__name__} reads {self.params.model}, not {model}")
        args = {
            name: [raw.decode("utf-8", "replace") for raw in values]
            for name, values in self.request.query_arguments.items()
        }
        values, problems = self.params.read(args)
        for warning in values.warnings:
            self.warn(warning)
        unknown = self.params.unknown(list(args))
        pasted = unencoded(self._raw_path_target() or "")
        own = [name for name in args if name not in unknown and name != "app_id"]
        if pasted and own:
            names = ", ".join(shown(name) for name in own)
            self.warn(
                f"{names}: read as this endpoint's parameters; the target URL came unencoded, "
                "so if they were the target's, encode it"
            )
        if unknown and pasted:
            self._kept_for_target = frozenset(unknown)
            names = ", ".join(shown(name) for name in unknown)
            self.warn(
                f"{names}: not parameters of this endpoint; kept in the target URL, which "
                "came unencoded (encode it to send parameters only to the target)"
            )
            unknown = []
        if unknown and self.services.server.strict_params:
            problems += [ParamProblem(name, unknown_words(name, self.params)) for name in unknown]
        elif unknown:
            names = ", ".join(shown(name) + hint(name, self.params) for name in unknown)
            self.warn(f"not parameters of this endpoint, ignored: {names}")
        values = self.adjust(values)
        if not problems:
            # Judged on valid values only: a refused one would read as its default here.
            values, ignored = self.params.settle(values)
            for warning in ignored:
                self.warn(warning)
        return cast(P, values), problems

    def adjust(self, values: P) -> P:
        """The parameters as this request means them, before the table's ``inert`` rules judge
        them (the Markdown endpoint takes its format from the Accept header)."""
        return values

    def read_body(self, model: type[P]) -> P:
        """The JSON body read into the endpoint's parameter class ``model`` (see
        :mod:`handlers.params.json_body`); every problem is reported in one error, fields the table
        does not know are warned about (refused under ``strict_params``), and so are query
        parameters other than the key."""
        if self.params.model is not model:
            raise TypeError(f"{type(self).__name__} reads {self.params.model}, not {model}")
        values, problems, unknown = read_json_body(self.params, self.request_body())
        for warning in values.warnings:
            self.warn(warning)
        stray = [name for name in self.request.query_arguments if name != "app_id"]
        if stray:
            names = ", ".join(shown(name) for name in stray)
            self.warn(f"not parameters of this endpoint (send them in the JSON body): {names}")
        if unknown and self.services.server.strict_params:
            problems += [ParamProblem(name, unknown_words(name, self.params)) for name in unknown]
        elif unknown:
            names = ", ".join(shown(name) + hint(name, self.params) for name in unknown)
            self.warn(f"not fields of this endpoint's body, ignored: {names}")
        if problems:
            raise params_error(problems)
        return cast(P, values)

    def _raw_path_target(self) -> str | None:
        """The target as the path carries it, before percent-decoding; None when this
        endpoint takes none there (or the request gave it as url=)."""
        if self.target_prefix is None:
            return None
        match = self.target_prefix.match(self.request.path)
        return self.request.path[match.end() :] if match else None

    def target(self, path_target: str | None, query_url: str | None) -> str:
        """The request's target URL: the path's or the url parameter's (exactly one of the
        two), with the query parameters an unencoded target brought along given back."""
        if path_target and query_url:
            raise ApiError(
                "invalid_parameter", "send the target URL in the path or as url=, not both"
            )
        if not path_target and not query_url:
            raise ApiError(
                "invalid_url", "the target URL is missing: give it in the path or as url="
            )
        raw = path_target or query_url or ""
        as_sent = self._raw_path_target() if path_target else None
        if as_sent is not None and unencoded(as_sent):
            # Pasted as is: the path carries the URL's own percent-escapes (a %20, a %3F), which
            # Tornado's decoding of the path would have undone.
            raw = as_sent
        mended = mend_slashes(raw)
        if mended != raw:
            self.warn("the target URL's scheme had one slash; read as two")
        url = decode_target(mended)
        kept = self._kept_for_target
        return decode_target(with_query(url, self.request.query, kept)) if kept else url

    def write_json(self, body: Any, status: int = 200) -> None:
        if self.warnings and isinstance(body, dict) and "warnings" not in body:
            body = {**body, "warnings": list(self.warnings)}
        super().write_json(body, status)

    def write_json_text(self, text: str) -> None:
        """Write a JSON object already encoded (:func:`handlers.json_text.dumps`), with this
        request's warnings added as ``write_json`` adds them."""
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(with_warnings(text, self.warnings))

    def bill(self, credits: int) -> None:
        """What the answer costs, in X-BILLING-REQUESTS: call just before writing a successful
        answer. The account service charges it when the request ends (:meth:`on_finish`)."""
        self.billed = credits
        self.set_header("X-BILLING-REQUESTS", str(credits))
        self._credits_header()


def params_error(problems: list[ParamProblem]) -> ApiError:
    """One error for every problem found; its kind is the first problem's."""
    text = "; ".join(f"{p.name} {p.message}" for p in problems)
    details = [{"parameter": p.name, "message": p.message} for p in problems]
    return ApiError(problems[0].kind, f"invalid parameters: {text}", details=details)


class NotFoundHandler(BaseHandler):
    """Any unknown route: a JSON 404."""

    counts_in_flight = False

    async def prepare(self) -> None:
        REQUEST_ID.set(self.request_id)
        raise ApiError("not_found", f"no route for {self.request.path[:200]}")
