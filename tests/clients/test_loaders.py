"""The LangChain loader and the LlamaIndex reader against a real Pagecast, checked with the
frameworks' own types: one document per page or per chunk, the page's metadata and each
chunk's heading path in the document's metadata; pages loaded one at a time, and a URL that
fails logged, kept and gone past (unless told otherwise, or the error would fail every URL)."""

from __future__ import annotations

import asyncio
import logging

import pytest
from langchain_core.documents import Document as LangChainDocument
from llama_index.core.node_parser import MarkdownNodeParser
from llama_index.core.schema import Document as LlamaDocument

from pagecast_client import (
    AuthenticationError,
    BlockedContentError,
    InvalidRequestError,
    TargetError,
)
from pagecast_client.documents import LoadFailure
from pagecast_client.langchain import PagecastLoader
from pagecast_client.llama_index import PagecastReader
from tests.clients.pagecast_site import Site
from tests.origin import closed_port

TITLE = "Sourdough at altitude"
UNREACHABLE = f"http://127.0.0.1:{closed_port()}/"
"""Nothing listens there: the page cannot be fetched (port 1 is one browsers refuse outright)."""


def test_langchain_one_document_per_page(site: Site) -> None:
    loader = PagecastLoader(site.page, api_key=site.key, base_url=site.base_url)
    [doc] = loader.load()
    assert isinstance(doc, LangChainDocument)
    assert doc.page_content.startswith(f"# {TITLE}\n")
    assert doc.metadata["source"] == site.page and doc.metadata["title"] == TITLE
    assert doc.metadata["site_name"] == "The Field Kitchen" and doc.metadata["language"] == "en"
    assert doc.metadata["character_count"] == len(doc.page_content)
    assert "author" not in doc.metadata  # the page names none: empty fields are left out


def test_langchain_chunks_with_heading_paths(site: Site) -> None:
    loader = PagecastLoader(
        [site.page], mode="chunks", chunk_size=200, api_key=site.key, base_url=site.base_url
    )
    docs = list(loader.lazy_load())
    assert len(docs) == 4 and [doc.metadata["chunk_index"] for doc in docs] == [0, 1, 2, 3]
    assert docs[1].metadata["heading_path"] == [TITLE, "What changes"]
    assert docs[1].metadata["heading"] == "What changes"
    assert docs[1].page_content.startswith("## What changes")
    assert all(doc.metadata["title"] == TITLE for doc in docs)
    # The async path gives the same documents, a query only its passages, best first.
    passages = asyncio.run(
        PagecastLoader(
            site.page, query="water", query_top_k=1, api_key=site.key, base_url=site.base_url
        ).aload()
    )
    assert len(passages) == 1 and passages[0].metadata["relevance_score"] > 0
    with pytest.raises(InvalidRequestError):
        PagecastLoader(site.page, chunk_size=5, api_key=site.key, base_url=site.base_url).load()


def test_llama_index_reader(site: Site) -> None:
    reader = PagecastReader(mode="chunks", chunk_size=200, api_key=site.key, base_url=site.base_url)
    docs = reader.load_data([site.page])
    assert len(docs) == 4 and all(isinstance(doc, LlamaDocument) for doc in docs)
    assert docs[1].metadata["heading_path"] == f"{TITLE} > What changes"
    assert docs[1].id_ == f"{site.page}#chunk-1" and docs[1].text.startswith("## What changes")
    [page] = PagecastReader(api_key=site.key, base_url=site.base_url).load_data(site.page)
    assert page.id_ == site.page and page.metadata["title"] == TITLE
    # LlamaIndex's own Markdown parser takes the page apart along the same headings.
    nodes = MarkdownNodeParser().get_nodes_from_documents([page])
    assert any(node.metadata.get("header_path") == f"/{TITLE}/" for node in nodes)
    assert all(node.metadata["source"] == site.page for node in nodes)


def test_langchain_goes_on_past_a_failing_url_lazily(
    site: Site, caplog: pytest.LogCaptureFixture
) -> None:
    loader = PagecastLoader([site.page, UNREACHABLE], api_key=site.key, base_url=site.base_url)
    docs = loader.lazy_load()
    first = next(docs)
    assert first.metadata["source"] == site.page
    assert loader.failures == []  # the second URL is not asked for until it is read
    with caplog.at_level(logging.WARNING, logger="pagecast_client.loaders"):
        assert list(docs) == []
    [failure] = loader.failures
    assert isinstance(failure, LoadFailure) and failure.url == UNREACHABLE
    assert isinstance(failure.error, TargetError) and failure.error.code == -3001
    assert UNREACHABLE in caplog.text and "-3001" in caplog.text
    # The async path too, with a page refused as unsafe among them; a new load starts afresh.
    guarded = PagecastLoader(
        [site.injected_page, UNREACHABLE, site.page],
        ai_sanitize=True,
        ai_sanitize_mode="block",
        api_key=site.key,
        base_url=site.base_url,
    )
    [doc] = asyncio.run(guarded.aload())
    assert doc.metadata["source"] == site.page
    assert [failure.url for failure in guarded.failures] == [site.injected_page, UNREACHABLE]
    assert isinstance(guarded.failures[0].error, BlockedContentError)
    assert len(guarded.load()) == 1 and len(guarded.failures) == 2


def test_langchain_stops_when_told_or_when_every_url_would_fail(site: Site) -> None:
    strict = PagecastLoader(
        [UNREACHABLE, site.page],
        continue_on_failure=False,
        api_key=site.key,
        base_url=site.base_url,
    )
    with pytest.raises(TargetError):
        strict.load()
    stranger = PagecastLoader([UNREACHABLE, site.page], api_key="pc_nobody", base_url=site.base_url)
    with pytest.raises(AuthenticationError):
        stranger.load()


def test_llama_index_goes_on_past_a_failing_url_lazily(site: Site) -> None:
    reader = PagecastReader(mode="chunks", chunk_size=200, api_key=site.key, base_url=site.base_url)
    docs = reader.lazy_load_data([UNREACHABLE, site.page])
    first = next(docs)
    assert first.id_ == f"{site.page}#chunk-0"
    assert [failure.url for failure in reader.failures] == [UNREACHABLE]
    assert len(list(docs)) == 3
    [failure] = reader.failures
    assert isinstance(failure.error, TargetError) and failure.error.code == -3001
    [page] = PagecastReader(api_key=site.key, base_url=site.base_url).load_data(
        [site.page, UNREACHABLE]
    )
    assert page.id_ == site.page
    strict = PagecastReader(raise_on_error=True, api_key=site.key, base_url=site.base_url)
    with pytest.raises(TargetError):
        strict.load_data([site.page, UNREACHABLE])
