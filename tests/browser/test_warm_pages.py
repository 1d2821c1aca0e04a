"""Warm pages against real Chromium: a page is lent again only to its own organization, and
every capture on it starts from a clean state (cookies, local and session storage, IndexedDB,
cache storage, service workers, permissions, the capture's own init scripts and blocking; the
HTTP cache when asked, else kept for the organization alone); pages are retired after their
uses, on failure and when their organization is idle."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tornado.web

from app.config import Settings
from browser.farm import CaptureOptions, Farm, FarmError, RenderOptions, warm
from browser.farm.page import PageSession, prepare
from browser.farm.types import ContextKey
from browser.farm.warm import WarmPage, reset
from tests.conftest import make_settings, running_farm
from tests.origin import Origin, serve

pytestmark = pytest.mark.chromium

STATE_PAGE = """<!DOCTYPE html><html><head><title>state</title></head><body>
<pre id="seen"></pre><p id="done"></p><img src="/pixel.svg" width="4" height="4">
<script>
(async () => {
  const permission = await navigator.permissions.query({ name: 'geolocation' });
  const seen = {
    cookie: document.cookie,
    local: localStorage.getItem('k'),
    session: sessionStorage.getItem('s'),
    idb: (await indexedDB.databases()).map((d) => d.name),
    caches: await caches.keys(),
    workers: navigator.serviceWorker
      ? (await navigator.serviceWorker.getRegistrations()).length : 0,
    permission: permission.state,
    hidden: getComputedStyle(document.getElementById('seen')).visibility,
  };
  document.getElementById('seen').textContent = JSON.stringify(seen);
  if (location.search.includes('write')) {
    document.cookie = 'c=1; max-age=9999';
    localStorage.setItem('k', '1');
    sessionStorage.setItem('s', '1');
    await new Promise((done) => {
      const open = indexedDB.open('kept', 1);
      open.onupgradeneeded = (event) => event.target.result.createObjectStore('s');
      open.onsuccess = done;
      open.onerror = done;
    });
    await (await caches.open('kept')).put('/x', new Response('y'));
    try { await navigator.serviceWorker.register('/worker.js'); } catch (error) {}
  }
  document.getElementById('done').className = 'ok';
})();
</script></body></html>"""
CLEAN = {
    "cookie": "",
    "local": None,
    "session": None,
    "idb": [],
    "caches": [],
    "workers": 0,
    "permission": "prompt",
    "hidden": "visible",
}


class StatePage(tornado.web.RequestHandler):
    def initialize(self, hits: list[str]) -> None:
        self.hits = hits

    def get(self, name: str) -> None:
        self.hits.append(name)
        if name == "pixel.svg":
            self.set_header("Content-Type", "image/svg+xml")
            self.set_header("Cache-Control", "max-age=600")
            self.finish("<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'/>")
        elif name == "worker.js":
            self.set_header("Content-Type", "text/javascript")
            self.finish("self.addEventListener('fetch', () => {});")
        else:
            self.finish(STATE_PAGE)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path)
    settings.farm.warm_contexts = 0
    settings.farm.page_reuse = 3
    return settings


@pytest.fixture
def hits() -> list[str]:
    return []


@pytest.fixture
def site(io_loop: Any, hits: list[str]) -> Iterator[Origin]:
    origin = serve(tornado.web.Application([(r"/(.*)", StatePage, {"hits": hits})]))
    yield origin
    io_loop.run_sync(origin.close)


@pytest.fixture
def started(io_loop: Any, settings: Settings) -> Iterator[Farm]:
    with running_farm(io_loop, settings) as farm:
        yield farm


async def seen(farm: Farm, url: str, org: str) -> dict[str, Any]:
    """What the state page saw on arrival, rendered for ``org``."""
    rendered = await farm.render(url, RenderOptions(org=org, wait_for_selector="#done.ok"))
    start = rendered.html.index('<pre id="seen">') + len('<pre id="seen">')
    return dict(json.loads(rendered.html[start : rendered.html.index("</pre>")]))


async def settled(farm: Farm) -> None:
    """Wait for the background resets of the pages just given back."""
    for _ in range(100):
        current = farm._supervisor.current
        if current is not None and not any(current.pages._resets.values()):
            return
        await asyncio.sleep(0.02)


@pytest.mark.gen_test(timeout=90)
async def test_the_next_capture_of_an_organization_starts_clean(started, site, hits) -> None:
    await seen(started, site.url("/state"), "acme")  # a first capture: its page is not kept
    await settled(started)
    assert started._supervisor.current.pages.idle_of("acme") == 0
    assert await seen(started, site.url("/state?write"), "acme") == CLEAN
    await settled(started)
    pages = started._supervisor.current.pages
    assert pages.idle_of("acme") == 1
    # A capture with hiding CSS and a blocked request, then the same page again without them:
    # the image loads (the blocking is gone; the HTTP cache, kept by default, is emptied here).
    pages.rules = dataclasses.replace(pages.rules, clear_cache=True)
    hits.clear()
    await started.capture(
        site.url("/state"),
        CaptureOptions(org="acme", exclude_selectors=("#seen",), block_url_patterns=("*pixel*",)),
    )
    assert "pixel.svg" not in hits
    await settled(started)
    assert await seen(started, site.url("/state"), "acme") == CLEAN
    assert "pixel.svg" in hits
    assert started.health()["pages_reused"] == 2


@pytest.mark.gen_test(timeout=90)
async def test_another_organization_never_gets_the_page(started, site) -> None:
    await seen(started, site.url("/state"), "acme")
    await seen(started, site.url("/state?write"), "acme")
    await settled(started)
    pages = started._supervisor.current.pages
    assert pages.idle_of("acme") == 1
    assert await seen(started, site.url("/state"), "globex") == CLEAN
    await settled(started)
    assert started.health()["pages_reused"] == 0  # globex got a new page of its own
    assert pages.idle_of("acme") == 1 and pages.idle_of("globex") == 0  # seen once: not kept
    assert await seen(started, site.url("/state"), "globex") == CLEAN
    await settled(started)
    assert started.health()["pages_reused"] == 0
    assert pages.idle_of("acme") == 1 and pages.idle_of("globex") == 1
    # Requests without an organization share nothing: their page is closed after use.
    assert await seen(started, site.url("/state?write"), "") == CLEAN
    await settled(started)
    assert pages.idle_count == 2


@pytest.mark.gen_test(timeout=90)
async def test_an_organizations_captures_share_its_http_cache_and_no_other_does(
    started, site, hits
) -> None:
    pages = started._supervisor.current.pages
    assert not pages.rules.clear_cache  # the default
    await seen(started, site.url("/state"), "acme")
    assert "pixel.svg" in hits
    await seen(started, site.url("/state?write"), "acme")
    await settled(started)
    assert pages.idle_of("acme") == 1
    hits.clear()
    assert await seen(started, site.url("/state"), "acme") == CLEAN  # storage reset all the same
    assert started.health()["pages_reused"] == 1
    assert "pixel.svg" not in hits  # from the page's cache
    await settled(started)
    hits.clear()
    await seen(started, site.url("/state"), "globex")
    assert "pixel.svg" in hits  # a context of its own: nothing cached for it


@pytest.mark.gen_test(timeout=90)
async def test_pages_retire_after_their_uses_and_on_failure(started, site) -> None:
    await seen(started, site.url("/state"), "acme")
    for _ in range(3):
        await seen(started, site.url("/state"), "acme")
        await settled(started)
    pages = started._supervisor.current.pages
    assert started.health()["pages_reused"] == 2  # page_reuse = 3: the third use retires it
    assert pages.replaced == 1  # and a fresh page takes its place
    assert pages.idle_of("acme") == 1
    await seen(started, site.url("/state"), "acme")
    await settled(started)
    assert pages.idle_of("acme") == 1
    with pytest.raises(FarmError):
        await started.render(
            site.url("/state"),
            RenderOptions(org="acme", wait_for_selector="#never", navigation_timeout_ms=1000),
        )
    await settled(started)
    assert pages.idle_of("acme") == 0  # a failed capture's page is not kept


@pytest.mark.gen_test(timeout=90)
async def test_a_page_retired_for_its_uses_is_replaced_before_the_next_capture(
    started, site
) -> None:
    def opened_on_demand() -> int:
        health = started.health()
        return int(health["contexts_served"] - health["pages_reused"] - health["pages_replaced"])

    await seen(started, site.url("/state?write"), "acme")  # a first capture: not kept
    for _ in range(3):  # page_reuse = 3: the third use of the second page retires it
        await seen(started, site.url("/state?write"), "acme")
        await settled(started)
    pages = started._supervisor.current.pages
    assert opened_on_demand() == 2 and pages.replaced == 1
    assert pages.idle_of("acme") == 1  # its replacement, open before any capture asks for it
    # The next capture takes the replacement, a fresh context (nothing of the retired page's
    # state), rather than opening a page of its own.
    assert await seen(started, site.url("/state"), "acme") == CLEAN
    assert started.health()["pages_replaced"] == 1
    assert opened_on_demand() == 2
    await settled(started)
    assert await seen(started, site.url("/state"), "acme") == CLEAN
    assert started.health()["pages_reused"] == 3  # and the replacement is then reused
    assert opened_on_demand() == 2
    # Another organization never gets it, and requests without one get no replacement.
    await seen(started, site.url("/state"), "globex")
    assert started.health()["pages_replaced"] == 1 and opened_on_demand() == 3


@pytest.mark.gen_test(timeout=90)
async def test_a_replacement_is_skipped_when_the_caps_are_reached(io_loop, site, tmp_path) -> None:
    settings = make_settings(tmp_path)
    settings.farm.warm_contexts = 0
    settings.farm.page_reuse = 3
    settings.farm.warm_pages = 1  # one idle page in all
    farm = Farm(settings.farm)
    await farm.start()
    try:
        for _ in range(3):
            await seen(farm, site.url("/state"), "acme")
            await settled(farm)
        pages = farm._supervisor.current.pages
        assert pages.idle_of("acme") == 1
        # acme's page serves its third (last) capture while globex's second page fills the cap:
        # the retired page is not replaced (that would take globex's idle page away).
        last = farm.capture(site.url("/state"), CaptureOptions(org="acme", capture_delay_ms=2000))
        slow = asyncio.ensure_future(last)
        for _ in range(2):
            await seen(farm, site.url("/state"), "globex")
            await settled(farm)
        assert not slow.done() and pages.idle_of("globex") == 1
        await slow
        await settled(farm)
        assert pages.replaced == 0
        assert pages.idle_of("globex") == 1 and pages.idle_of("acme") == 0
    finally:
        await farm.close()


@pytest.mark.gen_test(timeout=60)
async def test_an_idle_organization_loses_its_pages(io_loop, site, tmp_path) -> None:
    settings = make_settings(tmp_path)
    settings.farm.warm_contexts = 0
    settings.farm.org_idle = 1.0
    farm = Farm(settings.farm)
    await farm.start()
    try:
        await seen(farm, site.url("/state"), "acme")
        await seen(farm, site.url("/state"), "acme")
        await settled(farm)
        assert farm.health()["warm_pages"] == 1
        await asyncio.sleep(1.5)
        assert farm.health()["warm_pages"] == 0
    finally:
        await farm.close()


@pytest.mark.gen_test(timeout=60)
async def test_a_reset_takes_back_permissions_and_storage(started, site) -> None:
    browser = started._supervisor.current
    key = ContextKey("md", False)
    context = await browser.new_context(key)
    try:
        page = WarmPage("acme", key, context, PageSession(await context.new_page(), lambda: None))
        await page.session.page.goto(site.url("/state?write"))
        await page.session.page.wait_for_selector("#done.ok", state="attached")
        await context.grant_permissions(["geolocation"])
        assert await reset(page)
        await page.session.page.goto(site.url("/state"))
        await page.session.page.wait_for_selector("#done.ok", state="attached")
        text = await page.session.page.text_content("#seen")
        assert json.loads(text or "{}") == CLEAN
    finally:
        await browser.discard(context)


@pytest.mark.gen_test(timeout=60)
async def test_what_a_capture_installed_stays_only_while_the_next_asks_the_same(
    started, site, hits
) -> None:
    browser = started._supervisor.current
    key = ContextKey("md", False)
    context = await browser.new_context(key)
    hide_seen = CaptureOptions(
        org="acme", exclude_selectors=("#seen",), block_url_patterns=("*pixel*",)
    )
    hide_done = CaptureOptions(org="acme", exclude_selectors=("#done",))

    async def visit(page: WarmPage) -> dict[str, Any]:
        hits.clear()
        tab = page.session.page
        await tab.goto(site.url("/state"))
        await tab.wait_for_selector("#done.ok", state="attached")
        shown = {
            name: await tab.eval_on_selector(name, "(e) => getComputedStyle(e).visibility")
            for name in ("#seen", "#done")
        }
        return {**shown, "pixel": "pixel.svg" in hits}

    try:
        page = WarmPage("acme", key, context, PageSession(await context.new_page(), lambda: None))
        await prepare(page.session, hide_seen, page.prepared)
        first = {"#seen": "hidden", "#done": "visible", "pixel": False}
        assert await visit(page) == first
        for _ in range(2):  # reset, then the same options again: still in place
            assert await reset(page, clear_cache=True)  # so that the pixel is fetched, or not
            await prepare(page.session, hide_seen, page.prepared)
            assert await visit(page) == first
        assert await reset(page, clear_cache=True)  # so that the pixel is fetched, or not
        await prepare(page.session, hide_done, page.prepared)
        assert await visit(page) == {"#seen": "visible", "#done": "hidden", "pixel": True}
        assert await reset(page, clear_cache=True)  # so that the pixel is fetched, or not
        await prepare(page.session, None, page.prepared)  # a render asks nothing
        assert await visit(page) == {"#seen": "visible", "#done": "visible", "pixel": True}
    finally:
        await browser.discard(context)


@pytest.mark.gen_test(timeout=90)
async def test_captures_one_after_another_alternate_between_two_pages(
    io_loop, site, tmp_path
) -> None:
    # Without waiting for the resets: the second capture's page is still being reset when the
    # third starts, which gets a page of its own (within warm_pages_per_org) rather than wait;
    # from then on each capture finds the other page reset. With room for one page, it waits;
    # room for more does not make captures one after another open more than two.
    for per_org, new_pages in ((4, 3), (2, 3), (1, 2)):
        settings = make_settings(tmp_path)
        settings.farm.warm_contexts = 0
        settings.farm.warm_pages_per_org = per_org
        farm = Farm(settings.farm)
        await farm.start()
        try:
            for _ in range(8):
                await seen(farm, site.url("/state"), "acme")
            await settled(farm)
            health = farm.health()
            assert health["contexts_served"] - health["pages_reused"] == new_pages
            assert farm._supervisor.current.pages.idle_of("acme") == min(per_org, 2)
        finally:
            await farm.close()


@pytest.mark.gen_test(timeout=90)
async def test_an_organization_capturing_four_at_once_keeps_a_page_for_each(
    io_loop, site, tmp_path
) -> None:
    settings = make_settings(tmp_path)
    settings.farm.warm_contexts = 0
    settings.farm.org_share = 1.0  # the organization may hold all four pages at once
    farm = Farm(settings.farm)
    await farm.start()
    try:
        await seen(farm, site.url("/state"), "acme")  # a first capture: its page is not kept
        await settled(farm)
        for _ in range(2):
            await asyncio.gather(*(seen(farm, site.url("/state"), "acme") for _ in range(4)))
            await settled(farm)
        health = farm.health()
        # The first capture's context and four more: the second round found all four reset.
        assert health["contexts_served"] - health["pages_reused"] == 5
        assert farm._supervisor.current.pages.idle_of("acme") == 4
    finally:
        await farm.close()


class HeldPage(tornado.web.RequestHandler):
    """A page whose server answers only once the test lets it (a slow site)."""

    def initialize(self, arrived: asyncio.Event, release: asyncio.Event) -> None:
        self.arrived = arrived
        self.release = release

    async def get(self) -> None:
        self.arrived.set()
        await self.release.wait()
        self.finish("<!DOCTYPE html><title>late</title><p>late</p>")


@pytest.mark.gen_test(timeout=90)
async def test_a_reset_waits_for_its_own_organizations_navigations_only(
    started, site, monkeypatch
) -> None:
    # acme's page may wait for its reset (acme has another page idle) while acme's pages
    # navigate, not while another organization's page waits for a slow server: that wait may
    # last seconds, and acme's capture after next would find no page reset.
    monkeypatch.setattr(warm, "RESET_DEFER", 60.0)
    arrived, release = asyncio.Event(), asyncio.Event()
    slow = serve(
        tornado.web.Application([(r"/", HeldPage, {"arrived": arrived, "release": release})])
    )
    hog = asyncio.ensure_future(started.capture(slow.url("/"), CaptureOptions(org="hog")))
    try:
        await asyncio.wait_for(arrived.wait(), 30)  # hog's page navigates until released
        await seen(started, site.url("/state"), "acme")  # a first capture: its page is not kept
        await settled(started)
        await asyncio.gather(*(seen(started, site.url("/state"), "acme") for _ in range(2)))
        await settled(started)
        pages = started._supervisor.current.pages
        assert pages.idle_of("acme") == 2
        await seen(started, site.url("/state"), "acme")  # the other page idle: a reset that waits
        for _ in range(250):
            if pages.idle_of("acme") == 2:
                break
            await asyncio.sleep(0.02)
        assert pages.idle_of("acme") == 2  # reset within seconds, not RESET_DEFER
        assert not hog.done()
    finally:
        release.set()
        await asyncio.gather(hog, return_exceptions=True)
        await slow.close()
    assert (await hog).image
