"""Converters: HTML to metadata and Markdown. Pure functions of (html, url, options), run in a
process pool so the IOLoop stays free."""
