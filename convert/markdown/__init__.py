"""A web page as Markdown for a model's context: the pipeline and its parts.

:func:`convert_page` (:mod:`~convert.markdown.pipeline`) is the whole way from HTML to the
answer: reveal, main content (:mod:`convert.extract`), metadata (:mod:`convert.metadata`), the
safety scan (:mod:`convert.safety`), the renderer (:mod:`~convert.markdown.render`), the
outline, links and images (:mod:`~convert.markdown.structure`), chunks with heading paths
(:mod:`~convert.markdown.chunks`) and passages ranked against a query
(:mod:`~convert.markdown.query`), which :mod:`~convert.markdown.passages` writes as one
Markdown document.
"""

from convert.markdown.chunks import ChunkOptions
from convert.markdown.passages import passages_markdown
from convert.markdown.pipeline import (
    METADATA_ONLY,
    ConvertOptions,
    PageConversion,
    StructureRequest,
    convert_page,
)
from convert.markdown.structure import Structure, StructureLimits

__all__ = [
    "METADATA_ONLY",
    "ChunkOptions",
    "ConvertOptions",
    "PageConversion",
    "Structure",
    "StructureLimits",
    "StructureRequest",
    "convert_page",
    "passages_markdown",
]
