"""``/llms.txt`` over HTTP: the llms.txt convention's Markdown (a title, a quoted summary, sections
of links), served as plain text without a key, naming every operation ``/openapi.json`` names."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import tornado.web

from app.services import Services
from app.web import make_api_app
from handlers.llms import anchor

LINK = re.compile(r"^- \[(?P<name>[^\]]+)\]\((?P<url>[^)\s]+)\): (?P<note>\S.*)$")
"""One line of a section: ``- [name](url): notes``."""
METHODS = ("get", "put", "post", "delete", "patch")


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


async def fetch(http_client: Any, url: str, **kwargs: Any) -> Any:
    return await http_client.fetch(url, raise_error=False, **kwargs)


def sections(text: str) -> dict[str, list[str]]:
    """The lines under each ``## `` heading, blank lines left out."""
    found: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:]
            found[current] = []
        elif current is not None and line:
            found[current].append(line)
    return found


@pytest.mark.gen_test(timeout=20)
async def test_served_as_plain_text_without_a_key(http_client, base_url) -> None:
    response = await fetch(http_client, f"{base_url}/llms.txt")
    assert response.code == 200
    assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert response.headers["Cache-Control"] == "public, max-age=300"
    assert response.headers["X-Request-Id"]
    text = response.body.decode("utf-8")
    title, blank, summary, *_ = text.splitlines()
    assert (title, blank) == ("# Pagecast", "")
    assert summary.startswith("> Pagecast turns a web page into a screenshot")
    assert "api-key" in summary and "app_id" in summary
    assert list(sections(text)) == ["Operations", "Reference", "Optional"]


@pytest.mark.gen_test(timeout=20)
async def test_lists_every_operation_of_the_document(http_client, base_url, services) -> None:
    document = json.loads((await fetch(http_client, f"{base_url}/openapi.json")).body)
    text = (await fetch(http_client, f"{base_url}/llms.txt")).body.decode("utf-8")
    public = services.settings.server.public_base_url()
    listed: dict[str, tuple[str, str]] = {}
    for name, lines in sections(text).items():
        for line in lines:
            match = LINK.match(line)
            assert match, f"{name}: not a link line: {line!r}"
            listed[match["name"]] = (match["url"], match["note"])
    expected = {}
    for path, item in document["paths"].items():
        for method in METHODS:
            if method in item:
                expected[f"{method.upper()} {path}"] = item[method]
    operations = {name: value for name, value in listed.items() if name in expected}
    assert set(operations) == set(expected)
    for name, (url, note) in operations.items():
        operation = expected[name]
        assert url == f"{public}/docs#{anchor(operation['operationId'])}"
        assert note.startswith(operation["summary"]), (name, note)
        # The keyed operations first; those that need no key under Optional.
        keyed = any(line.startswith(f"- [{name}]") for line in sections(text)["Operations"])
        assert keyed == bool(operation.get("security")), name
    assert listed["OpenAPI description"][0] == f"{public}/openapi.json"
    assert listed["API reference"][0] == f"{public}/docs"
    frames = listed["GET /api/v1/frames"][1]
    assert frames.endswith(
        f"(on {document['paths']['/api/v1/frames']['get']['servers'][0]['url']})"
    )


def test_anchors_are_the_reference_page_slugs() -> None:
    assert anchor("markdown_query") == "op-markdown_query"
    assert anchor("listFrames") == "op-listframes"
    assert anchor("get /a.b") == "op-get-a-b"


@pytest.mark.gen_test(timeout=20)
async def test_other_methods_are_refused(http_client, base_url) -> None:
    response = await fetch(http_client, f"{base_url}/llms.txt", method="POST", body=b"")
    assert response.code == 405
    assert json.loads(response.body)["error"]
