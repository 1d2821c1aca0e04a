"""The composition root: what ``server.py`` starts.

- :mod:`app.config`: the settings of every component composed into one
  :class:`~app.config.Settings`, loaded from ``config.toml`` and the environment, and the
  generated file and reference;
- :mod:`app.services`: the parts built once (store, fetcher, farm, pool, caches) and the use
  cases over them, handed to every handler;
- :mod:`app.web`: the three Tornado applications (API, frame host, metrics) and their routes;
- :mod:`app.oneshot`: the one-shot CLI (``server.py markdown URL``...), through the same API;
  :mod:`app.crawl_cli`: ``server.py crawl``, a crawl's pages written to files;
- :mod:`app.admin`: the key and provider-registry commands;
- :mod:`app.effective`: the effective settings with where each value comes from;
- :mod:`app.allocator`: the C allocator made to hand large blocks back.
"""
