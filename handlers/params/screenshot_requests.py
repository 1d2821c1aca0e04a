"""The parameter table of ``GET /api/1.1/screenshot/requests/{capture_id}``, a background capture's
status."""

from __future__ import annotations

from dataclasses import dataclass

from handlers.params.table import Params, ParamTable, param


@dataclass(frozen=True)
class CaptureStatusParams(Params):
    """The query of a background capture's status."""

    app_id: str | None = param("string", "API key (or send the api-key header).", secret=True)


CAPTURE_STATUS_PARAMS = ParamTable.of(CaptureStatusParams)
