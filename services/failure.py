"""The one exception the use cases raise: a failure kind of their own (an enum, never an API
error name) with a message safe to show. The handlers answer it through the one table in
:mod:`handlers.errors`.

The kinds of the layers below that reach the handlers as they are (a fetch's failure, the farm's,
a presented key's flaw, the store's outage) are named here too, so that the table is written
against the services alone.
"""

from __future__ import annotations

import enum

from browser.farm.types import FarmErrorKind
from browser.fetch.types import FetchError
from store.keys import KeyFlaw
from store.store import StoreUnavailable

__all__ = ["FarmErrorKind", "FetchError", "KeyFlaw", "ServiceError", "StoreUnavailable"]


class ServiceError(Exception):
    """A request a use case cannot answer. ``failure`` says why; ``message`` is safe to show
    (None: the API error's own words); ``retry_after`` (seconds) when waiting can help;
    ``attempts`` how many fetches were made, when that is worth saying; ``problems`` the
    parameters at fault, each with why (the oEmbed error shape's ``details``)."""

    def __init__(
        self,
        failure: enum.Enum,
        message: str | None = None,
        *,
        retry_after: int | None = None,
        attempts: int = 0,
        problems: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.failure = failure
        self.message = message
        self.retry_after = retry_after
        self.attempts = attempts
        self.problems = problems
        super().__init__(message or str(failure))
