"""The docs name only what exists: every file, folder, module and function that the README and
the pages under ``docs/`` write in backticks is found in the tree."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from app.config import Settings

ROOT = Path(__file__).resolve().parent.parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
TOP = "app|bench|browser|clients|convert|deploy|docs|handlers|services|settings|static|store|tests"
PATH = re.compile(rf"`((?:{TOP})/[A-Za-z0-9_./-]*)`")
"""A path in the tree, in backticks: ``convert/markdown/pipeline.py``, ``services/jobs/``."""
DOTTED = re.compile(r"`((?:app|browser|convert|handlers|services|settings|store)(?:\.\w+)+)`")
"""A module or a name in one, in backticks: ``services.markdown``, ``convert.html.is_hidden``."""


def named_paths(page: Path) -> list[str]:
    return sorted(set(PATH.findall(page.read_text(encoding="utf-8"))))


FILE_ENDINGS = frozenset({"py", "md", "json", "toml", "js", "css", "html", "txt", "yml", "yaml"})
"""A dotted name ending so is a file's name (``settings.py``), not a module's."""


def named_objects(page: Path) -> list[str]:
    found = set(DOTTED.findall(page.read_text(encoding="utf-8")))
    return sorted(name for name in found if name.rsplit(".", 1)[1] not in FILE_ENDINGS)


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` is a module, a name inside the longest module it starts with, or a
    setting (``store.data_dir``: the ``[store]`` section shares its name with a package)."""
    parts = dotted.split(".")
    if len(parts) == 2 and hasattr(getattr(Settings(), parts[0], None), parts[1]):
        return True
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_path_a_page_names_exists(page: Path) -> None:
    missing = [path for path in named_paths(page) if not (ROOT / path.rstrip("/")).exists()]
    assert not missing, f"{page.name} names what does not exist: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_module_a_page_names_exists(page: Path) -> None:
    missing = [name for name in named_objects(page) if not resolves(name)]
    assert not missing, f"{page.name} names what does not exist: {missing}"


def test_a_missing_name_is_seen(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "The pipeline is `convert/markdown/pipeline.py` (`convert.markdown.convert_page`), "
        "not `convert/page.py` nor `convert.page.convert_page` nor `services/nothing/`."
    )
    assert named_paths(page) == [
        "convert/markdown/pipeline.py",
        "convert/page.py",
        "services/nothing/",
    ]
    assert [name for name in named_objects(page) if not resolves(name)] == [
        "convert.page.convert_page"
    ]
    assert not (ROOT / "convert/page.py").exists()
