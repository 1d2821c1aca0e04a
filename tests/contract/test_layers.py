"""The layers keep their promises: which package may import which, read from the source, and the
same rules as ``docs/architecture.md`` states them.

Every module of every package is read (imports at the top and inside functions, type-only ones
included); an import of a Pagecast package the importer's floor may not use fails, and so does a
convert package importing one that comes after it, or a module that does I/O from ``convert/``.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
FIRST_PARTY = frozenset(
    {"app", "browser", "convert", "handlers", "services", "settings", "store", "server"}
)
MAY_IMPORT: dict[str, frozenset[str]] = {
    "settings": frozenset(),
    "convert": frozenset(),
    "browser": frozenset({"settings"}),
    "store": frozenset({"settings", "convert"}),
    "services": frozenset({"settings", "convert", "browser", "store"}),
    "handlers": frozenset({"settings", "services"}),
    "app": frozenset({"settings", "convert", "browser", "store", "services", "handlers"}),
}
"""Each package -> the other Pagecast packages it may import (``server.py`` may import all)."""
CONVERT_MAY_IMPORT: dict[str, frozenset[str]] = {
    "text": frozenset(),
    "html": frozenset({"text"}),
    "metadata": frozenset({"text", "html"}),
    "extract": frozenset({"text", "html", "metadata"}),
    "safety": frozenset({"text", "html"}),
    "markdown": frozenset({"text", "html", "metadata", "extract", "safety"}),
    "documents": frozenset({"text", "html", "metadata", "safety", "markdown"}),
    "embed": frozenset({"text", "html", "metadata"}),
    "crawl": frozenset({"text", "html"}),
}
"""Each package of ``convert/`` -> the others it may import: an order, so no cycle."""
IO_MODULES = frozenset(
    {
        "asyncio",
        "boto3",
        "http",
        "httpx",
        "multiprocessing",
        "os",
        "pathlib",
        "peewee",
        "playwright",
        "psycopg2",
        "pycurl",
        "shutil",
        "socket",
        "sqlite3",
        "subprocess",
        "tempfile",
        "threading",
        "tornado",
        "urllib.request",
    }
)
"""What ``convert/`` may not import: modules that do I/O or run processes."""
PURE_TEMPLATES = frozenset({"tornado.template", "tornado.escape"})
"""Tornado's template engine and escaping: pure string work that ``convert/`` may use."""
OUTSIDE_WORLD = frozenset(
    {"playwright", "pycurl", "peewee", "playhouse", "psycopg2", "PIL", "boto3"}
)
"""Libraries that reach the outside world: the handlers reach it through the services only."""


def imported_modules(path: Path) -> set[str]:
    """Every module a source file imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            if (
                node.module in FIRST_PARTY
            ):  # from convert import safety: the module is convert.safety
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def within(module: str, names: frozenset[str]) -> bool:
    """Whether ``module`` is one of ``names`` or inside one of them."""
    return any(module == name or module.startswith(name + ".") for name in names)


def does_io(module: str) -> bool:
    """Whether ``module`` does I/O or runs processes (Tornado's templates do neither)."""
    return within(module, IO_MODULES) and not within(module, PURE_TEMPLATES)


def wrong_imports(package: str) -> list[str]:
    """The imports of ``package``'s modules that its floor forbids."""
    allowed = MAY_IMPORT[package] | {package}
    wrong = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for module in sorted(imported_modules(path)):
            top = module.split(".")[0]
            if top in FIRST_PARTY and top not in allowed:
                wrong.append(f"{path.relative_to(ROOT)} imports {module}")
            elif (
                package == "convert" and within(module, IO_MODULES) and module not in PURE_TEMPLATES
            ):
                wrong.append(f"{path.relative_to(ROOT)} imports {module} (I/O)")
            elif package == "handlers" and within(module, OUTSIDE_WORLD):
                wrong.append(f"{path.relative_to(ROOT)} imports {module} (the outside world)")
    return wrong


@pytest.mark.parametrize("package", sorted(MAY_IMPORT))
def test_a_package_imports_only_what_its_floor_allows(package: str) -> None:
    assert sorted((ROOT / package).rglob("*.py")), f"no sources under {package}/"
    wrong = wrong_imports(package)
    assert not wrong, "\n".join(wrong)


def test_the_rules_name_every_package() -> None:
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests", "bench"}
    assert packages == set(MAY_IMPORT)


def test_nothing_imports_the_composition_root_but_the_server() -> None:
    assert all("app" not in allowed for name, allowed in MAY_IMPORT.items() if name != "app")


@pytest.mark.parametrize("part", sorted(CONVERT_MAY_IMPORT))
def test_a_convert_package_imports_only_those_before_it(part: str) -> None:
    allowed = CONVERT_MAY_IMPORT[part] | {part}
    wrong = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in sorted((ROOT / "convert" / part).rglob("*.py"))
        for module in sorted(imported_modules(path))
        if module.startswith("convert.") and module.split(".")[1] not in allowed
    ]
    assert not wrong, "\n".join(wrong)


