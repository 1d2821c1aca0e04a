"""Pages as documents for retrieval frameworks, with no framework imported: the text and the
metadata of one document per page, or one per chunk (or per passage matched to a query).
``pagecast_client.langchain`` and ``pagecast_client.llama_index`` wrap these in their types."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pagecast_client.errors import PagecastError, is_page_failure
from pagecast_client.models import Chunk, MarkdownResult

Mode = Literal["page", "chunks"]
HEADING_SEPARATOR = " > "

log = logging.getLogger("pagecast_client.loaders")


@dataclass(frozen=True)
class LoadFailure:
    """A URL a loader could not load, and why."""

    url: str
    error: PagecastError


def skipped(url: str, error: PagecastError, go_on: bool, failures: list[LoadFailure]) -> bool:
    """Whether a loader goes on past ``url``'s failure: when told to (``go_on``) and the error
    is about that page alone (:func:`~pagecast_client.errors.is_page_failure`). The failure is
    then logged and kept in ``failures``; else the caller raises it, since it would fail every
    page alike (the key, the plan, a parameter, Pagecast unreachable)."""
    if not go_on or not is_page_failure(error):
        return False
    failures.append(LoadFailure(url, error))
    log.warning("Pagecast could not load %s, skipped: %s", url, error)
    return True


def request_params(mode: Mode, params: Mapping[str, Any]) -> dict[str, Any]:
    """The Markdown parameters a loader sends: chunks are asked for in ``chunks`` mode (a
    query gives its passages either way), and the whole Markdown only when it is used."""
    if mode not in ("page", "chunks"):
        raise ValueError("mode must be 'page' or 'chunks'")
    sent = {**params, "format": "json"}
    if mode == "chunks" or params.get("query"):
        sent.setdefault("chunking", True)
        sent.setdefault("include_markdown", False)
    return sent


def page_metadata(url: str, page: MarkdownResult) -> dict[str, Any]:
    """What is known of the page: ``source`` (the URL asked for), the page's own metadata
    (empty fields left out), its size and the request id."""
    metadata: dict[str, Any] = {"source": url}
    if page.metadata:
        metadata.update(
            (name, value) for name, value in dataclasses.asdict(page.metadata).items() if value
        )
    metadata["character_count"] = page.usage.character_count
    metadata["estimated_token_count"] = page.usage.estimated_token_count
    metadata["request_id"] = page.request_id
    return metadata


def chunk_metadata(chunk: Chunk, *, flat: bool) -> dict[str, Any]:
    """A chunk's place: index, heading path (a list, or with ``flat`` one string joined by
    " > " for stores that keep only scalars), offsets and, for a query, its score."""
    path: Any = HEADING_SEPARATOR.join(chunk.heading_path) if flat else list(chunk.heading_path)
    metadata: dict[str, Any] = {
        "chunk_index": chunk.index,
        "heading_path": path,
        "heading": chunk.heading_path[-1] if chunk.heading_path else "",
    }
    for name in ("start_offset", "end_offset", "relevance_score"):
        value = getattr(chunk, name)
        if value is not None:
            metadata[name] = value
    return metadata


def documents(
    url: str, page: MarkdownResult, mode: Mode, *, flat: bool = False
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(text, metadata) of each document: the page, or each of its chunks."""
    base = page_metadata(url, page)
    if page.chunks is None:
        yield page.markdown or "", base
        return
    for chunk in page.chunks:
        yield chunk.text, {**base, **chunk_metadata(chunk, flat=flat)}
