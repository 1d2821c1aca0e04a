"""A use case's options read off a handler's typed parameters: the fields of the options'
dataclass are taken from the attributes of the same names, so each endpoint's parameter table
stays the one place that parses and validates them."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

T = TypeVar("T")


def options_of(cls: type[T], values: Any, renamed: Mapping[str, str] | None = None) -> T:
    """An instance of the dataclass ``cls`` from the attributes of ``values`` named as its
    fields (``renamed`` maps a field to an attribute named otherwise)."""
    renamed = renamed or {}
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    return cls(**{item.name: getattr(values, renamed.get(item.name, item.name)) for item in fields})
