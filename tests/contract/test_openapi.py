"""``/openapi.json``: valid OpenAPI 3.1, generated from the parameter tables, served by the API,
and naming every route of the API and frame listeners with the methods their handlers answer."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import tornado.routing
import tornado.web
from openapi_spec_validator import validate

from app.web import make_api_app, make_frame_app
from handlers.docs import DocsHandler
from handlers.errors import KINDS
from handlers.openapi.document import OpenApiHandler, build_openapi
from handlers.params.groups import MARKDOWN_GROUPS
from handlers.params.markdown import MARKDOWN_PARAMS
from handlers.playground import PlaygroundHandler
from handlers.static import RobotsHandler


@pytest.fixture
def app(services):
    return make_api_app(services)


def test_document_is_valid_openapi_31() -> None:
    document = build_openapi("http://127.0.0.1:8080")
    assert document["openapi"].startswith("3.1")
    validate(document)


def test_markdown_operation_lists_every_table_parameter() -> None:
    paths = build_openapi("http://x")["paths"]
    operation = paths["/api/3.0/markdown/{encoded_url}"]["get"]
    names = {p["name"] for p in operation["parameters"]}
    assert set(MARKDOWN_PARAMS.by_name) - {"url"} | {"encoded_url"} == names
    query_form = {p["name"] for p in paths["/api/3.0/markdown"]["get"]["parameters"]}
    assert set(MARKDOWN_PARAMS.by_name) == query_form
    by_name = {p["name"]: p for p in operation["parameters"]}
    assert by_name["chunk_size"]["schema"] == {
        "type": "integer",
        "default": 2000,
        "minimum": 200,
        "maximum": 20000,
    }
    assert by_name["format"]["schema"]["enum"] == ["markdown", "json"]
    assert by_name["chunking"]["schema"]["enum"] == ["true", "false", "1", "0"]
    assert all(p["description"] for p in operation["parameters"])
    assert {"400", "401", "404", "429", "500"} <= set(operation["responses"])


def test_markdown_parameters_come_in_groups() -> None:
    """Every Markdown parameter but the key and the target is in exactly one group, the groups
    name only real parameters, and the document lists them group by group with ``x-group``."""
    names = [name for _, members in MARKDOWN_GROUPS for name in members]
    assert len(names) == len(set(names)), "a parameter in two groups"
    assert set(names) == set(MARKDOWN_PARAMS.by_name) - {"app_id", "url"}  # key and target
    assert [title for title, _ in MARKDOWN_GROUPS] == [
        "Essentials",
        "Output",
        "Chunks and query",
        "Structure",
        "Rendering and fetch",
        "Safety",
    ]
    operation = build_openapi("http://x")["paths"]["/api/3.0/markdown/{encoded_url}"]["get"]
    listed = [(p["name"], p.get("x-group")) for p in operation["parameters"]]
    assert listed[:2] == [("encoded_url", None), ("app_id", None)]
    assert listed[2:] == [(name, title) for title, members in MARKDOWN_GROUPS for name in members]


def test_every_error_kind_has_an_example_body_in_both_shapes() -> None:
    document = build_openapi("http://x")
    examples = document["components"]["examples"]
    schemas = document["components"]["schemas"]
    for name, kind in KINDS.items():
        markdown = examples[f"markdown_{name}"]
        assert markdown["summary"] == kind.message
        assert markdown["value"]["error"] == {"code": kind.markdown_code, "message": kind.message}
        assert set(markdown["value"]) == set(schemas["MarkdownError"]["required"])
        oembed = examples[f"oembed_{name}"]["value"]
        assert oembed["error"]["code"] == kind.oembed_code
        assert oembed["error"]["stage"] == kind.stage
        assert oembed["success"] is False and set(oembed) == {"success", "error", "request_id"}
        assert set(oembed["error"]) == set(
            schemas["OembedError"]["properties"]["error"]["required"]
        )
    for path, shape in (
        ("/api/3.0/markdown/{encoded_url}", "markdown"),
        ("/api/1.1/screenshot/{encoded_url}", "oembed"),
    ):
        responses = document["paths"][path]["get"]["responses"]
        for name, kind in KINDS.items():
            named = responses[str(kind.status)]["content"]["application/json"]["examples"][name]
            assert named == {"$ref": f"#/components/examples/{shape}_{name}"}


@pytest.mark.gen_test(timeout=20)
async def test_served_on_the_api_listener(http_client, base_url) -> None:
    response = await http_client.fetch(f"{base_url}/openapi.json")
    document = json.loads(response.body)
    validate(document)
    assert "/api/3.0/markdown/{encoded_url}" in document["paths"]


SAMPLES = {
    "encoded_url": "https%3A%2F%2Fexample.com%2Fpage",
    "file": "0123456789abcdef0123456789abcdef.png",
    "embed_id": "e0123456789",
    "customer_hash": "0123456789abcdef",
    "params_hash": "0123456789abcdef0123456789abcdef",
    "job_id": "0123456789abcdef0123456789abcdef",
}
"""A value for each path parameter the document names, as a client would send it."""
DOCUMENTATION = (OpenApiHandler, DocsHandler, PlaygroundHandler, RobotsHandler)
"""Handlers that serve the documentation itself (the document, its page, the playground)."""
METHODS = ("get", "post", "put", "patch", "delete")


def _routes(*apps: tornado.web.Application) -> list[tuple[re.Pattern[str], Any]]:
    return [
        (rule.matcher.regex, rule.target)
        for app in apps
        for rule in app.wildcard_router.rules
        if isinstance(rule.matcher, tornado.routing.PathMatches)
        and not issubclass(rule.target, DOCUMENTATION)
        and not issubclass(rule.target, tornado.web.StaticFileHandler)
    ]


def _answers(handler: Any, method: str) -> bool:
    return getattr(handler, method) is not getattr(tornado.web.RequestHandler, method)


def test_every_route_and_method_is_in_the_document(services) -> None:
    routes = _routes(make_api_app(services), make_frame_app(services))
    paths = build_openapi("http://x", "http://frames")["paths"]
    examples = {path: re.sub(r"\{(\w+)\}", lambda m: SAMPLES[m[1]], path) for path in paths}
    for regex, handler in routes:
        documented = [path for path, example in examples.items() if regex.fullmatch(example)]
        assert documented, f"{regex.pattern} ({handler.__name__}) is not in the document"
        for method in METHODS:
            if _answers(handler, method):
                assert any(method in paths[path] for path in documented), (
                    f"{method.upper()} {regex.pattern} is not in the document"
                )
    for path, example in examples.items():
        handlers = [handler for regex, handler in routes if regex.fullmatch(example)]
        assert handlers, f"{path} is documented but no listener routes it"
        for method in paths[path]:
            assert any(_answers(handler, method) for handler in handlers), f"{method} {path}"
