"""The examples run as written against a real Pagecast (the tour's page and server addresses
pointed at the test's): README's short tour, each command answering what the README shows after
it, and the Integrations page's programs, each printing what the page shows after it; and the
client's reference names everything the package exports."""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import pagecast_client
from bench.pagecast_process import ROOT
from tests.app.test_readme import section
from tests.clients.pagecast_site import Site, running_pagecast

TOUR_PAGE = "http://127.0.0.1:8000/"
TOUR_API = "http://127.0.0.1:8080"
TOUR_FRAMES = "http://127.0.0.1:8081"
TOUR_SERVES_THE_PAGE = "(cd docs/example && python3 -m http.server 8000 --bind 127.0.0.1 &)"
VOLATILE = frozenset(
    {
        "request_id",
        "embed_id",
        "frame_url",
        "html",
        "screenshotUrl",
        "created_at",
        "expiresAt",
        "cached",
        "cache_hit",
        "ready_ms",
        "load_ms",
        "next_cursor",
        "total",
    }
)
"""Fields whose values differ from one run to the next (ids, times, this server's other
frames, whether an earlier test left a copy in a cache)."""
SHOWN_VALUE = re.compile(r'"(\w+)": ("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)')
"""A field and its scalar value as a shown answer writes it."""
REFERENCE = (ROOT / "docs" / "client.md").read_text()


def examples() -> list[tuple[str, str, str]]:
    """(subsection, Python code, the output shown after it) of each runnable example."""
    found = []
    for title in ("Python client", "MCP server", "LangChain", "LlamaIndex"):
        text = section(title, "docs/integrations.md")
        for code, output in re.findall(r"```python\n(.*?)```\n\n```text\n(.*?)```", text, re.S):
            found.append((title, code, output))
    return found


def tour() -> tuple[list[str], list[tuple[str, str]]]:
    """The tour's set-up lines, and (command, the output shown after it) of each command."""
    text = section("A short tour")
    setup = re.findall(r"```sh\n(.*?)```", text, re.S)[0].strip().splitlines()
    commands: list[tuple[str, str]] = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                commands.append((line[2:], ""))
            else:
                command, shown = commands[-1]
                commands[-1] = (command, shown + line + "\n")
    return setup, commands


def fields(value: Any, found: dict[str, list[Any]] | None = None) -> dict[str, list[Any]]:
    """Every field name in a JSON value, with the values it has anywhere in it."""
    found = {} if found is None else found
    if isinstance(value, dict):
        for name, item in value.items():
            found.setdefault(name, []).append(item)
            fields(item, found)
    elif isinstance(value, list):
        for item in value:
            fields(item, found)
    return found


def check_json(shown: str, answered: str, command: str) -> None:
    """An answer against the shortened JSON the README shows: every field shown is there, with
    the value shown unless it is shortened or differs from run to run."""
    found = fields(json.loads(answered))
    for name in re.findall(r'"(\w+)":', shown):
        assert name in found, (command, name)
    for name, written in SHOWN_VALUE.findall(shown):
        value = json.loads(written)
        if name in VOLATILE or (isinstance(value, str) and "..." in value):
            continue
        assert value in found[name], (command, name, value, found[name])


def check_http(shown: str, answered: str, command: str) -> None:
    """A ``curl -si`` answer: the status line, the headers shown (but the request id) and the
    body (the JSON error's request id aside)."""
    shown_head, shown_body = shown.split("\n\n", 1)
    head, body = answered.replace("\r\n", "\n").split("\n\n", 1)
    status, *headers = shown_head.splitlines()
    assert head.splitlines()[0] == status, command
    got = dict(line.split(": ", 1) for line in head.lower().splitlines()[1:])
    for line in headers:
        name, value = line.lower().split(": ", 1)
        assert name in got, (command, name)
        if name != "x-request-id":
            assert got[name] == value, (command, name, got[name])
    if shown_body.startswith("{"):
        without_id = [{**json.loads(text), "request_id": ""} for text in (shown_body, body)]
        assert without_id[0] == without_id[1], command
    else:
        assert body == shown_body, command


@pytest.fixture
def own_site() -> Iterator[Site]:
    """A Pagecast of the tour's own: the README shows a fresh capture, which the shared
    server's earlier screenshots of the same page would turn into a reused one."""
    with running_pagecast() as site:
        yield site


def test_tour_runs_as_written(own_site: Site, tmp_path: Path) -> None:
    site = own_site
    setup, commands = tour()
    assert setup[0] == TOUR_SERVES_THE_PAGE and (ROOT / "docs/example/index.html").is_file()
    frame_port = tomllib.loads(site.config.read_text())["server"]["frame_port"]
    frames = f"http://127.0.0.1:{frame_port}"
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "first-key").write_text(site.key + "\n")
    here = {TOUR_PAGE: site.page, TOUR_API: site.base_url, TOUR_FRAMES: frames}
    python = f"{sys.executable} {ROOT / 'server.py'}"
    env = {**os.environ, "PAGECAST_CONFIG": str(site.config)}
    assert len(commands) == 9, [command for command, _ in commands]
    for command, shown in commands:
        script = "\n".join([*setup[1:], command]).replace(".venv/bin/python server.py", python)
        for written, actual in here.items():
            script = script.replace(written, actual)
        done = subprocess.run(
            ["bash", "-c", script],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, (command, done.stderr)
        answered = done.stdout
        for written, actual in here.items():
            answered = re.sub(re.escape(actual) + r"(?!\d)", written, answered)
        if "server.py usage" in command:
            assert answered.split()[0] == shown.split()[0] == "month", command
        elif not shown:
            saved = re.search(r"-o (\S+)", command)
            assert saved and (tmp_path / saved.group(1)).read_bytes()[:3] == b"\xff\xd8\xff"
        elif " -si " in command:
            check_http(shown, answered, command)
        else:
            for one, text in zip(
                re.split(r"\n(?=[{])", shown.strip()), _json_documents(answered), strict=True
            ):
                check_json(one, text, command)


def _json_documents(text: str) -> list[str]:
    """The JSON documents one after another in ``text``."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while at < len(text.rstrip()):
        while text[at].isspace():
            at += 1
        value, end = decoder.raw_decode(text, at)
        found.append(json.dumps(value))
        at = end
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
