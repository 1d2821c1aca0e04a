"""The price table: a base by endpoint and version, add-ons for what a request used."""

from __future__ import annotations

from services.accounts.billing import PRICES, CreditSettings, Usage, price

CREDITS = CreditSettings()


def test_each_endpoint_starts_from_its_base() -> None:
    assert price(CREDITS, Usage("markdown", "3.0")) == CREDITS.markdown
    assert price(CREDITS, Usage("screenshot", "1.1")) == CREDITS.screenshot
    assert price(CREDITS, Usage("oembed", "3.0")) == CREDITS.oembed_v3


def test_add_ons_are_the_tier_that_fetched_the_render_and_the_scan() -> None:
    usage = Usage("markdown", "3.0", fetched_through="premium", render=True, ai_sanitize=True)
    expected = CREDITS.markdown + CREDITS.premium_proxy + CREDITS.full_render + CREDITS.ai_sanitize
    assert price(CREDITS, usage) == expected
    assert price(CREDITS, Usage("screenshot", "1.1", fetched_through="direct")) == 1


def test_a_flat_price_ignores_what_the_request_used() -> None:
    usage = Usage("oembed", "1.1", fetched_through="superior", render=True)
    assert price(CREDITS, usage) == CREDITS.oembed_v1


def test_the_prices_follow_the_settings() -> None:
    credits = CreditSettings(markdown=3, standard_proxy=2)
    assert price(credits, Usage("markdown", "3.0", fetched_through="standard")) == 5


def test_every_price_names_a_credit_setting() -> None:
    for row in PRICES.values():
        assert isinstance(getattr(CREDITS, row.base), int)
