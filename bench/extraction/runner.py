"""What both corpora's runs share: the extractors (Pagecast and trafilatura, each with reader
comments left out or asked for), a wall-clock limit on one extraction, and CPU time around it."""

from __future__ import annotations

import dataclasses
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

import trafilatura

from convert.markdown.pipeline import ConvertOptions, convert_page

PAGE_SECONDS = 30.0
"""Wall-clock limit on one extraction of one page; past it the page counts as failed."""
SYSTEMS = ("pagecast", "trafilatura")
COMMENTS_OPTION = "include_comments"
"""The conversion option that asks for reader comments (a build without it cannot)."""


@dataclass(frozen=True)
class Extraction:
    """One system's output on one page."""

    markdown: str
    app_shell: bool = False
    cpu_seconds: float = 0.0
    failure: str = ""


def pagecast_can_add_comments() -> bool:
    """Whether this build's conversion takes :data:`COMMENTS_OPTION`."""
    return COMMENTS_OPTION in {field.name for field in dataclasses.fields(ConvertOptions)}


def pagecast(html: str, url: str, comments: bool) -> tuple[str, bool]:
    """Pagecast's Markdown with the default options (main content only), comments asked for or
    not, and whether it flags the page as an app shell (the service would render it in Chromium
    before converting; the bench converts the HTML as served)."""
    options = ConvertOptions(**({COMMENTS_OPTION: True} if comments else {}))
    converted = convert_page(html, url, options)
    return converted.markdown, converted.app_shell


def trafilatura_markdown(html: str, url: str, comments: bool) -> tuple[str, bool]:
    """trafilatura's Markdown with its defaults (fallbacks on, tables in), comments in or out."""
    extracted = trafilatura.extract(
        html, url=url or None, output_format="markdown", include_comments=comments
    )
    return extracted or "", False


EXTRACTORS: dict[str, Callable[[str, str, bool], tuple[str, bool]]] = {
    "pagecast": pagecast,
    "trafilatura": trafilatura_markdown,
}


class PageTimeoutError(Exception):
    """One extraction ran past :data:`PAGE_SECONDS`."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`PageTimeoutError` in the main thread after ``seconds`` of wall-clock time."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise PageTimeoutError

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def extract(name: str, html: str, url: str, *, comments: bool = False) -> Extraction:
    """Run one system on one page, timed in CPU seconds; a failure or a timeout is named and
    the page then scores as an empty result."""
    failure, markdown, app_shell = "", "", False
    started = time.process_time()
    try:
        with time_limit(PAGE_SECONDS):
            markdown, app_shell = EXTRACTORS[name](html, url, comments)
    except PageTimeoutError:
        failure = "timeout"
    except Exception as exc:  # counted per system; the page scores as an empty result
        failure = type(exc).__name__
    return Extraction(markdown, app_shell, time.process_time() - started, failure)


def order(n: int) -> tuple[str, ...]:
    """The systems in the order they run on the ``n``-th page: alternating, so that neither
    always runs on a warm cache."""
    return SYSTEMS if n % 2 == 0 else SYSTEMS[::-1]
