"""The Chromium farm: screenshots and rendered HTML from one supervised Chromium.

- :mod:`browser.farm.core`: :class:`~browser.farm.core.Farm`, admission to its pages, contexts,
  retries after a browser went away;
- :mod:`browser.farm.settings`: the ``[farm]`` settings;
- :mod:`browser.farm.types`: the options and results of captures and renders, the error kinds;
- :mod:`browser.farm.warm`: pages kept for an organization's next capture, and their reset;
- :mod:`browser.farm.admission`: page slots and per-organization shares and queues;
- :mod:`browser.farm.browser`: one Chromium: launching it, its pre-warmed contexts, closing it
  for sure;
- :mod:`browser.farm.flags`: Chromium's command line (its switches, the features turned off);
- :mod:`browser.farm.supervisor`: replacement, health probes, recycling, reaping;
- :mod:`browser.farm.page`, :mod:`browser.farm.navigation`: a page's work and its deadlines;
- :mod:`browser.farm.elements`: the bounded waits for the elements a request names
  (wait_for_selector, selector, load_more_selector) and the load-more clicks;
- :mod:`browser.farm.pictures`: the picture of a ready page (PNG, JPEG, an element, a PDF);
- :mod:`browser.farm.blocking`: requests a capture asks not to load, failed by Chromium;
- :mod:`browser.farm.loading`: which captures are loading now (background work waits);
- :mod:`browser.farm.chores`: a browser's background closes and resets;
- :mod:`browser.farm.gone`: noticing that a request's browser went away (one retry);
- :mod:`browser.farm.readiness`: waiting after ``load`` until a page has built itself;
- :mod:`browser.farm.watchdog`, :mod:`browser.farm.procs`: renderers' memory and CPU, from
  ``/proc``;
- :mod:`browser.farm.lanes`: the egress guard's lanes for the browsers;
- :mod:`browser.farm.metrics`: the ``pagecast_farm_*`` metrics.
"""

from browser.farm.core import Farm
from browser.farm.settings import FarmSettings
from browser.farm.types import (
    CaptureOptions,
    CaptureResult,
    FarmError,
    FarmErrorKind,
    RenderOptions,
    RenderResult,
    image_size,
)

__all__ = [
    "CaptureOptions",
    "CaptureResult",
    "Farm",
    "FarmError",
    "FarmErrorKind",
    "FarmSettings",
    "RenderOptions",
    "RenderResult",
    "image_size",
]
