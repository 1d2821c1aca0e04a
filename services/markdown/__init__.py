"""The Markdown use case: a page fetched (or rendered) and converted, for the Markdown endpoint
and for every page of a batch or crawl.

- :mod:`~services.markdown.request`: :class:`MarkdownRequest` and :class:`MarkdownOptions` (the
  endpoint's parameters that shape the page), checked and turned into the page fetcher's, the
  farm's and the converter's options;
- :mod:`~services.markdown.service`: :class:`MarkdownService`, which fetches or renders the
  page, renders an app shell found in the fetched HTML, converts it in the worker pool and
  prices the answer;
- :mod:`~services.markdown.answers`: :class:`~services.markdown.answers.AnswerCache`, the
  answers kept for reuse (this process's memory in front of the store).
"""

from browser.farm.types import SELECTOR_GRACE, WAIT_TIMEOUT_LIMITS, WAIT_TIMEOUT_MS
from convert.markdown import passages_markdown
from convert.metadata import FIELD_HELP as METADATA_FIELD_HELP
from convert.metadata import FIELDS as METADATA_FIELDS
from convert.safety import MODES as SAFETY_MODES
from services.markdown.request import (
    MarkdownError,
    MarkdownFailure,
    MarkdownOptions,
    MarkdownRequest,
    check_options,
)
from services.markdown.service import MarkdownAnswer, MarkdownService

__all__ = [
    "METADATA_FIELDS",
    "METADATA_FIELD_HELP",
    "SAFETY_MODES",
    "SELECTOR_GRACE",
    "WAIT_TIMEOUT_LIMITS",
    "WAIT_TIMEOUT_MS",
    "MarkdownAnswer",
    "MarkdownError",
    "MarkdownFailure",
    "MarkdownOptions",
    "MarkdownRequest",
    "MarkdownService",
    "check_options",
    "passages_markdown",
]
