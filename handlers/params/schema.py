"""A declared parameter as an OpenAPI 3.1 parameter object: its schema (booleans as their four
spellings, arrays as repeated query parameters) and its description with what the schema
cannot say (a clamped maximum, lenient choices)."""

from __future__ import annotations

from typing import Any

from handlers.params.param import Param
from handlers.params.values import num


def openapi_param(
    param: Param, name: str, text: str, required: bool | None = None
) -> dict[str, Any]:
    if param.type == "array":
        return _openapi_array(param, name, text, required)
    schema: dict[str, Any] = {"type": param.type}
    if param.default is not None:
        schema["default"] = param.default
    if param.minimum is not None:
        schema["minimum"] = param.minimum
    if param.maximum is not None and not param.clamp:
        schema["maximum"] = param.maximum
    if param.choices is not None and not param.lenient_choice:
        schema["enum"] = list(param.choices)
    if param.max_length is not None:
        schema["maxLength"] = param.max_length
    if param.pattern is not None:
        schema["pattern"] = f"^{param.pattern}$"
    if param.type == "boolean":
        # Booleans also accept 1/0 and any letter case; the schema names the canonical spelling.
        schema = {"type": "string", "enum": ["true", "false", "1", "0"]}
        if param.default is not None:
            schema["default"] = "true" if param.default else "false"
    description = text
    if param.clamp and param.maximum is not None:
        largest = num(param.maximum)
        description += (
            f" At most {largest}: a larger value is lowered to {largest}, with a warning."
        )
    if param.choices is not None and param.lenient_choice:
        description += (
            " Allowed: " + ", ".join(param.choices) + "; anything else means the default."
        )
    out: dict[str, Any] = {
        "name": name,
        "in": "query",
        "required": param.required if required is None else required,
        "description": description,
        "schema": schema,
    }
    if param.example is not None:
        out["example"] = param.example
    return out


def item_schema(param: Param) -> dict[str, Any]:
    """The JSON schema of one item of an ``array`` parameter."""
    schema: dict[str, Any] = {"type": "string"}
    if param.max_length is not None:
        schema["maxLength"] = param.max_length
    if param.pattern is not None:
        schema["pattern"] = f"^{param.pattern}$"
    return schema


def _openapi_array(param: Param, name: str, text: str, required: bool | None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array", "items": item_schema(param)}
    if param.max_items is not None:
        schema["maxItems"] = param.max_items
    out: dict[str, Any] = {
        "name": name,
        "in": "query",
        "required": param.required if required is None else required,
        "description": text + " Repeat the parameter for each item.",
        "schema": schema,
        "explode": True,
    }
    if param.example is not None:
        out["example"] = param.example
    return out
