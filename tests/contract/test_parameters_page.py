"""docs/parameters.md is what the parameter tables say: regenerated and compared, and every
table an endpoint reads from is on it."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import handlers.params
from handlers.params.reference import COMMAND, ENDPOINTS, TABLES, render_page
from handlers.params.table import ParamTable

ROOT = Path(__file__).resolve().parent.parent.parent
PAGE = ROOT / "docs" / "parameters.md"


def test_parameters_page_matches_the_tables() -> None:
    assert PAGE.read_text() == render_page(), (
        f"docs/parameters.md drifted from the parameter tables: run `make docs` (or `{COMMAND}`)"
    )


def test_every_parameter_table_is_on_the_page() -> None:
    """A table added to ``handlers/params/`` for a new endpoint is listed too."""
    declared = []
    for module in pkgutil.iter_modules(handlers.params.__path__):
        loaded = importlib.import_module(f"handlers.params.{module.name}")
        declared += [
            (module.name, name)
            for name, value in vars(loaded).items()
            if isinstance(value, ParamTable)
            if not any(value is table for table in TABLES)
        ]
    assert not declared, f"tables missing from handlers/params/reference.py: {declared}"


def test_every_parameter_has_a_row() -> None:
    page = render_page()
    for endpoint in ENDPOINTS:
        section = page.split(f"## {endpoint.title}\n", 1)[1].split("\n## ", 1)[0]
        for param in endpoint.table.params:
            assert f"| `{param.name}` |" in section, (endpoint.title, param.name)
