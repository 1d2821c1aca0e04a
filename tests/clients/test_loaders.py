"""The LangChain loader and the LlamaIndex reader against a real Pagecast, checked with the
frameworks' own types: one document per page or per chunk, the page's metadata and each
chunk's heading path in the document's metadata."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.documents import Document as LangChainDocument
from llama_index.core.node_parser import MarkdownNodeParser
from llama_index.core.schema import Document as LlamaDocument

from pagecast_client import InvalidRequestError
from pagecast_client.langchain import PagecastLoader
from pagecast_client.llama_index import PagecastReader
from tests.clients.pagecast_site import Site

TITLE = "Sourdough at altitude"


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
