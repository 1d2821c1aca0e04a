"""The fetcher: one curl request at a time on Tornado's curl client, every hop checked by the SSRF
rule and bounded in time and bytes.

- :mod:`~browser.fetch.client`: :class:`Fetcher`, redirects followed hop by hop;
- :mod:`~browser.fetch.types`: its settings, the failure kinds and the result value;
- :mod:`~browser.fetch.hop`: one hop as curl sees it (pinned addresses, limits);
- :mod:`~browser.fetch.charset`: is a body HTML or text, and its character encoding;
- :mod:`~browser.fetch.retry`: which failures are worth another attempt, bot walls.
"""

from browser.fetch.client import Fetcher
from browser.fetch.types import FetchError, FetchResult, FetchSettings

__all__ = ["FetchError", "FetchResult", "FetchSettings", "Fetcher"]
