"""Every endpoint's parameters are one declaration: a frozen class whose fields make the table
(validation, ``/openapi.json``, the docs) and that its handler reads as typed attributes."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from handlers import frames, markdown, oembed, screenshot, signed_links
from handlers.base import ApiHandler
from handlers.params.markdown import MARKDOWN_PARAMS
from handlers.params.oembed import OEMBED_PARAMS
from handlers.params.screenshot import SCREENSHOT_PARAMS, SIGNED_SCREENSHOT_PARAMS
from handlers.params.table import ParamTable
from services.embeds import OembedOptions
from services.markdown import MarkdownError, MarkdownFailure, MarkdownOptions
from services.screenshots import ScreenshotOptions

ROOT = Path(__file__).resolve().parent.parent.parent


def endpoint_handlers() -> list[type[ApiHandler]]:
    found = []
    for module in (markdown, oembed, screenshot, signed_links, frames):
        for _path, handler in module.ROUTES:
            if isinstance(handler, type) and issubclass(handler, ApiHandler):
                found.append(handler)
    return found


def test_every_endpoint_table_is_declared_by_a_frozen_class() -> None:
    handlers = endpoint_handlers()
    assert len(handlers) >= 6
    for handler in handlers:
        model = handler.params.model
        assert model is not None, handler.__name__
        assert dataclasses.is_dataclass(model) and model.__dataclass_params__.frozen  # type: ignore[attr-defined]
        declared = [item.name for item in dataclasses.fields(model) if "param" in item.metadata]
        assert declared == [param.attr for param in handler.params.params], handler.__name__


def test_no_handler_looks_a_parameter_up_by_its_name() -> None:
    # params["max_chars"] would pass mypy whatever the name; params.max_chars does not.
    for path in sorted((ROOT / "handlers").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        lookups = [
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == "params"
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ]
        assert not lookups, f"{path.name} looks parameters up by name on lines {lookups}"


# -- a use case's typed options are the endpoint's parameters, named and defaulted alike --------

SCREENSHOT_OPTIONS = ("format", "quality", "full_page", "dimensions", "dark_mode")
"""The screenshot a Markdown request may ask beside its page (``screenshot_*``)."""
OPTIONS = [
    (MarkdownOptions, MARKDOWN_PARAMS, {}),
    (ScreenshotOptions, SCREENSHOT_PARAMS, {"navigation_timeout": "navigationTimeout"}),
    (ScreenshotOptions, SIGNED_SCREENSHOT_PARAMS, {"navigation_timeout": "navigationTimeout"}),
    (OembedOptions, OEMBED_PARAMS, {}),
]


@pytest.mark.parametrize(
    ("options", "table", "renamed"), OPTIONS, ids=lambda item: getattr(item, "__name__", "")
)
def test_every_option_is_a_parameter_with_the_same_default(
    options: type[Any], table: ParamTable[Any], renamed: dict[str, str]
) -> None:
    for item in dataclasses.fields(options):
        param = table.by_name[renamed.get(item.name, item.name)]
        assert item.default == param.default, item.name
        assert type(item.default) is type(param.default), item.name


def test_the_markdown_options_leave_out_only_what_shapes_the_answer() -> None:
    kept = {item.name for item in dataclasses.fields(MarkdownOptions)}
    answer_only = {"app_id", "url", "format", "include_markdown", "include_metadata"}
    answer_only |= {"include_chunks", "include_ai_safety"}
    answer_only |= {"screenshot"} | {f"screenshot_{name}" for name in SCREENSHOT_OPTIONS}
    assert kept == {param.name for param in MARKDOWN_PARAMS.params} - answer_only


def test_a_job_keeps_its_options_as_the_query_spells_them_and_reads_them_back() -> None:
    options = MarkdownOptions(retry=False, max_chars=500, include_tags="article", query="price")
    stored = options.stored()
    assert stored["retry"] == "false" and stored["max_chars"] == "500"
    assert stored["include_tags"] == "article" and stored["auto_proxy"] == "true"
    assert "max_cache_age" not in stored, "an option without a value is not kept"
    assert MarkdownOptions.from_stored(json.loads(json.dumps(stored))) == options
    # Every version reads them: the endpoint's table reads them as the same options.
    params, problems = MARKDOWN_PARAMS.read({name: [value] for name, value in stored.items()})
    assert not problems and MarkdownOptions.of(params) == options


def test_a_stored_option_that_cannot_be_read_fails_the_page_as_an_invalid_option() -> None:
    for broken in ({"retry": "yes"}, {"max_chars": "1.5"}, {"retry": None}, {"query": 5}):
        with pytest.raises(MarkdownError) as caught:
            MarkdownOptions.from_stored(broken)
        assert caught.value.failure is MarkdownFailure.INVALID_OPTION
    assert MarkdownOptions.from_stored({"ai_sanitize_mode": "bogus"}).ai_sanitize_mode == "sanitize"
    assert MarkdownOptions.from_stored({"accept_lang": " en-US "}).accept_lang == "en-US"


def test_a_job_stored_by_the_earlier_version_reads_as_it_did() -> None:
    # The earlier version kept the parameters a client sent, spelled as the query spells them,
    # and read them with the endpoint's table.
    sent = {
        "retry": "false",
        "auto_proxy": "true",
        "max_chars": "500",
        "chunk_size": "1000",
        "include_tags": "article,.post",
        "ai_sanitize": "true",
        "ai_sanitize_mode": "warn",
        "max_cache_age": "60000",
    }
    params, problems = MARKDOWN_PARAMS.read({name: [value] for name, value in sent.items()})
    assert not problems
    assert MarkdownOptions.from_stored(sent) == MarkdownOptions.of(params)
    assert MarkdownOptions.from_stored({"not_an_option": "1"}) == MarkdownOptions()
