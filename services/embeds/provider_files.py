"""The oEmbed provider registries as files: Pagecast's shipped list and a registry an operator
imports (the public oembed.com ``providers.json``), read and handed to
:func:`convert.embed.providers.parse_registry`."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from convert.embed.providers import Provider, RegistryError, parse_registry

BUILTIN_FILE = Path(__file__).with_name("oembed_providers.json")


def load_registry_file(path: str | Path) -> tuple[list[Provider], list[str]]:
    """Read and parse a providers.json file; ``RegistryError`` if unreadable or not JSON."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RegistryError(f"cannot read provider registry {path}: {exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RegistryError(f"provider registry {path} is not valid JSON: {exc}") from exc
    return parse_registry(data)


def builtin_providers() -> list[Provider]:
    """Pagecast's shipped provider list (read once)."""
    return list(_builtin())


@cache
def _builtin() -> tuple[Provider, ...]:
    providers, problems = load_registry_file(BUILTIN_FILE)
    if problems:
        raise RegistryError(f"built-in provider list has problems: {'; '.join(problems)}")
    return tuple(providers)
