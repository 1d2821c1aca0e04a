"""The container recipe, read statically: the Dockerfile takes the steps deploy/bootstrap.sh
proves (Debian's packages, Chromium from Debian, the pinned requirements), copies every package
the server imports, runs as a non-root user with its data in a volume and checks /healthz; the
compose file runs Pagecast alone on SQLite, and with PostgreSQL and an S3-compatible store in
its profile, naming only settings that exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from app.config import Settings
from app.effective import known_variables

ROOT = Path(__file__).resolve().parent.parent.parent
DOCKERFILE = (ROOT / "Dockerfile").read_text()
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
SCALE_ENV = ROOT / "deploy" / "compose-scale.env"


def instructions(name: str) -> list[str]:
    """The arguments of every Dockerfile instruction called ``name`` (continuations joined)."""
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE)
    return [
        line.split(None, 1)[1]
        for line in text.splitlines()
        if line.strip() and line.split(None, 1)[0] == name
    ]


def env_file(path: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in path.read_text().splitlines())
    return {pair[0]: pair[1] for pair in pairs if len(pair) == 2 and not pair[0].startswith("#")}


def local_packages() -> set[str]:
    """Pagecast's own packages that the server's modules import, followed from server.py."""
    owned = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests", "bench"}
    seen: set[str] = set()
    pending = [ROOT / "server.py"]
    while pending:
        tree = ast.parse(pending.pop().read_text())
        for node in ast.walk(tree):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                top = name.split(".")[0]
                if top in owned and top not in seen:
                    seen.add(top)
                    pending.extend((ROOT / top).rglob("*.py"))
    return seen


def test_dockerfile_builds_what_bootstrap_installs() -> None:
    bases = instructions("FROM")
    assert bases and all(base.startswith("debian:12") for base in bases)
    installed = " ".join(run for run in instructions("RUN") if "apt-get install" in run)
    bootstrap = (ROOT / "deploy" / "bootstrap.sh").read_text()
    for package in re.findall(r"missing\+=\((\S+)\)", bootstrap):
        if package != "postgresql":  # the test database, not the server
            assert package in installed, f"{package} (bootstrap.sh installs it)"
    assert any("pip install" in run and "-r " in run for run in instructions("RUN"))
    copied = " ".join(instructions("COPY"))
    assert "requirements.txt" in copied and "static" in copied
    for package in local_packages():
        assert f" {package} " in f" {copied} ", f"the server imports {package}: copy it"


def test_dockerfile_runs_unprivileged_with_a_volume_and_a_health_check() -> None:
    user = instructions("USER")
    assert user and user[-1] not in ("root", "0")
    settings = Settings()
    [volume] = instructions("VOLUME")
    assert f"PAGECAST_STORE_DATA_DIR={volume}" in DOCKERFILE
    [health] = instructions("HEALTHCHECK")
    assert f":{settings.server.port}/healthz" in health
    exposed = {int(port) for port in instructions("EXPOSE")[0].split()}
    assert exposed == {
        settings.server.port,
        settings.server.frame_port,
        settings.server.metrics_port,
    }
    named = set(re.findall(r"\b(PAGECAST_[A-Z_]+)=", DOCKERFILE))
    assert named and named <= known_variables(settings)
    assert settings.farm.executable_path == "/usr/bin/chromium"  # Debian's, installed above


def test_compose_runs_pagecast_alone_on_sqlite() -> None:
    services = COMPOSE["services"]
    pagecast = services["pagecast"]
    assert "profiles" not in pagecast and pagecast["build"] == "."
    assert any(volume.endswith(":/var/lib/pagecast") for volume in pagecast["volumes"])
    # Alone, its database URL is empty (SQLite in the volume) and images stay on disk.
    environment = pagecast["environment"]
    assert environment["PAGECAST_STORE_DATABASE_URL"].endswith(":-}")
    assert environment["PAGECAST_SCREENSHOTS_BACKEND"].endswith(":-filesystem}")
    assert set(environment) <= known_variables(Settings())
    assert "depends_on" not in pagecast and pagecast["restart"] == "unless-stopped"
    for name, service in services.items():
        if name != "pagecast":
            assert service["profiles"] == ["scale"], name


def test_scale_profile_points_at_its_services() -> None:
    values = env_file(SCALE_ENV)
    assert values["COMPOSE_PROFILES"] == "scale"
    services = COMPOSE["services"]
    database = urlsplit(values["PAGECAST_STORE_DATABASE_URL"])
    assert database.scheme == "postgresql" and database.hostname in services
    postgres = services[database.hostname]["environment"]
    assert database.username == postgres["POSTGRES_USER"] and database.path == "/pagecast"
    store = urlsplit(values["PAGECAST_SCREENSHOTS_S3_ENDPOINT_URL"])
    assert store.hostname in services and values["PAGECAST_SCREENSHOTS_BACKEND"] == "s3"
    # Every Pagecast setting the env file gives reaches the container through compose.
    settings = {name for name in values if name.startswith("PAGECAST_")}
    assert settings <= known_variables(Settings())
    passed = " ".join(str(value) for value in services["pagecast"]["environment"].values())
    for name in settings:
        assert f"${{{name}:-" in passed, f"compose does not pass {name} on"
