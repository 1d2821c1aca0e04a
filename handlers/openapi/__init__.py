"""``/openapi.json``: the API described from the parameter tables and the error table.

- :mod:`~handlers.openapi.document`: the document and the handler that serves it;
- :mod:`~handlers.openapi.errors`: the error responses of each shape;
- :mod:`~handlers.openapi.frames`, :mod:`~handlers.openapi.jobs`, :mod:`~handlers.openapi.map`:
  the frame management API's, the jobs' and the map's operations and schemas.
"""