def test_convert_is_packages_only() -> None:
    modules = {path.stem for path in (ROOT / "convert").glob("*.py")}
    packages = {path.parent.name for path in (ROOT / "convert").glob("*/__init__.py")}
    assert modules == {"__init__"}
    assert packages == set(CONVERT_MAY_IMPORT)


def test_the_walk_sees_every_kind_of_import(tmp_path: Path) -> None:
    source = tmp_path / "late.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from app.services import Services\n"
        "def f():\n    import store.db\n    from browser import fetch\n"
        "from convert import safety\n"
    )
    assert imported_modules(source) == {
        "typing",
        "app.services",
        "store.db",
        "browser",
        "browser.fetch",
        "convert",
        "convert.safety",
    }
    assert within("store.db", frozenset({"store"})) and not within("storey", frozenset({"store"}))


def test_a_violation_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A handler that reaches the store directly, as a stranger might write one.
    (tmp_path / "handlers").mkdir()
    (tmp_path / "handlers" / "shortcut.py").write_text(
        "from store.store import Store\nimport peewee\nfrom services.markdown import X\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert wrong_imports("handlers") == [
        "handlers/shortcut.py imports peewee (the outside world)",
        "handlers/shortcut.py imports store.store",
    ]


# -- the same rules in docs/architecture.md ----------------------------------------------------

ROW = re.compile(r"^\|\s*`(?P<name>[a-z_]+)/?`\s*\|(?P<allowed>[^|]*)\|", re.M)


def documented(section: str) -> dict[str, frozenset[str]]:
    """The table under the heading ``section`` of docs/architecture.md: name -> the names in
    backticks of its second column."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    start = text.index(section)
    table = text[start : text.find("\n\n", text.index("|", start))]
    return {
        row["name"]: frozenset(re.findall(r"`([a-z_]+)/?`", row["allowed"]))
        for row in ROW.finditer(table)
    }


def test_the_architecture_document_states_the_same_floors() -> None:
    assert documented("## Who may import whom") == MAY_IMPORT


def test_the_architecture_document_states_the_same_convert_order() -> None:
    assert documented("## Inside convert/") == CONVERT_MAY_IMPORT


# -- translating errors stays in one place ------------------------------------------------------

LOWER_FAILURES = frozenset(
    {
        "StoreUnavailable",
        "FarmError",
        "FetchError",
        "PageRequestError",
        "EmbedError",
        "MarkdownError",
        "ScreenshotError",
        "FrameError",
        "TargetRefusedError",
        "AccountError",
        "JobError",
        "ServiceError",
    }
)


def translations(path: Path) -> list[str]:
    """The lower-layer failures a module catches only to raise an ApiError in their place."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if not isinstance(node, ast.ExceptHandler) or node.type is None:
            continue
        types = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
        names = {kind.id for kind in types if isinstance(kind, ast.Name)} & LOWER_FAILURES
        raises_api_error = any(
            isinstance(statement, ast.Raise)
            and isinstance(statement.exc, ast.Call)
            and isinstance(statement.exc.func, ast.Name)
            and statement.exc.func.id == "ApiError"
            for statement in node.body
        )
        if names and raises_api_error:
            found += sorted(names)
    return found


def test_no_handler_translates_errors_by_hand() -> None:
    # The lower layers' failures reach write_error, which answers them through the one table
    # (handlers/errors.py); a handler that catches one to raise an ApiError repeats it.
    for path in sorted((ROOT / "handlers").rglob("*.py")):
        assert not translations(path), f"{path.name} translates {translations(path)} by hand"


def test_a_translation_by_hand_is_seen(tmp_path: Path) -> None:
    source = tmp_path / "handler.py"
    source.write_text(
        "try:\n    pass\nexcept StoreUnavailable as exc:\n    raise ApiError('x') from exc\n"
        "try:\n    pass\nexcept StoreUnavailable:\n    log()\nraise ApiError('quota')\n"
    )
    assert translations(source) == ["StoreUnavailable"]
