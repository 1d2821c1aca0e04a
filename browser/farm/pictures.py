"""Taking the picture of a ready page: a PNG or JPEG of the viewport, the whole page (within
Chromium's 16,384-pixel limit) or one element, or a PDF of the page as the screen shows it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from playwright.async_api import FloatRect, Locator, Page

from browser.farm.navigation import Budget
from browser.farm.types import (
    MAX_IMAGE_PIXELS,
    MAX_SIDE,
    PAPER_SIZES,
    CaptureOptions,
    image_size,
)

MAX_PDF_PAGES = 100
"""Pages of a PDF capture at the most (a longer page is cut, as a tall image is)."""
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
        page_ranges=f"1-{MAX_PDF_PAGES}",
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
    # Chromium cannot paint more than 16384 device pixels in one image, and one image holds at
    # most MAX_IMAGE_PIXELS; both caps are in device pixels, so they shrink in CSS pixels as the
    # scale factor grows.
    scale = options.device_scale_factor
    css_cap = max(int(options.max_height / scale), 1)
    shot: dict[str, Any] = {"type": options.image_type, "timeout": budget.ms()}
    if options.omit_background:
        shot["omit_background"] = True
    if options.quality is not None:
        shot["quality"] = options.quality
    if element is not None:
        box = await element.evaluate(_ELEMENT_BOX)
        width = min(box["width"], MAX_SIDE / scale)
        cap = _height_cap(css_cap, width, scale)
        if box["height"] <= cap and width == box["width"]:
            return await element.screenshot(**shot)
        clip = FloatRect(x=box["x"], y=box["y"], width=width, height=min(box["height"], cap))
        return await page.screenshot(full_page=True, clip=clip, **shot)
    if not options.full_page:
        return await page.screenshot(**shot)
    width = options.size()[0]
    cap = _height_cap(css_cap, width, scale)
    height = await page.evaluate(_DOCUMENT_HEIGHT)
    if height <= cap:
        return await page.screenshot(full_page=True, **shot)
    clip = FloatRect(x=0, y=0, width=width, height=cap)
    return await page.screenshot(full_page=True, clip=clip, **shot)


def _height_cap(css_cap: int, width: float, scale: float) -> int:
    """The tallest capture, in CSS pixels, of ``width`` CSS pixels within both caps."""
    by_area = MAX_IMAGE_PIXELS / max(width * scale, 1.0) / scale
    return max(min(css_cap, int(by_area)), 1)
