"""Targets that are not HTML: a PDF (read into semantic HTML by :mod:`~convert.documents.pdf`),
plain text and JSON, converted by :func:`convert_document` (:mod:`~convert.documents.conversion`)
with the same Markdown steps after as a page."""

from convert.documents.conversion import DocumentKind, convert_document, document_kind
from convert.documents.pdf import PdfError

__all__ = ["DocumentKind", "PdfError", "convert_document", "document_kind"]
