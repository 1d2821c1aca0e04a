"""The one exception the use cases raise: a failure kind of their own (an enum, never an API
error name) with a message safe to show. The handlers answer it through the one table in
:mod:`handlers.errors`."""

from __future__ import annotations

import enum


class ServiceError(Exception):
    """A request a use case cannot answer. ``failure`` says why; ``message`` is safe to show
    (None: the API error's own words); ``retry_after`` (seconds) when waiting can help;
    ``attempts`` how many fetches were made, when that is worth saying."""

    def __init__(
        self,
        failure: enum.Enum,
        message: str | None = None,
        *,
        retry_after: int | None = None,
        attempts: int = 0,
    ) -> None:
        self.failure = failure
        self.message = message
        self.retry_after = retry_after
        self.attempts = attempts
        super().__init__(message or str(failure))
