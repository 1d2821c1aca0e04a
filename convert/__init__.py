"""Converters: pure functions of (HTML, URL, options), run in a process pool so the IOLoop stays
free. No I/O, no processes, no imports of the floors that fetch, persist, orchestrate or serve.

One package per job, each importing only those listed before it:

- :mod:`convert.text`: string primitives (bounded memos, URL keys, Markdown read as blocks);
- :mod:`convert.html`: the HTML toolkit (parsing, the element walk, CSS, hiding, selectors);
- :mod:`convert.metadata`: title, author, date, image... of a page, rules as data;
- :mod:`convert.extract`: which part of a page is its main content, rules as data;
- :mod:`convert.safety`: the prompt-injection scan;
- :mod:`convert.markdown`: the page pipeline (HTML to Markdown), the renderer, chunks, query
  ranking and structure;
- :mod:`convert.documents`: targets that are not HTML (PDF, plain text, JSON);
- :mod:`convert.embed`: oEmbed providers and answers, embed snippets, hosted frame cards;
- :mod:`convert.crawl`: URL keys, scope, robots.txt, sitemaps and links for map and crawl.
"""
