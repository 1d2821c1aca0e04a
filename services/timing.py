"""A request's phase timings (the ``Server-Timing`` header), for the handlers: the recorder lives
in :mod:`browser.timing`, where the farm and the fetcher add to it."""

from browser.timing import Timings, begin, record, since

__all__ = ["Timings", "begin", "record", "since"]
