"""Reading a fetched body: is it HTML, is it text, and which character encoding it is in.

The encoding comes from a byte order mark, the Content-Type charset, a ``<meta>`` or XML
declaration, then detection (charset-normalizer), as browsers decide it. A body that is plainly
binary (a file signature, or control bytes text never has) is not text whatever its label says.
"""

from __future__ import annotations

import codecs
import re

import charset_normalizer

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
SNIFFED_TYPES = frozenset(
    {"", "application/octet-stream", "application/unknown", "unknown/unknown"}
)


_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
)
_CHARSET_PARAM = re.compile(r"""charset\s*=\s*["']?\s*([^\s;"']+)""", re.IGNORECASE)
_META_CHARSET = re.compile(rb"""<meta\s[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)""", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml\s[^>]*?encoding\s*=\s*["']([\w.:-]+)""", re.IGNORECASE)
_HTML_TAG = re.compile(
    rb"<(?:!doctype\s+html|html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p)"
    rb"[\s/>]",
    re.IGNORECASE,
)
# Labels browsers read as a superset encoding (the WHATWG Encoding Standard), by Python codec.
_WEB_SUPERSETS = {
    "ascii": "cp1252",
    "iso8859-1": "cp1252",
    "iso8859-9": "cp1254",
    "tis-620": "cp874",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "shift_jis": "cp932",
    "euc_kr": "cp949",
    "big5": "big5hkscs",
}
_UNSAFE_CODECS = {"utf-7", "idna", "punycode", "undefined", "unicode_escape", "raw_unicode_escape"}
_META_BYTES = 4096
_DETECT_BYTES = 32 * 1024
# File signatures of the binary formats servers most often mislabel as text/html.
_SIGNATURES = (
    b"%PDF-",
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",  # JPEG
    b"GIF87a",
    b"GIF89a",
    b"PK\x03\x04",  # ZIP, and the office formats built on it
    b"PK\x05\x06",  # an empty ZIP
    b"\x1f\x8b",  # gzip the client did not decode (no Content-Encoding)
)
_SNIFF_BYTES = 2048
# Control bytes that text never uses: the WHATWG "binary data bytes" (tab, line feed, form feed,
# carriage return and escape, which ISO-2022 text uses, are left out).
_BINARY_BYTES = bytes([*range(0x00, 0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20)])
# More than this share of such bytes in the sample marks it binary even without a NUL.
_BINARY_SHARE = 0.1


def looks_like_html(body: bytes) -> bool:
    """Sniff HTML from the start of a body, as browsers do for a missing content type."""
    head = body[:1024].removeprefix(codecs.BOM_UTF8).lstrip()
    # Comments are skipped by hand: a pattern repeating (<!--.*?-->)* backtracks exponentially.
    while head.startswith(b"<!--"):
        end = head.find(b"-->", 4)
        if end < 0:
            return False
        head = head[end + 3 :].lstrip()
    return bool(_HTML_TAG.match(head))


def looks_binary(body: bytes, declared: str | None = None) -> bool:
    """Whether a body is plainly binary data, judged from its first 2 KiB: a known file signature
    (PDF, PNG, JPEG, GIF, ZIP, gzip), a NUL byte, or a high share of other control bytes.

    A byte order mark, or a declared UTF-16 or UTF-32 ``declared`` charset, means text: those
    encodings are full of NUL bytes.
    """
    sample = body[:_SNIFF_BYTES]
    if sample.startswith(_SIGNATURES):
        return True
    if sample.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_BE, codecs.BOM_UTF16_LE)):
        return False
    codec = codec_for(declared)
    if codec and codec.startswith(("utf-16", "utf-32")):
        return False
    if b"\0" in sample:
        return True
    control = len(sample) - len(sample.translate(None, _BINARY_BYTES))
    return control > _BINARY_SHARE * len(sample)


def is_textual(content_type: str, body: bytes, declared: str | None = None) -> bool:
    """Whether a body with this media type (and ``declared`` charset) should be decoded as text."""
    if content_type.startswith("text/") or content_type in HTML_TYPES:
        return not looks_binary(body, declared)
    if content_type.endswith(("+xml", "+json", "/xml", "/json", "/javascript", "/ecmascript")):
        return True
    return content_type in SNIFFED_TYPES and looks_like_html(body)


def declared_charset(content_type: str) -> str | None:
    match = _CHARSET_PARAM.search(content_type.partition(";")[2])
    return match.group(1) if match else None


def codec_for(label: str | bytes | None) -> str | None:
    """The Python codec for a charset label, widened as browsers widen it; None if unusable."""
    if not label:
        return None
    if isinstance(label, bytes):
        label = label.decode("ascii", "replace")
    try:
        name = codecs.lookup(label.strip().strip("\"'").lower()).name
    except (LookupError, ValueError):  # ValueError: a label with a NUL in it
        return None
    name = _WEB_SUPERSETS.get(name, name)
    # Codec names mix hyphens and underscores ("unicode-escape", "raw-unicode-escape").
    plain = name.replace("-", "_")
    if plain in _UNSAFE_CODECS or plain.endswith("_escape") or name in _UNSAFE_CODECS:
        return None
    try:
        b"a".decode(name, "replace")
    except (LookupError, UnicodeError):  # bytes-to-bytes codecs such as base64 or zlib
        return None
    return name


def _meta_charset(head: bytes) -> str | None:
    match = _XML_ENCODING.match(head) or _META_CHARSET.search(head)
    codec = codec_for(match.group(1)) if match else None
    # A page that can declare itself in ASCII is not UTF-16 (the HTML standard's rule).
    if codec and codec.startswith(("utf-16", "utf-32")):
        return "utf-8"
    return codec


def _detect(body: bytes) -> str:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return "utf-8"
    sample = body[:_DETECT_BYTES]
    if len(body) > _DETECT_BYTES:
        # Cut at an ASCII byte so a multi-byte character is not split.
        cut = max(sample.rfind(b">"), sample.rfind(b"\n"))
        sample = sample[: cut + 1] if cut > 0 else sample
    matches = charset_normalizer.from_bytes(sample)
    best = matches.best()
    if best is None:
        return "utf-8"
    # Short Western pages fit several single-byte code pages equally well; windows-1252 is by
    # far the likeliest on the web, as browsers assume.
    for match in matches:
        if "cp1252" in match.could_be_from_charset and match.chaos <= best.chaos + 0.05:
            return "cp1252"
    return codec_for(best.encoding) or "utf-8"


def decode_text(body: bytes, declared: str | None = None) -> tuple[str, str]:
    """Decode a body: ``(text, codec)``.

    The order is a byte order mark (which browsers let override the header), the Content-Type
    charset, a ``<meta>`` or XML declaration in the first 4 KiB, detection, and UTF-8; undecodable
    bytes become U+FFFD. Unknown or unsafe charset labels are skipped.
    """
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return body[len(bom) :].decode(codec, "replace"), codec
    codec = codec_for(declared) or _meta_charset(body[:_META_BYTES]) or _detect(body)
    return body.decode(codec, "replace"), codec
