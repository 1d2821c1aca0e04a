"""Fuzzing the running server against its own ``/openapi.json`` with schemathesis.

A real Pagecast process (SQLite store, its Chromium farm, loopback allowed) and a local origin
site are started once. For every operation in the published document, Hypothesis draws requests
three ways: everything generated (the key included, so those answers are mostly 401s, and 429s
once the unknown-key throttle of the client's address is spent); a valid key with every other
parameter generated; and a valid key with the target pointed at a real
local page, so the successful paths (captures, conversions, embeds) are fuzzed too.

Every response must be a documented status with a documented content type, headers and body
schema. None may be a server error: the one 5xx allowed is the documented report of a target
that does not resolve (the generated hosts do not exist), never for the local page.

The run in the suite is bounded and seeded (the same requests every time, so a red run is a
real regression); ``make fuzz`` runs a longer random one: ``PAGECAST_FUZZ_EXAMPLES`` sets the
examples per operation and ``PAGECAST_FUZZ_RANDOM=1`` drops the fixed seed.
"""

from __future__ import annotations

import json
import os
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.specs.openapi.schemas import OpenApiSchema

from bench.pagecast_process import free_port, start_pagecast, stop_pagecast
from bench.sites import Sites, serve_sites
from handlers.openapi.document import build_openapi

pytestmark = pytest.mark.chromium

