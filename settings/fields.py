"""Typed settings: declaration helpers, and loading from ``config.toml`` and the environment
(:mod:`settings.render` writes the commented ``config.toml`` and the reference).

Each component declares its settings beside its code as a dataclass whose fields are made with
:func:`setting` (default, help, bounds)::

    @dataclass
    class FetchSettings:
        \"\"\"Fetching target pages.\"\"\"

        SECTION: ClassVar[str] = "fetch"
        connect_timeout: float = setting(5.0, "Seconds to wait for a connection.", min=0.1)

The loader reads a TOML file, applies ``PAGECAST_<SECTION>_<NAME>`` environment overrides, checks
types and bounds, and reports every problem at once in a :class:`SettingsError`.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ENV_PREFIX = "PAGECAST_"

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


class SettingsError(ValueError):
    """The configuration has one or more problems; ``problems`` lists every one."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("invalid configuration:\n  " + "\n  ".join(self.problems))


def setting(
    default: Any,
    help: str,
    *,
    min: float | None = None,
    max: float | None = None,
    choices: Sequence[str] | None = None,
    secret: bool = False,
) -> Any:
    """Declare one setting: its default, a help text for the generated file, and optional bounds.

    A ``secret`` setting (a password, an access key) is left out of the section's ``repr``, so it
    never reaches a log line or a traceback through the settings object.
    """
    meta = {"help": help, "min": min, "max": max, "choices": tuple(choices) if choices else None}
    if isinstance(default, list):
        frozen = list(default)
        return dataclasses.field(
            default_factory=lambda: list(frozen), metadata=meta, repr=not secret
        )
    return dataclasses.field(default=default, metadata=meta, repr=not secret)


def declared_fields(cls: type) -> list[tuple[dataclasses.Field[Any], Any]]:
    hints = typing.get_type_hints(cls)
    return [(f, hints[f.name]) for f in dataclasses.fields(cls)]


def type_name(kind: Any) -> str:
    return {int: "integer", float: "number", bool: "boolean", str: "string"}.get(
        kind, "list of strings"
    )


def _coerce(kind: Any, value: Any, from_env: bool) -> Any:
    """Turn a TOML or environment value into ``kind``; raise ValueError with a short reason."""
    if kind is bool:
        if isinstance(value, bool):
            return value
        if from_env and str(value).strip().lower() in _TRUE | _FALSE:
            return str(value).strip().lower() in _TRUE
        raise ValueError("expected true or false")
    if kind is int:
        if isinstance(value, bool):
            raise ValueError("expected an integer")
        if isinstance(value, int):
            return value
        if from_env:
            return int(str(value).strip())
        raise ValueError("expected an integer")
    if kind is float:
        if isinstance(value, bool):
            raise ValueError("expected a number")
        if isinstance(value, (int, float)):
            return float(value)
        if from_env:
            return float(str(value).strip())
        raise ValueError("expected a number")
    if kind is str:
        if isinstance(value, str):
            return value
        raise ValueError("expected a string")
    # list[str]
    if from_env and isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    raise ValueError("expected a list of strings")


def _check_bounds(field: dataclasses.Field[Any], value: Any) -> str | None:
    meta = field.metadata
    if meta["min"] is not None and value < meta["min"]:
        return f"must be at least {meta['min']}"
    if meta["max"] is not None and value > meta["max"]:
        return f"must be at most {meta['max']}"
    if meta["choices"] and value not in meta["choices"]:
        return "must be one of " + ", ".join(meta["choices"])
    return None


def build_section(
    cls: type,
    *,
    table: Mapping[str, Any],
    environ: Mapping[str, str],
    env_prefix: str,
    label: str,
    problems: list[str],
    base: Any | None = None,
    sources: dict[str, str] | None = None,
) -> Any:
    """Build one section from a TOML table and the environment, appending problems to ``problems``.

    ``base`` supplies defaults other than the declared ones (used for shipped named tables such as
    the ``free`` plan). Unknown keys are problems, so a typo never passes silently. ``sources``,
    when given, receives where each value that is not a default came from: the environment
    variable's name, or ``label.name`` for the TOML file.
    """
    values: dict[str, Any] = {}
    known = set()
    for field, kind in declared_fields(cls):
        known.add(field.name)
        env_name = f"{env_prefix}{field.name.upper()}"
        if env_name in environ:
            raw, from_env, where = environ[env_name], True, env_name
        elif field.name in table:
            raw, from_env, where = table[field.name], False, f"{label}.{field.name}"
        else:
            if base is not None:
                values[field.name] = getattr(base, field.name)
            continue
        try:
            value = _coerce(kind, raw, from_env)
        except ValueError as exc:
            problems.append(f"{where}: {exc} ({type_name(kind)})")
            continue
        reason = _check_bounds(field, value)
        if reason:
            problems.append(f"{where}: {reason}")
            continue
        values[field.name] = value
        if sources is not None:
            sources[field.name] = where
    for key in table:
        if key not in known:
            problems.append(f"{label}.{key}: unknown setting")
    return cls(**values)


def read_toml(path: Path | None) -> dict[str, Any]:
    """Read a TOML file; a missing ``path`` (None) gives an empty configuration."""
    if path is None:
        return {}
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError as exc:
        raise SettingsError([f"{path}: file not found"]) from exc
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError([f"{path}: {exc}"]) from exc


def env_prefix(section: str, name: str | None = None) -> str:
    """The environment variable prefix of a section (and of a named table within it)."""
    middle = f"{section}_{name}_" if name else f"{section}_"
    return ENV_PREFIX + middle.upper().replace("-", "_").replace(".", "_")


def default_environ() -> Mapping[str, str]:
    """The process environment, for callers that do not pass their own."""
    return os.environ
