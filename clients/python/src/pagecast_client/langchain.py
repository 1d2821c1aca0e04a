"""A LangChain document loader (the ``langchain`` extra): pages through Pagecast as
``langchain_core`` Documents, one per page or one per chunk.

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

from pagecast_client.client import AsyncPagecast, Pagecast
from pagecast_client.documents import Mode, documents, request_params
from pagecast_client.params import MarkdownParams


class PagecastLoader(BaseLoader):
    """Loads each URL through Pagecast's Markdown endpoint.

    ``mode="page"``: one Document per page, its Markdown as ``page_content``. ``mode="chunks"``
    (or a ``query``): one per chunk, each with ``heading_path`` (a list, outermost first),
    ``heading``, ``chunk_index`` and, for a query, ``relevance_score``. Every Document carries
    ``source`` (the URL), the page's metadata (``title``, ``description``, ``site_name``,
    ``language``, ``author``, ``published_at``...) and the ``request_id``. Other keywords are
    the Markdown endpoint's parameters. The key comes from ``api_key`` or ``PAGECAST_API_KEY``.
    """

    def __init__(
        self,
        urls: str | Sequence[str],
        *,
        mode: Mode = "page",
        api_key: str | None = None,
        base_url: str | None = None,
        **params: Unpack[MarkdownParams],
    ) -> None:
        self.urls = [urls] if isinstance(urls, str) else list(urls)
        self.mode: Mode = mode
        self.api_key = api_key
        self.base_url = base_url
        self.params = request_params(mode, params)

    def lazy_load(self) -> Iterator[Document]:
        with Pagecast(self.api_key, self.base_url) as client:
            for url in self.urls:
                page = client.markdown(url, **self.params)
                for text, metadata in documents(url, page, self.mode):
                    yield Document(page_content=text, metadata=metadata)

    async def alazy_load(self) -> AsyncIterator[Document]:
        async with AsyncPagecast(self.api_key, self.base_url) as client:
            for url in self.urls:
                page = await client.markdown(url, **self.params)
                for text, metadata in documents(url, page, self.mode):
                    yield Document(page_content=text, metadata=metadata)
