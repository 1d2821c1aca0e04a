"""``POST /api/3.0/batch``, ``POST /api/3.0/crawl`` and ``GET``/``DELETE /api/3.0/jobs/{id}``:
many pages as Markdown, worked on in the background.

A job is answered 202 with its id at once; its pages are fetched, converted and billed as the
Markdown endpoint would (the same options, SSRF guard and prices), by every Pagecast process on
the database. ``GET`` on the job gives its status, progress, credits and results in finishing
order, a page at a time with a cursor; ``DELETE`` cancels it.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from convert.crawl.scope import PatternError, check_patterns
from convert.crawl.urls import CrawlURLError
from handlers.base import ApiHandler, params_error
from handlers.errors import KINDS, ApiError, from_exception
from handlers.job_params import (
    BATCH_BODY,
    CRAWL_BODY,
    RESULTS_PARAMS,
    BatchBodyParams,
    CrawlBodyParams,
    ResultsParams,
    read_job_body,
)
from handlers.markdown import convert_options, markdown_job
from handlers.markdown_params import MARKDOWN_PARAMS, MarkdownParams
from handlers.params import P, ParamProblem, ParamTable
from services.jobs.crawl import crawl_options, new_page
from services.jobs.service import JobService
from services.markdown import MarkdownJob
from store.job_views import JobView, PageView
from store.jobs import NewPage

if TYPE_CHECKING:
    from app.config import Settings


class MarkdownPages:
    """A job page read and answered as the Markdown endpoint would (the runner's
    :class:`~services.jobs.runner.PageWork`)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def job(self, url: str, options: Mapping[str, str], plan: str, org: str) -> MarkdownJob:
        params = markdown_params(options)
        plan_settings = self.settings.plans.get(plan)
        tiers = plan_settings.proxy_tiers() if plan_settings else frozenset()
        return markdown_job(url, params, convert_options(params, self.settings), tiers, org)

    def error(self, exc: BaseException) -> tuple[dict[str, Any], bool]:
        known = from_exception(exc)
        error = known or ApiError("internal")
        return {"code": error.spec.markdown_code, "message": error.message}, known is not None

    def blocked(self, ai_safety: Mapping[str, Any] | None) -> dict[str, Any]:
        return {
            "code": KINDS["ai_blocked"].markdown_code,
            "message": "the page was blocked: high prompt-injection risk",
            "ai_safety": dict(ai_safety or {}),
        }


BODY_TABLES: dict[type[Any], ParamTable[Any]] = {
    BatchBodyParams: BATCH_BODY,
    CrawlBodyParams: CRAWL_BODY,
}


def markdown_params(options: Mapping[str, str]) -> MarkdownParams:
    """A job's stored options read with the Markdown endpoint's table, for a JSON answer."""
    params, problems = MARKDOWN_PARAMS.read({name: [value] for name, value in options.items()})
    if problems:
        raise params_error(problems)
    return replace(params, format="json")


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
        assert self.key_info is not None
        return self.key_info.org_id

    async def read_body_and_options(self, model: type[P]) -> tuple[P, dict[str, str]]:
        """The body read into ``model`` (the endpoint's table) and its Markdown options; every
        problem answered at once (400), fields neither knows warned about (refused under
        ``strict_params``), as every JSON body is read."""
        table = BODY_TABLES[model]
        values, options, problems, unknown = read_job_body(table, self.request.body)
        stray = [name for name in self.request.query_arguments if name != "app_id"]
        if stray:
            names = ", ".join(repr(name[:40]) for name in stray)
            self.warn(f"not parameters of this endpoint (send them in the JSON body): {names}")
        if unknown and self.services.settings.server.strict_params:
            problems += [ParamProblem(name[:40], "is not a field of this body") for name in unknown]
        elif unknown:
            names = ", ".join(repr(name[:40]) for name in unknown)
            self.warn(f"not fields of this endpoint's body, ignored: {names}")
        webhook = getattr(values, "webhook_url", None)
        if webhook and not http_url(webhook):
            problems.append(ParamProblem("webhook_url", "must be an http or https URL"))
        if problems:
            raise params_error(problems)
        convert_options(markdown_params(options), self.services.settings)
        if webhook:
            refusal = await self.jobs.webhook_refusal(webhook)
            if refusal is not None:
                raise ApiError("fetch_not_allowed", f"webhook_url: {refusal}")
        return values, options

    async def submit(
        self, kind: str, values: Any, options: dict[str, Any], pages: list[NewPage]
    ) -> None:
        """Store the job and answer 202 with its id (and the webhook secret made for it)."""
        assert self.key_info is not None
        secret = values.webhook_secret or (secrets.token_hex(32) if values.webhook_url else None)
        submitted = await self.jobs.submit(
            org_id=self.org_id(),
            plan=self.key_info.plan,
            kind=kind,
            options=options,
            pages=pages,
            webhook_url=values.webhook_url,
            webhook_secret=secret,
        )
        base = self.services.settings.server.public_base_url()
        body: dict[str, Any] = {
            "id": submitted.id,
            "status": "queued",
            "pages_queued": submitted.queued,
            "url": f"{base}/api/3.0/jobs/{submitted.id}",
        }
        if secret and not values.webhook_secret:
            body["webhook_secret"] = secret
        self.write_json(body, status=202)


