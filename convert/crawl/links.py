"""The links of an HTML page, made absolute (pure, no I/O).

Public API:

- :func:`extract_links` (html, page_url, max_links=:data:`MAX_LINKS`) -> list[str]: the
  ``href`` of every ``<a>`` and ``<area>`` in document order, resolved against the page's first
  ``<base href>`` (itself resolved against ``page_url``, the URL the page was finally served
  from, after redirects), tabs and line breaks removed and surrounding spaces stripped; only
  http and https URLs, each once (as resolved, fragment included: normalise them with
  :func:`convert.crawl.urls.url_key` to deduplicate), at most ``max_links``. ``rel="nofollow"``
  links are kept: nofollow speaks of ranking, not of fetching.

Parsing a large page takes milliseconds; call it off the IOLoop (an executor or the conversion
pool) for pages of unknown size.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from convert.html.document import base_url_of, parse_document

MAX_LINKS = 10_000
"""Links read from one page; the rest are left out."""

LINK_TAGS = ("a", "area")
_SCHEMES = frozenset({"http", "https"})
_STRIPPED = str.maketrans("", "", "\t\n\r")


def extract_links(html: str, page_url: str, *, max_links: int = MAX_LINKS) -> list[str]:
    """Absolute http(s) links of the page (see the module docstring)."""
    root = parse_document(html)
    base = base_url_of(root, page_url)
    seen: dict[str, None] = {}
    for element in root.iter(*LINK_TAGS):
        href = (element.get("href") or "").translate(_STRIPPED).strip()
        if not href or href.startswith("#"):
            continue
        try:
            url = urljoin(base, href)
            scheme = urlsplit(url).scheme.lower()
        except ValueError:
            continue
        if scheme in _SCHEMES and url not in seen:
            seen[url] = None
            if len(seen) >= max_links:
                break
    return list(seen)
