"""A parameter's raw query value made its typed value: booleans (true/false, 1/0), numbers
within their range (rounded where the parameter says), strings of a length, a pattern or a
choice, and arrays of such strings; a ``ValueError`` (or a :class:`ParamProblem`) says why a value
is refused, in words a client can act on."""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from typing import Any

from handlers.params.param import Param, ParamProblem

_TRUE = "true", "1"
_FALSE = "false", "0"
_INTEGER = re.compile(r"[+-]?\d{1,18}")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")


def convert_array(
    param: Param, items: Sequence[str] | None
) -> tuple[tuple[str, ...], ParamProblem | None]:
    """An array parameter's items, checked; the default (or no items) and the problem when
    they are not acceptable."""
    default = tuple(param.default or ())
    if items is None:
        if param.required:
            return default, ParamProblem(param.name, "is required", param.problem)
        return default, None
    if param.max_items is not None and len(items) > param.max_items:
        message = f"must have at most {param.max_items} items"
        return default, ParamProblem(param.name, message, param.problem)
    item_param = dataclasses.replace(param, type="string")
    converted = []
    for index, item in enumerate(items):
        try:
            converted.append(convert(item_param, item))
        except ValueError as exc:
            return default, ParamProblem(param.name, f"item {index + 1} {exc}", param.problem)
    return tuple(converted), None


def convert(param: Param, raw: str) -> Any:
    """Convert one raw value to the parameter's type and check its rules; ValueError says why."""
    text = raw.strip()
    if param.type == "boolean":
        lowered = text.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ValueError("must be true or false (or 1 or 0)")
    if param.type in ("integer", "number"):
        return _convert_number(param, text)
    if param.max_length is not None and len(raw) > param.max_length:
        raise ValueError(f"must be at most {param.max_length} characters")
    if param.pattern is not None:
        if not re.fullmatch(param.pattern, text):
            raise ValueError(f"must be {param.pattern_words or 'of the form ' + param.pattern}")
        return text
    if param.choices is not None:
        if text in param.choices:
            return text
        if param.lenient_choice:
            return param.default
        raise ValueError("must be one of " + ", ".join(param.choices))
    return raw


def _convert_number(param: Param, text: str) -> int | float:
    kind = "an integer" if param.type == "integer" else "a number"
    pattern = _INTEGER if param.type == "integer" else _NUMBER
    if not pattern.fullmatch(text):
        raise ValueError(f"must be {kind}{range_words(param)}")
    value: int | float = int(text) if param.type == "integer" else float(text)
    if not math.isfinite(value):
        raise ValueError(f"must be {kind}{range_words(param)}")
    if (param.minimum is not None and value < param.minimum) or (
        param.maximum is not None and value > param.maximum
    ):
        raise ValueError(f"must be {kind}{range_words(param)}")
    if param.round_to:
        value = int(math.floor(value / param.round_to + 0.5) * param.round_to)
    elif param.type == "number" and float(value).is_integer():
        value = int(value)
    return value


def clamped(param: Param, raw: str) -> int | float | None:
    """The maximum of a ``clamp`` parameter when ``raw`` is a number above it, else None."""
    if not param.clamp or param.maximum is None or param.type not in ("integer", "number"):
        return None
    text = raw.strip()
    if not (_INTEGER if param.type == "integer" else _NUMBER).fullmatch(text):
        return None
    if float(text) <= param.maximum:
        return None
    return int(param.maximum) if param.type == "integer" else param.maximum


def range_words(param: Param) -> str:
    low, high = param.minimum, param.maximum
    if low is not None and high is not None:
        return f" from {num(low)} to {num(high)}"
    if low is not None:
        return f" of at least {num(low)}"
    if high is not None:
        return f" of at most {num(high)}"
    return ""


def num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
