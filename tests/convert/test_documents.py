"""Targets that are not HTML: which media types are converted, plain text as it is, JSON in a
fence no backtick inside can close, and a PDF (made by Chromium's print from
``pdf_samples/manual.html``) as headings, paragraphs, lists and a table without its running head
and footer."""

from __future__ import annotations

from pathlib import Path

import pytest

from convert.documents.conversion import DocumentKind, convert_document, document_kind
from convert.documents.pdf import PdfError, pdf_to_html
from convert.markdown.pipeline import ConvertOptions

MANUAL = (Path(__file__).parent / "pdf_samples" / "manual.pdf").read_bytes()


@pytest.mark.parametrize(
    ("content_type", "body", "kind"),
    [
        ("text/plain", b"hello", DocumentKind.text),
        ("text/csv", b"a,b", DocumentKind.text),
        ("application/json", b"{}", DocumentKind.json),
        ("application/problem+json", b"{}", DocumentKind.json),
        ("application/pdf", b"%PDF-1.7", DocumentKind.pdf),
        ("application/octet-stream", b"%PDF-1.7", DocumentKind.pdf),
        ("application/octet-stream", b"\x00\x01", None),
        ("application/zip", b"PK", None),
        ("image/png", b"\x89PNG", None),
    ],
)
def test_which_types_are_converted(content_type: str, body: bytes, kind: DocumentKind) -> None:
    assert document_kind(content_type, body) == kind


def test_text_is_kept_as_it_is() -> None:
    text = "Title line\r\n\r\n* not escaped *\r\n# not a heading of ours"
    result = convert_document(DocumentKind.text, b"", text, "http://h/notes.txt", ConvertOptions())
    assert result.markdown == "Title line\n\n* not escaped *\n# not a heading of ours"
    assert result.metadata["title"] == "notes.txt"
    assert result.extraction == "document:text"


def test_json_is_fenced_and_pretty() -> None:
    source = '{"a": [1, 2], "code": "````"}'
    result = convert_document(DocumentKind.json, b"", source, "http://h/x.json", ConvertOptions())
    assert result.markdown.startswith('`````json\n{\n  "a": [\n    1,')
    assert result.markdown.endswith("\n}\n`````")
    broken = convert_document(DocumentKind.json, b"", "{oops", "http://h/x", ConvertOptions())
    assert broken.markdown == "```json\n{oops\n```"
    deep = "[" * 100_000 + "]" * 100_000  # too deep to parse: shown as it came
    result = convert_document(DocumentKind.json, b"", deep, "http://h/x", ConvertOptions())
    assert result.markdown == f"```json\n{deep}\n```"
    nested = "[" + ",".join(["[[[[[[1]]]]]]"] * 5000) + "]"  # indentation would dwarf it
    result = convert_document(DocumentKind.json, b"", nested, "http://h/x", ConvertOptions())
    assert result.markdown == f"```json\n{nested}\n```"


def test_a_pdf_keeps_its_structure() -> None:
    document = pdf_to_html(MANUAL)
    assert (document.pages, document.pages_read, document.title) == (
        3,
        3,
        "Harbour operations manual",
    )
    result = convert_document(DocumentKind.pdf, MANUAL, None, "http://h/m.pdf", ConvertOptions())
    markdown = result.markdown
    assert markdown.startswith("# Harbour operations manual\n")
    for expected in (
        "## Arrivals",
        "### Night arrivals",
        "- Confirm the berth given by the harbour master.",
        "| Cargo pier | 9.5 | 850 |",
        "3. Leave the harbour by the marked channel.",
        "It is kept by the harbour master's office",  # a paragraph over two lines, joined
    ):
        assert expected in markdown, expected
    assert "Page 2 of 3" not in markdown and "revised edition" not in markdown
    assert result.metadata["title"] == "Harbour operations manual"


def test_a_damaged_pdf_is_an_error() -> None:
    with pytest.raises(PdfError):
        pdf_to_html(b"%PDF-1.4 this is not really a PDF")
    with pytest.raises(PdfError):
        pdf_to_html(MANUAL[: len(MANUAL) // 3])
