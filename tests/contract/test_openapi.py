"""``/openapi.json``: valid OpenAPI 3.1, generated from the parameter tables, served by the API."""

from __future__ import annotations

import json

import pytest
from openapi_spec_validator import validate

from app.web import make_api_app
from handlers.markdown import MARKDOWN_PARAMS
from handlers.openapi import build_openapi


@pytest.fixture
def app(services):
    return make_api_app(services)


def test_document_is_valid_openapi_31() -> None:
    document = build_openapi("http://127.0.0.1:8080")
    assert document["openapi"].startswith("3.1")
    validate(document)


def test_markdown_operation_lists_every_table_parameter() -> None:
    operation = build_openapi("http://x")["paths"]["/api/3.0/markdown/{encoded_url}"]["get"]
    names = {p["name"] for p in operation["parameters"]}
    assert set(MARKDOWN_PARAMS.by_name) | {"encoded_url"} == names
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


@pytest.mark.gen_test(timeout=20)
async def test_served_on_the_api_listener(http_client, base_url) -> None:
    response = await http_client.fetch(f"{base_url}/openapi.json")
    document = json.loads(response.body)
    validate(document)
    assert "/api/3.0/markdown/{encoded_url}" in document["paths"]
