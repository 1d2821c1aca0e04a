"""Reading a fetched body: is it HTML, is it text, and which character encoding it is in.

The encoding comes from a byte order mark, the Content-Type charset, a ``<meta>`` or XML
declaration, then detection (charset-normalizer), as browsers decide it.
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
_HTML_START = re.compile(
    rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|script|iframe|h1|div|font|table"
    rb"|a|style|title|b|br|p)[\s/>]",
    re.IGNORECASE | re.DOTALL,
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


def looks_like_html(body: bytes) -> bool:
    """Sniff HTML from the start of a body, as browsers do for a missing content type."""
    return bool(_HTML_START.match(body[:1024].removeprefix(codecs.BOM_UTF8)))


def is_textual(content_type: str, body: bytes) -> bool:
    if content_type.startswith("text/") or content_type in HTML_TYPES:
        return True
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
    except LookupError:
        return None
    name = _WEB_SUPERSETS.get(name, name)
    if name in _UNSAFE_CODECS or name.endswith("_escape"):
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
