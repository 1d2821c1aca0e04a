"""The list of ports Pagecast refuses as a browser would (:mod:`browser.unsafe_ports`) is the
browser's own: Chromium refuses to load every port on it, and loads the ports just beside
them."""

from __future__ import annotations

import os

import pytest
from playwright.async_api import Error, async_playwright

from browser.farm.flags import LAUNCH_ARGS
from browser.unsafe_ports import UNSAFE_PORTS, unsafe_port_service

CHROMIUM = os.environ.get("PAGECAST_TEST_CHROMIUM", "/usr/bin/chromium")


async def refusal(page, port: int) -> str:
    """The network error Chromium gives for a page on 127.0.0.1 at ``port``."""
    try:
        await page.goto(f"http://127.0.0.1:{port}/", timeout=5_000)
    except Error as exc:
        return str(exc).split("\n", 1)[0]
    return "loaded"


@pytest.mark.chromium
@pytest.mark.gen_test(timeout=120)
async def test_chromium_refuses_exactly_the_listed_ports() -> None:
    beside = {port + step for port in UNSAFE_PORTS for step in (-1, 1)} - set(UNSAFE_PORTS)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=list(LAUNCH_ARGS), timeout=30_000
        )
        try:
            page = await browser.new_page()
            for port in sorted(UNSAFE_PORTS):
                assert "ERR_UNSAFE_PORT" in await refusal(page, port), port
            for port in sorted(p for p in beside if p > 0):
                assert "ERR_UNSAFE_PORT" not in await refusal(page, port), port
        finally:
            await browser.close()


def test_lookup() -> None:
    assert unsafe_port_service(6000) == "x11" and unsafe_port_service(25) == "smtp"
    assert unsafe_port_service(None) is None and unsafe_port_service(8080) is None
    assert all(0 < port < 65536 and name for port, name in UNSAFE_PORTS.items())
