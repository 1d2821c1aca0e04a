"""Every endpoint's parameters as Markdown: ``docs/parameters.md``, written from the same tables
that validate requests and describe them in ``/openapi.json``.

``python -m handlers.params.reference > docs/parameters.md`` (``make docs``) writes the page; a
test fails when the committed page differs from what the tables say.
"""

from __future__ import annotations

import sys
import textwrap
from dataclasses import dataclass
from typing import Any

from handlers.params.frames import KEY_ONLY, LIST_PARAMS
from handlers.params.jobs import ANSWER_ONLY, BATCH_BODY, CRAWL_BODY, OPTIONS, RESULTS_PARAMS
from handlers.params.markdown import MARKDOWN_PARAMS
from handlers.params.oembed import OEMBED_PARAMS
from handlers.params.param import Param
from handlers.params.screenshot import SCREENSHOT_PARAMS, SIGNED_SCREENSHOT_PARAMS
from handlers.params.screenshot_requests import CAPTURE_STATUS_PARAMS
from handlers.params.site_map import MAP_PARAMS
from handlers.params.table import ParamTable

COMMAND = "python -m handlers.params.reference > docs/parameters.md"


@dataclass(frozen=True)
class Endpoint:
    """One section of the page: the operations one table serves and where its values go."""

    title: str
    operations: tuple[str, ...]
    table: ParamTable[Any]
    body: bool = False
    """True: the fields of a JSON body; False: query parameters."""
    page: str = ""
    """The docs page that explains the endpoint, when there is one."""
    frame_host: bool = False
    """Served on the frame host rather than the API's listener."""


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint(
        "Markdown",
        ("GET /api/3.0/markdown/{encoded_url}", "GET /api/3.0/markdown?url=URL"),
        MARKDOWN_PARAMS,
        page="markdown.md",
    ),
    Endpoint(
        "Screenshot",
        ("GET /api/1.1/screenshot/{encoded_url}", "GET /api/1.1/screenshot?url=URL"),
        SCREENSHOT_PARAMS,
        page="screenshots.md",
    ),
    Endpoint(
        "Signed screenshot link",
        ("GET /api/1.1/screenshot/signed/{key_id}/{encoded_url}",),
        SIGNED_SCREENSHOT_PARAMS,
        page="screenshots.md",
    ),
    Endpoint("Signing secret", ("GET /api/1.1/signing-secret",), KEY_ONLY, page="screenshots.md"),
    Endpoint(
        "Background screenshot status",
        ("GET /api/1.1/screenshot/requests/{capture_id}",),
        CAPTURE_STATUS_PARAMS,
        page="screenshots.md",
    ),
    Endpoint(
        "oEmbed",
        ("GET /api/{1.1,3.0}/oembed/{encoded_url}", "GET /api/{1.1,3.0}/oembed?url=URL"),
        OEMBED_PARAMS,
        page="embeds.md",
    ),
    Endpoint("Site map", ("POST /api/3.0/map",), MAP_PARAMS, body=True, page="site-maps.md"),
    Endpoint("Batch", ("POST /api/3.0/batch",), BATCH_BODY, body=True, page="batch-and-crawl.md"),
    Endpoint("Crawl", ("POST /api/3.0/crawl",), CRAWL_BODY, body=True, page="batch-and-crawl.md"),
    Endpoint(
        "Job status and results",
        ("GET /api/3.0/jobs/{job_id}",),
        RESULTS_PARAMS,
        page="batch-and-crawl.md",
    ),
    Endpoint(
        "Cancel a job", ("DELETE /api/3.0/jobs/{job_id}",), KEY_ONLY, page="batch-and-crawl.md"
    ),
    Endpoint(
        "Frames: list", ("GET /api/v1/frames",), LIST_PARAMS, page="embeds.md", frame_host=True
    ),
    Endpoint(
        "Frames: one frame",
        (
            "GET /api/v1/frames/{embed_id}",
            "POST /api/v1/frames/{embed_id}/refresh",
            "DELETE /api/v1/frames/{embed_id}",
        ),
        KEY_ONLY,
        page="embeds.md",
        frame_host=True,
    ),
)

TABLES: tuple[ParamTable[Any], ...] = (*(endpoint.table for endpoint in ENDPOINTS), OPTIONS)
"""Every table the page describes (the jobs' ``options`` as a list of Markdown parameters)."""

