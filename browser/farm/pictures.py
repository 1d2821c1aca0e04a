"""Taking the picture of a ready page: a PNG or JPEG of the viewport, the whole page (within
Chromium's 16,384-pixel limit) or one element, or a PDF of the page as the screen shows it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from playwright.async_api import FloatRect, Locator, Page

from browser.farm.navigation import Budget
from browser.farm.types import PAPER_SIZES, PRESETS, CaptureOptions, image_size

CSS_PIXELS_PER_INCH = 96
"""How a PDF's paper size is told in the pixels of the result's dimensions."""
_PDF_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")
"""A page object of a PDF (not the /Pages tree)."""

_DOCUMENT_HEIGHT = """
() => Math.max(
  document.documentElement ? document.documentElement.scrollHeight : 0,
  document.body ? document.body.scrollHeight : 0)
"""

_ELEMENT_BOX = """
(element) => {
  const rect = element.getBoundingClientRect();
  return { x: rect.left + window.scrollX, y: rect.top + window.scrollY,
           width: rect.width, height: rect.height };
}
"""


@dataclass(frozen=True)
class Picture:
    """What a capture took: the bytes, their size in pixels and, for a PDF, its pages."""

    data: bytes
    width: int
    height: int
    pages: int | None = None


async def take_picture(
    page: Page, element: Locator | None, options: CaptureOptions, budget: Budget
) -> Picture:
    """The picture ``options`` ask of the ready ``page`` (of ``element`` when given)."""
    if options.image_type == "pdf":
        return await _pdf(page, options, budget)
    image = await _screenshot(page, element, options, budget)
    width, height = image_size(image)
    return Picture(image, width, height)


async def _pdf(page: Page, options: CaptureOptions, budget: Budget) -> Picture:
    """Chromium's print to PDF, with the screen's styles and the backgrounds, on ``paper``."""
    await page.emulate_media(media="screen")
    width, height = PAPER_SIZES[options.paper]
    data = await page.pdf(
        width=f"{width}in",
        height=f"{height}in",
        print_background=True,
        margin={"top": "0", "right": "0", "bottom": "0", "left": "0"},
    )
    return Picture(
        data,
        round(width * CSS_PIXELS_PER_INCH),
        round(height * CSS_PIXELS_PER_INCH),
        pages=len(_PDF_PAGE.findall(data)),
    )


async def _screenshot(
    page: Page, element: Locator | None, options: CaptureOptions, budget: Budget
) -> bytes:
    # Chromium cannot paint more than 16384 device pixels in one image; the cap is in device
    # pixels, so it shrinks in CSS pixels as the scale factor grows.
    css_cap = max(int(options.max_height / options.device_scale_factor), 1)
    shot: dict[str, Any] = {"type": options.image_type, "timeout": budget.ms()}
    if options.omit_background:
        shot["omit_background"] = True
    if options.quality is not None:
        shot["quality"] = options.quality
    if element is not None:
        box = await element.evaluate(_ELEMENT_BOX)
        if box["height"] <= css_cap:
            return await element.screenshot(**shot)
        clip = FloatRect(x=box["x"], y=box["y"], width=box["width"], height=css_cap)
        return await page.screenshot(full_page=True, clip=clip, **shot)
    if not options.full_page:
        return await page.screenshot(**shot)
    height = await page.evaluate(_DOCUMENT_HEIGHT)
    if height <= css_cap:
        return await page.screenshot(full_page=True, **shot)
    width = options.viewport[0] if options.viewport else PRESETS[options.preset].width
    clip = FloatRect(x=0, y=0, width=width, height=css_cap)
    return await page.screenshot(full_page=True, clip=clip, **shot)
