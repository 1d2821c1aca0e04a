"""The rules of a page's image, as data: placeholder and tracking-pixel names, the words that make
an image furniture (a logo, an icon, an avatar), and the bounds of the fallbacks that look at
the page's own images (the largest declared one, the article's first picture, the logo's alt
text for the site's name). :mod:`convert.metadata.images`, :mod:`convert.metadata.visible` and
:mod:`convert.metadata.values` read them; the image sources themselves are in
:mod:`convert.metadata.rules`."""

from __future__ import annotations

import re

_PLACEHOLDER_WORD = (
    r"(?:placeholder|spacer|blank|pixel|transparent|clear|empty|dummy|missing|grey|gray|loader|"
    r"loading|spinner|lazy|\d+x\d+)"
)
PLACEHOLDER_STEM = re.compile(
    rf"^{_PLACEHOLDER_WORD}(?:[-_]?(?:{_PLACEHOLDER_WORD}|\d+))*$",
    re.I,
)
"""A file name (without its extension) made only of placeholder words: "spacer", "1x1",
"blank-400x300", "pixel" ("pixel-art-contest" is a picture)."""
PLACEHOLDER_NAME = re.compile(
    r"placeholder|no[-_]?(?:image|img|photo|picture|thumb)|"
    r"image[-_]?(?:not[-_]?found|missing|coming[-_]?soon)|lazy[-_]?load|"
    r"default[-_]?(?:og|share|social|thumb|thumbnail|avatar|image|img|featured|preview)",
    re.I,
)
"""Words anywhere in a file name that mark a placeholder ("default-og-image", "no_photo")."""
TRACKING_HOSTS = (
    "facebook.com", "facebook.net", "google-analytics.com", "googletagmanager.com",
    "doubleclick.net", "googlesyndication.com", "googleadservices.com",
    "scorecardresearch.com", "quantserve.com", "bat.bing.com", "analytics.twitter.com", "t.co",
    "ads.linkedin.com", "px.ads.linkedin.com", "pixel.wp.com", "stats.wp.com",
    "pixel.quantserve.com", "sb.scorecardresearch.com", "ct.pinterest.com",
    "analytics.tiktok.com", "mc.yandex.ru", "pixel.mathtag.com", "adsrvr.org", "criteo.com",
    "criteo.net", "amazon-adsystem.com", "hotjar.com",
)  # fmt: skip
"""Hosts (and their subdomains) whose images are tracking pixels or ads, never a page's image."""
TRACKING_PATH = re.compile(
    r"(?:^|/)(?:tr|pixel|track|tracking|beacon|collect|impression)(?:/|\?|$|\.gif)", re.I
)
CONTENT_IMAGE_SKIP = re.compile(
    r"(?:^|[-_\s/])(?:logo|icon|avatars?|sprite|badge|nav|bullet|dot|emoji|gravatar|author|profile|ad|ads|advert|"
    r"banner-ad|rating|stars?|flag|payment|social|share|button|btn|arrow|qr)(?:[-_\s./]|$)",
    re.I,
)
"""Class, id, alt or file-name words of images that are furniture, not the page's picture."""
CONTENT_IMAGE_FILE_SKIP = re.compile(r"logo|favicon|sprite|placeholder", re.I)
"""Words anywhere in an image's file name (not only between separators: "OHOLogo2021.png")
that make it furniture."""
ARTICLE_IMAGES_READ = 15
"""``<img>`` elements of the ``<article>`` or ``<main>`` (else of the element marked as the main
region) looked at for its first picture (the fallback when no image declares a size large
enough), at most."""
MAIN_REGION_MARKS = (("role", "main"), ("id", "main"), ("id", "content"))
"""Attributes that mark an element as the page's main region (looked for around the headline
when a page has no ``<article>`` or ``<main>``)."""
ARTICLE_IMAGE_SKIP = re.compile(r"\.(?:svg|gif)(?:$|\?)", re.I)
"""Image files that are drawings and animations of the page's furniture far more often than its
picture (icons, spinners, badges): not taken as the article's first picture."""
ARTICLE_IMAGE_MIN = 100
"""A declared width or height below this makes an image of the article too small to be its
picture (an icon, an avatar)."""
LOGO_IMAGES_READ = 12
"""``<img>`` elements looked at for the logo, at most (the first: a logo is in the header)."""
LOGOS_READ = 3
"""Logo images (an ``<img>`` whose class, id, alt or file names a logo, or inside an element
whose class or id does) whose alt text is read for the site's name, at most."""
LOGO_WORD = re.compile(r"\s*\blogo\b(?:\s+of\b)?\s*", re.I)
"""The word removed from a logo's alt text ("Tarkett Logo")."""
CONTENT_IMAGE_MIN = (200, 120)
"""Smallest width and height (declared in the markup) of the largest-content-image fallback."""
IMAGES_READ = 60
"""``<img>`` elements looked at for the largest content image, at most."""
IMAGE_SIZE_LIMIT = 20_000
"""Largest declared width or height believed (a bigger number is a mistake)."""
LOGO_ALT_MAX_CHARS = 200
"""Longest alt text read as a logo's name; a longer one is a sentence (and reading it costs)."""
