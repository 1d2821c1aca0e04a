"""The client's version follows the server's: ``pagecast_client.__version__`` is the version of
Pagecast's pyproject.toml, and the client's build (setuptools, as pip runs it to install from
``clients/python`` or a git URL) takes its version from ``__version__`` alone."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tomllib
from email.parser import Parser
from pathlib import Path

import pagecast_client
from bench.pagecast_process import ROOT

CLIENT = ROOT / "clients" / "python"


def server_version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


def test_the_client_s_version_is_the_server_s() -> None:
    assert pagecast_client.__version__ == server_version()
    project = tomllib.loads((CLIENT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "pagecast_client.__version__"
    }


def test_the_built_package_carries_the_server_s_version(tmp_path: Path) -> None:
    """The client's source distribution, built by its own build backend from a copy of
    ``clients/python`` (the build writes beside its sources), is of the server's version."""
    source = tmp_path / "python"
    shutil.copytree(CLIENT, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    built = subprocess.run(
        [
            sys.executable,
            "-c",
            f"from setuptools import build_meta; print(build_meta.build_sdist({str(tmp_path)!r}))",
        ],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    name = built.stdout.strip().splitlines()[-1]
    version = server_version()
    assert name == f"pagecast-client-{version}.tar.gz"
    with tarfile.open(tmp_path / name) as archive:
        member = archive.extractfile(f"pagecast-client-{version}/PKG-INFO")
        assert member is not None
        info = Parser().parsestr(member.read().decode())
    assert info["Name"] == "pagecast-client" and info["Version"] == version
