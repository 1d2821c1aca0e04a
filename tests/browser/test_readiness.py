"""The readiness wait against real Chromium: pages that build themselves after ``load`` (after a
timer, a slow API, a client-side route change, beside an endless request or an open WebSocket)
are rendered and captured with their content and no wait asked for; pages that never settle or
never paint still answer within their bound, and say how the wait ended."""

from __future__ import annotations

import time
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from app.config import Settings
from browser.farm import CaptureOptions, Farm, RenderOptions
from browser.farm.readiness import _probe
from browser.farm.types import ContextKey, ReadyState
from tests.conftest import make_settings, running_farm
from tests.spa_site import shows_article

pytestmark = pytest.mark.chromium

APPS = ("timer300", "timer2s", "fetch", "route", "polling", "socket")
READY_TIMEOUT = 3.0
GREEN = (0, 170, 0)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.farm.ready_timeout = READY_TIMEOUT
    settings.farm.warm_contexts = 0
    return settings


@pytest.fixture
def started(io_loop: Any, settings: Settings) -> Iterator[Farm]:
    with running_farm(io_loop, settings) as farm:
        yield farm


def pixel(png: bytes, x: int, y: int) -> tuple[int, int, int]:
    with Image.open(BytesIO(png)) as image:
        red, green, blue = image.convert("RGB").getpixel((x, y))  # type: ignore[misc]
        return red, green, blue


@pytest.mark.gen_test(timeout=120)
async def test_apps_are_rendered_and_captured_with_their_content(started, spa_site) -> None:
    for name in APPS:
        rendered = await started.render(spa_site.url(f"/app/{name}"), RenderOptions())
        assert shows_article(rendered.html, name), name
        assert rendered.readiness is not None and rendered.readiness.state is ReadyState.settled
        shot = await started.capture(spa_site.url(f"/app/{name}"), CaptureOptions())
        assert shot.readiness is not None and shot.readiness.state is ReadyState.settled, name
        assert pixel(shot.image, 1300, 200) == GREEN, name


@pytest.mark.gen_test(timeout=60)
async def test_the_wait_is_what_gets_the_content(spa_site, tmp_path) -> None:
    settings = make_settings(tmp_path)
    settings.farm.ready_timeout = 0
    settings.farm.warm_contexts = 0
    farm = Farm(settings.farm)  # no egress guard: the wait alone is under test
    await farm.start()
    try:
        rendered = await farm.render(spa_site.url("/app/timer2s"), RenderOptions())
    finally:
        await farm.close()
    assert rendered.readiness is not None and rendered.readiness.state is ReadyState.off
    assert not shows_article(rendered.html, "timer2s")


@pytest.mark.gen_test(timeout=60)
async def test_static_page_is_ready_at_its_load(started, spa_site) -> None:
    rendered = await started.render(spa_site.url("/app/static"), RenderOptions())
    assert rendered.readiness is not None
    assert rendered.readiness.state is ReadyState.settled
    assert shows_article(rendered.html, "static")


@pytest.mark.gen_test(timeout=60)
async def test_a_page_that_never_settles_answers_at_the_bound(started, spa_site) -> None:
    rendered = await started.render(spa_site.url("/app/restless"), RenderOptions())
    readiness = rendered.readiness
    assert readiness is not None and readiness.state is ReadyState.timeout
    assert READY_TIMEOUT * 1000 <= readiness.waited_ms < READY_TIMEOUT * 1000 + 2000
    assert "<h1>Ready page restless</h1>" in rendered.html
    shot = await started.capture(spa_site.url("/app/restless"), CaptureOptions())
    assert shot.readiness is not None and shot.readiness.state is ReadyState.timeout
    assert pixel(shot.image, 1300, 200) == GREEN


@pytest.mark.gen_test(timeout=60)
async def test_a_page_that_never_paints_is_captured_blank(started, spa_site) -> None:
    shot = await started.capture(spa_site.url("/app/blank"), CaptureOptions())
    assert shot.readiness is not None and shot.readiness.state is ReadyState.blank
    assert shot.readiness.waited_ms < READY_TIMEOUT * 1000
    assert pixel(shot.image, 1300, 200) == (255, 255, 255)


@pytest.mark.gen_test(timeout=60)
async def test_a_page_that_moves_on_by_itself_is_followed(started, spa_site) -> None:
    rendered = await started.render(spa_site.url("/app/hop"), RenderOptions())
    assert rendered.final_url.endswith("/app/fetch")
    assert shows_article(rendered.html, "fetch")
    assert rendered.readiness is not None and rendered.readiness.state is ReadyState.settled


@pytest.mark.gen_test(timeout=60)
async def test_wait_for_selector_replaces_the_readiness_wait(started, spa_site) -> None:
    rendered = await started.render(
        spa_site.url("/app/timer300"), RenderOptions(wait_for_selector="article")
    )
    assert rendered.readiness is not None and rendered.readiness.state is ReadyState.selector
    assert shows_article(rendered.html, "timer300")


@pytest.mark.gen_test(timeout=60)
async def test_a_timeout_cancelled_by_clear_interval_is_not_waited_for(started, spa_site) -> None:
    rendered = await started.render(spa_site.url("/app/cleared"), RenderOptions())
    assert rendered.readiness is not None and rendered.readiness.state is ReadyState.settled
    assert rendered.readiness.waited_ms < 1000  # not held until the timer is taken for overdue


@pytest.mark.gen_test(timeout=60)
async def test_a_ready_page_gets_its_paint_wait_in_the_same_look(started, spa_site) -> None:
    browser = started._supervisor.current
    context = await browser.new_context(ContextKey("md", False))
    try:
        page = await context.new_page()
        await page.goto(spa_site.url("/app/static"))
        look, painted, _ = await _probe(page, time.monotonic() + 5, paint_ms=2000)
        assert look is not None and painted
        # The paint's own timer is not left pending, for the page's next look to count.
        look, painted, _ = await _probe(page, time.monotonic() + 5)
        assert look is not None and not painted and look["timers"] == 0
        await page.goto(spa_site.url("/app/restless"))
        look, painted, spent = await _probe(page, time.monotonic() + 5, paint_ms=2000)
        assert look is not None and look["scripted"] and not look["calm"]
        assert not painted and spent == 0
    finally:
        await browser.discard(context)
