"""``/openapi.json``: the API described from the parameter tables and the error table.

- :mod:`~handlers.openapi.document`: the document (with the Markdown endpoint's operations) and
  the handler that serves it;
- :mod:`~handlers.openapi.shared`: the security requirements, shared schemas and the two forms of
  a GET that takes a target URL;
- :mod:`~handlers.openapi.screenshot`, :mod:`~handlers.openapi.oembed`: the screenshot and oEmbed
  endpoints' operations and schemas;
- :mod:`~handlers.openapi.errors`: the error responses of each shape and the common headers,
  each described once under ``components``;
- :mod:`~handlers.openapi.examples`: an example body of every operation's successful answer;
- :mod:`~handlers.openapi.frames`, :mod:`~handlers.openapi.jobs`, :mod:`~handlers.openapi.map`,
  :mod:`~handlers.openapi.health`: the frame management API's, the jobs', the map's and the health
  checks' operations and schemas.
"""
