"""JSON request bodies read with the endpoints' parameter tables (:mod:`handlers.params.table`): the
same declaration validates a POST body, types the handler's values and writes the OpenAPI
``requestBody``.

Public API:

- :func:`read_json_body` (table, body) -> (values, problems, unknown): the body (bytes) read into
  the table's class, every problem at once, and the names of the body's fields the table does not
  know (the handler warns about them, or refuses them under ``server.strict_params``). A body
  that is not a JSON object is one problem named ``body``, alone (empty, not valid JSON with
  where it stops being so, or what it is instead); a field of the wrong JSON type is one problem
  named after it (not also "is required"). JSON ``null`` means "not sent".
  Strings, numbers and booleans are read as their query-string spelling would be (``true``,
  ``5``), so every rule of the table applies unchanged; an ``array`` parameter takes a JSON
  array of strings.
- :func:`body_schema` (table) -> dict: the JSON schema of the body object.
- :func:`request_body` (table) -> dict: the OpenAPI ``requestBody`` object (application/json).

Handlers call :meth:`handlers.base.ApiHandler.read_body` rather than these directly.
"""

from __future__ import annotations

import json
from typing import Any

from handlers.params.param import Param, ParamProblem
from handlers.params.schema import item_schema
from handlers.params.table import P, ParamTable

MAX_BODY_DEPTH = 8
"""JSON nesting a body may have (the tables are flat; deeper input is a client mistake)."""


def read_json_body(table: ParamTable[P], body: bytes) -> tuple[P, list[ParamProblem], list[str]]:
    """Read ``body`` with ``table`` (see the module docstring)."""
    problems: list[ParamProblem] = []
    document, flaw = _load(body)
    if flaw is not None:
        # Nothing of the body can be read: its fields' problems would only be consequences.
        values, _ = table.read({})
        return values, [ParamProblem("body", flaw)], []
    args: dict[str, list[str]] = {}
    wrong: set[str] = set()
    for name, value in document.items():
        param = _param_named(table, name)
        if value is None or param is None:
            continue
        spelled = _spell(param, value)
        if spelled is None:
            kind = "an array of strings" if param.type == "array" else f"a JSON {_json(param)}"
            problems.append(ParamProblem(param.name, f"must be {kind}", param.problem))
            wrong.add(param.name)
            continue
        args[name] = spelled
    values, more = table.read(args)
    # A field of the wrong type was sent: it is not also "required".
    problems += [problem for problem in more if problem.name not in wrong]
    unknown = [name for name in document if _param_named(table, name) is None]
    return values, problems, unknown


def body_schema(table: ParamTable[Any]) -> dict[str, Any]:
    """The JSON schema of a body the table reads."""
    properties = {param.name: _property(param) for param in table.params}
    required = [param.name for param in table.params if param.required]
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def request_body(table: ParamTable[Any], example: dict[str, Any] | None = None) -> dict[str, Any]:
    """The OpenAPI ``requestBody`` of an endpoint whose body the table reads."""
    media: dict[str, Any] = {"schema": body_schema(table)}
    if example is not None:
        media["example"] = example
    return {"required": True, "content": {"application/json": media}}


JSON_KINDS = {list: "an array", str: "a string", bool: "a boolean", int: "a number"}
JSON_KINDS[float] = "a number"


def _load(body: bytes) -> tuple[dict[str, Any], str | None]:
    """The body's JSON object, or what is wrong with the body (said for the client: where it
    stops being JSON, or what it is instead of an object)."""
    if not body.strip():
        return {}, "is empty: send a JSON object"
    try:
        document = json.loads(body)
    except UnicodeDecodeError:
        return {}, "is not valid JSON: it is not UTF-8 text"
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno} (character {exc.pos})"
        return {}, f"is not valid JSON: {exc.msg[:1].lower()}{exc.msg[1:]} at {where}"
    except (ValueError, RecursionError):
        return {}, f"is not valid JSON or nests deeper than {MAX_BODY_DEPTH} levels"
    if not isinstance(document, dict):
        kind = "null" if document is None else JSON_KINDS.get(type(document), "a value")
        return {}, f"must be a JSON object, not {kind}"
    if _depth(document) > MAX_BODY_DEPTH:
        return {}, f"must not nest deeper than {MAX_BODY_DEPTH} levels"
    return document, None


def _depth(value: Any, level: int = 0) -> int:
    if level > MAX_BODY_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(item, level + 1) for item in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((_depth(item, level + 1) for item in value), default=level + 1)
    return level


def _param_named(table: ParamTable[Any], name: str) -> Param | None:
    for param in table.params:
        if name == param.name or name in param.aliases:
            return param
    return None


def _spell(param: Param, value: Any) -> list[str] | None:
    """``value`` as the query-string values the table reads, or None for a wrong JSON type."""
    if param.type == "array":
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return list(value)
        return None
    if param.type == "boolean":
        return ["true" if value else "false"] if isinstance(value, bool) else _string(value)
    if param.type in ("integer", "number"):
        if isinstance(value, int | float) and not isinstance(value, bool):
            return [repr(value) if isinstance(value, float) else str(value)]
        return _string(value)
    return _string(value)


def _string(value: Any) -> list[str] | None:
    return [value] if isinstance(value, str) else None


def _json(param: Param) -> str:
    return {"integer": "integer", "number": "number", "boolean": "boolean"}.get(
        param.type, "string"
    )


def _property(param: Param) -> dict[str, Any]:
    schema: dict[str, Any]
    if param.type == "array":
        schema = {"type": "array", "items": item_schema(param)}
        if param.max_items is not None:
            schema["maxItems"] = param.max_items
    else:
        schema = {"type": param.type}
        if param.type == "string":
            schema.update(item_schema(param))
        for key, bound in (("minimum", param.minimum), ("maximum", param.maximum)):
            if bound is not None:
                schema[key] = bound
        if param.choices is not None and not param.lenient_choice:
            schema["enum"] = list(param.choices)
    if param.default is not None and not param.required:
        schema["default"] = list(param.default) if param.type == "array" else param.default
    schema["description"] = param.help
    if param.example is not None:
        schema["examples"] = [param.example]
    return schema
