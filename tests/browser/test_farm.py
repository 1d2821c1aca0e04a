"""The browser farm against real Chromium and small origin sites on 127.0.0.1.

Most tests share one farm for the module: it runs on an event loop of its own in a helper thread
(Playwright's objects belong to the loop that made them, and pytest-tornado gives each test a new
loop), and tests await its calls across threads. Tests that need their own settings, a proxy, or
that kill the browser start a farm on the test's IOLoop, as the server does.

Images are checked by decoding the PNG here (zlib + unfiltering), so no imaging library is needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import glob
import os
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
import tornado.web
from prometheus_client import REGISTRY

from browser.egress.guard import EgressGuard
from browser.farm import (
    CaptureOptions,
    CaptureResult,
    Farm,
    FarmError,
    FarmSettings,
    RenderOptions,
    RenderResult,
    image_size,
)
from browser.farm.admission import Admission
from browser.farm.watchdog import RendererWatchdog
from browser.ssrf import AddressPolicy
from tests.origin import Origin, closed_port, serve

pytestmark = pytest.mark.chromium

CHROMIUM = os.environ.get("PAGECAST_TEST_CHROMIUM", "/usr/bin/chromium")
T = TypeVar("T")

# -- the origin site ------------------------------------------------------------------------------

HEAD = (
    "<!DOCTYPE html><html><head><meta charset='utf-8'>"
    "<meta name='viewport' content='width=device-width'></head><body>"
)
DOWNLOAD_SIZE = 1234
WHITE = "<style>html,body{margin:0;background:#fff}</style>"

PAGES: dict[str, str] = {
    "/box": WHITE
    + """
        <div id="box" style="width:321px;height:123px;background:#00f"></div>
        <p id="info"></p>
        <script>
          document.getElementById('info').textContent = JSON.stringify({
            width: innerWidth, touch: navigator.maxTouchPoints > 0,
            mobile: /Mobile/.test(navigator.userAgent),
            headless: /Headless/.test(navigator.userAgent)});
        </script>""",
    "/exclude": WHITE
    + """
        <div id="wrap" style="width:200px;height:100px;background:#fff">
          <div id="ad" style="width:100px;height:50px;background:#f00"></div>
        </div>""",
    "/dark": WHITE
    + """
        <style>#probe{width:50px;height:50px;background:#fff}
        @media (prefers-color-scheme: dark){#probe{background:#000}}</style>
        <div id="probe"></div>""",
    "/early": WHITE
    + """
        <style>#probe{width:50px;height:50px;background:#f00}</style>
        <div id="banner">consent</div><div id="probe"></div>
        <script>
          // Runs while the document is parsed, long before load.
          if (getComputedStyle(document.getElementById('banner')).display === 'none')
            document.getElementById('probe').style.background = '#0f0';
        </script>""",
    "/late": WHITE
    + """
        <script>
          setTimeout(() => {
            const late = document.createElement('div');
            late.id = 'late';
            late.style.cssText = 'width:77px;height:55px;background:#0f0';
            document.body.appendChild(late);
          }, 300);
        </script>""",
    "/lazy": WHITE
    + """
        <div style="height:4000px">top</div><div id="sentinel">end</div><ul id="list"></ul>
        <script>
          new IntersectionObserver(async (entries, observer) => {
            if (!entries[0].isIntersecting) return;
            observer.disconnect();
            const count = Number(await (await fetch('/item?delay=0.3')).text());
            for (let i = 0; i < count; i++) {
              const img = document.createElement('img');
              img.className = 'lazy';
              img.alt = 'lazy' + i;
              document.getElementById('list').appendChild(img);
            }
          }).observe(document.getElementById('sentinel'));
        </script>""",
    "/delay": WHITE
    + """
        <div id="probe" style="width:50px;height:50px;background:#f00"></div>
        <script>
          addEventListener('load', () => setTimeout(() => {
            document.getElementById('probe').style.background = '#0f0';
          }, 2000));
        </script>""",
    "/slowsub": WHITE
    + """
        <div id="box" style="width:321px;height:123px;background:#00f"></div>
        <img src="/hang">""",
    "/dialogs": """
        <script>
          alert('hello');
          const c = confirm('sure?');
          const p = prompt('name?');
          document.write('<p id="r">confirm=' + c + ' prompt=' + p + '</p>');
        </script>""",
    "/download-link": WHITE
    + """
        <div id="box" style="width:321px;height:123px;background:#00f"></div>
        <a id="d" href="/download" download="x.bin">file</a>
        <script>document.getElementById('d').click();</script>""",
    "/popup": WHITE
    + """
        <p id="opened"></p>
        <script>
          const popup = window.open('/alive', '_blank');
          document.getElementById('opened').textContent = 'opened=' + (popup !== null);
          setTimeout(() => {
            const done = document.createElement('p');
            done.id = 'done';
            done.textContent = 'closed=' + (popup && popup.closed);
            document.body.appendChild(done);
          }, 1500);
        </script>""",
    "/alive": "<script>setTimeout(() => fetch('/tracker.js?token=alive'), 1000);</script>",
    "/crash": WHITE
    + """
        <div id="box" style="width:321px;height:123px;background:#00f"></div>
        <script>addEventListener('load', () => fetch('/gate'));</script>""",
    "/more": """
        <ul id="list"></ul><button id="more">more</button>
        <script>
          const remove = location.search.includes('remove');
          document.getElementById('more').addEventListener('click', async (event) => {
            if (remove) event.target.remove();
            const text = await (await fetch('/item?delay=0.1')).text();
            const li = document.createElement('li');
            li.className = 'item';
            li.textContent = text;
            document.getElementById('list').appendChild(li);
          });
        </script>""",
}


def tracker_page(token: str) -> str:
    return (
        WHITE
        + '<div id="probe" style="width:50px;height:50px;background:#0f0"></div>'
        + f'<script src="/tracker.js?token={token}"></script>'
    )


def tall_page(height: int) -> str:
    return WHITE + f'<div style="height:{height}px;background:#eee">tall</div>'


@dataclass
class SiteState:
    """What the origin saw, and the switches tests flip."""

    hits: dict[str, int] = field(default_factory=dict)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    gate_arrived: asyncio.Event = field(default_factory=asyncio.Event)
    gate_release: asyncio.Event = field(default_factory=asyncio.Event)

    def count(self, key: str) -> None:
        self.hits[key] = self.hits.get(key, 0) + 1


class SiteHandler(tornado.web.RequestHandler):
    def initialize(self, state: SiteState) -> None:
        self.state = state

    async def wait_for_stop(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.state.stop.wait(), seconds)


class PageHandler(SiteHandler):
    def get(self, path: str) -> None:
        self.state.count(path)
        if path not in PAGES:
            raise tornado.web.HTTPError(404)
        self.finish(HEAD + PAGES[path] + "</body></html>")


class TallHandler(SiteHandler):
    def get(self, height: str) -> None:
        self.finish(tall_page(int(height)))


class TrackerHandler(SiteHandler):
    def get(self, token: str) -> None:
        self.finish(tracker_page(token))


class TrackerScriptHandler(SiteHandler):
    def get(self) -> None:
        self.state.count("tracker:" + self.get_argument("token"))
        self.set_header("Content-Type", "application/javascript")
        self.finish("document.getElementById('probe').style.background = '#f00';")


class ItemHandler(SiteHandler):
    async def get(self) -> None:
        await asyncio.sleep(float(self.get_argument("delay", "0")))
        self.state.count("item")
        self.finish("3")


class HangHandler(SiteHandler):
    async def get(self) -> None:
        self.state.count("hang")
        await self.wait_for_stop(30)


class SlowHandler(SiteHandler):
    async def get(self) -> None:
        await asyncio.sleep(float(self.get_argument("s")))
        self.finish(WHITE + "<p>slow</p>")


class DownloadHandler(SiteHandler):
    def get(self) -> None:
        self.state.count("download")
        self.set_header("Content-Type", "application/octet-stream")
        self.set_header("Content-Disposition", 'attachment; filename="x.bin"')
        self.finish(b"\0" * DOWNLOAD_SIZE)


class FinalHandler(SiteHandler):
    def get(self) -> None:
        self.set_status(203)
        self.finish(WHITE + "<p id='final'>arrived</p>")


class GateHandler(SiteHandler):
    """The first request waits until the test releases it; later ones answer at once."""

    async def get(self) -> None:
        self.state.count("gate")
        if self.state.hits["gate"] == 1:
            self.state.gate_arrived.set()
            await self.state.gate_release.wait()
        self.finish(WHITE + '<div id="box" style="width:321px;height:123px;background:#00f">')


def make_app(state: SiteState) -> tornado.web.Application:
    args = {"state": state}
    return tornado.web.Application(
        [
            (r"/tall/(\d+)", TallHandler, args),
            (r"/tracker/(\w+)", TrackerHandler, args),
            (r"/tracker.js", TrackerScriptHandler, args),
            (r"/item", ItemHandler, args),
            (r"/hang", HangHandler, args),
            (r"/slow", SlowHandler, args),
            (r"/download", DownloadHandler, args),
            (r"/redirect", tornado.web.RedirectHandler, {"url": "/final"}),
            (r"/final", FinalHandler, args),
            (r"/gate", GateHandler, args),
            (r"(/[\w-]+)", PageHandler, args),
        ]
    )


async def start_site() -> tuple[Origin, SiteState]:
    state = SiteState()
    return serve(make_app(state)), state


async def stop_site(site: Origin, state: SiteState) -> None:
    state.stop.set()
    state.gate_release.set()
    await asyncio.sleep(0)
    await site.close()


# -- the shared farm on its own loop ---------------------------------------------------------------


class LoopThread:
    """An event loop running in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        """Run ``coro`` on the thread's loop and wait for it (from synchronous code)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the thread's loop and await it from another loop."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@dataclass
class Shared:
    runner: LoopThread
    farm: Farm
    site: Origin
    state: SiteState

    def url(self, path: str) -> str:
        return self.site.url(path)

    async def capture(self, path: str, **options: Any) -> CaptureResult:
        return await self.runner.call(self.farm.capture(self.url(path), CaptureOptions(**options)))

    async def render(self, path: str, **options: Any) -> RenderResult:
        return await self.runner.call(self.farm.render(self.url(path), RenderOptions(**options)))

    async def fail(self, path: str, **options: Any) -> FarmError:
        with pytest.raises(FarmError) as caught:
            await self.capture(path, **options)
        return caught.value


def farm_settings(**overrides: Any) -> FarmSettings:
    return FarmSettings(executable_path=CHROMIUM, capture_margin=2.0, **overrides)


@pytest.fixture(scope="module")
def shared() -> Iterator[Shared]:
    runner = LoopThread()
    site, state = runner.run(start_site())
    farm = Farm(farm_settings())
    try:
        runner.run(farm.start())
        yield Shared(runner, farm, site, state)
    finally:
        runner.run(farm.close())
        runner.run(stop_site(site, state))
        runner.stop()
    assert chromium_children() == []


@pytest.fixture
def site(io_loop: Any) -> Iterator[tuple[Origin, SiteState]]:
    origin, state = io_loop.run_sync(start_site)
    yield origin, state
    io_loop.run_sync(lambda: stop_site(origin, state))


# -- image and process helpers ---------------------------------------------------------------------


def decode_png(data: bytes) -> tuple[int, int, list[bytearray], int]:
    """(width, height, rows, bytes per pixel) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, bytearray()
    width = height = bpp = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(bytes(idat))
    stride = width * bpp
    rows: list[bytearray] = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind_byte, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for x in range(stride):
            left = line[x - bpp] if x >= bpp else 0
            up = prev[x]
            if kind_byte == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind_byte == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind_byte == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind_byte == 4:
                upper_left = prev[x - bpp] if x >= bpp else 0
                estimate = left + up - upper_left
                pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - upper_left)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else upper_left
                line[x] = (line[x] + predictor) & 0xFF
        rows.append(line)
        prev = line
    return width, height, rows, bpp


