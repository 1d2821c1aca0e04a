"""How long each phase of one request's work took, for the ``Server-Timing`` header of the
screenshot and Markdown answers.

A handler that reports its timings starts a :class:`Timings` for its request (:func:`begin`);
the layers doing the work add the phases they already time (:func:`record`): the farm its queue,
the navigation, the readiness wait and the capture; the page fetcher its fetches; the worker pool
its queue and conversions. Outside a timed request, recording does nothing. A phase that happens
more than once in a request (a fetch retried, two conversions when an app shell is rendered, a
wait for the farm and one for a worker) is the sum of its times.
"""

from __future__ import annotations

import re
import time
from contextvars import ContextVar

PHASES = ("queue", "fetch", "navigation", "ready", "capture", "conversion")
"""The phases a request may report, in the header's order (``total`` comes last)."""

_CURRENT: ContextVar[Timings | None] = ContextVar("timings", default=None)
_UNQUOTABLE = re.compile(r'[^\x20-\x7e]|["\\]')


class Timings:
    """The phases of one request that happened, with their milliseconds."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self.notes: dict[str, str] = {}

    def add(self, phase: str, ms: float, note: str | None = None) -> None:
        """Count ``ms`` more milliseconds of ``phase`` (one of :data:`PHASES`); ``note`` is
        its ``desc``."""
        if phase not in PHASES:
            raise ValueError(f"unknown phase {phase!r}")
        self.ms[phase] = self.ms.get(phase, 0.0) + max(ms, 0.0)
        if note:
            self.notes[phase] = note

    def header(self, total_ms: float) -> str:
        """The ``Server-Timing`` value: each phase that happened, then ``total``, e.g.
        ``queue;dur=0.4, navigation;dur=286.0, ready;dur=412.0;desc="settled", total;dur=731.2``."""
        metrics = [
            _metric(name, self.ms[name], self.notes.get(name)) for name in PHASES if name in self.ms
        ]
        return ", ".join([*metrics, _metric("total", total_ms, None)])


def _metric(name: str, ms: float, note: str | None) -> str:
    text = f"{name};dur={max(ms, 0.0):.1f}"
    if note:
        text += f';desc="{_UNQUOTABLE.sub("", note)[:100]}"'
    return text


def begin(timings: Timings) -> None:
    """Make ``timings`` the current request's: what its work records from here on goes there
    (call it in the request's own task)."""
    _CURRENT.set(timings)


def record(phase: str, ms: float, note: str | None = None) -> None:
    """Add ``ms`` milliseconds of ``phase`` to the current request's timings, if it keeps any."""
    timings = _CURRENT.get()
    if timings is not None:
        timings.add(phase, ms, note)


def since(started: float) -> float:
    """Milliseconds since ``started``, a ``time.monotonic()`` value."""
    return (time.monotonic() - started) * 1000
