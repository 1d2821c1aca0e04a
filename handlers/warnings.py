"""What a request is told beside its answer: the warnings header, and the words for the
parameters a client sent that the endpoint does not know."""

from __future__ import annotations

import re
from typing import Any

from handlers.params.table import ParamTable

WARNINGS_HEADER = "X-Pagecast-Warnings"
WARNING_CHARS = 4000
"""Most characters of the warnings header (the JSON list keeps every warning whole)."""


def warnings_header(warnings: list[str]) -> str:
    """The warnings as one header value: printable ASCII, separated by " | ", bounded."""
    text = " | ".join(warnings).encode("ascii", "backslashreplace").decode("ascii")
    return re.sub(r"[^\x20-\x7e]", "?", text)[:WARNING_CHARS]


def shown(name: str) -> str:
    """A parameter name the client sent, quoted and bounded for a message."""
    return repr(name[:40])


def hint(name: str, table: ParamTable[Any]) -> str:
    """`` (did you mean format?)`` for a near miss of a known parameter, else nothing."""
    suggestion = table.suggestion(name)
    return f" (did you mean {suggestion}?)" if suggestion else ""


def unknown_words(name: str, table: ParamTable[Any]) -> str:
    """Why ``name`` is refused, with the parameter it was probably meant to be."""
    return f"is not a parameter of this endpoint{hint(name, table)}"
