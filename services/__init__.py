"""Use cases: what the handlers call, between them and the parts below.

A service orchestrates the lower packages (``browser`` gets pages, ``convert`` turns them into
text and pictures without I/O, ``store`` persists) for one use case, and owns the process pool and
the caches it needs:

- :mod:`services.pool`: the worker processes that run conversions off the IOLoop.
"""