class BatchHandler(JobEndpoint):
    """``POST /api/3.0/batch``: up to 1,000 URLs with one set of Markdown options."""

    endpoint = "batch"

    async def post(self) -> None:
        values, options = await self.read_body_and_options(BatchBodyParams)
        if not values.urls:
            raise ApiError("invalid_parameter", "invalid parameters: urls must not be empty")
        pages, wrong = [], []
        for index, url in enumerate(values.urls):
            try:
                pages.append(new_page(url))
            except CrawlURLError:
                wrong.append(index)
        if wrong:
            shown = ", ".join(str(index) for index in wrong[:10])
            raise ApiError("invalid_url", f"urls: items {shown} are not http or https URLs")
        await self.submit("batch", values, {"markdown": options, "max_pages": len(pages)}, pages)


class CrawlHandler(JobEndpoint):
    """``POST /api/3.0/crawl``: a site from a start URL, breadth first, within its scope and
    robots.txt."""

    endpoint = "crawl"

    async def post(self) -> None:
        values, options = await self.read_body_and_options(CrawlBodyParams)
        limit = self.services.settings.jobs.max_crawl_pages
        if values.max_pages > limit:
            raise ApiError(
                "invalid_parameter", f"invalid parameters: max_pages must be at most {limit}"
            )
        try:
            check_patterns([*values.include, *values.exclude])
            start = new_page(values.url)
        except PatternError as exc:
            raise ApiError("invalid_parameter", f"invalid parameters: {exc}") from exc
        except CrawlURLError as exc:
            raise ApiError(
                "invalid_url", "url: the start page must be an http or https URL"
            ) from exc
        stored = crawl_options(
            start.url,
            max_pages=values.max_pages,
            max_depth=values.max_depth,
            subdomains=values.subdomains,
            include=list(values.include),
            exclude=list(values.exclude),
            markdown=options,
        )
        await self.submit("crawl", values, stored, [start])


class JobHandler(JobEndpoint):
    """``GET /api/3.0/jobs/{id}``: status, progress, credits and a page of results;
    ``DELETE``: cancel."""

    endpoint = "jobs"
    uses_quota = False

    async def get(self, job_id: str) -> None:
        params = self.parse_params(ResultsParams)
        view = await self._view(job_id)
        after = int(params.cursor or 0)
        results = await self.jobs.results(job_id, after, params.limit) if params.limit else []
        last = results[-1].seq if results else after
        body = job_body(view)
        body["results"] = [result_body(page) for page in results]
        body["next_cursor"] = str(last)
        body["has_more"] = last < view.pages_done + view.pages_failed
        self.write_json(body)

    async def delete(self, job_id: str) -> None:
        self.parse_params(ResultsParams)
        await self._view(job_id)
        await self.jobs.cancel(self.org_id(), job_id)
        self.write_json(job_body(await self._view(job_id)))

    async def _view(self, job_id: str) -> JobView:
        view = await self.jobs.view(self.org_id(), job_id[:64])
        if view is None:
            raise ApiError("not_found", "no such job")
        return view


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
    }


def result_body(page: PageView) -> dict[str, Any]:
    """One finished page as answered: its URL, status and credits, then its answer or error."""
    return {
        "seq": page.seq,
        "url": page.url,
        "status": page.status,
        "depth": page.depth,
        "credits": page.credits,
        **{name: value for name, value in page.result.items() if name != "url"},
    }


ROUTES = [
    (r"/api/3\.0/batch/?", BatchHandler),
    (r"/api/3\.0/crawl/?", CrawlHandler),
    (r"/api/3\.0/jobs/([A-Za-z0-9]{1,64})/?", JobHandler),
]
