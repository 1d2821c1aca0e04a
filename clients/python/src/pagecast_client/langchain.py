"""A LangChain document loader (the ``langchain`` extra): pages through Pagecast as
``langchain_core`` Documents, one per page or one per chunk, loaded lazily.

>>> from pagecast_client.langchain import PagecastLoader
>>> loader = PagecastLoader(["https://example.com/"], mode="chunks", chunk_size=1000)
>>> docs = loader.load()  # doctest: +SKIP
>>> docs[0].metadata["heading_path"], docs[0].metadata["title"]  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Unpack

from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import Document

from pagecast_client.async_client import AsyncPagecast
from pagecast_client.client import Pagecast
from pagecast_client.documents import LoadFailure, Mode, documents, request_params, skipped
from pagecast_client.errors import PagecastError
from pagecast_client.params import MarkdownParams


class PagecastLoader(BaseLoader):
    """Loads each URL through Pagecast's Markdown endpoint.

    ``mode="page"``: one Document per page, its Markdown as ``page_content``. ``mode="chunks"``
    (or a ``query``): one per chunk, each with ``heading_path`` (a list, outermost first),
    ``heading``, ``chunk_index`` and, for a query, ``relevance_score``. Every Document carries
    ``source`` (the URL), the page's metadata (``title``, ``description``, ``site_name``,
    ``language``, ``author``, ``published_at``...) and the ``request_id``. Other keywords are
    the Markdown endpoint's parameters. The key comes from ``api_key`` or ``PAGECAST_API_KEY``.

    Pages are fetched one at a time, as :meth:`lazy_load` is read. With
    ``continue_on_failure`` (the default), a page that cannot be loaded (fetched, converted,
    or refused as unsafe) is logged and skipped, and kept in :attr:`failures` (those of the
    last load); an error that would fail every page (the key, a parameter, Pagecast
    unreachable) is raised all the same.
    """

    def __init__(
        self,
        urls: str | Sequence[str],
        *,
        mode: Mode = "page",
        continue_on_failure: bool = True,
        api_key: str | None = None,
        base_url: str | None = None,
        **params: Unpack[MarkdownParams],
    ) -> None:
        self.urls = [urls] if isinstance(urls, str) else list(urls)
        self.mode: Mode = mode
        self.continue_on_failure = continue_on_failure
        self.api_key = api_key
        self.base_url = base_url
        self.params = request_params(mode, params)
        self.failures: list[LoadFailure] = []
        """The URLs of the last load that were skipped, with their errors."""

    def lazy_load(self) -> Iterator[Document]:
        self.failures = []
        with Pagecast(self.api_key, self.base_url) as client:
            for url in self.urls:
                try:
                    page = client.markdown(url, **self.params)
                except PagecastError as exc:
                    if skipped(url, exc, self.continue_on_failure, self.failures):
                        continue
                    raise
                for text, metadata in documents(url, page, self.mode):
                    yield Document(page_content=text, metadata=metadata)

    async def alazy_load(self) -> AsyncIterator[Document]:
        self.failures = []
        async with AsyncPagecast(self.api_key, self.base_url) as client:
            for url in self.urls:
                try:
                    page = await client.markdown(url, **self.params)
                except PagecastError as exc:
                    if skipped(url, exc, self.continue_on_failure, self.failures):
                        continue
                    raise
                for text, metadata in documents(url, page, self.mode):
                    yield Document(page_content=text, metadata=metadata)
