"""What the parts of ``/openapi.json`` share: the security requirements of a keyed operation, the
page metadata and pixel size schemas, and the two forms of a GET that takes a target URL (in
the path, or as url=)."""

from __future__ import annotations

from typing import Any

from handlers.params.groups import Groups, grouped
from handlers.params.table import ParamTable
from services.markdown import METADATA_FIELD_HELP, METADATA_FIELDS

METADATA = {
    "type": "object",
    "required": list(METADATA_FIELDS),
    "properties": {
        name: {"type": "string", "description": METADATA_FIELD_HELP[name]}
        for name in METADATA_FIELDS
    },
}
DIMENSIONS = {
    "type": "object",
    "required": ["width", "height"],
    "properties": {"width": {"type": "integer"}, "height": {"type": "integer"}},
}
SECURITY: list[dict[str, list[str]]] = [
    {"app_id": []},
    {"api_key": []},
    {"x_api_key": []},
    {"bearer": []},
]


TARGET = {
    "name": "encoded_url",
    "in": "path",
    "required": True,
    "description": "The URL-encoded target URL (http or https).",
    "schema": {"type": "string"},
    "example": "https%3A%2F%2Fexample.com%2F",
}


def two_forms(
    path: str,
    operation_id: str,
    operation: dict[str, Any],
    table: ParamTable[Any],
    groups: Groups = (),
) -> dict[str, Any]:
    """``operation`` at ``path``/{encoded_url} (the target in the path) and at ``path`` (the
    target as url=): ``operation_id`` and ``operation_id``_query, the second marked as a variant
    of the first (``x-variant-of``: the same operation, but for the parameters that differ); the
    parameters in ``groups`` (when given) carry their group."""
    parameters = grouped(table.openapi(), groups) if groups else table.openapi()
    in_path = [TARGET, *(item for item in parameters if item["name"] != "url")]
    in_query = [
        {**item, "required": True} if item["name"] == "url" else item for item in parameters
    ]
    return {
        path + "/{encoded_url}": {
            "get": {"operationId": operation_id, **operation, "parameters": in_path}
        },
        path: {
            "get": {
                "operationId": f"{operation_id}_query",
                **operation,
                "summary": operation["summary"] + " (the target as url=)",
                "x-variant-of": operation_id,
                "parameters": in_query,
            }
        },
    }
