"""The screenshot use case: a page captured by the farm, encoded, stored and linked for 24 hours.

- :mod:`~services.screenshots.request`: :class:`ScreenshotRequest` and
  :class:`ScreenshotOptions` (the endpoint's parameters that shape the image), checked and turned
  into the farm's capture options;
- :mod:`~services.screenshots.service`: :class:`ScreenshotService`, which checks the target,
  reuses a recent identical capture or captures the page, encodes WebP off the IOLoop, stores the
  image, prices it, and serves the link;
- :mod:`~services.screenshots.with_markdown`: :class:`OneLoadService`, a screenshot and the
  page's Markdown from one load of the page (the Markdown endpoint's ``screenshot=true``, the
  screenshot endpoint's ``include_markdown`` / ``include_metadata``);
- :mod:`~services.screenshots.signed`: signed links, which a key's holder mints without a
  request: the key's signing secret, the canonical form and the check of a link.
"""

from browser.farm.types import (
    PAPER_SIZES,
    SELECTOR_GRACE,
    VIEWPORT_LIMITS,
    WAIT_TIMEOUT_LIMITS,
    WAIT_TIMEOUT_MS,
    ReadyState,
)
from services.screenshots.request import (
    ScreenshotError,
    ScreenshotFailure,
    ScreenshotOptions,
    ScreenshotRequest,
)
from services.screenshots.service import LinkImage, ScreenshotService, Shot
from store.images import CONTENT_TYPES
from store.screenshots import ScreenshotRecord

__all__ = [
    "CONTENT_TYPES",
    "PAPER_SIZES",
    "SELECTOR_GRACE",
    "VIEWPORT_LIMITS",
    "WAIT_TIMEOUT_LIMITS",
    "WAIT_TIMEOUT_MS",
    "LinkImage",
    "ReadyState",
    "ScreenshotError",
    "ScreenshotFailure",
    "ScreenshotOptions",
    "ScreenshotRecord",
    "ScreenshotRequest",
    "ScreenshotService",
    "Shot",
]
