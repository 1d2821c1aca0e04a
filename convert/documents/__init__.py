"""Targets that are not HTML: a PDF (read into semantic HTML by :mod:`~convert.documents.pdf`),
plain text and JSON, converted by :func:`convert_document` (:mod:`~convert.documents.targets`)
with the same Markdown steps after as a page."""

from convert.documents.pdf import PdfError
from convert.documents.targets import DocumentKind, convert_document, document_kind

__all__ = ["DocumentKind", "PdfError", "convert_document", "document_kind"]
