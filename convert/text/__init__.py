"""String primitives every conversion job shares: memo caches for pure functions of short
strings (:mod:`~convert.text.memo`), URLs written as keys and the site a host belongs to
(:mod:`~convert.text.urls`), and Markdown read as blocks (:mod:`~convert.text.blocks`, the one
scanner behind chunking, the renderer's tidying and the safety scan's code ranges)."""

from convert.text.blocks import Block, fenced_lines, scan_blocks
from convert.text.memo import small_key_cache
from convert.text.urls import normalize_url, registrable_domain

__all__ = [
    "Block",
    "fenced_lines",
    "normalize_url",
    "registrable_domain",
    "scan_blocks",
    "small_key_cache",
]
