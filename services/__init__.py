"""Use cases: what the handlers call, between them and the parts below. A service takes a typed
request, builds the options of the parts it orchestrates (``browser`` gets pages, ``convert``
turns them into text without I/O, ``store`` persists) and owns the pools and caches it needs.

- :mod:`services.markdown`, :mod:`services.screenshots`, :mod:`services.embeds` (oEmbed),
  :mod:`services.embeds.frames`, :mod:`services.site_map`, :mod:`services.jobs` (batch and crawl):
  one package or module per endpoint family;
- :mod:`services.accounts`: keys, plans, rate limits, quotas, the price table and charging;
- :mod:`services.fetch_policy`: how a page is fetched (cache, proxy tiers, retries, strategy);
- :mod:`services.health`: readiness; :mod:`services.webhooks`: jobs' events;
- :mod:`services.pool`: the worker processes that run conversions off the IOLoop;
- :mod:`services.target_guard`: the SSRF guard asked before a browser loads a target;
- :mod:`services.memcache`: the one bounded memory cache; :mod:`services.metrics`: metrics;
- :mod:`services.failure`: the one exception a use case raises, and the kinds it carries.
"""