EXAMPLES = int(os.environ.get("PAGECAST_FUZZ_EXAMPLES", "30"))
RANDOM = os.environ.get("PAGECAST_FUZZ_RANDOM") == "1"
# Longer than any request may take: navigationTimeout (60 s at most), capture_delay (10 s at
# most), the farm's margins and a wait in its queue.
CLIENT_TIMEOUT = 150
# Server errors are judged by ``_target_failure`` below, which knows the one documented case.
CHECKS = [
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
# The API listener's operations as the document lists them (its server address does not matter
# here); the frame host's ("frames" tag) answer on another listener.
LABELS = [
    result.ok().label
    for result in schemathesis.openapi.from_dict(
        build_openapi("http://127.0.0.1")
    ).get_all_operations()
    if "frames" not in (result.ok().tags or [])
]


@dataclass
class Running:
    schema: OpenApiSchema
    base_url: str
    key: str
    sites: Sites
    log: Path
    job_id: str
    capture_id: str


@pytest.fixture(scope="module")
def running() -> Iterator[Running]:
    sites = serve_sites()
    with tempfile.TemporaryDirectory(prefix="pagecast-fuzz-") as tmp:
        port = free_port()
        log = Path(tmp) / "server.log"
        process, key = start_pagecast(tmp, port, log=log)
        base_url = f"http://127.0.0.1:{port}"
        try:
            schema = schemathesis.openapi.from_url(f"{base_url}/openapi.json")
            job_id = _submit_batch(base_url, key, sites.url("/article/fuzzing"))
            capture_id = _submit_capture(base_url, key, sites.url("/article/fuzzing"))
            yield Running(schema, base_url, key, sites, log, job_id, capture_id)
        finally:
            stop_pagecast(process)
            sites.close()


def _submit_batch(base_url: str, key: str, target: str) -> str:
    """A job of one page, whose id the job operations are fuzzed with."""
    request = urllib.request.Request(
        f"{base_url}/api/3.0/batch",
        data=json.dumps({"urls": [target]}).encode(),
        headers={"X-API-Key": key, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:  # loopback only
        return str(json.load(response)["id"])


def _submit_capture(base_url: str, key: str, target: str) -> str:
    """A background screenshot, whose id the capture status operation is fuzzed with."""
    encoded = urllib.parse.quote(target, safe="")
    request = urllib.request.Request(
        f"{base_url}/api/1.1/screenshot/{encoded}?async=true", headers={"X-API-Key": key}
    )
    with urllib.request.urlopen(request, timeout=30) as response:  # loopback only
        return str(json.load(response)["id"])


PATH_IDS = {"job_id": "job_id", "capture_id": "capture_id"}
"""Path parameters naming something made earlier -> the attribute of :class:`Running` holding
a real one."""


def _real_target(running: Running, path: str) -> str:
    """A page on the local origin that suits the operation."""
    if "/screenshot/" in path or "/markdown/" in path or path.endswith("/map"):
        return running.sites.url("/article/fuzzing")
    return running.sites.url("/card/fuzzing")


def _aimed(
    case: schemathesis.Case, target: str, aim: Callable[[str], dict[str, Any]] | None = None
) -> schemathesis.Case:
    """A generated JSON body with its url (or what ``aim`` says) pointed at the real page."""
    if isinstance(case.body, dict):
        case.body = {**case.body, **(aim(target) if aim else {"url": target})}
    return case


def _strategies(running: Running, label: str) -> st.SearchStrategy[schemathesis.Case]:
    """Mostly requests with the valid key (half of them at a real page), one in ten with
    whatever key Hypothesis makes up: the valid paths are where the work is."""
    operation = running.schema.find_operation_by_label(label)
    assert operation is not None, label
    anything = operation.as_strategy()
    names = {parameter.name for parameter in operation.iter_parameters()}
    if "app_id" not in names:
        return anything
    keyed = {"app_id": running.key}
    generated = operation.as_strategy(query=keyed)
    target = _real_target(running, operation.path)
    if operation.path in JOB_BODIES:
        aim = JOB_BODIES[operation.path]
        real = generated.map(lambda case: _aimed(case, target, aim))
    elif operation.body:
        real = generated.map(lambda case: _aimed(case, target))
    elif "encoded_url" in names:
        encoded = urllib.parse.quote(target, safe="")
        real = operation.as_strategy(query=keyed, path_parameters={"encoded_url": encoded})
    elif names & PATH_IDS.keys():
        ids = {name: getattr(running, PATH_IDS[name]) for name in names & PATH_IDS.keys()}
        real = operation.as_strategy(query=keyed, path_parameters=ids)
    else:
        real = operation.as_strategy(query={**keyed, "url": target})
    return st.integers(0, 19).flatmap(
        lambda draw: anything if draw < 2 else generated if draw < 11 else real
    )


def _target_failure(running: Running, case: schemathesis.Case, response: Any) -> bool:
    """Whether a 5xx answer is the documented report of an unreachable target (502
    ``target_unreachable``, 504 ``navigation_timeout``: the made-up host does not resolve),
    rather than a failure of Pagecast's own. Never for the local origin, which always answers."""
    code = response.json().get("error", {}).get("code")
    documented = {502: "target_unreachable", 504: "navigation_timeout"}
    target = urllib.parse.unquote(str(case.path_parameters.get("encoded_url", "")))
    target += str(case.query.get("url", ""))
    if isinstance(case.body, dict):
        target += str(case.body.get("url", ""))
    return documented.get(response.status_code) == code and running.sites.base_url not in target


JOB_BODIES: dict[str, Callable[[str], dict[str, Any]]] = {
    "/api/3.0/batch": lambda target: {"urls": [target]},
    "/api/3.0/crawl": lambda target: {"url": target, "max_pages": 2},
}
"""A plain body of each job submission, for a target page."""


def _plain_case(running: Running, operation: Any) -> tuple[schemathesis.Case, int]:
    """The operation asked plainly for a real page with the valid key, and the status it
    answers: 200, or 202 for a job submission."""
    target = _real_target(running, operation.path)
    keyed = {"app_id": running.key}
    if operation.path in JOB_BODIES:
        body = JOB_BODIES[operation.path](target)
        return operation.Case(query=keyed, body=body, media_type="application/json"), 202
    if operation.body:
        body = {"url": target}
        return operation.Case(query=keyed, body=body, media_type="application/json"), 200
    for name, attribute in PATH_IDS.items():
        if "{" + name + "}" in operation.path:
            ids = {name: getattr(running, attribute)}
            return operation.Case(path_parameters=ids, query=keyed), 200
    if "{encoded_url}" in operation.path:
        encoded = urllib.parse.quote(target, safe="")
        return operation.Case(path_parameters={"encoded_url": encoded}, query=keyed), 200
    return operation.Case(query={**keyed, "url": target}), 200


@pytest.mark.timeout(max(600, EXAMPLES * 15))
@pytest.mark.parametrize("label", LABELS)
def test_every_response_is_documented(running: Running, label: str) -> None:
    operation = running.schema.find_operation_by_label(label)
    assert operation is not None
    if any(parameter.name == "app_id" for parameter in operation.iter_parameters()):
        # The plain request first: the fuzzing below must not be all it ever sees fail.
        plain, expected = _plain_case(running, operation)
        response = plain.call(base_url=running.base_url, timeout=60)
        assert response.status_code == expected, response.text[:500]

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=not RANDOM,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=_strategies(running, label))
    def check(case: schemathesis.Case) -> None:
        keyed = bool(case.query) and case.query.get("app_id") == running.key
        # Made-up keys come from the same address as the valid one: the unknown-key throttle
        # answers them alone, never the valid key (checked below).
        response = case.call(base_url=running.base_url, timeout=CLIENT_TIMEOUT)
        case.validate_response(response, checks=CHECKS)
        if response.status_code >= 500:
            assert _target_failure(running, case, response), (
                f"{case.as_curl_command()}\n{response.text[:500]}"
            )
        if keyed:
            assert response.status_code != 429, "a valid key throttled for made-up ones"

    check()


def test_every_operation_is_fuzzed() -> None:
    """The parametrization above follows the document: nothing published goes untested."""
    assert len(LABELS) == len(set(LABELS)) >= 9
    assert any("/screenshot/" in label for label in LABELS)
    assert any("/markdown/" in label for label in LABELS)
    assert any(label.endswith("/oembed") for label in LABELS)
    assert "POST /api/3.0/map" in LABELS


def test_server_logged_no_traceback(running: Running) -> None:
    """Runs after the fuzzing (file order): whatever it sent, nothing went wrong inside."""
    log = running.log.read_text(errors="replace")
    assert "Traceback" not in log, log[log.index("Traceback") - 300 :][:3000]
