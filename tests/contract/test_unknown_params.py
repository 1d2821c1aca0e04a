"""No parameter is dropped in silence: every operation of the API and of the frame-management
API, sent a misspelling of each of its parameters, names every one of them in
X-Pagecast-Warnings, most with the parameter it was meant to be. The targets are refused after
the parameters are read, so no page is fetched or rendered."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
import tornado.web

from app.web import make_api_app, make_frame_app
from handlers.openapi.document import build_openapi
from tests.origin import serve

TARGET = quote("ftp://nowhere.invalid/", safe="")
"""A target every endpoint refuses once its parameters are read (400, nothing fetched)."""
SAMPLES = {
    "encoded_url": TARGET,
    "embed_id": "00000000-0000-0000-0000-000000000000",
    "job_id": "0123456789abcdef",
}
FRAME_PATHS = ("/api/v1/frames",)


@pytest.fixture
def app(services: Any) -> tornado.web.Application:
    return make_api_app(services)


@pytest.fixture
def key(services: Any) -> str:
    """A key whose plan's burst covers a request to every operation at once."""
    return str(services.store.create_key("acme", "pro").key)


def misspelled(name: str) -> str:
    """A typing slip: two neighbouring letters swapped (or a letter doubled in a short name)."""
    if len(name) < 4:
        return name + name[-1]
    middle = len(name) // 2
    swapped = name[: middle - 1] + name[middle] + name[middle - 1] + name[middle + 1 :]
    return swapped if swapped != name else name + name[-1]  # two equal letters: doubled


def operations() -> list[tuple[str, str, str, list[str]]]:
    """(path, method, operation id, query parameter names) of every keyed operation."""
    found = []
    for path, item in build_openapi("http://x")["paths"].items():
        for method, operation in item.items():
            names = [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]
            if operation.get("security") and names:
                found.append((path, method, operation["operationId"], names))
    return found


@pytest.mark.gen_test(timeout=60)
async def test_every_misspelled_parameter_is_named(http_client, base_url, services, key) -> None:
    frames = serve(make_frame_app(services))
    checked = 0
    try:
        for path, method, operation, names in operations():
            concrete = path
            for name, value in SAMPLES.items():
                concrete = concrete.replace("{" + name + "}", value)
            wrong = {misspelled(name): "1" for name in names if name != "app_id"}
            assert len(wrong) == len([n for n in names if n != "app_id"]), operation
            query = "&".join(f"{name}={value}" for name, value in wrong.items())
            if "url" in names:
                query += f"&url={TARGET}"  # a refused target in the query form too
            host = frames.base_url if path.startswith(FRAME_PATHS) else base_url
            response = await http_client.fetch(
                f"{host}{concrete}?{query}",
                method=method.upper(),
                headers={"X-API-Key": key},
                body=b"" if method in ("post", "put") else None,
                raise_error=False,
            )
            header = response.headers.get("X-Pagecast-Warnings", "")
            for name in wrong:
                assert repr(name) in header, (operation, name, response.code, header)
            checked += len(wrong)
    finally:
        await frames.close()
    assert checked > 100  # every endpoint's table, not a handful
