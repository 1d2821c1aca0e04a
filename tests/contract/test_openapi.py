"""``/openapi.json``: valid OpenAPI 3.1, generated from the parameter tables, served by the API,
and naming every route of the API and frame listeners with the methods their handlers answer."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest
import referencing
import referencing.jsonschema
import tornado.routing
import tornado.web
from openapi_spec_validator import validate

from app.web import make_api_app, make_frame_app
from handlers.docs import DocsHandler
from handlers.errors import KINDS
from handlers.llms import LlmsTxtHandler
from handlers.openapi.document import OpenApiHandler, build_openapi
from handlers.openapi.errors import HEADERS
from handlers.params.groups import MARKDOWN_GROUPS
from handlers.params.markdown import MARKDOWN_PARAMS
from handlers.playground import PlaygroundHandler
from handlers.static import RobotsHandler


@pytest.fixture
def app(services):
    return make_api_app(services)


def resolve(document: dict[str, Any], ref: str) -> Any:
    """The part of ``document`` a local reference names."""
    found: Any = document
    for key in ref.removeprefix("#/").split("/"):
        found = found[key]
    return found


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
        "Screenshot",
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
            ref = responses[str(kind.status)]["$ref"]
            assert ref == f"#/components/responses/{shape}_{kind.status}"
            response = resolve(document, ref)
            named = response["content"]["application/json"]["examples"][name]
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
    "key_id": "pc_Ab3dE6gH",
    "capture_id": "0123456789abcdef0123456789abcdef",
}
"""A value for each path parameter the document names, as a client would send it."""
DOCUMENTATION = (OpenApiHandler, DocsHandler, LlmsTxtHandler, PlaygroundHandler, RobotsHandler)
"""Handlers that serve the documentation itself (the document, its page, /llms.txt, the
playground)."""
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


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]


def test_common_headers_and_errors_are_described_once() -> None:
    """The headers every answer shares and the error answers are components, named by
    reference from each operation: none of them is written out inside an operation."""
    document = build_openapi("http://x", "http://frames")
    components = document["components"]
    assert set(components["headers"]) == set(HEADERS)
    for method, path, operation in _operations(document):
        for status, response in operation["responses"].items():
            if "$ref" in response:
                assert response["$ref"].startswith("#/components/responses/"), (path, status)
                assert resolve(document, response["$ref"]), (path, status)
                continue
            assert int(status) < 400 or not response.get("content", {}).get(
                "application/json", {}
            ).get("examples"), f"{method} {path} {status}: an error answer written out"
            for name, header in response.get("headers", {}).items():
                if name in HEADERS:
                    assert header == {"$ref": f"#/components/headers/{name}"}, (path, name)
    markdown = document["paths"]["/api/3.0/markdown/{encoded_url}"]["get"]["responses"]
    assert set(markdown["200"]["headers"]) == set(HEADERS) | {
        "X-Markdown-Character-Count",
        "X-Markdown-Passage-Count",
        "X-Screenshot-Url",
        "X-Markdown-Truncated",
        "X-Markdown-Truncation-Reason",
        "X-Cache",
    }
    # Server-Timing: on the screenshot and Markdown answers only.
    screenshot = document["paths"]["/api/1.1/screenshot/{encoded_url}"]["get"]["responses"]
    assert set(screenshot["200"]["headers"]) == set(HEADERS)
    oembed = document["paths"]["/api/3.0/oembed/{encoded_url}"]["get"]["responses"]
    assert set(oembed["200"]["headers"]) == set(HEADERS) - {"Server-Timing"}
    # Every error status of each shape is one component, with every kind of that status.
    for shape in ("markdown", "oembed"):
        for status in {kind.status for kind in KINDS.values()}:
            response = components["responses"][f"{shape}_{status}"]
            examples = response["content"]["application/json"]["examples"]
            assert set(examples) == {name for name, kind in KINDS.items() if kind.status == status}


BINARY = {"image/jpeg", "image/png", "image/webp", "application/pdf"}


def test_every_operation_has_a_success_example_that_fits_its_schema() -> None:
    """Each operation's first successful answer has an example body for every media type that
    is not a file, and each example is valid against that media type's schema."""
    document = build_openapi("http://127.0.0.1:8080", "http://127.0.0.1:8081")
    registry = referencing.Registry().with_resource(
        "urn:openapi", referencing.jsonschema.DRAFT202012.create_resource(document)
    )
    with_body = 0
    for method, path, operation in _operations(document):
        statuses = sorted(status for status in operation["responses"] if status < "300")
        assert statuses, f"{method} {path}: no success answer"
        content = operation["responses"][statuses[0]].get("content", {})
        assert operation["operationId"], f"{method} {path}: no operationId"
        for media, body in content.items():
            if media in BINARY:
                assert "example" not in body
                continue
            assert "example" in body, f"{operation['operationId']}: no {media} example"
            with_body += 1
            schema = {**body["schema"], "$id": "urn:example"}
            schema = json.loads(
                json.dumps(schema).replace('"#/components', '"urn:openapi#/components')
            )
            jsonschema.Draft202012Validator(schema, registry=registry).validate(body["example"])
    assert with_body >= 20
    screenshot = document["paths"]["/api/1.1/screenshot/{encoded_url}"]["get"]
    link = screenshot["responses"]["200"]["content"]["application/json"]["example"]
    assert link["screenshotUrl"].startswith("http://127.0.0.1:8080/screenshots/")
    frame = document["paths"]["/api/v1/frames/{embed_id}"]["get"]["responses"]["200"]
    assert frame["content"]["application/json"]["example"]["frame_url"].startswith(
        "http://127.0.0.1:8081/oembed/"
    )


