"""``POST /api/3.0/batch``, ``POST /api/3.0/crawl`` and ``GET``/``DELETE /api/3.0/jobs/{id}``:
many pages as Markdown, worked on in the background.

A job is answered 202 with its id at once; its pages are fetched, converted and billed as the
Markdown endpoint would (the same options, SSRF guard and prices), by every Pagecast process on
the database. ``GET`` on the job gives its status, progress, credits and results in finishing
order, a page at a time with a cursor; ``DELETE`` cancels it.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from tornado.iostream import StreamClosedError

from handlers.base import ApiHandler, params_error
from handlers.errors import ApiError
from handlers.params.jobs import (
    BATCH_BODY,
    CRAWL_BODY,
    RESULTS_PARAMS,
    BatchBodyParams,
    CrawlBodyParams,
    ResultsParams,
    read_job_body,
)
from handlers.params.param import ParamProblem
from handlers.params.table import P, ParamTable
from handlers.request_body import BoundedBody
from services.failure import StoreUnavailable
from services.jobs.service import (
    CrawlSpec,
    JobService,
    JobView,
    PageView,
    Submitted,
    Webhook,
    WebhookOutcomes,
)
from services.markdown import MarkdownOptions

BODY_TABLES: dict[type[Any], ParamTable[Any]] = {
    BatchBodyParams: BATCH_BODY,
    CrawlBodyParams: CRAWL_BODY,
}


def http_url(value: str) -> bool:
    """Whether ``value`` is an absolute http or https URL with a host."""
    try:
        parts = urlsplit(value.strip())
        return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
    except ValueError:
        return False


class JobEndpoint(ApiHandler):
    """What the job endpoints share: the key in the query or a header, JSON bodies, the
    Markdown error shape."""

    error_shape = "markdown"
    params = RESULTS_PARAMS
    background = True

    @property
    def jobs(self) -> JobService:
        service = self.services.jobs
        if service is None:
            raise ApiError("unavailable", "jobs are not served by this process")
        return service

    def org_id(self) -> int:
        return self.caller.org_id

    async def read_body_and_options(self, model: type[P]) -> tuple[P, MarkdownOptions, Webhook]:
        """The body read into ``model`` (the endpoint's table), its Markdown options and its
        webhook; every problem answered at once (400), fields neither knows warned about
        (refused under ``strict_params``), as every JSON body is read; then the jobs' own rules
        (the options', the webhook's)."""
        table = BODY_TABLES[model]
        values, options, problems, unknown, warnings = read_job_body(table, self.request_body())
        for warning in warnings:
            self.warn(warning)
        stray = [name for name in self.request.query_arguments if name != "app_id"]
        if stray:
            names = ", ".join(repr(name[:40]) for name in stray)
            self.warn(f"not parameters of this endpoint (send them in the JSON body): {names}")
        if unknown and self.services.server.strict_params:
            problems += [ParamProblem(name[:40], "is not a field of this body") for name in unknown]
        elif unknown:
            names = ", ".join(repr(name[:40]) for name in unknown)
            self.warn(f"not fields of this endpoint's body, ignored: {names}")
        webhook = Webhook(
            getattr(values, "webhook_url", None), getattr(values, "webhook_secret", None)
        )
        if webhook.url and not http_url(webhook.url):
            problems.append(ParamProblem("webhook_url", "must be an http or https URL"))
        if problems:
            raise params_error(problems)
        await self.jobs.check(options, webhook)
        return values, options, webhook

    def accepted(self, submitted: Submitted) -> None:
        """Answer 202 with the job's id (and the webhook secret made for it)."""
        base = self.services.server.public_base_url()
        body: dict[str, Any] = {
            "id": submitted.id,
            "status": "queued",
            "pages_queued": submitted.queued,
            "url": f"{base}/api/3.0/jobs/{submitted.id}",
        }
        if submitted.made_secret:
            body["webhook_secret"] = submitted.made_secret
        if submitted.bound is not None:
            body["pages_admitted"] = submitted.admitted
            body["admission_bound"] = submitted.bound
            self.warn(
                f"the plan's {submitted.bound} admitted {submitted.admitted} pages of this job"
            )
        self.write_json(body, status=202)


class BatchHandler(BoundedBody, JobEndpoint):
    """``POST /api/3.0/batch``: up to 1,000 URLs with one set of Markdown options."""

    endpoint = "batch"

    async def post(self) -> None:
        values, options, webhook = await self.read_body_and_options(BatchBodyParams)
        submitted = await self.jobs.submit_batch(self.caller, values.urls, options, webhook)
        self.accepted(submitted)


class CrawlHandler(BoundedBody, JobEndpoint):
    """``POST /api/3.0/crawl``: a site from a start URL, breadth first, within its scope and
    robots.txt."""

    endpoint = "crawl"

    async def post(self) -> None:
        values, options, webhook = await self.read_body_and_options(CrawlBodyParams)
        crawl = CrawlSpec(
            url=values.url,
            max_pages=values.max_pages,
            max_depth=values.max_depth,
            subdomains=values.subdomains,
            include=values.include,
            exclude=values.exclude,
        )
        submitted = await self.jobs.submit_crawl(self.caller, crawl, options, webhook)
        self.accepted(submitted)


class JobHandler(JobEndpoint):
    """``GET /api/3.0/jobs/{id}``: status, progress, credits and a page of results;
    ``DELETE``: cancel."""

    endpoint = "jobs"
    uses_quota = False

    async def get(self, job_id: str) -> None:
        """The job and a page of its results, streamed: one result at a time is encoded and
        sent, so that a page of large results is never built whole in memory."""
        params = self.parse_params(ResultsParams)
        view = await self.jobs.view(self.org_id(), job_id)
        last = after = int(params.cursor or 0)
        head = job_body(view)
        if self.warnings:
            head["warnings"] = list(self.warnings)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.write(encode(head)[:-1] + b',"results":[')
        tail: dict[str, Any] = {}
        try:
            if params.limit:
                async for page in self.jobs.results(job_id, after, params.limit):
                    chunk = (b"," if last != after else b"") + result_bytes(page)
                    self.write(chunk)
                    last = page.seq
                    await self.flush()
                    await self.jobs.pace(self.caller.org, len(chunk))
        except StreamClosedError:
            return  # the client left
        except StoreUnavailable:
            if last == after:
                raise  # nothing sent yet: answered as the database's outage
            # The answer has begun: it ends here, and the cursor reads on.
            tail["results_cut"] = "the database stopped answering; read on from next_cursor"
        ended = view.pages_done + view.pages_failed
        tail = {"next_cursor": str(last), "has_more": bool(tail) or last < ended, **tail}
        self.finish(b"]," + encode(tail)[1:])

    async def delete(self, job_id: str) -> None:
        self.parse_params(ResultsParams)
        await self.jobs.view(self.org_id(), job_id)
        await self.jobs.cancel(self.org_id(), job_id)
        self.write_json(job_body(await self.jobs.view(self.org_id(), job_id)))


def encode(body: dict[str, Any]) -> bytes:
    """A JSON object as answered: compact UTF-8."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def job_body(view: JobView) -> dict[str, Any]:
    """A job's status and progress as answered."""
    ended = view.pages_done + view.pages_failed
    return {
        "id": view.id,
        "kind": view.kind,
        "status": view.status,
        "stop_reason": view.stop_reason,
        "progress": {
            "total": view.pages_total,
            "done": view.pages_done,
            "failed": view.pages_failed,
            "running": view.pages_running,
            "skipped": view.pages_skipped,
            "queued": max(view.pages_total - ended - view.pages_running - view.pages_skipped, 0),
        },
        "credits": view.credits,
        "created_at": view.created_at.isoformat(),
        "finished_at": view.finished_at.isoformat() if view.finished_at else None,
        "expires_at": view.expires_at.isoformat() if view.expires_at else None,
        "webhook": _webhook_body(view.webhook),
    }


def _webhook_body(outcomes: WebhookOutcomes | None) -> dict[str, Any] | None:
    """What became of a job's webhook events (None: the job has no webhook)."""
    if outcomes is None:
        return None
    at = outcomes.last_error_at
    return {
        "delivered": outcomes.delivered,
        "failed": outcomes.failed,
        "pending": outcomes.pending,
        "last_error": outcomes.last_error,
        "last_error_at": at.isoformat() if at else None,
    }


def result_bytes(page: PageView) -> bytes:
    """One finished page as answered: its number, URL, status, depth and credits, then the
    members of its stored answer (or error) but its URL, spliced in as stored: a page of many
    megabytes is not decoded and encoded again on the IOLoop."""
    head = encode(
        {
            "seq": page.seq,
            "url": page.url,
            "status": page.status,
            "depth": page.depth,
            "credits": page.credits,
        }
    )
    rest = _without_url(page.result_json.strip())
    return head if rest == "}" else head[:-1] + b"," + rest.encode()


_DECODER = json.JSONDecoder()
_URL_MEMBER = '{"url":'


def _without_url(stored: str) -> str:
    """The members of a stored JSON object after its leading ``"url"`` member (the page's URL is
    answered from the page row), with their closing brace: ``}`` when there are none."""
    if not stored.startswith(_URL_MEMBER):
        return stored[1:].lstrip()
    _, end = _DECODER.raw_decode(stored, len(_URL_MEMBER))
    rest = stored[end:].lstrip()
    return rest[1:].lstrip() if rest.startswith(",") else rest


ROUTES = [
    (r"/api/3\.0/batch/?", BatchHandler),
    (r"/api/3\.0/crawl/?", CrawlHandler),
    (r"/api/3\.0/jobs/([A-Za-z0-9]{1,64})/?", JobHandler),
]
