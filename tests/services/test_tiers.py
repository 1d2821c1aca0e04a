"""Fetch controls end to end: three local proxies stand for the tiers, and a gated origin answers
403 (or a bot wall) unless the request came through the tier a path names. Shows escalation,
retry_escalate=false, max_retries, plan refusals, credits, debug facts, learning and the cache."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import tornado.web
from tornado.httpclient import AsyncHTTPClient, HTTPResponse

from app.config import Settings
from app.services import Services
from app.web import make_api_app
from browser.proxies import ProxyPool
from tests.conftest import make_settings
from tests.origin import Origin, serve
from tests.proxies import TIER_HEADER, ProxyStats, proxy_url, start_proxy

WALL = "<html><head><title>Just a moment...</title></head><body>checking</body></html>"


class Gated(tornado.web.RequestHandler):
    """``/need/<tier>``: the page only through that tier; ``/wall/<tier>``: a bot wall otherwise;
    ``/missing``: 404; ``/open``: always the page."""

    def initialize(self, hits: Counter[str]) -> None:
        self.hits = hits

    def get(self, kind: str, tier: str = "") -> None:
        via = self.request.headers.get(TIER_HEADER, "direct")
        self.hits[f"{kind}:{via}"] += 1
        if kind == "missing":
            self.set_status(404)
            self.finish("<html><body>no such page</body></html>")
        elif kind == "open" or via == tier:
            self.finish(f"<html><body><h1>Through {via}</h1></body></html>")
        elif kind == "wall":
            self.finish(WALL)
        else:
            self.set_status(403)
            self.finish("<html><body>denied</body></html>")


@pytest.fixture
def hits() -> Counter[str]:
    return Counter()


@pytest.fixture
def origin(io_loop: Any, hits: Counter[str]) -> Iterator[Origin]:
    routes = [
        (r"/(need|wall)/(\w+)", Gated, {"hits": hits}),
        (r"/(missing|open)", Gated, {"hits": hits}),
    ]
    site = serve(tornado.web.Application(routes))
    yield site
    io_loop.run_sync(site.close)


@pytest.fixture
def proxies(io_loop: Any) -> Iterator[dict[str, tuple[Origin, ProxyStats]]]:
    started = {name: start_proxy(name) for name in ("standard", "premium", "superior", "german")}
    yield started
    for site, _ in started.values():
        io_loop.run_sync(site.close)


@pytest.fixture
def settings(
    tmp_path: Path, database_url: str, proxies: dict[str, tuple[Origin, ProxyStats]]
) -> Settings:
    """Every test here runs with the store on SQLite and on Postgres (cache and strategy)."""
    settings = make_settings(tmp_path)
    settings.store.database_url = database_url
    settings.proxies.standard = [
        proxy_url(*proxies["standard"]),
        "de=" + proxy_url(*proxies["german"]),
    ]
    settings.proxies.premium = [proxy_url(*proxies["premium"])]
    settings.proxies.superior = [proxy_url(*proxies["superior"])]
    return settings


@pytest.fixture
def app(services: Services) -> tornado.web.Application:
    return make_api_app(services)


@pytest.fixture
def pro_key(services: Services) -> str:
    return services.store.create_key("big-co", "pro").key


@pytest.fixture
def free_key(services: Services) -> str:
    return services.store.create_key("small-co", "free").key


async def markdown(
    http_client: AsyncHTTPClient, base_url: str, target: str, key: str, **params: str
) -> tuple[HTTPResponse, dict[str, Any]]:
    query = "&".join(
        f"{name}={quote(value, safe='')}" for name, value in {"format": "json", **params}.items()
    )
    url = f"{base_url}/api/3.0/markdown/{quote(target, safe='')}?app_id={key}&{query}"
    response = await http_client.fetch(url, raise_error=False)
    return response, json.loads(response.body)


def seen(proxies: dict[str, tuple[Origin, ProxyStats]]) -> dict[str, int]:
    return {name: len(stats.requests) for name, (_, stats) in proxies.items()}


@pytest.mark.gen_test(timeout=30)
async def test_escalation_climbs_every_tier_in_order(
    http_client, base_url, origin, proxies, pro_key, hits
):
    response, body = await markdown(http_client, base_url, origin.url("/need/superior"), pro_key)
    assert response.code == 200, body
    assert "Through superior" in body["markdown"]
    assert body["debug"]["proxy_used"] == "superior"
    assert body["debug"]["retry_used"] is True and body["debug"]["retry_attempts"] == 3
    assert body["debug"]["final_status_code"] == 200
    assert hits == Counter(
        {"need:direct": 1, "need:standard": 1, "need:premium": 1, "need:superior": 1}
    )
    assert response.headers["X-BILLING-REQUESTS"] == "11"  # 1 base + 10 for the superior tier


@pytest.mark.gen_test(timeout=30)
async def test_no_escalation_retries_on_the_same_tier(
    http_client, base_url, origin, proxies, pro_key, hits
):
    response, body = await markdown(
        http_client,
        base_url,
        origin.url("/need/premium"),
        pro_key,
        use_proxy="true",
        retry_escalate="false",
    )
    assert response.code == 400 and body["error"]["code"] == -3003
    assert response.headers["X-BILLING-REQUESTS"] == "0"
    assert hits == Counter({"need:standard": 4})
    assert seen(proxies)["premium"] == 0


@pytest.mark.gen_test(timeout=30)
async def test_max_retries_bounds_the_attempts(
    http_client, base_url, origin, proxies, pro_key, hits
):
    response, body = await markdown(
        http_client, base_url, origin.url("/need/superior"), pro_key, max_retries="2"
    )
    assert response.code == 400 and body["error"]["code"] == -3003
    assert hits == Counter({"need:direct": 1, "need:standard": 1})
    response, body = await markdown(
        http_client,
        base_url,
        origin.url("/need/superior"),
        pro_key,
        retry="false",
        cache_ok="false",
    )
    assert response.code == 400 and hits["need:direct"] == 2 and hits["need:standard"] == 1


@pytest.mark.gen_test(timeout=30)
async def test_forced_tier_credits_and_debug(http_client, base_url, origin, proxies, pro_key, hits):
    response, body = await markdown(
        http_client, base_url, origin.url("/need/premium"), pro_key, use_premium="1"
    )
    assert response.code == 200
    assert body["debug"]["proxy_used"] == "premium" and body["debug"]["retry_used"] is False
    assert body["debug"]["retry_attempts"] == 0
    assert response.headers["X-BILLING-REQUESTS"] == "6"  # 1 + premium add-on 5
    assert hits == Counter({"need:premium": 1})


@pytest.mark.gen_test(timeout=30)
async def test_plan_refuses_premium_and_superior(
    http_client, base_url, origin, proxies, free_key, hits
):
    for flag in ("use_premium", "use_superior"):
        response, body = await markdown(
            http_client, base_url, origin.url("/open"), free_key, **{flag: "true"}
        )
        assert response.code == 403 and body["error"]["code"] == -1001
        assert flag in body["error"]["message"]
    # Escalation for a free key stops at the standard tier.
    response, body = await markdown(http_client, base_url, origin.url("/need/premium"), free_key)
    assert response.code == 400 and body["error"]["code"] == -3003
    assert hits == Counter({"need:direct": 1, "need:standard": 3})
    assert seen(proxies)["premium"] == 0 and seen(proxies)["superior"] == 0
    assert sum(hits.values()) == 4


@pytest.mark.gen_test(timeout=30)
async def test_unconfigured_tier_is_a_clear_400(
    http_client, base_url, origin, services, pro_key, hits
):
    services.pages.proxies._routes["superior"] = []  # as if the operator configured none
    response, body = await markdown(
        http_client, base_url, origin.url("/open"), pro_key, use_superior="true"
    )
    assert response.code == 400 and body["error"]["code"] == -2203
    assert "superior" in body["error"]["message"]
    assert sum(hits.values()) == 0


@pytest.mark.gen_test(timeout=30)
async def test_proxy_country(http_client, base_url, origin, proxies, pro_key, hits):
    # Without a forced tier the country is ignored, with a warning: the page comes direct, or
    # through an escalated tier's own proxies, never the country's.
    response, body = await markdown(
        http_client, base_url, origin.url("/open"), pro_key, proxy_country="de"
    )
    assert response.code == 200 and "Through direct" in body["markdown"], body
    warning = "proxy_country ignored: it applies only with use_proxy=true or use_premium=true"
    assert warning in response.headers["X-Pagecast-Warnings"]
    assert any(w.startswith(warning) for w in body["warnings"])
    response, body = await markdown(
        http_client, base_url, origin.url("/need/standard"), pro_key, proxy_country="de"
    )
    assert response.code == 200 and "Through standard" in body["markdown"], body
    assert "proxy_country ignored" in response.headers["X-Pagecast-Warnings"]
    assert seen(proxies) == {"standard": 1, "premium": 0, "superior": 0, "german": 0}
    response, body = await markdown(
        http_client, base_url, origin.url("/open"), pro_key, proxy_country="d1"
    )
    assert response.code == 400 and "two-letter" in body["error"]["message"]
    response, body = await markdown(
        http_client, base_url, origin.url("/open"), pro_key, use_premium="true", proxy_country="de"
    )
    assert response.code == 400 and "no premium proxy for de" in body["error"]["message"]
    response, body = await markdown(
        http_client,
        base_url,
        origin.url("/open"),
        pro_key,
        use_proxy="true",
        proxy_country="DE",
        cache_ok="false",  # the page fetched direct above is cached
    )
    assert response.code == 200 and "Through german" in body["markdown"]
    assert seen(proxies) == {"standard": 1, "premium": 0, "superior": 0, "german": 1}
    assert "X-Pagecast-Warnings" not in response.headers


@pytest.mark.gen_test(timeout=30)
async def test_rotation_within_a_tier(
    http_client, base_url, origin, services, proxies, pro_key, hits
):
    # Without a country, untagged proxies serve; a tier of two untagged proxies alternates.
    second = proxy_url(*proxies["premium"])
    services.settings.proxies.standard = [proxy_url(*proxies["standard"]), second]
    services.pages.proxies = ProxyPool(services.settings.proxies)
    for _ in range(4):
        response, _ = await markdown(
            http_client, base_url, origin.url("/open"), pro_key, use_proxy="1", cache_ok="0"
        )
        assert response.code == 200
    assert hits == Counter({"open:standard": 2, "open:premium": 2})


@pytest.mark.gen_test(timeout=30)
async def test_learned_strategy_starts_at_the_tier_that_worked(
    http_client, base_url, origin, services, proxies, pro_key, hits
):
    response, _ = await markdown(http_client, base_url, origin.url("/need/premium"), pro_key)
    assert response.code == 200 and hits["need:premium"] == 1
    await services.pages.drain()
    hits.clear()
    response, body = await markdown(
        http_client, base_url, origin.url("/need/premium"), pro_key, cache_ok="false"
    )
    assert response.code == 200 and body["debug"]["retry_used"] is False
    assert hits == Counter({"need:premium": 1})
    # auto_proxy=false ignores what was learned.
    hits.clear()
    response, _ = await markdown(
        http_client,
        base_url,
        origin.url("/need/premium"),
        pro_key,
        cache_ok="false",
        auto_proxy="false",
    )
    assert hits["need:direct"] == 1


@pytest.mark.gen_test(timeout=30)
async def test_domain_table_seeds_auto_proxy(
    http_client, base_url, origin, services, proxies, pro_key, hits
):
    services.settings.proxies.domain_tiers = ["127.0.0.1=superior"]
    services.pages.proxies = ProxyPool(services.settings.proxies)
    response, body = await markdown(http_client, base_url, origin.url("/need/superior"), pro_key)
    assert response.code == 200 and body["debug"]["retry_used"] is False
    assert hits == Counter({"need:superior": 1})


@pytest.mark.gen_test(timeout=30)
async def test_bot_wall_escalates(http_client, base_url, origin, proxies, pro_key, hits):
    response, body = await markdown(http_client, base_url, origin.url("/wall/premium"), pro_key)
    assert response.code == 200 and "Through premium" in body["markdown"]
    assert hits == Counter({"wall:direct": 1, "wall:standard": 1, "wall:premium": 1})
    response, body = await markdown(
        http_client, base_url, origin.url("/wall/nobody"), pro_key, max_retries="2"
    )
    assert response.code == 400 and body["error"]["code"] == -3003


@pytest.mark.gen_test(timeout=30)
async def test_404_is_never_retried(http_client, base_url, origin, proxies, pro_key, hits):
    response, body = await markdown(http_client, base_url, origin.url("/missing"), pro_key)
    assert response.code == 400 and body["error"]["code"] == -3008
    assert hits == Counter({"missing:direct": 1})


@pytest.mark.gen_test(timeout=30)
async def test_wrong_proxy_credentials_escalate(
    http_client, base_url, origin, services, proxies, pro_key, hits
):
    _, stats = proxies["standard"]
    stats.password = "rotated"  # the configured credentials no longer work
    response, body = await markdown(http_client, base_url, origin.url("/need/premium"), pro_key)
    assert response.code == 200 and body["debug"]["proxy_used"] == "premium"
    assert stats.refused == 1 and hits == Counter({"need:direct": 1, "need:premium": 1})


@pytest.mark.gen_test(timeout=30)
async def test_cache_hit_bypass_and_expiry(
    http_client, base_url, origin, services, proxies, pro_key, hits
):
    services.answers = None  # the page cache alone: a kept answer would answer the repeats
    target = origin.url("/need/standard")
    response, body = await markdown(http_client, base_url, target, pro_key, use_proxy="true")
    assert response.headers["X-BILLING-REQUESTS"] == "2" and body["debug"]["cache_hit"] is False
    await services.pages.drain()
    response, body = await markdown(http_client, base_url, target, pro_key, use_proxy="true")
    assert body["debug"]["cache_hit"] is True and body["debug"]["proxy_used"] is None
    assert response.headers["X-BILLING-REQUESTS"] == "1"  # a cache hit costs the base only
    assert hits == Counter({"need:standard": 1})
    response, body = await markdown(
        http_client, base_url, target, pro_key, use_proxy="true", cache_ok="false"
    )
    assert body["debug"]["cache_hit"] is False and hits["need:standard"] == 2
    await services.pages.drain()
    response, body = await markdown(
        http_client, base_url, target, pro_key, use_proxy="true", max_cache_age="0"
    )
    assert body["debug"]["cache_hit"] is False and hits["need:standard"] == 3
    response, body = await markdown(
        http_client, base_url, target, pro_key, use_proxy="true", max_cache_age="60000"
    )
    assert body["debug"]["cache_hit"] is True and hits["need:standard"] == 3
