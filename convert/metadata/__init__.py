"""A page's metadata: title, description, author, dates, image, site name, language, favicon...

:func:`page_metadata` and :func:`read_metadata` (:mod:`~convert.metadata.read`) gather the page's
sources once (:mod:`~convert.metadata.sources`: meta tags, JSON-LD, microdata, the visible
page) and ask one module per field: :mod:`~convert.metadata.titles`,
:mod:`~convert.metadata.authors` and :mod:`~convert.metadata.byline`,
:mod:`~convert.metadata.dates`, :mod:`~convert.metadata.images`, :mod:`~convert.metadata.sites`;
values are cleaned by :mod:`~convert.metadata.values`. The rules are data:
:mod:`~convert.metadata.rules`, :mod:`~convert.metadata.rules_bylines` and
:mod:`~convert.metadata.rules_images`.
"""

from convert.metadata.fields import FIELD_HELP, FIELDS, PageMetadata
from convert.metadata.read import page_metadata, read_metadata

__all__ = ["FIELDS", "FIELD_HELP", "PageMetadata", "page_metadata", "read_metadata"]
