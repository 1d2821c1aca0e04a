"""Every endpoint's parameters are one declaration: a frozen class whose fields make the table
(validation, ``/openapi.json``, the docs) and that its handler reads as typed attributes."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from handlers import frames, markdown, oembed, screenshot
from handlers.base import ApiHandler

ROOT = Path(__file__).resolve().parent.parent.parent


def endpoint_handlers() -> list[type[ApiHandler]]:
    found = []
    for module in (markdown, oembed, screenshot, frames):
        for _path, handler in module.ROUTES:
            if isinstance(handler, type) and issubclass(handler, ApiHandler):
                found.append(handler)
    return found


def test_every_endpoint_table_is_declared_by_a_frozen_class() -> None:
    handlers = endpoint_handlers()
    assert len(handlers) >= 6
    for handler in handlers:
        model = handler.params.model
        assert model is not None, handler.__name__
        assert dataclasses.is_dataclass(model) and model.__dataclass_params__.frozen  # type: ignore[attr-defined]
        declared = [item.name for item in dataclasses.fields(model) if "param" in item.metadata]
        assert declared == [param.name for param in handler.params.params], handler.__name__


def test_no_handler_looks_a_parameter_up_by_its_name() -> None:
    # params["max_chars"] would pass mypy whatever the name; params.max_chars does not.
    for path in sorted((ROOT / "handlers").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        lookups = [
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == "params"
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ]
        assert not lookups, f"{path.name} looks parameters up by name on lines {lookups}"
