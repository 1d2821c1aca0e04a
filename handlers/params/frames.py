"""The frame management API's parameter tables: the key alone, and the listing's page."""

from __future__ import annotations

from dataclasses import dataclass

from handlers.params.table import Params, ParamTable, param


@dataclass(frozen=True)
class KeyOnlyParams(Params):
    """A frame request's only parameter: the key."""

    app_id: str | None = param("string", "API key (or send the api-key header).", secret=True)


KEY_ONLY = ParamTable.of(KeyOnlyParams)


@dataclass(frozen=True)
class FrameListParams(Params):
    """The frame listing's parameters, typed."""

    app_id: str | None = param("string", "API key (or send the api-key header).", secret=True)
    limit: int = param("integer", "Frames per page, newest first.", 50, minimum=1, maximum=200)
    cursor: str | None = param("string", "next_cursor of the previous page.", max_length=200)


LIST_PARAMS = ParamTable.of(FrameListParams)
