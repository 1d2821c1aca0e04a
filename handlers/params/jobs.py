"""The JSON bodies of the job endpoints (batch and crawl) and the query of the job endpoint, as
parameter tables: they validate requests and describe them in ``/openapi.json``.

A body is read with its table as :mod:`handlers.params.json_body` reads every JSON body; its
``options`` object holds Markdown parameters for every page, read with the Markdown endpoint's
own table, less the parameters that only shape a single-page answer (:data:`ANSWER_ONLY`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from handlers.params.json_body import body_schema, read_json_body
from handlers.params.markdown import MARKDOWN_PARAMS
from handlers.params.param import ParamProblem
from handlers.params.table import P, Params, ParamTable, param
from services.markdown import MarkdownOptions

ANSWER_ONLY = frozenset(
    {
        "app_id",
        "url",
        "format",
        "include_markdown",
        "include_metadata",
        "include_chunks",
        "include_ai_safety",
        "include_headings",
        "include_links",
        "include_images",
        "screenshot",
        "screenshot_format",
        "screenshot_quality",
        "screenshot_full_page",
        "screenshot_dimensions",
        "screenshot_dark_mode",
    }
)
"""Markdown parameters that shape only the single-page answer (its envelope, the screenshot of
its load): not job options."""
OPTIONS: ParamTable[Any] = ParamTable(
    [p for p in MARKDOWN_PARAMS.params if p.name not in ANSWER_ONLY]
)
"""The Markdown parameters a job's ``options`` may set."""
MAX_BATCH_URLS = 1000
PATTERN_WORDS = (
    "shell-style globs (*, ?, [...]) matched against the whole URL path (* also matches /), "
    "e.g. /docs/*; a page must match one include pattern (when any) and no exclude pattern. "
    "The start page is always fetched."
)


@dataclass(frozen=True)
class JobBodyParams(Params):
    """The fields every job body may carry."""

    webhook_url: str | None = param(
        "string",
        "Called (POST, JSON) on each finished page and when the job ends, signed with "
        "X-Pagecast-Signature: sha256=HMAC-SHA256(webhook_secret, body).",
        max_length=2048,
        example="https://example.com/hooks/pagecast",
    )
    webhook_secret: str | None = param(
        "string",
        "The webhook's signing secret; one is made (and answered once) when not given.",
        max_length=128,
        pattern=r"[\x21-\x7e]{16,128}",
        pattern_words="16 to 128 printable ASCII characters without spaces",
        secret=True,
    )


@dataclass(frozen=True)
class BatchBodyParams(JobBodyParams):
    """A batch's body."""

    urls: tuple[str, ...] = param(
        "array",
        "The pages, http or https; a URL listed twice (or with a fragment or tracking "
        "parameters more) is done once.",
        (),
        required=True,
        max_items=MAX_BATCH_URLS,
        max_length=2048,
        example=["https://example.com/a", "https://example.com/b"],
    )


@dataclass(frozen=True)
class CrawlBodyParams(JobBodyParams):
    """A crawl's body."""

    url: str = param(
        "string",
        "The start page; the crawl stays on its host (and port).",
        "",
        required=True,
        max_length=2048,
        example="https://docs.example.com/",
    )
    max_pages: int = param(
        "integer", "Most pages fetched, the start page included.", 100, minimum=1
    )
    max_depth: int = param(
        "integer",
        "Most links followed from the start page (0: the start page only).",
        3,
        minimum=0,
        maximum=100,
    )
    include: tuple[str, ...] = param(
        "array", "Paths to crawl: " + PATTERN_WORDS, (), max_items=50, max_length=512
    )
    exclude: tuple[str, ...] = param(
        "array", "Paths to leave out (same form as include).", (), max_items=50, max_length=512
    )
    subdomains: bool = param(
        "boolean", "Also follow links to subdomains of the start host (without www.).", False
    )


@dataclass(frozen=True)
class ResultsParams(Params):
    """The query of ``GET /api/3.0/jobs/{id}``."""

    app_id: str | None = param("string", "API key (or send the api-key header).", secret=True)
    cursor: str | None = param(
        "string",
        "Where the previous answer's results ended (its next_cursor); none: from the first.",
        max_length=12,
        pattern=r"[0-9]{1,12}",
        pattern_words="a cursor given by a previous answer",
    )
    limit: int = param(
        "integer",
        "Most results in this answer; it also holds at most about jobs.results_max_bytes of "
        "results (at least one), and next_cursor reads on.",
        20,
        minimum=0,
        maximum=100,
    )


BATCH_BODY = ParamTable.of(BatchBodyParams)
CRAWL_BODY = ParamTable.of(CrawlBodyParams)
RESULTS_PARAMS = ParamTable.of(ResultsParams)


def read_job_body(
    table: ParamTable[P], body: bytes
) -> tuple[P, MarkdownOptions, list[ParamProblem], list[str], list[str]]:
    """A job body read with ``table``, its Markdown options, every problem, the fields neither
    knows, and what the client should hear about its options (see :func:`read_options`)."""
    values, problems, unknown = read_json_body(table, body)
    options = MarkdownOptions()
    warnings: list[str] = []
    if "options" in unknown:
        unknown.remove("options")
        sent = json.loads(body)["options"]  # the body parsed above: a JSON object
        if not isinstance(sent, dict):
            problems.append(ParamProblem("options", "must be an object of Markdown parameters"))
        else:
            options, more, warnings = read_options(sent)
            problems += more
    return values, options, problems, unknown, warnings


def read_options(
    sent: Mapping[str, Any],
) -> tuple[MarkdownOptions, list[ParamProblem], list[str]]:
    """The ``options`` object read with the Markdown endpoint's table, every problem (named
    ``options.NAME``; the parameters that only shape a single page's answer are refused), and
    the warnings about options replaced or doing nothing (the endpoint's inert rules, less those
    about the answer's format, which a job's pages do not have)."""
    parsed, problems, unknown = read_json_body(MARKDOWN_PARAMS, json.dumps(dict(sent)).encode())
    named = [ParamProblem(f"options.{p.name}", p.message, p.kind) for p in problems]
    named += [
        ParamProblem(f"options.{name[:40]}", "is not a Markdown option of a job")
        for name in [*unknown, *sorted(parsed.sent & ANSWER_ONLY)]
    ]
    warnings = list(parsed.warnings)
    if not named:
        parsed, ignored = MARKDOWN_PARAMS.settle(parsed, skip=ANSWER_ONLY)
        warnings += ignored
    kept = {name: MARKDOWN_PARAMS.by_name[name].default for name in ANSWER_ONLY}
    options = MarkdownOptions.of(replace(parsed, **kept))
    return options, named, [f"options.{warning}" for warning in warnings]


def job_body_schema(table: ParamTable[Any], description: str) -> dict[str, Any]:
    """The JSON schema of a job body: its table's fields and the Markdown ``options``."""
    schema = body_schema(table)
    schema["description"] = description
    options = body_schema(OPTIONS)
    options.pop("required", None)
    schema["properties"]["options"] = {
        **options,
        "additionalProperties": False,
        "description": "The Markdown endpoint's parameters for every page (those that shape "
        "the page, not the answer's format), as JSON values.",
    }
    return schema
