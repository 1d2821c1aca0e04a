"""The JSON bodies of the job endpoints (batch and crawl) and the query of the job endpoint, as
parameter tables: they validate requests and describe them in ``/openapi.json``.

A body is a JSON object. Its scalar fields are read with the tables of :mod:`handlers.params`
(JSON true/false, numbers and strings, as the query would carry them); its list fields (URLs,
path patterns) with :class:`ListField`; its ``options`` object with the Markdown endpoint's own
table, less the parameters that only shape the single-page answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from handlers.markdown_params import MARKDOWN_PARAMS
from handlers.params import Param, ParamProblem, Params, ParamTable, param

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
    }
)
"""Markdown parameters that shape only the single-page answer: not job options."""
OPTION_PARAMS = tuple(p for p in MARKDOWN_PARAMS.params if p.name not in ANSWER_ONLY)
OPTION_NAMES = frozenset(p.name for p in OPTION_PARAMS)


@dataclass(frozen=True)
class ListField:
    """A body field holding a list of strings."""

    name: str
    help: str
    max_items: int
    max_length: int
    required: bool = False


@dataclass(frozen=True)
class JobBodyParams(Params):
    """The scalar fields every job body may carry."""

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
class CrawlBodyParams(JobBodyParams):
    """The scalar fields of a crawl."""

    url: str | None = param(
        "string",
        "The start page; the crawl stays on its host.",
        required=True,
        max_length=2048,
        example="https://docs.example.com/",
    )
    max_pages: int = param(
        "integer", "Most pages fetched (the start page included).", 100, minimum=1
    )
    max_depth: int = param(
        "integer",
        "Most links followed from the start page (0: the start page only).",
        3,
        minimum=0,
        maximum=100,
    )
    subdomains: bool = param("boolean", "Also follow links to subdomains of the host.", False)


@dataclass(frozen=True)
class ResultsParams(Params):
    """The query of ``GET /api/3.0/jobs/{id}``."""

    app_id: str | None = param("string", "API key (or send the api-key header).", secret=True)
    cursor: str | None = param(
        "string",
        "Where the previous page of results ended (its next_cursor).",
        max_length=64,
        pattern=r"[0-9]{1,12}",
        pattern_words="a cursor given by a previous answer",
    )
    limit: int = param("integer", "Most results in this answer.", 20, minimum=0, maximum=100)


BATCH_BODY = ParamTable.of(JobBodyParams)
CRAWL_BODY = ParamTable.of(CrawlBodyParams)
RESULTS_PARAMS = ParamTable.of(ResultsParams)

BATCH_LISTS = (
    ListField("urls", "The pages, http or https; duplicates are done once.", 1000, 2048, True),
)
PATTERN_HELP = (
    "Shell-style globs on the URL's path (`*` crosses `/`), e.g. `/docs/*`; a page must match "
    "one include (when any) and no exclude. The start page is always fetched."
)
CRAWL_LISTS = (
    ListField("include", "Paths to crawl. " + PATTERN_HELP, 50, 200),
    ListField("exclude", "Paths to leave out. " + PATTERN_HELP, 50, 200),
)


class BodyError(ValueError):
    """A body that is not a JSON object (or too deep to read)."""


def read_body(raw: bytes) -> dict[str, Any]:
    """The request body as a JSON object; :class:`BodyError` says why it is not one."""
    try:
        body = json.loads(raw or b"null")
    except (ValueError, RecursionError) as exc:
        raise BodyError("the body must be a JSON object") from exc
    if not isinstance(body, dict):
        raise BodyError("the body must be a JSON object")
    return body


def as_args(
    body: Mapping[str, Any], names: frozenset[str]
) -> tuple[dict[str, list[str]], list[ParamProblem]]:
    """The scalar fields of ``body`` named in ``names``, as query arguments would carry them."""
    args: dict[str, list[str]] = {}
    problems: list[ParamProblem] = []
    for name in names:
        if name not in body or body[name] is None:
            continue
        value = body[name]
        if isinstance(value, bool):
            args[name] = ["true" if value else "false"]
        elif isinstance(value, int | float):
            args[name] = [json.dumps(value)]
        elif isinstance(value, str):
            args[name] = [value]
        else:
            problems.append(ParamProblem(name, "must be a string, a number or a boolean"))
    return args, problems


def read_lists(
    body: Mapping[str, Any], fields: tuple[ListField, ...]
) -> tuple[dict[str, list[str]], list[ParamProblem]]:
    """The list fields of ``body``, each checked for its type, count and item length."""
    values: dict[str, list[str]] = {}
    problems: list[ParamProblem] = []
    for field in fields:
        value = body.get(field.name)
        if value is None:
            if field.required:
                problems.append(ParamProblem(field.name, "is required"))
            values[field.name] = []
            continue
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            problems.append(ParamProblem(field.name, "must be a list of strings"))
        elif field.required and not value:
            problems.append(ParamProblem(field.name, "must not be empty"))
        elif len(value) > field.max_items:
            problems.append(ParamProblem(field.name, f"must have at most {field.max_items} items"))
        elif any(len(item) > field.max_length for item in value):
            problems.append(
                ParamProblem(field.name, f"items must be at most {field.max_length} characters")
            )
        else:
            values[field.name] = list(value)
            continue
        values[field.name] = []
    return values, problems


def read_options(body: Mapping[str, Any]) -> tuple[dict[str, str], list[ParamProblem]]:
    """The ``options`` object: Markdown parameters as strings (as stored with the job)."""
    raw = body.get("options")
    if raw is None:
        return {}, []
    if not isinstance(raw, dict):
        return {}, [ParamProblem("options", "must be an object of Markdown parameters")]
    problems = [
        ParamProblem(f"options.{name[:40]}", "is not a Markdown option of a job")
        for name in raw
        if name not in OPTION_NAMES
    ]
    args, more = as_args(raw, OPTION_NAMES)
    problems += [ParamProblem(f"options.{p.name}", p.message, p.kind) for p in more]
    _, checked = MARKDOWN_PARAMS.read(args)
    problems += [ParamProblem(f"options.{p.name}", p.message, p.kind) for p in checked]
    return {name: values[0] for name, values in args.items()}, problems


def body_schema(
    table: ParamTable[Any], lists: tuple[ListField, ...], description: str
) -> dict[str, Any]:
    """The JSON schema of a job body: its scalar fields, list fields and Markdown options."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for field in lists:
        properties[field.name] = {
            "type": "array",
            "description": field.help,
            "maxItems": field.max_items,
            "items": {"type": "string", "maxLength": field.max_length},
        }
        if field.required:
            required.append(field.name)
    for item in table.params:
        properties[item.name] = _json_schema(item)
        if item.required:
            required.append(item.name)
    properties["options"] = {
        "type": "object",
        "description": "The Markdown endpoint's parameters for every page (those that shape "
        "the page, not the answer's format), as JSON values.",
        "additionalProperties": False,
        "properties": {item.name: _json_schema(item) for item in OPTION_PARAMS},
    }
    return {
        "type": "object",
        "description": description,
        "required": required,
        "properties": properties,
    }


def _json_schema(item: Param) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": item.type, "description": item.help}
    if item.default is not None:
        schema["default"] = item.default
    for key, value in (
        ("minimum", item.minimum),
        ("maximum", item.maximum),
        ("maxLength", item.max_length),
    ):
        if value is not None:
            schema[key] = value
    if item.choices is not None and not item.lenient_choice:
        schema["enum"] = list(item.choices)
    if item.pattern is not None:
        schema["pattern"] = f"^{item.pattern}$"
    return schema
