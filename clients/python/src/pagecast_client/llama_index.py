"""A LlamaIndex reader (the ``llamaindex`` extra): pages through Pagecast as
``llama_index.core`` Documents, one per page or one per chunk, read lazily.

>>> from pagecast_client.llama_index import PagecastReader
>>> docs = PagecastReader(mode="chunks").load_data(["https://example.com/"])  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Unpack

from llama_index.core.readers.base import BaseReader
from llama_index.core.schema import Document

from pagecast_client.client import Pagecast
from pagecast_client.documents import LoadFailure, Mode, documents, request_params, skipped
from pagecast_client.errors import PagecastError
from pagecast_client.params import MarkdownParams


class PagecastReader(BaseReader):
    """Reads URLs through Pagecast's Markdown endpoint.

    The same documents as :class:`pagecast_client.langchain.PagecastLoader`, except that
    ``heading_path`` is one string joined by " > " (LlamaIndex's vector stores keep only
    scalar metadata). Document ids are the URL, with ``#chunk-N`` for a chunk.

    :meth:`lazy_load_data` fetches one page at a time as it is read (``load_data`` reads it
    all). Unless ``raise_on_error`` (as LlamaIndex's own ``SimpleDirectoryReader``), a page that
    cannot be loaded is logged and skipped, and kept in :attr:`failures` (those of the last
    read); an error that would fail every page (the key, a parameter, Pagecast unreachable) is
    raised all the same.
    """

    def __init__(
        self,
        *,
        mode: Mode = "page",
        raise_on_error: bool = False,
        api_key: str | None = None,
        base_url: str | None = None,
        **params: Unpack[MarkdownParams],
    ) -> None:
        self.mode: Mode = mode
        self.raise_on_error = raise_on_error
        self.api_key = api_key
        self.base_url = base_url
        self.params = request_params(mode, params)
        self.failures: list[LoadFailure] = []
        """The URLs of the last read that were skipped, with their errors."""

    def lazy_load_data(self, urls: str | Sequence[str], **_: Any) -> Iterator[Document]:
        self.failures = []
        with Pagecast(self.api_key, self.base_url) as client:
            for url in [urls] if isinstance(urls, str) else urls:
                try:
                    page = client.markdown(url, **self.params)
                except PagecastError as exc:
                    if skipped(url, exc, not self.raise_on_error, self.failures):
                        continue
                    raise
                for text, metadata in documents(url, page, self.mode, flat=True):
                    index = metadata.get("chunk_index")
                    doc_id = url if index is None else f"{url}#chunk-{index}"
                    yield Document(text=text, metadata=metadata, id_=doc_id)
