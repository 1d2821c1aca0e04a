"""The jobs' part of ``/openapi.json``: batch and crawl submission (their JSON bodies from the
body tables of :mod:`handlers.params.jobs`) and a job's status, results and cancellation."""

from __future__ import annotations

from typing import Any

from handlers.params.jobs import BATCH_BODY, CRAWL_BODY, RESULTS_PARAMS, job_body_schema

JOB_STATUSES = (
    "queued",
    "running",
    "completed",
    "cancelled",
    "failed",
    "quota_exceeded",
    "failure_limit",
)
"""A job's statuses: failed when not one of its pages could be done; quota_exceeded when the
plan's monthly credits ran out during the job, failure_limit when the organization's failed job
pages reached the plan's monthly_failed_pages (in both, its queued pages are skipped; the pages
done stay readable)."""

ACCEPTED = {
    "type": "object",
    "required": ["id", "status", "pages_queued", "url"],
    "properties": {
        "id": {"type": "string"},
        "status": {"const": "queued"},
        "pages_queued": {"type": "integer"},
        "url": {"type": "string", "description": "Where to GET the job."},
        "webhook_secret": {
            "type": "string",
            "description": "The webhook's signing secret, when the job has a webhook and none "
            "was sent; shown once.",
        },
        "pages_admitted": {
            "type": "integer",
            "description": "Present when the plan's bounds admitted fewer pages than asked: "
            "the pages the job may have (a batch's first URLs; a crawl's max_pages).",
        },
        "admission_bound": {
            "enum": ["max_queued_pages", "monthly_credits"],
            "description": "The plan's bound that cut the job, beside pages_admitted.",
        },
    },
}

JOB = {
    "type": "object",
    "required": ["id", "kind", "status", "progress", "credits", "created_at"],
    "properties": {
        "id": {"type": "string"},
        "kind": {"enum": ["batch", "crawl"]},
        "status": {"enum": list(JOB_STATUSES)},
        "stop_reason": {
            "type": ["string", "null"],
            "enum": [None, "cancelled", "quota_exceeded", "failure_limit"],
        },
        "progress": {
            "type": "object",
            "description": "Pages by state: total = done + failed + running + skipped + queued.",
            "properties": {
                name: {"type": "integer"}
                for name in ("total", "done", "failed", "running", "skipped", "queued")
            },
        },
        "credits": {
            "type": "integer",
            "description": "Credits billed so far: each page as the Markdown endpoint bills it; "
            "failed pages nothing.",
        },
        "created_at": {"type": "string", "format": "date-time"},
        "finished_at": {"type": ["string", "null"], "format": "date-time"},
        "expires_at": {
            "type": ["string", "null"],
            "format": "date-time",
            "description": "When the job and its results are deleted (set when it ends).",
        },
        "webhook": {
            "type": ["object", "null"],
            "description": "What became of the job's webhook events (null: no webhook): "
            "delivered, failed (given up after their attempts, or dropped for the "
            "organization's bound), pending (waiting or being sent), and the last failure.",
            "properties": {
                "delivered": {"type": "integer"},
                "failed": {"type": "integer"},
                "pending": {"type": "integer"},
                "last_error": {"type": ["string", "null"]},
                "last_error_at": {"type": ["string", "null"], "format": "date-time"},
            },
        },
        "results": {
            "type": "array",
            "description": "Finished pages in the order they finished, after the cursor.",
            "items": {"$ref": "#/components/schemas/JobResult"},
        },
        "next_cursor": {
            "type": "string",
            "description": "The cursor of the next call (the same when nothing new finished).",
        },
        "has_more": {"type": "boolean", "description": "More results finished already."},
    },
}

JOB_RESULT = {
    "type": "object",
    "required": ["seq", "url", "status", "depth", "credits"],
    "properties": {
        "seq": {"type": "integer", "description": "The page's place in the finishing order."},
        "url": {"type": "string"},
        "status": {"enum": ["done", "failed"]},
        "depth": {"type": "integer", "description": "Links from the start page (crawls)."},
        "credits": {"type": "integer"},
        "final_url": {"type": "string"},
        "status_code": {"type": ["integer", "null"]},
        "markdown": {"type": "string"},
        "metadata": {"type": "object"},
        "usage": {"type": "object"},
        "chunks": {"type": "array"},
        "error": {
            "type": "object",
            "description": "Why the page failed, in the Markdown error shape.",
            "required": ["code", "message"],
            "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
        },
    },
}

_JOB_ID = {
    "name": "job_id",
    "in": "path",
    "required": True,
    "description": "The job's id, as the submission answered it.",
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9]{1,64}$"},
}


def job_paths(security: Any, errors: dict[str, Any]) -> dict[str, Any]:
    """The job endpoints' paths; ``errors`` are the Markdown-shaped error responses."""
    key_only = [item for item in RESULTS_PARAMS.openapi() if item["name"] == "app_id"]
    accepted = {
        "202": {
            "description": "Accepted: the pages are worked on in the background.",
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/JobAccepted"}}
            },
        },
        **errors,
    }
    job = {"application/json": {"schema": {"$ref": "#/components/schemas/Job"}}}

    def submit(operation_id: str, summary: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "post": {
                "operationId": operation_id,
                "summary": summary,
                "tags": ["jobs"],
                "security": security,
                "parameters": key_only,
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": schema}},
                },
                "responses": accepted,
            }
        }

    return {
        "/api/3.0/batch": submit(
            "batch",
            "Many pages as Markdown: up to 1,000 URLs with one set of Markdown options",
            job_body_schema(BATCH_BODY, "A batch of URLs."),
        ),
        "/api/3.0/crawl": submit(
            "crawl",
            "A site as Markdown: breadth first from a start page, on its host, within "
            "max_pages, max_depth, the path patterns and robots.txt (its Crawl-delay too)",
            job_body_schema(CRAWL_BODY, "A crawl from a start page."),
        ),
        "/api/3.0/jobs/{job_id}": {
            "get": {
                "operationId": "getJob",
                "summary": "A job's status, progress, credits and a page of results",
                "tags": ["jobs"],
                "security": security,
                "parameters": [_JOB_ID, *RESULTS_PARAMS.openapi()],
                "responses": {"200": {"description": "The job.", "content": job}, **errors},
            },
            "delete": {
                "operationId": "cancelJob",
                "summary": "Cancel a job: queued pages are skipped, pages under way finish",
                "tags": ["jobs"],
                "security": security,
                "parameters": [_JOB_ID, *key_only],
                "responses": {
                    "200": {"description": "The job, cancelled (or as it ended).", "content": job},
                    **errors,
                },
            },
        },
    }


SCHEMAS = {"JobAccepted": ACCEPTED, "Job": JOB, "JobResult": JOB_RESULT}
