"""The effective configuration, as ``server.py config`` prints it: every setting's value and where
it comes from (its default, the config file, or a ``PAGECAST_*`` environment variable), and the
``PAGECAST_*`` variables that name no setting, which would otherwise be ignored in silence."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.config import SECTIONS, Settings
from services.accounts.plans import DEFAULT_PLANS, PlanSettings
from settings.fields import ENV_PREFIX, declared_fields, env_prefix
from settings.render import toml_value

OTHER_VARIABLES = (
    "PAGECAST_CONFIG",
    "PAGECAST_API_KEY",
    "PAGECAST_URL",
    "PAGECAST_FRAMES_URL",
    "PAGECAST_MCP_TOKEN",
)
"""Variables Pagecast reads that are not settings: the config file's path, the key and
addresses the Python client (and so ``server.py mcp``) takes, and the bearer token of the MCP
server over HTTP."""
HIDDEN = '"(set, hidden)"'
COMMENT_COLUMN = 48
"""Where the source comments line up, unless a section's values are all shorter."""


def known_variables(settings: Settings) -> set[str]:
    """Every ``PAGECAST_*`` name that means something to this configuration: one per setting of
    each section and of each configured plan, and :data:`OTHER_VARIABLES`."""
    names = set(OTHER_VARIABLES)
    tables: list[tuple[type, str]] = [
        (cls, env_prefix(cls.SECTION))  # type: ignore[attr-defined]
        for cls in SECTIONS
    ]
    tables += [(PlanSettings, env_prefix("plans", plan)) for plan in settings.plans]
    for cls, prefix in tables:
        names.update(prefix + field.name.upper() for field, _ in declared_fields(cls))
    return names


def unknown_variables(settings: Settings, environ: Mapping[str, str]) -> list[str]:
    """One sentence per ``PAGECAST_*`` variable that names no setting, with the nearest name
    when one is close (a typo), in name order."""
    known = known_variables(settings)
    found = []
    for name in sorted(environ):
        if not name.startswith(ENV_PREFIX) or name in known:
            continue
        close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.8)
        plans = [env_prefix("plans", plan) for plan in settings.plans]
        if name.startswith(env_prefix("plans")) and not name.startswith(tuple(plans)):
            hint = "; a new plan is declared as a [plans.NAME] table in the config file first"
        elif close:
            hint = f"; did you mean {close[0]}?"
        else:
            hint = ""
        found.append(f"{name} names no setting and is ignored{hint}")
    return found


def _source(where: str | None, path: Path | None, same_as_default: bool) -> str:
    if where is None:
        return "default"
    if where.startswith(ENV_PREFIX):
        return f"environment {where}"
    file = path.name if path else "config file"
    return file + (" (the default value)" if same_as_default else "")


def _section(
    cls: type,
    header: str,
    values: tuple[Any, Any],
    sources: Mapping[str, str],
    path: Path | None,
) -> list[str]:
    """One section's lines; ``values`` is (the effective section, its defaults)."""
    current, default = values
    rows = []
    for field, _ in declared_fields(cls):
        value = getattr(current, field.name)
        same = value == getattr(default, field.name)
        # A secret (a password, proxy credentials) is never printed, only whether it is set.
        shown = toml_value(value) if field.repr or same else HIDDEN
        rows.append((f"{field.name} = {shown}", _source(sources.get(field.name), path, same)))
    width = min(max(len(setting) for setting, _ in rows), COMMENT_COLUMN)
    return [
        f"[{header}]",
        *(f"{setting:<{width}}  # {source}" for setting, source in rows),
        "",
    ]


def render_effective(
    settings: Settings,
    sources: Mapping[str, Mapping[str, str]],
    path: Path | None,
    unknown: list[str],
) -> str:
    """The effective configuration: TOML sections whose values each say, in a comment, where
    they come from; secrets hidden; the unknown variables (:func:`unknown_variables`) last."""
    lines = [
        "# Pagecast's effective configuration: the defaults, then "
        + (f"the config file {path}," if path else "no config file,"),
        "# then PAGECAST_* environment variables; after each value, where it comes from.",
        "# `python server.py config --defaults` prints every default with what it means.",
        "",
    ]
    for cls in SECTIONS:
        name = cls.SECTION  # type: ignore[attr-defined]
        lines += _section(cls, name, (getattr(settings, name), cls()), sources.get(name, {}), path)
    for plan_name, plan in settings.plans.items():
        default = DEFAULT_PLANS.get(plan_name) or PlanSettings()
        label = f"plans.{plan_name}"
        lines += _section(PlanSettings, label, (plan, default), sources.get(label, {}), path)
    if unknown:
        lines.append("# Environment variables that name no setting (ignored):")
        lines += [f"#   {line}" for line in unknown]
    return "\n".join(lines).rstrip("\n") + "\n"
