"""The commented ``config.toml`` and the Markdown configuration reference, generated from the
settings that components declare with :func:`settings.fields.setting`."""

from __future__ import annotations

import dataclasses
import textwrap
from typing import Any

from settings.fields import declared_fields, type_name


def toml_value(value: Any) -> str:
    """Render a scalar or list of strings as TOML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{escaped}"'
    return "[" + ", ".join(toml_value(item) for item in value) + "]"


def _comment(text: str, width: int = 98) -> list[str]:
    return [f"# {line}" if line else "#" for line in textwrap.wrap(text, width - 2)]


def _bounds(field: dataclasses.Field[Any]) -> str:
    """``min 1; max 64``, ``one of a, b``: the limits a setting declares ("" when none)."""
    meta = field.metadata
    bounds = []
    if meta["min"] is not None:
        bounds.append(f"min {meta['min']}")
    if meta["max"] is not None:
        bounds.append(f"max {meta['max']}")
    if meta["choices"]:
        bounds.append("one of " + ", ".join(meta["choices"]))
    return "; ".join(bounds)


def _kind_text(field: dataclasses.Field[Any], kind: Any) -> str:
    """``integer; min 1; max 64`` as config.toml's comments write it."""
    bounds = _bounds(field)
    return type_name(kind) + (f"; {bounds}" if bounds else "")


def render_section(cls: type, header: str, instance: Any, with_doc: bool = True) -> list[str]:
    """The commented TOML lines of one section, values taken from ``instance``."""
    lines: list[str] = []
    if with_doc and cls.__doc__:
        lines += _comment(" ".join(cls.__doc__.split()))
    lines.append(f"[{header}]")
    for field, kind in declared_fields(cls):
        meta = field.metadata
        text = meta["help"]
        suffix = f" ({_kind_text(field, kind)})"
        lines += _comment(text + suffix)
        lines.append(f"{field.name} = {toml_value(getattr(instance, field.name))}")
    lines.append("")
    return lines


def _cell(text: str) -> str:
    """Text for a Markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _declared_default(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def reference_rows(cls: type, instance: Any, env: str) -> list[str]:
    """The Markdown table rows of one section for the configuration reference: name, type and
    bounds, default (a secret's shown empty), environment variable (``env`` + the name), help."""
    rows = []
    for field, kind in declared_fields(cls):
        meta = field.metadata
        bounds = _bounds(field)
        kind_text = type_name(kind) + (f" ({bounds})" if bounds else "")
        # A secret shows its declared default (never a secret), whatever ``instance`` holds.
        value = getattr(instance, field.name) if field.repr else _declared_default(field)
        default = toml_value(value)
        variable = env + field.name.upper()
        rows.append(
            f"| `{field.name}` | {_cell(kind_text)} | `{_cell(default)}` | `{variable}` | "
            f"{_cell(meta['help'])} |"
        )
    return rows
