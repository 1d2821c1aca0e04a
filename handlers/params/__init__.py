"""Parameter tables: one per endpoint, declared once, from which validation (every problem at
once), the typed parameters a handler reads, ``/openapi.json`` and the docs are derived.

- :mod:`~handlers.params.table`: the machinery (:func:`param`, :class:`ParamTable`);
- :mod:`~handlers.params.json_body`: reading a JSON body with a table;
- :mod:`~handlers.params.groups`: how the docs group the Markdown parameters;
- one module per endpoint: :mod:`~handlers.params.markdown`, :mod:`~handlers.params.screenshot`,
  :mod:`~handlers.params.oembed`, :mod:`~handlers.params.site_map`,
  :mod:`~handlers.params.jobs` (batch, crawl, job reads), :mod:`~handlers.params.frames`.
"""
