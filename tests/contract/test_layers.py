"""The layers keep their promises: which package may import which, read from the source.

- ``settings`` is the ground floor: it imports nothing of Pagecast's, and anyone may import it.
- ``convert`` is pure: it turns text into text, so it imports none of the packages that fetch,
  persist, orchestrate or serve, and no module that does I/O or runs processes.
- ``browser`` gets pages and ``store`` persists; neither imports the services or the handlers,
  and ``store`` does not drive the browser.
- ``services`` orchestrate the parts below and never import the handlers.
- ``app``, the composition root, is imported by nobody but ``server.py`` (and the handlers'
  annotations).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGES = ("settings", "convert", "browser", "store", "services", "handlers", "app")
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
FORBIDDEN: dict[str, frozenset[str]] = {
    "settings": frozenset({"convert", "browser", "store", "services", "handlers", "app", "server"}),
    "convert": frozenset({"browser", "store", "services", "handlers", "app", "server"})
    | IO_MODULES,
    "browser": frozenset({"services", "handlers", "app", "server"}),
    "store": frozenset({"browser", "services", "handlers", "app", "server"}),
    "services": frozenset({"handlers", "app", "server"}),
}


def imported_modules(path: Path) -> set[str]:
    """Every module a source file imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def breaks(module: str, forbidden: frozenset[str]) -> bool:
    """Whether ``module`` is one of ``forbidden`` or inside one of them."""
    return any(module == name or module.startswith(name + ".") for name in forbidden)


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_a_package_imports_only_what_its_layer_allows(package: str) -> None:
    sources = sorted((ROOT / package).rglob("*.py"))
    assert sources, f"no sources under {package}/"
    wrong = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in sources
        for module in sorted(imported_modules(path))
        if breaks(module, FORBIDDEN[package])
    ]
    assert not wrong, "\n".join(wrong)


def test_the_rules_name_every_package_but_the_top_floors() -> None:
    # The composition root (app) wires everything; the handlers may import any package below
    # them, and the root's types only for annotations.
    assert set(FORBIDDEN) == set(PACKAGES) - {"handlers", "app"}


def test_the_walk_sees_imports_inside_functions(tmp_path: Path) -> None:
    source = tmp_path / "late.py"
    source.write_text("def f():\n    import store.db\n    from browser import fetch\n")
    assert imported_modules(source) == {"store.db", "browser"}
    assert breaks("store.db", FORBIDDEN["convert"]) and not breaks("storey", FORBIDDEN["convert"])


def test_the_rewritten_handlers_reach_the_outside_only_through_services() -> None:
    # The Markdown and screenshot handlers read requests and shape answers; the farm, the
    # fetcher, the worker pool, Peewee and Pillow are the services' business (the farm's
    # vocabulary, browser.farm.types, describes the options a handler reads).
    forbidden = frozenset({"browser.fetch.client", "services.pool", "peewee", "PIL", "playhouse"})
    for name in ("markdown", "screenshot"):
        modules = imported_modules(ROOT / "handlers" / f"{name}.py")
        wrong = [
            module
            for module in modules
            if breaks(module, forbidden)
            or (breaks(module, frozenset({"browser.farm"})) and module != "browser.farm.types")
        ]
        assert not wrong, f"{name}: {wrong}"


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
    for path in sorted((ROOT / "handlers").glob("*.py")):
        assert not translations(path), f"{path.name} translates {translations(path)} by hand"


def test_a_translation_by_hand_is_seen(tmp_path: Path) -> None:
    source = tmp_path / "handler.py"
    source.write_text(
        "try:\n    pass\nexcept StoreUnavailable as exc:\n    raise ApiError('x') from exc\n"
        "try:\n    pass\nexcept StoreUnavailable:\n    log()\nraise ApiError('quota')\n"
    )
    assert translations(source) == ["StoreUnavailable"]
