"""The HTTP layer: thin Tornado handlers, one module per endpoint, each reading its parameter
table (:mod:`handlers.params`), calling one service and shaping the answer. The error kinds and
their one table are :mod:`handlers.errors`; ``/openapi.json`` is :mod:`handlers.openapi`; what
every handler is given is :mod:`handlers.context`. Handlers import the services, the settings
and this package only."""
