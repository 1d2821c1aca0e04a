"""Main content: which part of a page is what it is about, and what around it is furniture.

:func:`main_content` (:mod:`~convert.extract.selection`) picks the container
(:mod:`~convert.extract.container`), prunes what it holds that is not content
(:mod:`~convert.extract.prune`, :mod:`~convert.extract.furniture`), trims its edges
(:mod:`~convert.extract.edges`) and keeps threads' posts with their authors
(:mod:`~convert.extract.posts`). Before it, :func:`reveal_scripted_content` shows what a page
hides until a script runs (:mod:`~convert.extract.reveal`); beside it, a product page's facts
(:mod:`~convert.extract.product`). Every threshold, class token and selector is data in
:mod:`~convert.extract.rules`; cookie-consent banners are in :mod:`~convert.extract.consent`.
"""

from convert.extract.consent import LOADERS, banner_css
from convert.extract.product import add_missing_facts, product_facts
from convert.extract.reveal import reveal_scripted_content
from convert.extract.selection import main_content

__all__ = [
    "LOADERS",
    "add_missing_facts",
    "banner_css",
    "main_content",
    "product_facts",
    "reveal_scripted_content",
]