HEAD = (
    "Every parameter of every endpoint, generated from the parameter tables that validate "
    "requests (`handlers/params/`) and describe them in `/openapi.json`; a running server shows "
    "the same at `/docs`. Regenerate this page with `make docs` (or `{command}`); a test fails "
    "when it drifts from the tables. How requests are made, the key and the errors: "
    "[api.md](api.md).",
    "The key (`app_id`) may also come in the `api-key` or `X-API-Key` header or as "
    "`Authorization: Bearer KEY`. Booleans take `true`, `false`, `1` or `0` in any case. A "
    "problem with any parameter is answered 400, naming every problem at once.",
)
"""The page's opening paragraphs."""


def _paragraph(text: str) -> list[str]:
    """``text`` wrapped as the other docs pages are (98 columns), never inside a code span, and
    a blank line after it."""
    spans = text.split("`")
    kept = "`".join(
        span.replace(" ", _SPACE) if odd % 2 else span for odd, span in enumerate(spans)
    )
    wrapped = textwrap.wrap(kept, 98, break_on_hyphens=False, break_long_words=False)
    return [*(line.replace(_SPACE, " ") for line in wrapped), ""]


_SPACE = "\x00"
"""Stands for a space inside a code span while a paragraph is wrapped."""


def _cell(text: str) -> str:
    """Text for a Markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _default(param: Param) -> str:
    if param.required:
        return "(required)"
    if param.default is None or param.secret:
        return ""
    if param.type == "boolean":
        return "`true`" if param.default else "`false`"
    if param.type == "array":
        return "`[" + ", ".join(param.default) + "]`"
    return f"`{param.default}`"


def _rules(param: Param) -> str:
    """``1 to 20000``, ``one of a, b``, ``at most 50 items``: what the table checks."""
    rules = []
    if param.minimum is not None and param.maximum is not None:
        rules.append(f"{_number(param.minimum)} to {_number(param.maximum)}")
    elif param.minimum is not None:
        rules.append(f"at least {_number(param.minimum)}")
    elif param.maximum is not None:
        rules.append(f"at most {_number(param.maximum)}")
    if param.round_to:
        rules.append(f"rounded to {param.round_to}")
    if param.choices:
        unknown = " (anything else: the default)" if param.lenient_choice else ""
        rules.append("one of " + ", ".join(param.choices) + unknown)
    if param.max_items is not None:
        rules.append(f"at most {param.max_items} items")
    if param.pattern_words:
        rules.append(param.pattern_words)
    if param.max_length is not None:
        each = "each item " if param.type == "array" else ""
        rules.append(f"{each}at most {param.max_length} characters")
    if param.aliases:
        rules.append("also spelt " + ", ".join(f"`{alias}`" for alias in param.aliases))
    return "; ".join(rules)


def _kind(param: Param, body: bool) -> str:
    if param.type == "array":
        return "array of strings" if body else "string, repeated"
    return param.type


def render_table(table: ParamTable[Any], body: bool = False) -> list[str]:
    """The Markdown table of one parameter table: name, type, default, rules, meaning."""
    rows = [
        "| parameter | type | default | rules | meaning |",
        "|---|---|---|---|---|",
    ]
    for param in table.params:
        rows.append(
            f"| `{param.name}` | {_kind(param, body)} | {_cell(_default(param))} | "
            f"{_cell(_rules(param))} | {_cell(param.help)} |"
        )
    return rows


def render_page() -> str:
    """The whole of ``docs/parameters.md``."""
    lines = ["# Parameters", ""]
    for text in HEAD:
        lines += _paragraph(text.format(command=COMMAND))
    for endpoint in ENDPOINTS:
        lines += [f"## {endpoint.title}", ""]
        lines += [f"- `{operation}`" for operation in endpoint.operations] + [""]
        where = "fields of the JSON body" if endpoint.body else "query parameters"
        host = ", on the frame host" if endpoint.frame_host else ""
        more = f" What it does: [{endpoint.page}]({endpoint.page})." if endpoint.page else ""
        lines += _paragraph(f"The {where}{host}.{more}")
        lines += [*render_table(endpoint.table, endpoint.body), ""]
        if endpoint.table in (BATCH_BODY, CRAWL_BODY):
            lines += _paragraph(
                "`options` (an object) sets the Markdown parameters of every page: see "
                "[Job options](#job-options)."
            )
    names = ", ".join(f"`{param.name}`" for param in OPTIONS.params)
    left_out = ", ".join(f"`{name}`" for name in sorted(ANSWER_ONLY))
    lines += ["## Job options", ""]
    lines += _paragraph(
        "The `options` object of a batch or crawl body: the [Markdown](#markdown) parameters "
        "that shape a page, as JSON values, with the same types, defaults and rules: "
        f"{names}. The parameters that only shape a single page's answer are refused there: "
        f"{left_out}."
    )
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(render_page())
