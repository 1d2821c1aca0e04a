"""Main-content extraction on real pages: Pagecast against trafilatura, on two corpora in one run.

- ``wcxb-dev`` (:mod:`bench.extraction.wcxb_run`): WCXB's development set, 1,497 pages in
  seven types with hand-reviewed main content: word F1 overall and per type, snippets found
  and leaked, and the fidelity of each system's Markdown to the page's reference Markdown
  (tables, code blocks, lists).
- ``trafilatura-eval`` (:mod:`bench.extraction.trafeval_run`): trafilatura's own evaluation
  set, 945 pages, mostly news and blog articles, scored as trafilatura scores it (segment F1,
  boilerplate leaked, readers' comments leaked with comments off and found with them on).

Every page goes through both systems in this process, one after the other, the order
alternating from page to page so that neither always runs on a warm cache; CPU time
(``time.process_time``) is taken around each call. Pagecast: ``convert_page`` with the default
options (main content only); trafilatura: ``extract(output_format="markdown")`` with its
defaults (fallbacks on, tables in), comments as the run asks. Both outputs lose their Markdown
syntax through the same code (``tests.wcxb.markdown_to_text``) before they are scored.

    python -m bench.extraction [--corpus wcxb,trafeval] [--wcxb DIR] [--trafeval DIR]
        [--limit N] [--types article,forum] [--per-page FILE]

trafilatura comes from bench/requirements.txt, for comparison only; Pagecast never imports it.
``python -m bench.extraction.comments_missed`` lists, page by page, the readers' comments of
trafilatura-eval that Pagecast misses, and whether the archived page holds their text at all.
"""
