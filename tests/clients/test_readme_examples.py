"""README's Integrations examples run as written against a real Pagecast (the tour's page and
server addresses pointed at the test's), each printing what the README shows after it; and the
client's reference names everything the package exports."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys

import pytest

import pagecast_client
from bench.pagecast_process import ROOT
from tests.app.test_readme import section
from tests.clients.pagecast_site import Site

TOUR_PAGE = "http://127.0.0.1:8000/"
TOUR_API = "http://127.0.0.1:8080"
REFERENCE = (ROOT / "docs" / "client.md").read_text()


def examples() -> list[tuple[str, str, str]]:
    """(subsection, Python code, the output shown after it) of each runnable example."""
    found = []
    for title in ("Python client", "MCP server", "LangChain", "LlamaIndex"):
        text = section(title)
        for code, output in re.findall(r"```python\n(.*?)```\n\n```text\n(.*?)```", text, re.S):
            found.append((title, code, output))
    return found


@pytest.mark.parametrize(("title", "code", "output"), examples())
def test_integration_example_runs_as_written(
    site: Site, title: str, code: str, output: str
) -> None:
    program = code.replace(TOUR_PAGE, site.page).replace(TOUR_API, site.base_url)
    kept = {name: value for name, value in os.environ.items() if not name.startswith("PAGECAST_")}
    env = {
        **kept,
        "PAGECAST_API_KEY": site.key,
        "PAGECAST_URL": site.base_url,
        "PAGECAST_CONFIG": str(site.config),
        "PYTHONPATH": str(ROOT / "clients" / "python" / "src"),
    }
    done = subprocess.run(
        [sys.executable, "-c", program],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.replace(site.page, TOUR_PAGE) == output, title


def test_examples_cover_every_integration() -> None:
    assert {title for title, _, _ in examples()} == {
        "Python client",
        "MCP server",
        "LangChain",
        "LlamaIndex",
    }


def test_reference_names_every_export_and_method() -> None:
    for name in pagecast_client.__all__:
        assert re.search(rf"`{name}\b", REFERENCE), name
    for cls in (pagecast_client.Pagecast, pagecast_client.AsyncPagecast):
        for name, _ in inspect.getmembers(cls, inspect.isfunction):
            if not name.startswith("_"):
                assert f"{name}(" in REFERENCE, name
