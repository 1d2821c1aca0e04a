"""The passages matched to a query, as one Markdown document: the answer of the Markdown
endpoint to a query when the format is Markdown (the JSON envelope carries them as chunks).

The shape, best match first::

    # Passages for "pricing limits"

    ## Passage 1 · score 0.8312

    > Plans \u203a Pricing

    The passage's own text, as the page's Markdown has it.

    ## Passage 2 · score 0.4105
    ...

The heading path line is left out for a passage before the page's first heading. A query that
matched nothing gives the title and the line :data:`NO_MATCH`. A passage's text may hold
headings of its own (the section heading that starts it): the ``## Passage`` lines, with their
score, are where one passage ends and the next begins.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

NO_MATCH = "No passage of the page matches the query."
PATH_SEPARATOR = " \u203a "  # a single right-pointing angle quotation mark
_SPACES = re.compile(r"\s+")


def passages_markdown(query: str, passages: Sequence[Mapping[str, Any]]) -> str:
    """``passages`` (chunks with ``text``, ``heading_path`` and ``relevance_score``, best
    first) as one Markdown document titled with ``query``."""
    title = _SPACES.sub(" ", query).strip().replace('"', "'")
    parts = [f'# Passages for "{title}"']
    if not passages:
        parts.append(NO_MATCH)
    for number, passage in enumerate(passages, 1):
        parts.append(f"## Passage {number} · score {float(passage['relevance_score']):.4f}")
        path = [_SPACES.sub(" ", str(heading)).strip() for heading in passage["heading_path"]]
        if any(path):
            parts.append("> " + PATH_SEPARATOR.join(path))
        parts.append(str(passage["text"]).strip())
    return "\n\n".join(parts) + "\n"