def pixels(data: bytes) -> list[tuple[int, int, int]]:
    width, _height, rows, bpp = decode_png(data)
    return [
        (row[x * bpp], row[x * bpp + 1], row[x * bpp + 2]) for row in rows for x in range(width)
    ]


def is_red(pixel: tuple[int, int, int]) -> bool:
    return pixel[0] > 200 and pixel[1] < 80 and pixel[2] < 80


def is_green(pixel: tuple[int, int, int]) -> bool:
    return pixel[1] > 200 and pixel[0] < 80 and pixel[2] < 80


def center(data: bytes) -> tuple[int, int, int]:
    width, height, rows, bpp = decode_png(data)
    row, x = rows[height // 2], width // 2
    return row[x * bpp], row[x * bpp + 1], row[x * bpp + 2]


def proc_stat(pid: int) -> tuple[int, str, str] | None:
    """(ppid, state, name) of a process, None if it does not exist (zombies do)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            raw = handle.read()
    except OSError:
        return None
    name = raw[raw.find("(") + 1 : raw.rfind(")")]
    fields = raw[raw.rfind(")") + 2 :].split()
    return int(fields[1]), fields[0], name


def all_pids() -> list[int]:
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]


def defunct_children() -> list[tuple[int, str, str]]:
    return [child for child in chromium_children() if child[1] == "Z"]


def tree_of(root: int) -> list[int]:
    parents = {pid: stat[0] for pid in all_pids() if (stat := proc_stat(pid)) is not None}
    tree, pending = [root], [root]
    while pending:
        parent = pending.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        tree += children
        pending += children
    return tree


def chromium_children() -> list[tuple[int, str, str]]:
    """Chromium processes (living or defunct) whose parent is this test process: the farm's
    crash handlers while their browser runs, and otherwise only orphans not yet reaped."""
    me = os.getpid()
    found = []
    for pid in all_pids():
        stat = proc_stat(pid)
        if stat and stat[0] == me and stat[2].startswith(("chrom", "headless")):
            found.append((pid, stat[1], stat[2]))
    return found


async def eventually(check: Any, seconds: float = 5.0) -> None:
    until = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < until, "condition not reached in time"
        await asyncio.sleep(0.05)


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


# -- viewports, presets, images --------------------------------------------------------------------


@pytest.mark.gen_test(timeout=30)
async def test_each_preset_captures_its_viewport(shared: Shared) -> None:
    for preset, size in {"xs": (375, 812), "sm": (1024, 768), "md": (1366, 768)}.items():
        shot = await shared.capture("/box", preset=preset)
        assert (shot.width, shot.height) == size
        assert image_size(shot.image) == size
        assert shot.image_type == "png" and shot.image.startswith(b"\x89PNG")
        assert shot.status == 200 and shot.final_url == shared.url("/box")
    jpeg = await shared.capture("/box", preset="lg", image_type="jpeg", quality=50)
    assert jpeg.image.startswith(b"\xff\xd8") and jpeg.image_type == "jpeg"
    assert (jpeg.width, jpeg.height) == (1920, 1080) == image_size(jpeg.image)


@pytest.mark.gen_test(timeout=30)
async def test_xs_is_a_touch_phone_and_desktops_are_not_headless(shared: Shared) -> None:
    phone = await shared.render("/box", preset="xs")
    assert '{"width":375,"touch":true,"mobile":true,"headless":false}' in phone.html
    desktop = await shared.render("/box", preset="sm")
    assert '{"width":1024,"touch":false,"mobile":false,"headless":false}' in desktop.html


@pytest.mark.gen_test(timeout=30)
async def test_device_scale_factor_gets_its_own_context(shared: Shared) -> None:
    shot = await shared.capture("/box", preset="xs", device_scale_factor=2.0)
    assert (shot.width, shot.height) == (750, 1624)
    element = await shared.capture("/box", selector="#box", device_scale_factor=2.0)
    assert (element.width, element.height) == (642, 246)


@pytest.mark.gen_test(timeout=30)
async def test_full_page_height_and_its_cap(shared: Shared) -> None:
    whole = await shared.capture("/tall/3000", full_page=True)
    assert (whole.width, whole.height) == (1366, 3000)
    viewport = await shared.capture("/tall/3000")
    assert viewport.height == 768
    capped = await shared.capture("/tall/6000", full_page=True, max_height=4000)
    assert (capped.width, capped.height) == (1366, 4000)
    # The cap counts device pixels.
    scaled = await shared.capture(
        "/tall/3000", preset="xs", full_page=True, max_height=4000, device_scale_factor=2.0
    )
    assert (scaled.width, scaled.height) == (750, 4000)
    element = await shared.capture("/tall/6000", selector="div", max_height=3000)
    assert (element.width, element.height) == (1366, 3000)


@pytest.mark.gen_test(timeout=30)
async def test_selector_captures_the_element_or_is_not_found(shared: Shared) -> None:
    shot = await shared.capture("/box", selector="#box")
    assert (shot.width, shot.height) == (321, 123)
    assert all(pixel == (0, 0, 255) for pixel in pixels(shot.image))
    # The ready page is given a second for the element, whatever the navigation timeout.
    started = time.monotonic()
    error = await shared.fail("/box", selector="#missing", navigation_timeout_ms=30_000)
    assert error.kind == "selector_not_found"
    assert error.message == (
        "selector '#missing': no visible element matched within 1000 ms once the page was ready"
    )
    assert error.problems == (("selector", error.message.split(": ", 1)[1]),)
    assert time.monotonic() - started < 10
    invalid = await shared.fail("/box", selector="#box!!")
    assert invalid.kind == "selector_not_found" and "not a valid" in invalid.message


# -- hiding, blocking, color schemes ---------------------------------------------------------------


@pytest.mark.gen_test(timeout=30)
async def test_exclude_selectors_are_hidden(shared: Shared) -> None:
    shown = await shared.capture("/exclude", selector="#wrap")
    assert any(is_red(pixel) for pixel in pixels(shown.image))
    hidden = await shared.capture("/exclude", selector="#wrap", exclude_selectors=("#ad",))
    assert (hidden.width, hidden.height) == (200, 100)
    assert not any(is_red(pixel) for pixel in pixels(hidden.image))
    assert all(pixel == (255, 255, 255) for pixel in pixels(hidden.image))


@pytest.mark.gen_test(timeout=30)
async def test_keep_html_serializes_the_dom_of_the_same_visit(shared: Shared) -> None:
    # Without keep_html a capture carries no HTML; with it, the DOM the page's script built,
    # read before the excluded element was hidden for the picture.
    plain = await shared.capture("/box")
    assert plain.html is None
    kept = await shared.capture("/exclude", keep_html=True, exclude_selectors=("#ad",))
    assert kept.html is not None and '<div id="ad"' in kept.html
    assert "visibility" not in kept.html.split('<div id="ad"')[1].split(">")[0]
    assert not any(is_red(pixel) for pixel in pixels(kept.image))
    built = await shared.capture("/box", keep_html=True)
    assert built.html is not None and '"width":1366' in built.html


@pytest.mark.gen_test(timeout=30)
async def test_dark_mode_changes_the_color_scheme(shared: Shared) -> None:
    light = await shared.capture("/dark", selector="#probe")
    dark = await shared.capture("/dark", selector="#probe", dark_mode=True)
    assert center(light.image) == (255, 255, 255)
    assert center(dark.image) == (0, 0, 0)


@pytest.mark.gen_test(timeout=30)
async def test_hide_css_is_in_place_before_the_page_parses(shared: Shared) -> None:
    without = await shared.capture("/early", selector="#probe")
    assert is_red(center(without.image))
    with_css = await shared.capture("/early", selector="#probe", hide_css="#banner{display:none}")
    assert is_green(center(with_css.image))


@pytest.mark.gen_test(timeout=30)
async def test_block_url_patterns_abort_matching_requests(shared: Shared) -> None:
    loaded = await shared.capture("/tracker/a1", selector="#probe")
    assert shared.state.hits.get("tracker:a1") == 1
    assert is_red(center(loaded.image))
    blocked = await shared.capture(
        "/tracker/b2",
        selector="#probe",
        block_url_patterns=("*://cdn.example.invalid/*", "*/tracker.js?*"),
    )
    assert "tracker:b2" not in shared.state.hits
    assert is_green(center(blocked.image))


# -- waiting ---------------------------------------------------------------------------------------


@pytest.mark.gen_test(timeout=30)
async def test_wait_for_selector(shared: Shared) -> None:
    shot = await shared.capture("/late", wait_for_selector="#late", selector="#late")
    assert (shot.width, shot.height) == (77, 55)
    page = await shared.render("/late", wait_for_selector="#late")
    assert 'id="late"' in page.html
    started = time.monotonic()
    error = await shared.fail("/late", wait_for_selector="#never", wait_timeout_ms=1500)
    elapsed = time.monotonic() - started
    assert error.kind == "selector_not_found"
    assert error.message == (
        "wait_for_selector '#never': no visible element matched within 1500 ms (wait_timeout)"
    )
    assert 1.5 <= elapsed < 10
    with pytest.raises(FarmError) as caught:
        await shared.render("/late", wait_for_selector="#never", wait_timeout_ms=500)
    assert caught.value.message == (
        "wait_for_selector '#never': no element matched within 500 ms (wait_timeout)"
    )
    # A wait longer than the request's budget ends with it, and says so (a navigation timeout
    # the page loads within even on a busy machine, well below the wait's 10 s).
    error = await shared.fail("/late", wait_for_selector="#never", navigation_timeout_ms=4000)
    assert "all that was left of the request's time limit" in error.message


@pytest.mark.gen_test(timeout=30)
async def test_scroll_to_bottom_loads_lazy_content(shared: Shared) -> None:
    still = await shared.render("/lazy")
    assert 'class="lazy"' not in still.html
    scrolled = await shared.render("/lazy", scroll_to_bottom=True)
    assert scrolled.html.count('class="lazy"') == 3
    shot = await shared.capture("/lazy", scroll_to_bottom=True)
    assert (shot.width, shot.height) == (1366, 768)


@pytest.mark.gen_test(timeout=30)
async def test_capture_delay(shared: Shared) -> None:
    now = await shared.capture("/delay", selector="#probe")
    assert is_red(center(now.image))
    started = time.monotonic()
    later = await shared.capture("/delay", selector="#probe", capture_delay_ms=2500)
    assert time.monotonic() - started >= 2.5
    assert is_green(center(later.image))


@pytest.mark.gen_test(timeout=30)
async def test_a_document_that_never_arrives_is_a_navigation_timeout(shared: Shared) -> None:
    started = time.monotonic()
    error = await shared.fail("/hang", navigation_timeout_ms=1000)
    elapsed = time.monotonic() - started
    assert error.kind == "navigation_timeout"
    assert 1.0 <= elapsed < 1.0 + 2.0 + 0.5


@pytest.mark.gen_test(timeout=30)
async def test_a_page_whose_load_never_fires_is_still_captured(shared: Shared) -> None:
    started = time.monotonic()
    shot = await shared.capture("/slowsub", selector="#box", navigation_timeout_ms=1500)
    elapsed = time.monotonic() - started
    assert (shot.width, shot.height) == (321, 123)
    assert shot.status == 200
    assert 1.5 <= elapsed < 1.5 + 2.0


@pytest.mark.gen_test(timeout=30)
async def test_a_closed_port_is_target_unreachable(shared: Shared) -> None:
    url = f"http://127.0.0.1:{closed_port()}/"
    with pytest.raises(FarmError) as caught:
        await shared.runner.call(shared.farm.capture(url, CaptureOptions()))
    assert caught.value.kind == "target_unreachable"
    assert "refused" in caught.value.message


# -- page behaviour --------------------------------------------------------------------------------


@pytest.mark.gen_test(timeout=30)
async def test_dialogs_are_dismissed(shared: Shared) -> None:
    started = time.monotonic()
    page = await shared.render("/dialogs")
    assert "confirm=false prompt=null" in page.html
    assert time.monotonic() - started < 5
    shot = await shared.capture("/dialogs")
    assert shot.height == 768


def saved_downloads(since: float) -> list[str]:
    """Files written since ``since`` (a time.time()) in Playwright's download folders, finished
    or still in progress."""
    pattern = os.path.join(tempfile.gettempdir(), "playwright-artifacts-*", "*")
    found = []
    for path in glob.glob(pattern):
        with contextlib.suppress(OSError):
            if os.path.getmtime(path) >= since:
                found.append(path)
    return found


@pytest.mark.gen_test(timeout=30)
async def test_downloads_are_refused(shared: Shared) -> None:
    error = await shared.fail("/download")
    assert error.kind == "target_unreachable" and "download" in error.message
    # A page that starts a download: the file is requested but never written, not even for the
    # moment before the page's download handler would cancel it.
    since = time.time() - 1
    capture = asyncio.ensure_future(
        shared.capture("/download-link", selector="#box", capture_delay_ms=1000)
    )
    while not capture.done():  # the context, and any file it saved, lives until the end
        assert saved_downloads(since) == []
        await asyncio.sleep(0.005)
    assert shared.state.hits["download"] == 2
    shot = await capture
    assert (shot.width, shot.height) == (321, 123)


@pytest.mark.gen_test(timeout=30)
async def test_popups_are_closed(shared: Shared) -> None:
    page = await shared.render("/popup", wait_for_selector="#done")
    assert "opened=true" in page.html
    assert "closed=true" in page.html
    assert "tracker:alive" not in shared.state.hits  # the popup's own timer never ran


@pytest.mark.gen_test(timeout=30)
async def test_load_more_is_clicked_up_to_three_times(shared: Shared) -> None:
    page = await shared.render("/more", load_more_selector="#more")
    assert page.html.count('class="item"') == 3
    once = await shared.render("/more?remove", load_more_selector="#more")
    assert once.html.count('class="item"') == 1
    # A button the ready page does not have: nothing more to load, after a second at most.
    started = time.monotonic()
    none = await shared.render("/more", load_more_selector="#absent")
    assert 'class="item"' not in none.html
    assert time.monotonic() - started < 10
    # The clicks keep to wait_timeout: one click, and no second one once it has run out.
    short = await shared.render("/more", load_more_selector="#more", wait_timeout_ms=100)
    assert short.html.count('class="item"') <= 1


@pytest.mark.gen_test(timeout=30)
async def test_status_and_final_url_after_a_redirect(shared: Shared) -> None:
    shot = await shared.capture("/redirect")
    assert shot.status == 203
    assert shot.final_url == shared.url("/final")
    page = await shared.render("/redirect")
    assert (page.status, page.final_url) == (203, shared.url("/final"))
    assert "arrived" in page.html


@pytest.mark.gen_test(timeout=30)
async def test_health_and_metrics(shared: Shared) -> None:
    ok_before = sample("pagecast_farm_captures_total", kind="capture", outcome="ok")
    await shared.capture("/box")
    assert sample("pagecast_farm_captures_total", kind="capture", outcome="ok") == ok_before + 1
    assert sample("pagecast_farm_capture_duration_seconds_count", kind="capture") >= 1
    health = shared.farm.health()
    assert health["ready"] and health["connected"] and shared.farm.ready
    assert isinstance(health["browser_pid"], int)
    assert health["contexts_served"] >= 1 and health["queue_length"] == 0
    assert all(counts["busy"] == 0 for counts in health["presets"].values())
    await eventually(lambda: shared.farm.health()["presets"]["lg"]["idle"] == 2)
    assert sample("pagecast_farm_contexts", preset="lg", state="idle") == 2


# -- farms of their own, on the test's IOLoop ------------------------------------------------------


@pytest.mark.gen_test(timeout=30)
async def test_busy_when_the_queue_is_full_or_the_wait_too_long(
    site: tuple[Origin, SiteState],
) -> None:
    origin, _state = site
    farm = Farm(farm_settings(max_pages=1, queue_size=1, queue_timeout=0.3, warm_contexts=0))
    await farm.start()
    try:
        busy_before = sample("pagecast_farm_captures_total", kind="capture", outcome="busy")
        slow = asyncio.ensure_future(
            farm.capture(origin.url("/slow?s=1.5"), CaptureOptions(org="a"))
        )
        await eventually(lambda: farm.health()["pages_busy"] == 1)
        # Another organization waits for the page in the farm's queue...
        waiting = asyncio.ensure_future(farm.capture(origin.url("/box"), CaptureOptions(org="b")))
        await eventually(lambda: farm.health()["queue_length"] == 1)
        assert sample("pagecast_farm_queue_length") == 1
        with pytest.raises(FarmError) as full:
            await farm.capture(origin.url("/box"), CaptureOptions(org="c"))
        assert full.value.kind == "busy" and full.value.message == "the capture queue is full"
        assert full.value.retry_after is not None and 1 <= full.value.retry_after <= 60
        # ... the first one's next request for its share in a queue of its own.
        own = asyncio.ensure_future(farm.capture(origin.url("/box"), CaptureOptions(org="a")))
        await eventually(lambda: farm.health()["org_queue_length"] == 1)
        assert sample("pagecast_farm_org_queue_length") == 1
        with pytest.raises(FarmError) as own_full:
            await farm.capture(origin.url("/box"), CaptureOptions(org="a"))
        assert own_full.value.kind == "busy" and "organization" in own_full.value.message
        started = time.monotonic()
        for queued in (waiting, own):
            with pytest.raises(FarmError) as late:
                await queued
            assert late.value.kind == "busy" and time.monotonic() - started < 0.5
        assert (await slow).status == 200
        health = farm.health()
        assert health["queue_length"] == health["org_queue_length"] == 0
        assert sample("pagecast_farm_captures_total", kind="capture", outcome="busy") == (
            busy_before + 4
        )
    finally:
        await farm.close()


# -- admission: page slots, organization shares, queues -------------------------------------------


def open_admission(**overrides: Any) -> Admission:
    admission = Admission(farm_settings(**overrides), on_change=lambda: None)
    admission.open = True
    return admission


async def hold(admission: Admission, org: str, until: asyncio.Event, held: list[str]) -> None:
    async with admission.slot(org):
        held.append(org)
        await until.wait()


async def refused(admission: Admission, org: str) -> FarmError:
    with pytest.raises(FarmError) as caught:
        async with admission.slot(org):
            pass
    assert caught.value.kind == "busy" and caught.value.retry_after is not None
    return caught.value


@pytest.mark.gen_test(timeout=20)
async def test_an_organizations_surplus_waits_in_its_own_queue() -> None:
    admission = open_admission(
        max_pages=4, org_share=0.5, queue_size=2, queue_timeout=10, reserved_pages=0
    )
    release = {org: asyncio.Event() for org in "abcd"}
    held: list[str] = []
    tasks: dict[str, list[asyncio.Future[None]]] = {org: [] for org in "abcd"}

    def start(org: str, count: int = 1) -> None:
        for _ in range(count):
            tasks[org].append(asyncio.ensure_future(hold(admission, org, release[org], held)))

    start("a", 4)  # two hold a's share of the pages, two wait in a's own queue
    await eventually(lambda: held.count("a") == 2 and admission.org_waiting == 2)
    assert "organization" in (await refused(admission, "a")).message
    start("b", 2)
    await eventually(lambda: held.count("b") == 2)
    assert admission.waiting == 0  # a's surplus is not in the farm's queue
    start("c")
    start("d")
    await eventually(lambda: admission.waiting == 2)  # c and d wait for a page
    assert (await refused(admission, "e")).message == "the capture queue is full"
    # A cancelled wait gives back its place in the farm's queue and its share, nothing more.
    tasks["d"][0].cancel()
    await asyncio.gather(*tasks["d"], return_exceptions=True)
    assert admission.waiting == 1 and admission.organizations == 3
    # b's pages go to c, first in the farm's queue; a's surplus still waits for a's share.
    release["b"].set()
    await eventually(lambda: held.count("c") == 1)
    assert held.count("a") == 2 and admission.org_waiting == 2
    release["a"].set()
    await eventually(lambda: held.count("a") == 4)
    release["c"].set()
    await asyncio.gather(*tasks["a"], *tasks["b"], *tasks["c"])
    assert admission.waiting == admission.org_waiting == admission.organizations == 0
    # Every page and share came back: four organizations hold the four pages at once.
    again = asyncio.Event()
    held.clear()
    others = [asyncio.ensure_future(hold(admission, org, again, held)) for org in "wxyz"]
    await eventually(lambda: len(held) == 4)
    assert admission.waiting == 0
    again.set()
    await asyncio.gather(*others)


@pytest.mark.gen_test(timeout=20)
async def test_a_freed_page_goes_to_the_organization_holding_the_fewest() -> None:
    # Three pages, two per organization: a holds two and b one, b waits for a second; c,
    # arriving after b, gets the first page that frees (it holds none).
    admission = open_admission(
        max_pages=3, org_share=0.67, queue_size=4, queue_timeout=10, reserved_pages=0
    )
    release = {org: asyncio.Event() for org in "abc"}
    held: list[str] = []
    tasks = [asyncio.ensure_future(hold(admission, "a", release["a"], held)) for _ in range(2)]
    tasks += [asyncio.ensure_future(hold(admission, "b", release["b"], held)) for _ in range(2)]
    await eventually(lambda: len(held) == 3 and admission.waiting == 1)
    tasks.append(asyncio.ensure_future(hold(admission, "c", release["c"], held)))
    await eventually(lambda: admission.waiting == 2)
    release["a"].set()  # two pages free: one to c (holding none), one to b
    await eventually(lambda: held.count("c") == 1 and held.count("b") == 2)
    assert held[3] == "c"
    release["b"].set()
    release["c"].set()
    await asyncio.gather(*tasks)
    assert admission.waiting == admission.organizations == 0


@pytest.mark.gen_test(timeout=20)
async def test_a_page_is_kept_for_an_organization_holding_none() -> None:
    # Four pages, two per organization, one kept: a and b together hold three; c's capture
    # starts at once on the kept page, and b's second waits.
    admission = open_admission(max_pages=4, org_share=0.5, queue_size=4, queue_timeout=10)
    release = asyncio.Event()
    held: list[str] = []
    tasks = [
        asyncio.ensure_future(hold(admission, org, release, held)) for org in ("a", "a", "b", "b")
    ]
    await eventually(lambda: len(held) == 3 and admission.waiting == 1)
    assert sorted(held) == ["a", "a", "b"]
    tasks.append(asyncio.ensure_future(hold(admission, "c", release, held)))
    await eventually(lambda: held.count("c") == 1)
    assert admission.waiting == 1  # b's second still waits
    release.set()
    await asyncio.gather(*tasks)
    assert admission.waiting == admission.organizations == 0


@pytest.mark.gen_test(timeout=20)
async def test_a_newcomers_next_capture_does_not_wait_for_its_last_page_to_be_reset() -> None:
    # a and b keep three of the four pages busy; c captures on the fourth, whose reset goes on
    # after c's answer. c's next capture starts at once, beside that reset, as it would alone;
    # pages rendering stay within max_pages, and only the reserved page passes it.
    admission = open_admission(max_pages=4, org_share=0.5, queue_size=8, queue_timeout=10)
    release = asyncio.Event()
    held: list[str] = []
    hogs = [asyncio.ensure_future(hold(admission, org, release, held)) for org in "aabbab"]
    await eventually(lambda: len(held) == 3)
    reset_done = asyncio.Event()
    reset = asyncio.ensure_future(reset_done.wait())
    async with admission.slot("c") as first:
        first.keep_until(reset)  # c's page is reset after its answer
    assert admission.kept == 1 and not reset.done()
    second = asyncio.ensure_future(hold(admission, "c", release, held))
    await eventually(lambda: held.count("c") == 1)
    assert admission.kept == 1 and len(held) == 4  # three of a and b's, c's next
    # Beside the kept page, a and b's captures waiting still get nothing more, nor does
    # another newcomer: the reserve is c's until c's capture ends.
    await refused_soon(admission, "d")
    reset_done.set()
    await eventually(lambda: admission.kept == 0)
    release.set()
    await asyncio.gather(*hogs, second)
    assert admission.waiting == admission.organizations == 0


async def refused_soon(admission: Admission, org: str) -> None:
    """``org`` gets no page while the test looks (its wait is then given up)."""
    waiting = asyncio.ensure_future(hold(admission, org, asyncio.Event(), []))
    await asyncio.sleep(0.05)
    assert not waiting.done() and admission.waiting >= 1
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)


@pytest.mark.gen_test(timeout=20)
async def test_a_timed_out_wait_gives_back_what_it_took() -> None:
    admission = open_admission(max_pages=2, org_share=0.5, queue_size=4, queue_timeout=0.2)
    release = asyncio.Event()
    held: list[str] = []
    holders = [asyncio.ensure_future(hold(admission, org, release, held)) for org in "ab"]
    await eventually(lambda: len(held) == 2)
    # Waiting for its organization's share (a holds its one page), then for a page.
    for org in ("a", "c"):
        error = await refused(admission, org)
        assert error.message == "no browser page became free in time"
        assert admission.waiting == admission.org_waiting == 0
        assert admission.organizations == 2
    release.set()
    await asyncio.gather(*holders)
    assert admission.organizations == 0
    again = asyncio.Event()
    held.clear()
    both = [asyncio.ensure_future(hold(admission, "c", again, held)) for _ in range(2)]
    await eventually(lambda: held == ["c"] and admission.org_waiting == 1)
    again.set()
    await asyncio.gather(*both)


# -- the renderer watchdog's account of a crash ----------------------------------------------------


def fake_renderer() -> subprocess.Popen[bytes]:
    """A process the watchdog takes for a renderer (its command line says so), of 8 MiB or more
    once it has said ``ready``."""
    script = "import time; ballast = b'x' * (8 << 20); print('ready', flush=True); time.sleep(60)"
    return subprocess.Popen(
        [sys.executable, "-c", script, "--type=renderer"], stdout=subprocess.PIPE
    )


async def ready(process: subprocess.Popen[bytes]) -> None:
    """Until the fake has its ballast: just after exec its resident memory can be under 1 MiB."""
    assert process.stdout is not None
    assert await asyncio.to_thread(process.stdout.readline) == b"ready\n"


@pytest.mark.gen_test(timeout=30)
async def test_a_crash_is_put_down_to_memory_only_when_it_is_the_one_kill() -> None:
    fakes = [fake_renderer() for _ in range(3)]
    try:
        for fake in fakes:
            await ready(fake)
        roots: list[int] = [fakes[0].pid]
        watchdog = RendererWatchdog(2**20, 0.1, roots=lambda: roots, on_kill=lambda _rss: None)
        watchdog.page_crashed()
        assert watchdog.crash_message() == "the page's renderer crashed (out of memory?)"
        # One kill, one crash: that crash is the kill.
        watchdog = RendererWatchdog(2**20, 0.1, roots=lambda: roots, on_kill=lambda _rss: None)
        assert watchdog.check() == 1
        assert fakes[0].wait(5) == -signal.SIGKILL
        watchdog.page_crashed()
        assert watchdog.crash_message().startswith("the page used more than the 1 MiB")
        # A second page crashing in the same window may be another organization's page.
        watchdog.page_crashed()
        assert watchdog.crash_message().startswith("the page's renderer crashed; it may have")
        # Two kills (two pages' renderers), one crash so far: which one it is is not known.
        roots[:] = [fakes[1].pid, fakes[2].pid]
        watchdog = RendererWatchdog(2**20, 0.1, roots=lambda: roots, on_kill=lambda _rss: None)
        assert watchdog.check() == 2
        assert sorted(watchdog.killed_since(0)) == sorted(roots)
        watchdog.page_crashed()
        message = watchdog.crash_message()
        assert message.startswith("the page's renderer crashed; it may have used more than")
        assert "1 MiB" in message and watchdog.kills == 2
    finally:
        for fake in fakes:
            fake.kill()
            fake.wait(5)
            if fake.stdout is not None:
                fake.stdout.close()


# -- egress lanes ----------------------------------------------------------------------------------


@pytest.mark.gen_test(timeout=60)
async def test_a_context_that_does_not_close_in_time_gives_back_its_lane(
    site: tuple[Origin, SiteState],
) -> None:
    origin, state = site
    guard = EgressGuard(AddressPolicy(["127.0.0.1"]))
    await guard.start()
    opener = functools.partial(guard.open_lane, 64 * 2**20)
    farm = Farm(farm_settings(warm_contexts=0, health_interval=600), egress_urls={"direct": opener})
    await farm.start()
    pid = farm.health()["browser_pid"]
    assert isinstance(pid, int)
    try:
        assert (await farm.capture(origin.url("/box"), CaptureOptions())).status == 200
        await eventually(lambda: guard.lanes == 0)  # the context closes after the answer
        capture = asyncio.ensure_future(
            farm.capture(
                origin.url("/gate"), CaptureOptions(selector="#box", navigation_timeout_ms=1000)
            )
        )
        await asyncio.wait_for(state.gate_arrived.wait(), 10)
        assert guard.lanes == 1
        # A stopped browser neither closes the context nor says it closed: the farm gives up
        # on the close after CONTEXT_CLOSE_TIMEOUT and closes the lane itself.
        os.kill(pid, signal.SIGSTOP)
        with pytest.raises(FarmError) as caught:
            await asyncio.wait_for(capture, 20)
        assert caught.value.kind == "navigation_timeout"
        await eventually(lambda: guard.lanes == 0)
    finally:
        os.kill(pid, signal.SIGCONT)
        state.gate_release.set()
        await farm.close()
        await guard.close()


@pytest.mark.gen_test(timeout=40)
async def test_a_killed_browser_is_replaced_and_the_request_retried(
    site: tuple[Origin, SiteState],
) -> None:
    origin, state = site
    before = {child[0] for child in chromium_children()}  # the shared farm's crash handlers
    farm = Farm(farm_settings())
    await farm.start()
    try:
        first_pid = farm.health()["browser_pid"]
        assert isinstance(first_pid, int)
        capture = asyncio.ensure_future(
            farm.capture(origin.url("/gate"), CaptureOptions(selector="#box"))
        )
        await asyncio.wait_for(state.gate_arrived.wait(), 10)
        old_tree = tree_of(first_pid)
        assert len(old_tree) > 2
        os.kill(first_pid, signal.SIGKILL)
        shot = await asyncio.wait_for(capture, 20)
        assert (shot.width, shot.height) == (321, 123)
        assert state.hits["gate"] == 2  # served by the second browser
        health = farm.health()
        assert health["ready"] and farm.ready
        assert health["restarts"] == 1 and health["crashes"] == 1
        assert health["browser_pid"] not in (None, first_pid)
        # Every process of the killed browser is gone from /proc: exited and reaped.
        await eventually(lambda: not [pid for pid in old_tree if proc_stat(pid) is not None])
        assert defunct_children() == []
        new_tree = tree_of(health["browser_pid"])
        again = await farm.capture(origin.url("/box"), CaptureOptions())
        assert again.status == 200
    finally:
        state.gate_release.set()
        await farm.close()
    assert not [pid for pid in new_tree if proc_stat(pid) is not None]
    assert {child[0] for child in chromium_children()} <= before
    assert not farm.ready and farm.health()["connected"] is False


@pytest.mark.gen_test(timeout=60)
async def test_a_capture_waiting_on_a_killed_browser_is_retried_at_once(
    site: tuple[Origin, SiteState], caplog: pytest.LogCaptureFixture
) -> None:
    """Killed during a wait that makes no call to the browser (here a long capture delay), the
    capture moves to the new browser when the old one disconnects, not when the wait ends."""
    origin, state = site
    farm = Farm(farm_settings(warm_contexts=0))
    await farm.start()
    try:
        first_pid = farm.health()["browser_pid"]
        assert isinstance(first_pid, int)
        capture = asyncio.ensure_future(
            farm.capture(origin.url("/box"), CaptureOptions(capture_delay_ms=8000))
        )
        await eventually(lambda: state.hits.get("/box", 0) == 1)
        await asyncio.sleep(0.5)  # loaded: now in the capture delay
        killed = time.time()
        os.kill(first_pid, signal.SIGKILL)
        await eventually(lambda: "went away during a request" in caplog.text, seconds=5)
        retried = next(r for r in caplog.records if "went away during a request" in r.message)
        assert retried.created - killed < 3  # the delay had about 7 s left
        shot = await asyncio.wait_for(capture, 30)
        assert shot.status == 200 and state.hits["/box"] == 2
    finally:
        await farm.close()


@pytest.mark.gen_test(timeout=60)
async def test_a_capture_that_loses_two_browsers_is_busy(site: tuple[Origin, SiteState]) -> None:
    """The retry is once: a second browser gone under the same capture answers busy (the farm
    is restarting; retry shortly), not a failed capture."""
    origin, state = site
    farm = Farm(farm_settings(warm_contexts=0))
    await farm.start()
    try:
        capture = asyncio.ensure_future(
            farm.capture(origin.url("/box"), CaptureOptions(capture_delay_ms=8000))
        )
        for attempt in (1, 2):
            await eventually(lambda n=attempt: state.hits.get("/box", 0) == n, seconds=15)
            await asyncio.sleep(0.5)
            pid = farm.health()["browser_pid"]
            assert isinstance(pid, int)
            os.kill(pid, signal.SIGKILL)
        with pytest.raises(FarmError) as caught:
            await asyncio.wait_for(capture, 15)
        assert caught.value.kind == "busy" and caught.value.retry_after is not None
        await eventually(lambda: farm.ready, seconds=15)
        assert (await farm.capture(origin.url("/box"), CaptureOptions())).status == 200
    finally:
        await farm.close()


@pytest.mark.gen_test(timeout=40)
async def test_recycling_and_the_health_probe(site: tuple[Origin, SiteState]) -> None:
    origin, _state = site
    before = {child[0] for child in chromium_children()}
    farm = Farm(farm_settings(recycle_after=2, health_interval=0.5, warm_contexts=0))
    await farm.start()
    try:
        first_pid = farm.health()["browser_pid"]
        for _ in range(3):
            assert (await farm.capture(origin.url("/box"), CaptureOptions())).status == 200
        await eventually(lambda: farm.health()["recycles"] >= 1)
        second = farm.health()
        assert second["browser_pid"] != first_pid and second["restarts"] == 0
        await eventually(lambda: proc_stat(first_pid) is None)  # retired, closed and reaped
        # A browser that stops answering fails its probe and is replaced.
        stuck_pid = second["browser_pid"]
        stuck_tree = tree_of(stuck_pid)
        os.kill(stuck_pid, signal.SIGSTOP)
        await eventually(lambda: farm.health()["restarts"] == 1, seconds=10)
        await eventually(lambda: farm.ready)
        assert farm.health()["browser_pid"] not in (first_pid, stuck_pid)
        assert (await farm.capture(origin.url("/box"), CaptureOptions())).status == 200
        await eventually(lambda: not [pid for pid in stuck_tree if proc_stat(pid) is not None])
        assert defunct_children() == []
    finally:
        await farm.close()
    assert {child[0] for child in chromium_children()} <= before


@pytest.mark.gen_test(timeout=30)
async def test_a_browser_above_the_memory_ceiling_is_recycled(
    site: tuple[Origin, SiteState],
) -> None:
    origin, _state = site
    memory_before = sample("pagecast_farm_restarts_total", reason="memory")
    farm = Farm(farm_settings(rss_ceiling_mb=64, health_interval=0.5, warm_contexts=0))
    await farm.start()
    try:
        first_pid = farm.health()["browser_pid"]
        await eventually(lambda: farm.health()["recycles"] >= 1)
        assert farm.health()["rss_mb"] > 64
        assert farm.health()["restarts"] == 0
        assert sample("pagecast_farm_restarts_total", reason="memory") >= memory_before + 1
        await eventually(lambda: farm.ready)
        assert farm.health()["browser_pid"] != first_pid
        assert (await farm.capture(origin.url("/box"), CaptureOptions())).status == 200
    finally:
        await farm.close()


def renderers(browser_pid: int) -> list[int]:
    found = []
    for pid in tree_of(browser_pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if b"--type=renderer" in handle.read():
                    found.append(pid)
        except OSError:
            pass
    return found


@pytest.mark.gen_test(timeout=30)
async def test_a_crashed_page_fails_alone(site: tuple[Origin, SiteState]) -> None:
    origin, state = site
    farm = Farm(farm_settings(warm_contexts=0))
    await farm.start()
    try:
        pid = farm.health()["browser_pid"]
        capture = asyncio.ensure_future(
            farm.capture(origin.url("/crash"), CaptureOptions(wait_for_selector="#never"))
        )
        await asyncio.wait_for(state.gate_arrived.wait(), 10)
        started = time.monotonic()
        for renderer in renderers(pid):
            os.kill(renderer, signal.SIGKILL)
        with pytest.raises(FarmError) as caught:
            await capture
        assert caught.value.kind == "target_unreachable" and "crashed" in caught.value.message
        assert time.monotonic() - started < 3
        health = farm.health()
        assert health["page_crashes"] == 1 and health["crashes"] == 0
        assert health["restarts"] == 0 and health["browser_pid"] == pid
        assert (await farm.capture(origin.url("/box"), CaptureOptions())).status == 200
    finally:
        state.gate_release.set()
        await farm.close()


@pytest.mark.gen_test
async def test_only_web_urls_and_configured_routes() -> None:
    farm = Farm(farm_settings(), egress_url="http://127.0.0.1:9/")
    for url in ("file:///etc/passwd", "chrome://crash", "data:text/html,hi"):
        with pytest.raises(ValueError, match="http and https"):
            await farm.capture(url, CaptureOptions())
    with pytest.raises(ValueError, match="route"):
        await farm.render("http://example.com/", RenderOptions(route="premium"))
    with pytest.raises(ValueError, match="direct"):
        Farm(farm_settings(), egress_urls={"standard": "http://127.0.0.1:9/"})
    with pytest.raises(ValueError, match="host"):
        Farm(farm_settings(), egress_url="http:///nohost")
    with pytest.raises(ValueError):
        CaptureOptions(preset="xl")
    with pytest.raises(ValueError):
        CaptureOptions(image_type="png", quality=50)


# -- the egress guard ------------------------------------------------------------------------------


class ProxyHandler(tornado.web.RequestHandler):
    """A forward proxy for plain HTTP that records what it forwards; refuses listed hosts the way
    the egress guard does (403 marked X-Pagecast-Egress), and refuses every CONNECT tunnel."""

    SUPPORTED_METHODS = ("GET", "CONNECT")

    def initialize(self, seen: list[str], refuse: str) -> None:
        self.seen = seen
        self.refuse = refuse

    async def get(self) -> None:
        if self.request.path.endswith("/favicon.ico"):
            raise tornado.web.HTTPError(404)
        self.seen.append(self.request.uri)
        if self.refuse and self.refuse in self.request.uri:
            self.set_status(403)
            self.set_header("X-Pagecast-Egress", "refused")
            self.finish("refused")
            return
        if "/other-proxy" in self.request.uri:
            self.set_status(403)
            self.set_header("Proxy-Status", 'squid; error="destination_ip_prohibited"')
            self.finish("refused")
            return
        if "/unresolved" in self.request.uri:
            self.set_status(502)
            self.set_header("X-Pagecast-Egress", "unreachable")
            self.finish("could not resolve")
            return
        if "/forbidden" in self.request.uri:  # the target's own 403: a page like any other
            self.set_status(403)
            self.finish(WHITE + "<p>members only</p>")
            return
        self.finish(WHITE + f"<p id='via'>via proxy for {self.request.uri}</p>")

    def connect(self) -> None:
        self.seen.append("CONNECT " + self.request.uri)
        self.set_status(403)
        self.finish()


@pytest.mark.gen_test(timeout=30)
async def test_every_context_goes_through_its_egress_route(io_loop: Any) -> None:
    direct_seen: list[str] = []
    standard_seen: list[str] = []
    direct = serve(
        tornado.web.Application(
            [(r".*", ProxyHandler, {"seen": direct_seen, "refuse": "/private"})]
        )
    )
    standard = serve(
        tornado.web.Application([(r".*", ProxyHandler, {"seen": standard_seen, "refuse": ""})])
    )
    port = closed_port()  # nothing listens: only the proxies can answer
    farm = Farm(
        farm_settings(),
        egress_url=direct.url(),
        egress_urls={"standard": standard.url()},
    )
    await farm.start()
    try:
        page = await farm.render(f"http://127.0.0.1:{port}/hello", RenderOptions())
        assert "via proxy for http://127.0.0.1:" in page.html
        assert direct_seen[0] == f"http://127.0.0.1:{port}/hello"
        await farm.render(f"http://127.0.0.1:{port}/std", RenderOptions(route="standard"))
        assert standard_seen[0] == f"http://127.0.0.1:{port}/std"
        assert not [url for url in direct_seen if "/std" in url]
        shot = await farm.capture(f"http://127.0.0.1:{port}/shot", CaptureOptions(preset="xs"))
        assert shot.width == 375 and direct_seen[-1].endswith("/shot")
        with pytest.raises(FarmError) as refused:
            await farm.capture(f"http://127.0.0.1:{port}/private", CaptureOptions())
        assert refused.value.kind == "target_unreachable"
        assert "may not be allowed" in refused.value.message
        with pytest.raises(FarmError) as other:
            await farm.capture(f"http://127.0.0.1:{port}/other-proxy", CaptureOptions())
        assert other.value.kind == "target_unreachable"
        with pytest.raises(FarmError) as unresolved:
            await farm.capture(f"http://127.0.0.1:{port}/unresolved", CaptureOptions())
        assert unresolved.value.kind == "target_unreachable"
        assert "could not be reached" in unresolved.value.message
        forbidden = await farm.capture(f"http://127.0.0.1:{port}/forbidden", CaptureOptions())
        assert forbidden.status == 403
        with pytest.raises(FarmError) as tunnel:
            await farm.capture("https://10.1.2.3/", CaptureOptions())
        assert tunnel.value.kind == "target_unreachable"
        assert "may not be allowed" in tunnel.value.message
        assert direct_seen[-1] == "CONNECT 10.1.2.3:443"
    finally:
        await farm.close()
        await direct.close()
        await standard.close()