def test_a_wrong_example_is_refused() -> None:
    """The check above can fail: an example without a required field is invalid."""
    document = build_openapi("http://x")
    registry = referencing.Registry().with_resource(
        "urn:openapi", referencing.jsonschema.DRAFT202012.create_resource(document)
    )
    validator = jsonschema.Draft202012Validator(
        {"$ref": "urn:openapi#/components/schemas/ScreenshotResult"}, registry=registry
    )
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"screenshotUrl": "http://x/screenshots/a.png"})


def test_query_forms_are_variants_of_the_path_forms() -> None:
    """Each url= form names its path form (x-variant-of) and differs from it only by the target:
    url in the query instead of encoded_url in the path."""
    document = build_openapi("http://x")
    by_id = {op["operationId"]: op for _, _, op in _operations(document)}
    variants = {name: op["x-variant-of"] for name, op in by_id.items() if "x-variant-of" in op}
    assert variants == {
        "markdown_query": "markdown",
        "oembed_1_1_path": "oembed_3_0_path",
        "oembed_1_1_query": "oembed_3_0_query",
        "oembed_3_0_query": "oembed_3_0_path",
        "screenshot_query": "screenshot",
        "screenshotImageHead": "screenshotImage",
    }
    for name, base in variants.items():
        own = {(p["in"], p["name"], p.get("required", False)) for p in by_id[name]["parameters"]}
        theirs = {(p["in"], p["name"], p.get("required", False)) for p in by_id[base]["parameters"]}
        if name.endswith("_query") and base.endswith(("_path", "markdown", "screenshot")):
            assert own - theirs == {("query", "url", True)}, name
            assert theirs - own == {("path", "encoded_url", True)}, name
        else:
            assert own == theirs, name
        assert by_id[name]["responses"] == by_id[base]["responses"], name


def test_each_operation_keeps_its_own_example() -> None:
    """Operations that share an answer's schema each keep their example (a frame read and a
    frame refreshed), an error answer gets none, and building the document changes nothing that
    a second build would see."""
    document = build_openapi("http://x", "http://frames")
    frame = document["paths"]["/api/v1/frames/{embed_id}"]["get"]["responses"]["200"]
    refreshed = document["paths"]["/api/v1/frames/{embed_id}/refresh"]["post"]["responses"]["200"]
    read = frame["content"]["application/json"]["example"]
    assert read["refreshed_at"] is None
    assert refreshed["content"]["application/json"]["example"]["refreshed_at"]
    not_ready = document["paths"]["/readyz"]["get"]["responses"]["503"]
    assert "example" not in not_ready["content"]["application/json"]
    assert build_openapi("http://x", "http://frames") == document
    other = build_openapi("http://y", "http://other-frames")
    listed = other["paths"]["/api/v1/frames"]["get"]["responses"]["200"]["content"]
    assert listed["application/json"]["example"]["frames"][0]["frame_url"].startswith(
        "http://other-frames/oembed/"
    )
