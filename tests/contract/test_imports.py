"""Every module of Pagecast imports first: a module imported before any other of its packages'
does not meet a half-initialised one (an import cycle that the usual order of imports hides)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGES = ("settings", "convert", "browser", "store", "services", "handlers", "app")


def modules() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


THIRD_PARTY = (
    "boto3",
    "cachetools",
    "cssselect",
    "html2text",
    "lxml.html",
    "pdfplumber",
    "peewee",
    "PIL.Image",
    "playhouse.pool",
    "playwright.async_api",
    "prometheus_client",
    "psycopg2",
    "pycurl",
    "tornado.curl_httpclient",
    "tornado.web",
)
"""Imported once before forking, so that each module's own interpreter imports Pagecast only."""


def test_every_module_imports_first_in_a_fresh_interpreter() -> None:
    # One interpreter per module (as many at once as there are cores), each forked from one
    # that has imported nothing of Pagecast's.
    script = (
        "import os, sys, importlib\n"
        f"for library in {THIRD_PARTY!r}:\n"
        "    importlib.import_module(library)\n"
        "names, running, failed = sys.argv[1:], {}, []\n"
        "def reap():\n"
        "    pid, status = os.wait()\n"
        "    if status:\n"
        "        failed.append(running[pid])\n"
        "    del running[pid]\n"
        "for name in names:\n"
        "    if len(running) >= (os.cpu_count() or 1):\n"
        "        reap()\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        try:\n"
        "            importlib.import_module(name)\n"
        "        except Exception as exc:\n"
        "            print(f'{name}: {exc!r}', flush=True)\n"
        "            os._exit(1)\n"
        "        os._exit(0)\n"
        "    running[pid] = name\n"
        "while running:\n"
        "    reap()\n"
        "sys.exit(1 if failed else 0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *modules()],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
